// The start's demo (docs/sandbox.md: "it prints ... a sandbox test key") after `svc sandbox wipe`:
// the saved key died with its company, so a later start must not print it. It reports no key
// while the sandbox is empty, and mints a working one on the restored samples.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureDemo } from '../src/demo.js';
import { restoreSampleCompanies } from '../src/schema/companies/restore-sample-companies.js';
import { wipeSandbox } from '../src/schema/sandbox/wipe-sandbox.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { bearer } from './helpers/factories.js';

let t: TestApp;
const dataDir = mkdtempSync(join(tmpdir(), 'svc-demo-'));

beforeAll(async () => {
  t = await createTestApp({ env: { DATA_DIR: dataDir, CREDENTIAL_CACHE_TTL_SECONDS: '300' } });
});
afterAll(async () => {
  await t?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const me = (key: string) => t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(key) });
const saved = () => JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8'));

it('a start after a wipe prints no dead key; after a restore, a new working one', async () => {
  const first = (await ensureDemo(t.services))!;
  expect((await me(first.testKey!)).json().data.name).toBe('Sample Hair Salon');
  expect(await ensureDemo(t.services)).toEqual(first);

  const account = await t.dbs.live.prisma.account.findUniqueOrThrow({ where: { email: first.email } });
  await wipeSandbox(t.dbs, t.services.credentials, { accountId: account.id });
  const afterWipe = (await ensureDemo(t.services))!;
  expect(afterWipe).toEqual({ ...first, testCompanyId: null, testKey: null });
  expect(saved()).toEqual(afterWipe);

  const { testCompanies } = await restoreSampleCompanies(t.dbs, t.services.credentials, { accountId: account.id });
  const afterRestore = (await ensureDemo(t.services))!;
  expect(afterRestore.testCompanyId).toBe(testCompanies[0]!.id);
  expect(afterRestore.testKey).toMatch(/^svc_sk_test_/);
  expect(afterRestore.testKey).not.toBe(first.testKey);
  expect((await me(afterRestore.testKey!)).json().data._id).toBe(testCompanies[0]!.id);
  expect((await me(first.testKey!)).statusCode).toBe(401);
  expect(await ensureDemo(t.services)).toEqual(afterRestore);
});
