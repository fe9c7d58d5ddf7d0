// The service behind a real PgBouncer 1.18 in transaction mode (DATABASE_POOLER=transaction,
// docs/scaling.md): one pooler alias per mode whose connect_query picks the schema, LISTEN and
// migrations on DIRECT_DATABASE_URL. Real flows through it: API keys, bookings in both modes,
// the double-booking race, idempotent replay, and a webhook the workers deliver after the
// outbox relay was woken by NOTIFY (the poll interval is a minute, longer than the test).
// Needs PostgreSQL and pgbouncer (installed with apt-get when missing, as root); skipped
// otherwise, saying why.
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createServices, type Services } from '../../src/services.js';
import { startWorkers, type Workers } from '../../src/workers/runtime.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabases, embedded, type TestDatabases } from '../helpers/db.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';
import { futureHour, ok, salon, type World } from '../helpers/domain.js';
import { ensurePgBouncer, startPgBouncer, type PgBouncer } from '../helpers/pgbouncer.js';
import { FAST_WORKERS, startReceiver, waitFor, type Receiver } from '../helpers/receiver.js';

const found = embedded() ? { missing: 'needs PostgreSQL (DATABASE_URL)' } : ensurePgBouncer();
const why = 'missing' in found ? ` (skipped: ${found.missing})` : '';

let db: TestDatabases;
let bouncer: PgBouncer;
let services: Services;
let app: FastifyInstance;
let workers: Workers;
let rx: Receiver;
let w: World;

/** Rows of a table in one schema, read on a direct connection (not through the pooler). */
async function countIn(schema: string, table: string, companyId: string): Promise<number> {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    const r = await c.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}"."${table}" WHERE company_id = $1`, [
      companyId,
    ]);
    return Number(r.rows[0]!.n);
  } finally {
    await c.end();
  }
}

const book = (auth: Record<string, string>, body: object, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: '/api/v1/bookings', headers: { ...auth, ...headers }, payload: body });

