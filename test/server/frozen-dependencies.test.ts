// A dependency that stops answering without going away: a PostgreSQL or Redis process that is
// stopped (SIGSTOP) keeps its sockets open and its kernel accepts connections, so nothing
// fails, it only never answers. A request that needs it is a quick 503 SERVICE_UNAVAILABLE
// with Retry-After (or, for Redis, is served without it), and the same process serves again
// once the dependency continues, without a restart. PostgreSQL is frozen through the TCP
// relay in front of this file's own database (never the shared server), Redis is a private
// redis-server that is stopped and continued for real.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabases, type Databases } from '../../src/db/databases.js';
import { createLogger } from '../../src/logger.js';
import { startWorkers, type Workers } from '../../src/workers/runtime.js';
import { createTestApp, redisUrl, type TestApp } from '../helpers/app.js';
import { createTestDatabases, embedded, type TestDatabases } from '../helpers/db.js';
import { bearer, createAccountWithKeys, unique } from '../helpers/factories.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { FAST_WORKERS, startReceiver, waitFor, type Receiver } from '../helpers/receiver.js';

type World = Awaited<ReturnType<typeof createAccountWithKeys>>;
type Answer = Awaited<ReturnType<TestApp['app']['inject']>>;

function expectUnavailable(res: Answer, what: string) {
  expect(res.statusCode, `${what}: ${res.body}`).toBe(503);
  expect(res.headers['retry-after'], what).toMatch(/^\d+$/);
  expect(res.json(), what).toEqual({
    status: false,
    error: { code: 'SERVICE_UNAVAILABLE', message: expect.any(String) },
    meta: { timestamp: expect.any(Number), requestId: expect.any(String) },
  });
  // The driver's words (timeouts, hosts) stay in the log.
  expect(res.body, what).not.toMatch(/timeout|127\.0\.0\.1|postgres|prisma/i);
}

describe.skipIf(embedded())('a frozen PostgreSQL', () => {
  // Short, so the test is quick; the defaults are 10 s.
  const env = {
    DATABASE_QUERY_TIMEOUT_MS: '1500',
    DATABASE_POOL_TIMEOUT_MS: '1500',
    DATABASE_POOL_SIZE: '1',
    CREDENTIAL_CACHE_TTL_SECONDS: '300',
  };
  let db: TestDatabases;
  let proxy: TcpProxy;
  let proxied: Databases;
  let t: TestApp;
  let w: World;

  beforeAll(async () => {
    db = await createTestDatabases();
    w = await createAccountWithKeys(db.dbs);
    const url = new URL(db.url!);
    proxy = await startTcpProxy(url);
    url.port = String(proxy.port);
    // One connection per database: a connection that timed out and was handed out again
    // would be the only one, so the requests after the thaw show whether it was discarded.
    proxied = await openDatabases({
      DATABASE_URL: url.toString(),
      SANDBOX_SCHEMA: 'sandbox',
      DATABASE_POOL_SIZE: 1,
      DATABASE_POOL_TIMEOUT_MS: 1500,
      DATABASE_QUERY_TIMEOUT_MS: 1500,
      DATA_DIR: '.data',
    });
    t = await createTestApp({ db: { dbs: proxied, url: url.toString(), drop: async () => undefined }, env });
  });
  afterAll(async () => {
    proxy?.thaw();
    await t?.close();
    await proxied?.close();
    await proxy?.close();
    await db?.drop();
  });

  const customers = () => t.app.inject({ method: 'GET', url: '/api/v1/customers', headers: bearer(w.testKey.key) });

  it('answers 503 with Retry-After while it is stopped, and serves again once it continues', async () => {
    // The sandbox key is resolved and cached; its pool holds an idle connection.
    expect((await customers()).statusCode).toBe(200);
    proxy.freeze();
    // A read and a write past authentication, and an authentication that needs the database
    // (the live key was never seen): each answers, none hangs.
    const [read, write, auth] = await Promise.all([
      customers(),
      t.app.inject({
        method: 'POST',
        url: '/api/v1/customers',
        headers: bearer(w.testKey.key),
        payload: { name: 'Frozen', email: `frozen-${unique()}@example.com` },
      }),
      t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(w.liveKey.key) }),
    ]);
    expectUnavailable(read, 'GET /customers');
    expectUnavailable(write, 'POST /customers');
    expectUnavailable(auth, 'GET /me, authenticating');
    proxy.thaw();
    // The same process, no restart: served at once.
    expect((await customers()).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(w.liveKey.key) })).statusCode).toBe(
      200,
    );
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/customers',
      headers: bearer(w.testKey.key),
      payload: { name: 'Thawed', email: `thawed-${unique()}@example.com` },
    });
    expect(created.statusCode).toBe(200);
  });

  it('discards a connection whose query timed out, in a transaction too: after a failover its old connection never answers, a new one does', async () => {
    expect((await customers()).statusCode).toBe(200);
    // A transaction (as every write's use case runs) whose server stops under it, past BEGIN.
    const stalled = proxied.test.prisma.$transaction(
      async (tx) => {
        await tx.customer.count();
        proxy.freeze();
        await tx.customer.count();
      },
      { timeout: 20_000 },
    );
    await expect(stalled).rejects.toThrow();
    // Every connection open until now stays silent for good: the pool's only one among them,
    // had it been kept.
    proxy.thaw({ strand: true });
    expect((await customers()).statusCode).toBe(200);
  });

  it("the workers' LISTEN connection reconnects when its server stops answering", async () => {
    const heard: string[] = [];
    const channel = `frozen_${unique()}`;
    const unlisten = await proxied.test.listen(channel, (payload) => heard.push(payload));
    try {
      const notify = (payload: string) =>
        db.dbs.test.prisma.$executeRawUnsafe(`SELECT pg_notify('${channel}', '${payload}')`);
      await notify('before');
      await waitFor(() => heard.includes('before'), { what: 'the notification before the freeze' });
      proxy.freeze();
      proxy.thaw({ strand: true });
      // Only a new connection can hear this.
      await waitFor(
        async () => {
          await notify('after');
          return heard.includes('after');
        },
        { timeoutMs: 15_000, what: 'a notification on a new LISTEN connection' },
      );
    } finally {
      await unlisten();
    }
  });
});

