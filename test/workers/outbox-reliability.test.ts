// Nothing lost (issue 5): bursts of 200 real bookings made through the API (each commits its
// booking.created event in the booking's own transaction), with the worker process SIGKILLed
// mid-burst while deliveries are in flight, with Redis stopped and restarted mid-burst (a
// redis-server of this test's own, not the shared one), and with two worker processes on one
// Redis.
import { spawn, type ChildProcess } from 'node:child_process';
import { createConnection, createServer } from 'node:net';
import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startWorkers } from '../../src/workers/runtime.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { blankCompany, post, salon } from '../helpers/domain.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { FAST_WORKERS, startReceiver, waitFor, type Received, type Receiver } from '../helpers/receiver.js';
import { killAllWorkers, spawnWorker } from '../helpers/worker-process.js';

const hasRedis = Boolean(process.env.REDIS_URL) && process.env.TEST_EMBEDDED !== '1';
const BURST = 200;

/** A sandbox company of its own with an all-day stylist, a free service and one customer. */
async function bookable(t: TestApp) {
  const w = await createAccountWithKeys(t.dbs);
  const { company, auth } = await blankCompany(t.dbs, w);
  const { service } = await salon(t.app, auth, { price: 0 });
  const customer = await post(t.app, '/api/v1/customers', auth, {
    name: 'Burst Customer',
    email: `burst-${company.id}@example.com`,
  });
  return { company, auth, serviceId: service._id as string, customerId: customer._id as string };
}

let nextHour = 0;
/**
 * Books `n` one-hour slots through POST /api/v1/bookings at about `perSecond`, one after the
 * other (each slot an hour after the last, from two days ahead). `created()` counts the
 * bookings committed so far; `done` resolves with their ids.
 */
function bookingBurst(t: TestApp, c: Awaited<ReturnType<typeof bookable>>, n: number, perSecond = 100) {
  const base = (Math.ceil(Date.now() / 3_600_000) + 48) * 3_600_000;
  let created = 0;
  const done = (async () => {
    const ids: string[] = [];
    const started = Date.now();
    for (let i = 0; i < n; i++) {
      const due = started + (i * 1000) / perSecond;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      const startTime = new Date(base + nextHour++ * 3_600_000).toISOString();
      const b = await post(t.app, '/api/v1/bookings', c.auth, {
        serviceId: c.serviceId,
        customerId: c.customerId,
        startTime,
      });
      ids.push(b._id);
      created++;
    }
    return ids;
  })();
  return { done, created: () => created };
}

/** The booking.created events of a company: what its endpoint must receive. */
async function bookingEvents(t: TestApp, companyId: string): Promise<string[]> {
  const rows = await t.dbs.test.prisma.event.findMany({
    where: { companyId, type: 'booking.created' },
    select: { id: true },
  });
  return rows.map((r) => r.id);
}

const idsOf = (rx: Receiver) => rx.received.map((r) => String(r.headers['x-webhook-id']));

/** A receiver that answers after `delayMs`, and knows which requests it has not answered yet. */
async function slowReceiver(delayMs: number, body = 'ok') {
  const inFlight = new Set<string>();
  const rx = await startReceiver((req: Received, res: ServerResponse) => {
    const id = String(req.headers['x-webhook-id']);
    inFlight.add(id);
    setTimeout(() => {
      inFlight.delete(id);
      if (!res.destroyed) res.writeHead(200).end(body);
    }, delayMs);
  });
  return Object.assign(rx, { inFlight });
}

async function endpoint(t: TestApp, auth: Record<string, string>, url: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/webhook-endpoints',
    headers: auth,
    payload: { url, events: ['booking.created'] },
  });
  expect(res.statusCode).toBe(200);
}

