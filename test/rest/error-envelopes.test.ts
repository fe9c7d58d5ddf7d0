// The error envelope of docs/api.md for the classes a client must handle besides 400/401/404
// (test/rest/v1/me.test.ts): each forced through a real path and compared whole, headers
// included. Errors a resolver throws go through the same table as every other error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabases } from '../../src/db/databases.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabases, embedded } from '../helpers/db.js';
import { bearer, createAccountWithKeys, unique } from '../helpers/factories.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;

beforeAll(async () => {
  t = await createTestApp();
  w = await createAccountWithKeys(t.dbs);
});
afterAll(async () => {
  await t?.close();
});

type Res = { statusCode: number; json(): any; headers: Record<string, unknown>; body: string };

/** The whole error envelope: exactly these fields, with a fresh timestamp and the request id. */
function expectEnvelope(res: Res, status: number, error: Record<string, unknown>) {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json();
  expect(body).toEqual({
    status: false,
    error,
    meta: { timestamp: expect.any(Number), requestId: res.headers['x-request-id'] },
  });
  expect(body.meta.requestId).toMatch(/^req_[0-9a-f]{24}$/);
  expect(Number.isInteger(body.meta.timestamp)).toBe(true);
  expect(Math.abs(body.meta.timestamp - Date.now())).toBeLessThan(60_000);
  return body;
}

describe('403', () => {
  it('FORBIDDEN: a live key on a sandbox-only endpoint', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/emails', headers: bearer(w.liveKey.key) });
    expectEnvelope(res, 403, {
      code: 'FORBIDDEN',
      message: 'The e-mail log exists for sandbox (test) companies only; live e-mail is sent, not logged',
    });
  });
  // INSUFFICIENT_SCOPE (the GET /me case) is in test/rest/v1/me.test.ts.
});

describe('409', () => {
  it('IDEMPOTENCY_KEY_REUSED: the same Idempotency-Key with another body', async () => {
    const key = `idem-${unique()}`;
    const post = (name: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/customers',
        headers: { ...bearer(w.testKey.key), 'idempotency-key': key },
        payload: { name, email: `${name.toLowerCase()}-${key}@example.com` },
      });
    expect((await post('Ada')).statusCode).toBe(200);
    const res = await post('Grace');
    expectEnvelope(res, 409, {
      code: 'IDEMPOTENCY_KEY_REUSED',
      message: 'This Idempotency-Key was used with a different request; use a new key for a new request',
    });
  });

  it('CONFLICT: a customer e-mail already taken in the company', async () => {
    const email = `taken-${unique()}@example.com`;
    const post = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/customers',
        headers: bearer(w.testKey.key),
        payload: { name: 'Ada', email },
      });
    expect((await post()).statusCode).toBe(200);
    const res = await post();
    expectEnvelope(res, 409, {
      code: 'CONFLICT',
      message: 'A customer with this e-mail already exists in this company',
      details: { field: 'email', value: email },
    });
  });
});

describe('errors thrown inside a GraphQL resolver go through the one error table', () => {
  it('a record gone under a cached credential (Prisma P2025) is 404 NOT_FOUND, not a 500', async () => {
    const k = await createAccountWithKeys(t.dbs);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(k.liveKey.key) })).statusCode).toBe(
      200,
    );
    // Deleted behind the cache's back (as by another instance whose message was lost).
    await t.dbs.live.prisma.company.delete({ where: { id: k.live.id } });
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/me',
      headers: bearer(k.liveKey.key),
      payload: { name: 'Ghost' },
    });
    expectEnvelope(res, 404, { code: 'NOT_FOUND', message: 'No such record' });
  });

  it("an unexpected failure is 500 INTERNAL_ERROR without internals (a table dropped in this test's own database)", async () => {
    const own = await createTestApp();
    try {
      const k = await createAccountWithKeys(own.dbs);
      await own.dbs.live.withSession((s) => s.query(`DROP TABLE "${own.dbs.live.schema}"."customers" CASCADE`));
      const res = await own.app.inject({ method: 'GET', url: '/api/v1/customers', headers: bearer(k.liveKey.key) });
      expectEnvelope(res, 500, { code: 'INTERNAL_ERROR', message: 'Something went wrong on our side; retry later' });
      expect(res.body).not.toMatch(/customers|prisma|relation|does not exist|P20\d\d|stack|at \//i);
      expect(res.headers['retry-after']).toBeUndefined();
    } finally {
      await own.close();
    }
  });

  // PostgreSQL only: the app's database connection runs through a TCP relay that the test cuts.
  it.skipIf(embedded())(
    'a database outage after authentication is 503 SERVICE_UNAVAILABLE with Retry-After',
    async () => {
      const db = await createTestDatabases();
      const url = new URL(db.url!);
      const proxy = await startTcpProxy(url);
      url.port = String(proxy.port);
      const dbs = await openDatabases({
        DATABASE_URL: url.toString(),
        SANDBOX_SCHEMA: 'sandbox',
        DATABASE_POOL_SIZE: 2,
        DATA_DIR: '.data',
      });
      const down = await createTestApp({
        db: { dbs, url: url.toString(), drop: async () => undefined },
        env: { CREDENTIAL_CACHE_TTL_SECONDS: '300' },
      });
      try {
        const k = await createAccountWithKeys(db.dbs);
        // The credential is resolved and cached while the database is there...
        expect(
          (await down.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(k.liveKey.key) })).statusCode,
        ).toBe(200);
        await proxy.close();
        // ...so the outage meets the operation's resolver, not the authentication.
        for (const request of [
          { method: 'GET' as const, url: '/api/v1/customers' },
          { method: 'PATCH' as const, url: '/api/v1/me', payload: { name: 'Unreachable' } },
        ]) {
          const res = await down.app.inject({ ...request, headers: bearer(k.liveKey.key) });
          expectEnvelope(res, 503, {
            code: 'SERVICE_UNAVAILABLE',
            message: 'A service we depend on is unavailable; retry shortly',
          });
          expect(res.headers['retry-after']).toBe('5');
          expect(res.body).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|terminated|prisma/i);
        }
      } finally {
        await down.close();
        await dbs.close();
        await proxy.close().catch(() => undefined);
        await db.drop();
      }
    },
  );
});