describe.skipIf('missing' in found)(`behind PgBouncer in transaction mode${why}`, () => {
  beforeAll(async () => {
    db = await createTestDatabases();
    bouncer = await startPgBouncer((found as { binary: string }).binary, db.url!, {
      svc_live: { searchPath: 'public' },
      svc_sandbox: { searchPath: 'sandbox, public' },
    });
    const config = testConfig({
      DATABASE_URL: bouncer.url('svc_live'),
      SANDBOX_DATABASE_URL: bouncer.url('svc_sandbox'),
      DIRECT_DATABASE_URL: db.url,
      DATABASE_POOLER: 'transaction',
      RATE_LIMIT_PER_SECOND: '1000000',
      // Waits in the pooler's queue count against these; a loaded CI machine must not turn them into 503s.
      DATABASE_POOL_TIMEOUT_MS: '30000',
      DATABASE_QUERY_TIMEOUT_MS: '30000',
      ...FAST_WORKERS,
      // Only NOTIFY, heard on the direct LISTEN connection, can wake the relay within the test.
      WORKER_POLL_MS: '60000',
    });
    services = await createServices(config, { migrate: true });
    app = await buildApp(services);
    await app.ready();
    workers = await startWorkers(services);
    w = await createAccountWithKeys(services.dbs);
    rx = await startReceiver();
  }, 60_000);
  afterAll(async () => {
    await workers?.stop();
    await app?.close();
    await services?.close();
    await rx?.close();
    await bouncer?.stop();
    await db?.drop();
  });

  it('the pools of both modes are clients of the pooler', async () => {
    const c = new pg.Client({ connectionString: bouncer.url('pgbouncer') });
    await c.connect();
    try {
      // The admin console: the app's client connections are on both aliases.
      const { rows } = await c.query<{ database: string; cl_active: string; cl_waiting: string }>('SHOW CLIENTS');
      const dbs = new Set(rows.map((r) => r.database));
      expect(dbs).toContain('svc_live');
      expect(dbs).toContain('svc_sandbox');
    } finally {
      await c.end();
    }
  });

  it('refuses a configuration without a direct URL or a sandbox alias', () => {
    const base = { DATABASE_POOLER: 'transaction', DATABASE_URL: bouncer.url('svc_live') };
    expect(() => loadConfig({ ...base, DIRECT_DATABASE_URL: db.url })).toThrow(/SANDBOX_DATABASE_URL/);
    expect(() => loadConfig({ ...base, SANDBOX_DATABASE_URL: bouncer.url('svc_sandbox') })).toThrow(
      /DIRECT_DATABASE_URL/,
    );
  });

  it('authenticates API keys of both modes and refuses a wrong one', async () => {
    for (const [key, mode] of [
      [w.liveKey.key, 'live'],
      [w.testKey.key, 'test'],
    ] as const) {
      const res = await app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(key) });
      expect(res.statusCode).toBe(200);
      expect(res.json().data.mode).toBe(mode);
    }
    const bad = await app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(`${w.liveKey.key}x`) });
    expect(bad.statusCode).toBe(401);
  });

  it('interleaved live and sandbox work each reads and writes its own schema', async () => {
    const live = bearer(w.liveKey.key);
    const sandbox = bearer(w.testKey.key);
    const [ls, ts] = [await salon(app, live), await salon(app, sandbox)];
    // The sandbox company is the sample salon: it already holds its sample visit (docs/sandbox.md).
    const samples = (await services.dbs.test.prisma.booking.findMany({ where: { companyId: w.test.id } })).map(
      (b) => b.id,
    );
    expect(samples).toHaveLength(2);
    // Raw SQL (current_schema) and Prisma queries, both modes at once, more than the pooler
    // has server connections per alias: each answer must come from its own mode's schema.
    const schemas = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        (i % 2 ? services.dbs.test : services.dbs.live).prisma
          .$queryRawUnsafe<{ s: string }[]>('SELECT current_schema() AS s')
          .then((r) => [i % 2 ? 'sandbox' : 'public', r[0]!.s]),
      ),
    );
    for (const [want, got] of schemas) expect(got).toBe(want);
    const created = await Promise.all(
      Array.from({ length: 8 }, (_, i) => {
        const [auth, s] = i % 2 ? [sandbox, ts] : [live, ls];
        return book(auth, {
          serviceId: s.service._id,
          startTime: futureHour(2, 6 + i),
          customer: { name: `C${i}`, email: `c${i}@example.com` },
        }).then((r) => ({ mode: i % 2 ? 'test' : 'live', id: ok(r)._id as string }));
      }),
    );
    const [liveList, testList] = await Promise.all(
      [live, sandbox].map(async (auth) =>
        ok(await app.inject({ method: 'GET', url: '/api/v1/bookings?limit=100', headers: auth })),
      ),
    );
    const ids = (l: unknown) => (l as { _id: string }[]).map((b) => b._id).sort();
    expect(ids(liveList)).toEqual(
      created
        .filter((c) => c.mode === 'live')
        .map((c) => c.id)
        .sort(),
    );
    expect(ids(testList)).toEqual([...samples, ...created.filter((c) => c.mode === 'test').map((c) => c.id)].sort());
    // A from/to window reads its page's ids by raw SQL (bookingIdsOfPage), on the mode's own
    // pooler alias: each mode finds its own bookings of the window, and only them.
    const [from, to] = [futureHour(2, 6), futureHour(2, 14)];
    for (const [auth, mode] of [
      [live, 'live'],
      [sandbox, 'test'],
    ] as const) {
      const page = ok(
        await app.inject({
          method: 'GET',
          url: `/api/v1/bookings?limit=100&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`,
          headers: auth,
        }),
      ) as Array<{ _id: string; startTime: string }>;
      expect(ids(page)).toEqual(expect.arrayContaining(created.filter((c) => c.mode === mode).map((c) => c.id)));
      expect(ids(page).filter((id) => created.some((c) => c.id === id && c.mode !== mode))).toEqual([]);
      for (const b of page) {
        const at = Date.parse(b.startTime);
        expect(at >= Date.parse(from) && at < Date.parse(to), b.startTime).toBe(true);
      }
    }
    // Read directly: the rows (and their outbox events, written by raw SQL) are in their schema.
    expect(await countIn('public', 'bookings', w.live.id)).toBe(4);
    expect(await countIn('sandbox', 'bookings', w.test.id)).toBe(4 + samples.length);
    expect(await countIn('sandbox', 'bookings', w.live.id)).toBe(0);
    expect(await countIn('public', 'bookings', w.test.id)).toBe(0);
    expect(await countIn('public', 'events', w.live.id)).toBeGreaterThanOrEqual(4);
    expect(await countIn('public', 'events', w.test.id)).toBe(0);
  });

  it("request logs are copied in through the pooler, each mode's into its own schema", async () => {
    await app.requestLogs!.flush();
    const before = [
      await countIn('public', 'request_logs', w.live.id),
      await countIn('sandbox', 'request_logs', w.test.id),
    ];
    for (const key of [w.liveKey.key, w.testKey.key, w.liveKey.key])
      expect((await app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(key) })).statusCode).toBe(200);
    expect(await app.requestLogs!.flush()).toEqual({ statements: 2, written: 3, failed: 0 });
    expect(await countIn('public', 'request_logs', w.live.id)).toBe(before[0]! + 2);
    expect(await countIn('sandbox', 'request_logs', w.test.id)).toBe(before[1]! + 1);
    expect(await countIn('sandbox', 'request_logs', w.live.id)).toBe(0);
    expect(await countIn('public', 'request_logs', w.test.id)).toBe(0);
  });

  it('20 concurrent requests for one slot: exactly one booking', async () => {
    const auth = bearer(w.testKey.key);
    const { employee, service } = await salon(app, auth);
    const startTime = futureHour(4);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        book(auth, {
          serviceId: service._id,
          employeeId: employee._id,
          startTime,
          customer: { name: `R${i}`, email: `r${i}@example.com` },
        }),
      ),
    );
    const codes: Record<string, number> = {};
    for (const r of results) {
      const k = r.statusCode === 200 ? '200' : `${r.statusCode} ${r.json().error.code}`;
      codes[k] = (codes[k] ?? 0) + 1;
    }
    expect(codes).toEqual({ '200': 1, '409 SLOT_UNAVAILABLE': 19 });
  });

  it('replays an idempotent request and books once', async () => {
    const auth = bearer(w.liveKey.key);
    const { service } = await salon(app, auth);
    const body = {
      serviceId: service._id,
      startTime: futureHour(5),
      customer: { name: 'Ann', email: 'a@example.com' },
    };
    const headers = { 'idempotency-key': 'pgbouncer-1' };
    const first = await book(auth, body, headers);
    const second = await book(auth, body, headers);
    expect(first.statusCode).toBe(200);
    expect(second.statusCode).toBe(200);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toBe(first.body);
  });

  it('delivers a webhook: the outbox relay is woken by NOTIFY on its direct LISTEN connection', async () => {
    const auth = bearer(w.testKey.key);
    ok(
      await app.inject({
        method: 'POST',
        url: '/api/v1/webhook-endpoints',
        headers: auth,
        payload: { url: rx.url, events: ['booking.created'] },
      }),
    );
    const { service } = await salon(app, auth);
    const booking = ok(
      await book(auth, {
        serviceId: service._id,
        startTime: futureHour(6),
        customer: { name: 'W', email: 'w@example.com' },
      }),
    );
    const got = await waitFor(() => rx.received.find((r) => r.body.includes(booking._id as string)), {
      what: 'the booking.created delivery',
      timeoutMs: 20_000,
    });
    expect(JSON.parse(got.body).event).toBe('booking.created');
  });
});
