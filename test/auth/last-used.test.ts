// docs/api.md: lastUsedAt is kept without a database write per request. The resolver notes uses
// in memory and writes them in one statement per flush (src/auth/credentials.ts).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;

beforeAll(async () => {
  t = await createTestApp();
  w = await createAccountWithKeys(t.dbs);
});
afterAll(async () => {
  await t?.close();
});

const lastUsed = async (mode: 'live' | 'test', id: string) =>
  (await t.dbs.forMode(mode).apiKey.findUniqueOrThrow({ where: { id } })).lastUsedAt;

it('records the latest use of each key at the flush, not before, in its own mode', async () => {
  expect(await lastUsed('live', w.liveKey.apiKey.id)).toBeNull();
  const before = Date.now();
  for (let i = 0; i < 3; i++) {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(w.liveKey.key) });
    expect(res.statusCode).toBe(200);
  }
  await new Promise((r) => setTimeout(r, 5));
  const lastRequest = Date.now();
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(w.testKey.key) });
  expect(res.statusCode).toBe(200);
  // Nothing written per request.
  expect(await lastUsed('live', w.liveKey.apiKey.id)).toBeNull();

  await t.services.credentials.flushLastUsed();
  const live = await lastUsed('live', w.liveKey.apiKey.id);
  const test = await lastUsed('test', w.testKey.apiKey.id);
  expect(live!.getTime()).toBeGreaterThanOrEqual(before);
  expect(live!.getTime()).toBeLessThan(lastRequest);
  expect(test!.getTime()).toBeGreaterThanOrEqual(lastRequest);

  // Another use after the flush moves it forward at the next flush.
  await new Promise((r) => setTimeout(r, 5));
  await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(w.liveKey.key) });
  await t.services.credentials.flushLastUsed();
  expect((await lastUsed('live', w.liveKey.apiKey.id))!.getTime()).toBeGreaterThan(live!.getTime());
});
