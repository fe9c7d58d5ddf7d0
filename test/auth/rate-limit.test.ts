// Rate limits (docs/api.md): 100 requests per credential in each fixed one-second window, shared
// by every instance through Redis; 20/s per IP without a valid credential; RateLimit-* headers
// on every response, Retry-After and the RATE_LIMITED envelope on 429s.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/schema/credentials/create-api-key.js';
import { createTestApp, redisUrl, type TestApp } from '../helpers/app.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';

type Res = { statusCode: number; headers: Record<string, unknown>; json(): any };

let a: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;

// Every test limits its own remote address or key, so counters never leak between tests.
let ipCounter = 1;
const freshIp = () => `203.0.113.${ipCounter++}`;

beforeAll(async () => {
  a = await createTestApp();
  w = await createAccountWithKeys(a.dbs);
});
afterAll(async () => {
  await a?.close();
});

function expectRateLimitHeaders(res: Res, limit: number) {
  expect(res.headers['ratelimit-limit']).toBe(String(limit));
  expect(Number(res.headers['ratelimit-remaining'])).toBeGreaterThanOrEqual(0);
  expect(Number(res.headers['ratelimit-remaining'])).toBeLessThan(limit);
  // Seconds until the window resets: a one-second window says 0 or 1.
  expect(['0', '1']).toContain(String(res.headers['ratelimit-reset']));
}

function expectRateLimited(res: Res, limit: number) {
  expect(res.statusCode).toBe(429);
  expect(res.headers['retry-after']).toBe('1');
  expect(res.headers['ratelimit-limit']).toBe(String(limit));
  expect(res.headers['ratelimit-remaining']).toBe('0');
  const body = res.json();
  expect(body).toEqual({
    status: false,
    error: { code: 'RATE_LIMITED', message: expect.stringContaining(`${limit} requests per second`) },
    meta: { timestamp: expect.any(Number), requestId: res.headers['x-request-id'] },
  });
}

describe('RateLimit headers', () => {
  it('are on every /api response: 200, 400, 401, 404', async () => {
    const key = await createApiKey(a.dbs.live.prisma, { companyId: w.live.id, name: 'headers' });
    const ok = await a.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(key.key) });
    expect(ok.statusCode).toBe(200);
    expectRateLimitHeaders(ok, 100);
    expect(ok.headers['ratelimit-remaining']).toBe('99');

    const bad = await a.app.inject({
      method: 'PATCH',
      url: '/api/v1/me',
      headers: bearer(key.key),
      payload: { nope: 1 },
    });
    expect(bad.statusCode).toBe(400);
    expectRateLimitHeaders(bad, 100);
    expect(bad.headers['ratelimit-remaining']).toBe('98');

    const missing = await a.app.inject({ method: 'GET', url: '/api/v1/no-such-route', headers: bearer(key.key) });
    expect(missing.statusCode).toBe(404);
    expectRateLimitHeaders(missing, 100);
    expect(missing.headers['ratelimit-remaining']).toBe('97');

    const v2 = await a.app.inject({ method: 'GET', url: '/api/v2/me', headers: bearer(key.key) });
    expect(v2.statusCode).toBe(404);
    expectRateLimitHeaders(v2, 100);

    const ip = freshIp();
    const anonymous = await a.app.inject({ method: 'GET', url: '/api/v1/me', remoteAddress: ip });
    expect(anonymous.statusCode).toBe(401);
    expectRateLimitHeaders(anonymous, 20);
    expect(anonymous.headers['ratelimit-remaining']).toBe('19');

    const anonymous404 = await a.app.inject({ method: 'GET', url: '/api/v1/nothing', remoteAddress: ip });
    expect(anonymous404.statusCode).toBe(404);
    expectRateLimitHeaders(anonymous404, 20);
  });

  it('are on GraphQL responses too', async () => {
    const gql = await a.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: bearer(w.testKey.key),
      payload: { query: '{ me { name } }' },
    });
    expect(gql.statusCode).toBe(200);
    expectRateLimitHeaders(gql, 100);
  });

  it('are on every other response as well (docs/api.md: "every response"), counted apart from the API', async () => {
    const ip = freshIp();
    for (const url of [
      '/healthz',
      '/readyz',
      '/metrics',
      '/openapi.json',
      '/docs',
      '/admin/login',
      '/.well-known/oauth-authorization-server',
      '/nothing-here',
    ]) {
      const res = await a.app.inject({ method: 'GET', url, remoteAddress: ip });
      expect(res.statusCode, url).toBeLessThan(500);
      expect(res.headers['ratelimit-limit'], url).toBe('100');
      expectRateLimitHeaders(res, 100);
    }
    // Pages and probes have a bucket of their own: the IP's API budget is untouched.
    const api = await a.app.inject({ method: 'GET', url: '/api/v1/me', remoteAddress: ip });
    expect(api.statusCode).toBe(401);
    expect(api.headers['ratelimit-remaining']).toBe('19');
  });
});