describe.skipIf(!hasRedis)('worker processes', () => {
  let t: Awaited<ReturnType<typeof createTestApp>>;
  let childEnv: Record<string, string>;
  beforeAll(async () => {
    t = await createTestApp({ env: { ...FAST_WORKERS, RATE_LIMIT_PER_SECOND: '1000000' } });
    childEnv = {
      ...FAST_WORKERS,
      DATABASE_URL: t.db.url!,
      REDIS_URL: t.config.REDIS_URL!,
      REDIS_PREFIX: t.config.REDIS_PREFIX,
      DATA_DIR: '.data',
    };
  });
  afterEach(() => killAllWorkers());
  afterAll(() => t?.close());

  it('a worker SIGKILLed mid-burst of 200 bookings, deliveries in flight, loses nothing; the next one, sent SIGTERM, finishes its attempt in flight', async () => {
    const c = await bookable(t);
    // Slow answers keep deliveries in flight when the kill lands.
    const rx = await slowReceiver(100);
    await endpoint(t, c.auth, rx.url);
    const first = await spawnWorker(childEnv);
    const burst = bookingBurst(t, c, BURST);
    await waitFor(() => rx.received.length >= 30 && rx.inFlight.size > 0, {
      what: 'the burst to be under way with deliveries in flight',
    });
    first.proc.kill('SIGKILL');
    const inFlight = [...rx.inFlight];
    const createdAtKill = burst.created();
    expect(await first.exited).toBeNull();
    expect(first.proc.signalCode).toBe('SIGKILL');
    // The kill landed mid-burst, with requests sent and not yet answered: the dead worker
    // never recorded them, so their deliveries are still pending.
    expect(createdAtKill).toBeLessThan(BURST);
    expect(inFlight.length).toBeGreaterThan(0);
    const stranded = await t.dbs.test.prisma.webhookDelivery.findMany({ where: { eventId: { in: inFlight } } });
    expect(stranded.map((d) => d.status)).toEqual(inFlight.map(() => 'pending'));
    // Nothing is delivered while no worker runs; the rest of the burst commits meanwhile.
    const deliveredAtKill = new Set(idsOf(rx)).size;
    const bookings = await burst.done;
    expect(bookings).toHaveLength(BURST);
    const ids = await bookingEvents(t, c.company.id);
    expect(ids).toHaveLength(BURST);
    expect(new Set(idsOf(rx)).size).toBe(deliveredAtKill);
    expect(deliveredAtKill).toBeLessThan(BURST);

    const second = await spawnWorker(childEnv);
    await waitFor(() => ids.every((id) => idsOf(rx).includes(id)), {
      timeoutMs: 40_000,
      what: 'every event after the restart',
    });
    expect(new Set(idsOf(rx))).toEqual(new Set(ids));
    // Deliveries the killed process had sent but not recorded are sent again once their lease
    // runs out (at-least-once), and then every delivery is recorded as succeeded.
    await waitFor(
      async () =>
        (await t.dbs.test.prisma.webhookDelivery.count({
          where: { eventId: { in: ids }, status: { not: 'succeeded' } },
        })) === 0,
      {
        timeoutMs: 20_000,
        what: 'every delivery to be recorded',
      },
    );
    for (const id of inFlight) expect(idsOf(rx).filter((x) => x === id).length).toBeGreaterThanOrEqual(2);

    // SIGTERM lets the attempt in flight finish and be recorded, then the process exits 0.
    rx.respond((_r, res) => setTimeout(() => res.writeHead(200).end('slow ok'), 700));
    const before = rx.received.length;
    await bookingBurst(t, c, 1).done;
    await waitFor(() => rx.received.length > before, { what: 'the last request to be in flight' });
    second.proc.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    const lastEvent = (await bookingEvents(t, c.company.id)).find((id) => !ids.includes(id))!;
    const delivery = await t.dbs.test.prisma.webhookDelivery.findFirstOrThrow({
      where: { eventId: lastEvent },
      include: { attempts: true },
    });
    expect(delivery).toMatchObject({ status: 'succeeded', attemptCount: 1 });
    expect(delivery.attempts).toEqual([expect.objectContaining({ statusCode: 200, responseExcerpt: 'slow ok' })]);
    await rx.close();
  }, 60_000);

  it('two worker processes on one Redis deliver every event to every endpoint, without systematic duplicates', async () => {
    const c = await bookable(t);
    const a = await startReceiver();
    const b = await startReceiver();
    await endpoint(t, c.auth, a.url);
    await endpoint(t, c.auth, b.url);
    const [one, two] = await Promise.all([spawnWorker(childEnv), spawnWorker(childEnv)]);
    await bookingBurst(t, c, 150, 200).done;
    const ids = await bookingEvents(t, c.company.id);
    expect(ids).toHaveLength(150);
    await waitFor(() => [a, b].every((rx) => new Set(idsOf(rx)).size === 150), {
      timeoutMs: 30_000,
      what: 'every event at both endpoints',
    });
    for (const rx of [a, b]) {
      expect(new Set(idsOf(rx))).toEqual(new Set(ids));
      // Claims keep a delivery with one process: a duplicate needs a lease to run out.
      expect(rx.received.length - 150).toBeLessThanOrEqual(2);
    }
    one.proc.kill('SIGTERM');
    two.proc.kill('SIGTERM');
    expect(await Promise.all([one.exited, two.exited])).toEqual([0, 0]);
    // Both processes did a share of the work (counted from their logs, flushed at exit).
    expect(one.attempts()).toBeGreaterThan(0);
    expect(two.attempts()).toBeGreaterThan(0);
    expect(one.attempts() + two.attempts()).toBe(a.received.length + b.received.length);
    await Promise.all([a.close(), b.close()]);
  }, 60_000);
});

