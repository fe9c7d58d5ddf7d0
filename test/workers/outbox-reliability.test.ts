// Nothing lost (issue 5): bursts of 200 events, with the worker process SIGKILLed mid-burst,
// with Redis stopped and restarted mid-burst (a redis-server of this test's own, not the
// shared one), and with two worker processes on one Redis. Events are written with
// recordEvent in their own transactions, as the booking use cases write them.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/schema/events.js';
import { startWorkers } from '../../src/workers/runtime.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';
import { FAST_WORKERS, startReceiver, waitFor, type Receiver } from './receiver.js';
import { killAllWorkers, spawnWorker } from './worker-process.js';

const hasRedis = Boolean(process.env.REDIS_URL) && process.env.TEST_EMBEDDED !== '1';

async function emitBurst(t: TestApp, companyId: string, n: number, tag: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 25) {
    const chunk = await Promise.all(
      Array.from({ length: Math.min(25, n - i) }, (_, j) =>
        t.dbs.test.prisma.$transaction((tx) => recordEvent(tx, { companyId, type: 'booking.created', data: { bookingId: `${tag}-${i + j}`, status: 'confirmed' } })),
      ),
    );
    ids.push(...chunk.map((e) => e.id));
  }
  return ids;
}

const idsOf = (rx: Receiver) => rx.received.map((r) => String(r.headers['x-webhook-id']));

async function setup(env: Record<string, string> = {}) {
  const t = await createTestApp({ env: { ...FAST_WORKERS, ...env } });
  const w = await createAccountWithKeys(t.dbs);
  return { t, w };
}

async function endpoint(t: TestApp, key: string, url: string) {
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/webhook-endpoints', headers: bearer(key), payload: { url, events: ['booking.created'] } });
  expect(res.statusCode).toBe(200);
}

describe.skipIf(!hasRedis)('worker processes', () => {
  let t: Awaited<ReturnType<typeof createTestApp>>;
  let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
  let childEnv: Record<string, string>;
  beforeAll(async () => {
    ({ t, w } = await setup());
    childEnv = { ...FAST_WORKERS, DATABASE_URL: t.db.url!, REDIS_URL: t.config.REDIS_URL!, REDIS_PREFIX: t.config.REDIS_PREFIX, DATA_DIR: '.data' };
  });
  afterEach(() => killAllWorkers());
  afterAll(() => t?.close());

  it('a worker SIGKILLed mid-burst of 200 loses nothing; the next one, sent SIGTERM, finishes its attempt in flight', async () => {
    // A slowish receiver keeps deliveries in flight when the kill lands.
    const rx = await startReceiver((_r, res) => setTimeout(() => res.writeHead(200).end('ok'), 15));
    await endpoint(t, w.testKey.key, rx.url);
    const first = await spawnWorker(childEnv);
    const ids = await emitBurst(t, w.test.id, 100, 'kill-a');
    await waitFor(() => rx.received.length >= 30, { what: 'the burst to be under way' });
    first.proc.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    const delivered = new Set(idsOf(rx)).size;
    expect(delivered).toBeLessThan(200);
    // The rest of the burst is committed while no worker runs at all.
    ids.push(...(await emitBurst(t, w.test.id, 100, 'kill-b')));
    const second = await spawnWorker(childEnv);
    await waitFor(() => ids.every((id) => idsOf(rx).includes(id)), { timeoutMs: 40_000, what: 'every event after the restart' }).catch(async (e) => {
      const missing = ids.filter((id) => !idsOf(rx).includes(id));
      console.log('missing', missing.length, await t.dbs.test.prisma.webhookDelivery.findMany({ where: { eventId: { in: missing.slice(0, 5) } } }), await t.dbs.test.prisma.event.findMany({ where: { id: { in: missing.slice(0, 3) } } }), new Date(), second.log.slice(-15).join('\n'));
      throw e;
    });
    expect(new Set(idsOf(rx))).toEqual(new Set(ids));
    // Deliveries the killed process had sent but not recorded are sent again once their lease
    // runs out (at-least-once), and then every delivery is recorded as succeeded.
    await waitFor(async () => (await t.dbs.test.prisma.webhookDelivery.count({ where: { status: { not: 'succeeded' } } })) === 0, {
      timeoutMs: 20_000,
      what: 'every delivery to be recorded',
    });

    // SIGTERM lets the attempt in flight finish and be recorded, then the process exits 0.
    rx.respond((_r, res) => setTimeout(() => res.writeHead(200).end('slow ok'), 700));
    const before = rx.received.length;
    const [last] = await emitBurst(t, w.test.id, 1, 'term');
    await waitFor(() => rx.received.length > before, { what: 'the last request to be in flight' });
    second.proc.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    const delivery = await t.dbs.test.prisma.webhookDelivery.findFirstOrThrow({ where: { eventId: last }, include: { attempts: true } });
    expect(delivery).toMatchObject({ status: 'succeeded', attemptCount: 1 });
    expect(delivery.attempts).toEqual([expect.objectContaining({ statusCode: 200, responseExcerpt: 'slow ok' })]);
    await rx.close();
  }, 60_000);

  it('two worker processes on one Redis deliver every event to every endpoint, without systematic duplicates', async () => {
    await t.dbs.test.prisma.webhookEndpoint.deleteMany({});
    const a = await startReceiver();
    const b = await startReceiver();
    await endpoint(t, w.testKey.key, a.url);
    await endpoint(t, w.testKey.key, b.url);
    const [one, two] = await Promise.all([spawnWorker(childEnv), spawnWorker(childEnv)]);
    const ids = await emitBurst(t, w.test.id, 150, 'two');
    await waitFor(() => [a, b].every((rx) => new Set(idsOf(rx)).size === 150), { timeoutMs: 30_000, what: 'every event at both endpoints' });
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

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

async function startRedis(port: number): Promise<ChildProcess> {
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  await waitFor(
    () =>
      new Promise<boolean>((resolve) => {
        const s = createServer();
        s.once('error', () => resolve(true)); // the port is taken: redis is listening
        s.listen(port, '127.0.0.1', () => s.close(() => resolve(false)));
      }),
    { what: 'redis-server to listen' },
  );
  return proc;
}

describe.skipIf(!hasRedis)('Redis stopped and restarted mid-burst', () => {
  it('every event is delivered once Redis is back; none lost', async () => {
    const port = await freePort();
    let redis = await startRedis(port);
    const { t, w } = await setup({ REDIS_URL: `redis://127.0.0.1:${port}` });
    const rx = await startReceiver((_r, res) => setTimeout(() => res.writeHead(200).end(), 10));
    await endpoint(t, w.testKey.key, rx.url);
    const workers = await startWorkers(t.services);
    try {
      const ids = await emitBurst(t, w.test.id, 100, 'redis-a');
      await waitFor(() => rx.received.length >= 20, { what: 'the burst to be under way' });
      redis.kill('SIGKILL');
      await new Promise((r) => redis.once('exit', r));
      // Committed while Redis is down: the outbox holds them.
      ids.push(...(await emitBurst(t, w.test.id, 100, 'redis-b')));
      await new Promise((r) => setTimeout(r, 500));
      redis = await startRedis(port);
      await waitFor(() => ids.every((id) => idsOf(rx).includes(id)), { timeoutMs: 40_000, what: 'every event after Redis came back' });
      expect(new Set(idsOf(rx))).toEqual(new Set(ids));
    } finally {
      await workers.stop();
      await t.close();
      await rx.close();
      redis.kill('SIGKILL');
    }
  }, 70_000);
});
