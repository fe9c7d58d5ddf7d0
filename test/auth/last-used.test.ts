// docs/api.md: lastUsedAt is kept without a database write per request. The resolver notes uses
// in memory and writes them in one statement per flush (src/auth/credentials.ts).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { embedded } from '../helpers/db.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';
import { waitFor } from '../helpers/receiver.js';

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

// Needs real PostgreSQL: PGlite serves one connection at a time, so nothing waits on a lock there.
it.skipIf(embedded())('a flush that finds nothing pending still waits for the write already under way', async () => {
  // The timer's flush has taken the pending uses and its write is held up (here by a row lock
  // taken from outside): a caller's flush must not resolve before that write is in.
  const k = await createAccountWithKeys(t.dbs);
  expect((await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(k.liveKey.key) })).statusCode).toBe(
    200,
  );
  let locked = false;
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const holder = t.dbs.live.prisma.$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT id FROM api_keys WHERE id = ${k.liveKey.apiKey.id} FOR UPDATE`;
      locked = true;
      await released;
    },
    { timeout: 20_000 },
  );
  await waitFor(() => locked, { what: 'the key row locked' });
  const underWay = t.services.credentials.flushLastUsed(); // as the timer would
  await waitFor(
    async () => {
      const [row] = await t.dbs.live.prisma.$queryRaw<[{ n: number }]>`
        SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
      return row.n >= 1;
    },
    { what: "the timer's write waiting on the lock" },
  );
  let callerDone = false;
  const caller = t.services.credentials.flushLastUsed().then(() => (callerDone = true));
  // The lock is still held: the caller's flush is still waiting for the write under way.
  expect(await t.dbs.live.prisma.apiKey.count({ where: { id: k.liveKey.apiKey.id } })).toBe(1);
  expect(callerDone).toBe(false);
  release();
  await holder;
  await caller;
  expect(await lastUsed('live', k.liveKey.apiKey.id)).not.toBeNull();
  await underWay;
});