/**
 * A free port below the kernel's ephemeral range (32768 and up on Linux). The test stops its
 * redis-server and starts it again on the same port; a port from the ephemeral range could be
 * handed meanwhile to another test file's listen(0) or outgoing connection, and the restarted
 * Redis would then fail to bind.
 */
async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    const srv = createServer();
    const ok = await new Promise<boolean>((r) => {
      srv.once('error', () => r(false));
      srv.listen(port, '127.0.0.1', () => r(true));
    });
    if (ok) {
      await new Promise((r) => srv.close(r));
      return port;
    }
  }
}

function portRefuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

async function startRedis(port: number): Promise<ChildProcess> {
  const proc = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  let exited: number | null | undefined;
  proc.once('exit', (code) => (exited = code));
  // Listening means answering PING: a port merely taken could be another process's.
  await waitFor(
    () => {
      if (exited !== undefined) throw new Error(`redis-server on port ${port} exited with ${exited}`);
      return new Promise<boolean>((resolve) => {
        const socket = createConnection({ port, host: '127.0.0.1' });
        socket.once('error', () => resolve(false));
        socket.once('data', (d) => {
          socket.destroy();
          resolve(d.toString().startsWith('+PONG'));
        });
        socket.once('connect', () => socket.write('PING\r\n'));
      });
    },
    { what: 'redis-server to answer PING' },
  );
  return proc;
}

describe.skipIf(!hasRedis)('Redis stopped and restarted mid-burst', () => {
  it('every event of a burst of 200 bookings is delivered once Redis is back; none lost', async () => {
    const port = await freePort();
    let redis = await startRedis(port);
    // The workers' process uses this Redis. The bookings are made through an API instance of
    // its own on the same database without Redis: an API request waits on a dead Redis (rate
    // limits) for seconds, which is not what this test is about.
    const t = await createTestApp({ env: { ...FAST_WORKERS, REDIS_URL: `redis://127.0.0.1:${port}` } });
    const api = await createTestApp({
      db: t.db,
      env: { ...FAST_WORKERS, RATE_LIMIT_PER_SECOND: '1000000', REDIS_URL: undefined },
    });
    expect(t.services.redis).not.toBeNull();
    expect(api.services.redis).toBeNull();
    const c = await bookable(api);
    const rx = await slowReceiver(50);
    await endpoint(api, c.auth, rx.url);
    const workers = await startWorkers(t.services);
    try {
      const burst = bookingBurst(api, c, BURST);
      await waitFor(() => rx.received.length >= 20 && rx.inFlight.size > 0, {
        what: 'the burst to be under way with deliveries in flight',
      });
      redis.kill('SIGKILL');
      await new Promise((r) => redis.once('exit', r));
      const createdAtStop = burst.created();
      // Redis really is gone (its port refuses), mid-burst, with work outstanding.
      expect(await portRefuses(port)).toBe(true);
      expect(createdAtStop).toBeLessThan(BURST);
      // The rest of the burst is committed through the API while Redis is down: the outbox
      // holds the events; the jobs enqueued before the stop died with Redis (no persistence).
      expect(await burst.done).toHaveLength(BURST);
      const ids = await bookingEvents(t, c.company.id);
      expect(ids).toHaveLength(BURST);
      await new Promise((r) => setTimeout(r, 500));
      const deliveredWhileDown = new Set(idsOf(rx)).size;
      expect(deliveredWhileDown).toBeLessThan(BURST);
      redis = await startRedis(port);
      await waitFor(() => ids.every((id) => idsOf(rx).includes(id)), {
        timeoutMs: 40_000,
        what: 'every event after Redis came back',
      });
      expect(new Set(idsOf(rx))).toEqual(new Set(ids));
    } finally {
      await workers.stop();
      await api.close();
      await t.close();
      await rx.close();
      redis.kill('SIGKILL');
    }
  }, 70_000);
});
