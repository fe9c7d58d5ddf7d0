// The embedded start's demo account (issue 2 point 12): its password and sandbox key are kept
// beside the data readable by the owner only, and a production process neither creates nor
// prints one (a demo login in a production log would be a way in).
import { chmodSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureDemo } from '../src/demo.js';
import { injectSignIn } from './admin/admin-helpers.js';
import { createTestApp, TEST_SECRET_KEY } from './helpers/app.js';
import { tempDir } from './helpers/server-process.js';

const dirs: Array<{ remove(): void }> = [];
afterAll(() => dirs.forEach((d) => d.remove()));

const mode = (file: string) => statSync(file).mode & 0o777;

describe('ensureDemo', () => {
  it('development: creates the demo and keeps its credentials in a 0600 file, also one left readable before', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const t = await createTestApp({ env: { NODE_ENV: 'development', DATA_DIR: dir.path } });
    try {
      const demo = await ensureDemo(t.services);
      expect(demo).toMatchObject({
        email: 'demo@example.com',
        password: expect.any(String),
        testKey: expect.stringMatching(/^svc_sk_test_/),
      });
      const file = join(dir.path, 'demo-credentials.json');
      expect(mode(file)).toBe(0o600);
      // A file an older version (or a copy) left world-readable is tightened on the next start.
      chmodSync(file, 0o644);
      expect((await ensureDemo(t.services))?.password).toBe(demo!.password);
      expect(mode(file)).toBe(0o600);
    } finally {
      await t.close();
    }
  });

  it('the first login lands on the sample salon in test mode, a week of bookings around today', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const t = await createTestApp({ env: { NODE_ENV: 'development', DATA_DIR: dir.path } });
    try {
      const demo = (await ensureDemo(t.services))!;
      const cookies = { svc_session: await injectSignIn(t.app, demo) };
      const home = await t.app.inject({ method: 'GET', url: '/admin', cookies });
      expect(home.statusCode).toBe(303);
      expect(home.headers.location).toBe(`/admin/test/companies/${demo.testCompanyId}/overview`);
      const salon = await t.dbs.test.prisma.company.findUniqueOrThrow({ where: { id: demo.testCompanyId! } });
      expect(salon).toMatchObject({ template: 'hair_salon', mode: 'test', testClockId: null });
      const first = await t.app.inject({ method: 'GET', url: home.headers.location, cookies });
      expect(first.statusCode, String(first.headers.location)).toBe(200);
      expect(first.body).toContain('Sample Hair Salon');
      // Its calendar's week and its payments show a business at work.
      const base = `/admin/test/companies/${demo.testCompanyId}`;
      const week = await t.app.inject({ method: 'GET', url: `${base}/calendar?view=week`, cookies });
      expect(week.statusCode).toBe(200);
      const booked = new Set(week.body.match(/\/bookings\/[0-9a-f]{24}/g));
      expect(booked.size).toBeGreaterThanOrEqual(3);
      const payments = await t.app.inject({ method: 'GET', url: `${base}/payments`, cookies });
      expect(payments.statusCode).toBe(200);
      for (const word of ['Succeeded', 'Refunded']) expect(payments.body, word).toContain(word);
      // The live company has not begun: it says in words how to, with no API path.
      const live = await t.app.inject({
        method: 'GET',
        url: `/admin/live/companies/${demo.liveCompanyId}/overview`,
        cookies,
      });
      expect(live.statusCode).toBe(200);
      expect(live.body).toContain('How to begin');
      expect(live.body).not.toMatch(/\/api\/v1\//);
    } finally {
      await t.close();
    }
  }, 120_000);

  it('production: no demo account, no credentials file, nothing to print', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const t = await createTestApp({
      env: { NODE_ENV: 'production', SECRET_KEY: TEST_SECRET_KEY, DATA_DIR: dir.path, SEED_DEMO: '1' },
    });
    try {
      expect(t.config.SEED_DEMO).toBe(true);
      expect(await ensureDemo(t.services)).toBeNull();
      expect(await t.dbs.live.prisma.account.count()).toBe(0);
      expect(existsSync(join(dir.path, 'demo-credentials.json'))).toBe(false);
    } finally {
      await t.close();
    }
  });
});