describe.skipIf(!redisUrl())('a frozen Redis', () => {
  let redis: RedisServer;
  let rx: Receiver;
  let t: TestApp;
  let w: World;
  let workers: Workers;
  // The log says when an enqueue met the stopped Redis.
  const logged: Array<{ msg?: string }> = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const line of String(chunk).split('\n').filter(Boolean)) logged.push(JSON.parse(line));
      cb();
    },
  });

  beforeAll(async () => {
    redis = await startRedisServer();
    rx = await startReceiver();
    t = await createTestApp({
      env: { ...FAST_WORKERS, REDIS_URL: redis.url, REDIS_COMMAND_TIMEOUT_MS: '500' },
      logger: createLogger('warn', sink),
    });
    w = await createAccountWithKeys(t.dbs);
    workers = await startWorkers(t.services);
    const ep = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhook-endpoints',
      headers: bearer(w.testKey.key),
      payload: { url: rx.url, events: ['customer.created'] },
    });
    expect(ep.statusCode).toBe(200);
  });
  afterAll(async () => {
    redis?.resume();
    await workers?.stop();
    await t?.close();
    await rx?.close();
    await redis?.stop();
  });

  it('requests are served while it is stopped (limits fail open), and work enqueued then is done once it continues', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(w.testKey.key) })).statusCode).toBe(
      200,
    );
    redis.pause();
    try {
      // The rate limiter's count, the credential invalidation a profile change publishes, and
      // the enqueueing of the webhook a new customer causes all meet the stopped Redis.
      const me = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(w.testKey.key) });
      expect(me.statusCode, me.body).toBe(200);
      const renamed = await t.app.inject({
        method: 'PATCH',
        url: '/api/v1/me',
        headers: bearer(w.testKey.key),
        payload: { name: `Frozen Redis ${unique()}` },
      });
      expect(renamed.statusCode, renamed.body).toBe(200);
      const created = await t.app.inject({
        method: 'POST',
        url: '/api/v1/customers',
        headers: bearer(w.testKey.key),
        payload: { name: 'Queued', email: `queued-${unique()}@example.com` },
      });
      expect(created.statusCode, created.body).toBe(200);
      const customerId = created.json().data._id as string;
      const event = await waitFor(
        () =>
          t.dbs.test.prisma.event.findFirst({
            where: { type: 'customer.created', data: { path: ['customerId'], equals: customerId } },
          }),
        {
          what: 'the event',
        },
      );
      // The relay wrote the delivery and failed to enqueue its job.
      await waitFor(() => t.dbs.test.prisma.webhookDelivery.findFirst({ where: { eventId: event.id } }), {
        what: 'the delivery row',
      });
      await waitFor(() => logged.some((l) => l.msg === 'enqueue failed; the sweep will retry'), {
        what: 'an enqueue to give up',
      });
      redis.resume();
      await waitFor(() => rx.received.find((r) => r.headers['x-webhook-id'] === event.id), {
        timeoutMs: 25_000,
        what: 'the webhook after the thaw',
      });
    } finally {
      redis.resume();
    }
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(w.testKey.key) })).statusCode).toBe(
      200,
    );
  });

  it('drops a connection that stopped answering: after a failover the API process reconnects by itself', async () => {
    const proxy = await startTcpProxy(new URL(redis.url));
    const env = { REDIS_URL: `redis://127.0.0.1:${proxy.port}`, REDIS_COMMAND_TIMEOUT_MS: '500' };
    const app = await createTestApp({ db: (t as Awaited<ReturnType<typeof createTestApp>>).db, env });
    const ready = () => app.app.inject({ method: 'GET', url: '/readyz' });
    try {
      expect((await ready()).statusCode).toBe(200);
      proxy.freeze();
      // Every connection open until now stays silent for good; new ones work.
      proxy.thaw({ strand: true });
      await waitFor(async () => (await ready()).statusCode === 200, {
        timeoutMs: 15_000,
        what: '/readyz to see Redis again',
      });
      // The rate limiter counts again (it answers without RateLimit-* headers while Redis fails).
      const me = await app.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(w.testKey.key) });
      expect(me.statusCode).toBe(200);
      expect(me.headers['ratelimit-limit']).toBe('100');
    } finally {
      await app.close();
      await proxy.close();
    }
  });
});