describe('per credential', () => {
  it('the 101st request in a window is 429 RATE_LIMITED with Retry-After; the counter is the key, not the IP', async () => {
    const key = await createApiKey(a.dbs.live.prisma, { companyId: w.live.id, name: 'burst' });
    // From many addresses at once: the limit follows the credential.
    const responses = await Promise.all(
      Array.from({ length: 130 }, () =>
        a.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(key.key), remoteAddress: freshIp() }),
      ),
    );
    const ok = responses.filter((r) => r.statusCode === 200);
    const limited = responses.filter((r) => r.statusCode === 429);
    expect(ok.length + limited.length).toBe(130);
    expect(ok.length).toBe(100);
    for (const r of limited) expectRateLimited(r, 100);
    // Each served request was told its own remaining budget: 99, 98, ..., 0 once each.
    expect(ok.map((r) => Number(r.headers['ratelimit-remaining'])).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 100 }, (_, i) => i),
    );
  });

  it('windows are fixed: hammering a limited key does not extend its window', async () => {
    const key = await createApiKey(a.dbs.live.prisma, { companyId: w.live.id, name: 'window' });
    const first = await Promise.all(
      Array.from({ length: 101 }, () => a.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(key.key) })),
    );
    expect(first.filter((r) => r.statusCode === 429)).toHaveLength(1);
    // Keep knocking every 20 ms. A sliding window (or one re-armed by each refused request)
    // would keep refusing; a fixed one-second window lets the key through within ~1 s.
    const started = Date.now();
    let refused = 0;
    let res: Res;
    for (;;) {
      res = await a.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(key.key) });
      if (res.statusCode !== 429) break;
      refused++;
      if (Date.now() - started > 5000) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(res.statusCode).toBe(200);
    expect(refused).toBeGreaterThan(0);
    // The new window counts from the start again.
    expect(res.headers['ratelimit-remaining']).toBe('99');
  });
});

describe('without a valid credential', () => {
  it('is limited to 20/s per IP, whatever the (wrong) credential', async () => {
    const ip = freshIp();
    // The last character changed (to one it is not: a key ending in x stayed valid 1 time in 62).
    const k = w.liveKey.key;
    const mistyped = `${k.slice(0, -1)}${k.endsWith('x') ? 'y' : 'x'}`;
    const headers = [
      {},
      { authorization: 'Bearer svc_sk_live_guess' },
      { authorization: `Bearer ${mistyped}` },
      { authorization: 'Basic Zm9vOmJhcg==' },
    ];
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        a.app.inject({ method: 'GET', url: '/api/v1/me', headers: headers[i % headers.length], remoteAddress: ip }),
      ),
    );
    expect(responses.filter((r) => r.statusCode === 401)).toHaveLength(20);
    const limited = responses.filter((r) => r.statusCode === 429);
    expect(limited).toHaveLength(10);
    for (const r of limited) expectRateLimited(r, 20);
    // Another address is not affected, and neither is a valid key from the limited address.
    const other = await a.app.inject({ method: 'GET', url: '/api/v1/me', remoteAddress: freshIp() });
    expect(other.statusCode).toBe(401);
    const valid = await a.app.inject({
      method: 'GET',
      url: '/api/v1/me',
      headers: bearer(w.testKey.key),
      remoteAddress: ip,
    });
    expect(valid.statusCode).toBe(200);
    expect(valid.headers['ratelimit-limit']).toBe('100');
  });
});

// Two instances share the counter only through Redis; without REDIS_URL each process limits
// alone (the in-memory store), which is the documented single-process embedded mode, so there
// is nothing shared to test.
describe.skipIf(!redisUrl())('two instances sharing one Redis and one database', () => {
  let b: Awaited<ReturnType<typeof createTestApp>>;
  let c: TestApp;

  beforeAll(async () => {
    const prefix = `t${randomBytes(4).toString('hex')}:`;
    b = await createTestApp({ env: { REDIS_PREFIX: prefix } });
    c = await createTestApp({ db: b.db, env: { REDIS_PREFIX: prefix } });
  });
  afterAll(async () => {
    await c?.close();
    await b?.close();
  });

  it('250 requests with one key across both in one second: 100 succeed, the rest 429; a second key is unaffected', async () => {
    const world = await createAccountWithKeys(b.dbs);
    const hot = world.liveKey.key;
    const calm = (await createApiKey(b.dbs.live.prisma, { companyId: world.live.id, name: 'calm' })).key;
    // Warm both instances' credential caches with other keys' lookups out of the way, so the
    // burst fits well inside one window.
    for (const app of [b.app, c.app]) {
      await app.inject({ method: 'GET', url: '/healthz' });
    }
    const started = Date.now();
    const burst = Promise.all(
      Array.from({ length: 250 }, (_, i) =>
        (i % 2 ? b : c).app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(hot) }),
      ),
    );
    const other = Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? c : b).app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(calm) }),
      ),
    );
    const [responses, calmResponses] = await Promise.all([burst, other]);
    const elapsed = Date.now() - started;

    const ok = responses.filter((r) => r.statusCode === 200);
    const limited = responses.filter((r) => r.statusCode === 429);
    expect(ok.length + limited.length, 'every answer is a 200 or a 429').toBe(250);
    // Each instance alone would let 100 through (200 in all): exactly 100 proves one shared
    // counter. If the burst spilled into a second window the count would be higher.
    expect(ok.length, `burst took ${elapsed} ms`).toBe(100);
    for (const r of limited) expectRateLimited(r, 100);
    // Both instances answered some of each.
    expect(new Set(ok.map((r) => r.json().data._id))).toEqual(new Set([world.live.id]));
    expect(calmResponses.map((r) => r.statusCode)).toEqual(Array(40).fill(200));
  });

  it('per-IP limits are shared across instances too', async () => {
    const ip = freshIp();
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        (i % 2 ? b : c).app.inject({ method: 'GET', url: '/api/v1/me', remoteAddress: ip }),
      ),
    );
    expect(responses.filter((r) => r.statusCode === 401)).toHaveLength(20);
    expect(responses.filter((r) => r.statusCode === 429)).toHaveLength(10);
  });
});
