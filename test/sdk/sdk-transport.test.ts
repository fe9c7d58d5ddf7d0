// The SDK's transport against the real app on a socket: pagination across pages, a POST whose
// answer is lost (a real HTTP proxy in front of the app cuts the connection after the app
// answered) retried with the same Idempotency-Key and replayed, a 503 with Retry-After
// retried, a PATCH not repeated, the real rate limiter's 429 waited out, typed errors and
// API-Version.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiError,
  AuthenticationError,
  BadRequestError,
  Client,
  ConnectionError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
} from '../../sdk/src/index.js';
import { createTestApp, listen, type TestApp } from '../helpers/app.js';
import type { TestDatabases } from '../helpers/db.js';
import { blankCompany } from '../helpers/domain.js';
import { createAccountWithKeys, scopedToken } from '../helpers/factories.js';
import { documentOperations, recordingFetch, type Call, type DocOperation } from '../helpers/sdk.js';

type Mode = 'pass' | 'drop-after-answer' | '503-once';

/** A real HTTP proxy in front of the app that can lose an answer or refuse once with a 503. */
interface Proxy {
  url: string;
  mode: Mode;
  seen: Array<{ method: string; path: string; idempotencyKey: string | undefined; replayed: string | null }>;
  close(): Promise<void>;
}

async function startProxy(upstream: string): Promise<Proxy> {
  const proxy: Proxy = { url: '', mode: 'pass', seen: [], close: async () => undefined };
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const entry = {
          method: req.method!,
          path: req.url!,
          idempotencyKey: req.headers['idempotency-key'] as string | undefined,
          replayed: null as string | null,
        };
        proxy.seen.push(entry);
        if (proxy.mode === '503-once') {
          proxy.mode = 'pass';
          res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
          res.end(
            JSON.stringify({
              status: false,
              error: { code: 'SERVICE_UNAVAILABLE', message: 'the proxy is restarting' },
              meta: { timestamp: Date.now(), requestId: 'req_proxy_503' },
            }),
          );
          return;
        }
        const headers = Object.fromEntries(
          Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)),
        ) as Record<string, string>;
        const answer = await fetch(upstream + req.url!, {
          method: req.method!,
          headers,
          ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
        });
        const body = Buffer.from(await answer.arrayBuffer());
        entry.replayed = answer.headers.get('idempotent-replayed');
        if (proxy.mode === 'drop-after-answer') {
          // The app did the work and answered; the client never hears it.
          proxy.mode = 'pass';
          req.socket.destroy();
          return;
        }
        const out: Record<string, string> = {};
        answer.headers.forEach((v, k) => {
          if (!['connection', 'keep-alive', 'transfer-encoding', 'content-length'].includes(k)) out[k] = v;
        });
        res.writeHead(answer.status, out).end(body);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}

let t: TestApp & { db: TestDatabases };
let limited: TestApp;
let base: string;
let limitedBase: string;
let proxy: Proxy;
let ops: DocOperation[];
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let company: Awaited<ReturnType<typeof blankCompany>>;

beforeAll(async () => {
  t = await createTestApp();
  base = await listen(t.app);
  // A second instance over the same databases whose rate limit is two requests a second.
  limited = await createTestApp({ db: t.db, env: { RATE_LIMIT_PER_SECOND: '2' } });
  limitedBase = await listen(limited.app);
  proxy = await startProxy(base);
  w = await createAccountWithKeys(t.dbs);
  company = await blankCompany(t.dbs, w);
  ops = documentOperations(await (await fetch(`${base}/openapi.json`)).json());
});
afterAll(async () => {
  await proxy?.close();
  await limited?.close();
  await t?.close();
});

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
}

describe('pagination', () => {
  it('iterates every item across pages, following nextCursor, and gives one page on request', async () => {
    const calls: Call[] = [];
    const client = new Client({ baseUrl: base, apiKey: company.key, fetch: recordingFetch(ops, calls) });
    const made: string[] = [];
    for (let i = 0; i < 5; i++)
      made.push((await client.customers.create({ name: `C${i}`, email: `c${i}@example.com` }))._id);
    calls.length = 0;

    const seen: string[] = [];
    for await (const c of client.customers.list({ limit: 2 })) seen.push(c._id);
    expect([...seen].sort()).toEqual([...made].sort());
    // Newest first, three pages of 2, 2 and 1, each after the cursor the previous one gave.
    expect(seen).toEqual([...made].reverse());
    const cursors = calls.map((c) => new URL(c.url).searchParams.get('cursor'));
    expect(cursors.length).toBe(3);
    expect(cursors[0]).toBeNull();
    expect(cursors.slice(1).every((c) => c && /^\S+$/.test(c))).toBe(true);
    expect(calls.every((c) => new URL(c.url).searchParams.get('limit') === '2')).toBe(true);

    const first = await client.customers.list({ limit: 2 }).page();
    expect(first).toMatchObject({ hasMore: true, limit: 2 });
    expect(first.data.map((c) => c._id)).toEqual(seen.slice(0, 2));
    const second = await client.customers.list({ limit: 2 }).page(first.nextCursor!);
    expect(second.data.map((c) => c._id)).toEqual(seen.slice(2, 4));
    const pages = [];
    for await (const p of client.customers.list({ limit: 2 }).pages()) pages.push(p.data.length);
    expect(pages).toEqual([2, 2, 1]);
  });
});

describe('retries', () => {
  it('a POST whose answer was lost is sent again with the same Idempotency-Key and replayed: one customer', async () => {
    const client = new Client({ baseUrl: proxy.url, apiKey: company.key });
    proxy.seen.length = 0;
    proxy.mode = 'drop-after-answer';
    const customer = await client.customers.create({ name: 'Once', email: 'once@example.com' });
    expect(proxy.seen.map((s) => s.method)).toEqual(['POST', 'POST']);
    expect(proxy.seen[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(proxy.seen[1]!.idempotencyKey).toBe(proxy.seen[0]!.idempotencyKey);
    expect(proxy.seen.map((s) => s.replayed)).toEqual([null, 'true']);
    const direct = new Client({ baseUrl: base, apiKey: company.key });
    const found = await direct.customers.list({ email: 'once@example.com' }).toArray();
    expect(found.map((c) => c._id)).toEqual([customer._id]);
    // A second logical call gets a key of its own.
    const firstKey = proxy.seen[0]!.idempotencyKey;
    proxy.seen.length = 0;
    await client.customers.create({ name: 'Twice', email: 'twice@example.com' });
    expect(proxy.seen[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(proxy.seen[0]!.idempotencyKey).not.toBe(firstKey);
    // A key of the caller's is sent as given.
    proxy.seen.length = 0;
    await client.customers.create({ name: 'Mine', email: 'mine@example.com' }, { idempotencyKey: 'order-17-customer' });
    expect(proxy.seen[0]!.idempotencyKey).toBe('order-17-customer');
  });

  it('a 503 with Retry-After is waited out and retried; a PATCH whose answer was lost is not repeated', async () => {
    const client = new Client({ baseUrl: proxy.url, apiKey: company.key });
    proxy.seen.length = 0;
    proxy.mode = '503-once';
    const me = await client.me.get();
    expect(me._id).toBe(company.company.id);
    expect(proxy.seen.map((s) => s.method)).toEqual(['GET', 'GET']);

    proxy.seen.length = 0;
    proxy.mode = 'drop-after-answer';
    const lost = await rejection(client.me.update({ phone: '+493011111111' }));
    expect(lost).toBeInstanceOf(ConnectionError);
    expect(proxy.seen.map((s) => s.method)).toEqual(['PATCH']);

    // Without retries a lost POST answer is a ConnectionError too.
    proxy.seen.length = 0;
    proxy.mode = 'drop-after-answer';
    expect(
      await rejection(client.customers.create({ name: 'N', email: 'n@example.com' }, { maxRetries: 0 })),
    ).toBeInstanceOf(ConnectionError);
    expect(proxy.seen.length).toBe(1);
  });

  it("waits out the real rate limiter's 429 as Retry-After says, or throws RateLimitError without retries", async () => {
    const calls: Call[] = [];
    // Five calls against two a second need up to two more windows: room for that many retries.
    const client = new Client({
      baseUrl: limitedBase,
      apiKey: company.key,
      maxRetries: 4,
      fetch: recordingFetch(ops, calls),
    });
    // Each logical call marked by its own request id, which its retries carry too.
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => client.me.get({ headers: { 'X-Request-Id': `rate-limit-call-${i}` } })),
    );
    expect(answers.every((m) => m._id === company.company.id)).toBe(true);
    expect(calls.filter((c) => c.status === 429).length).toBeGreaterThan(0);
    expect(calls.filter((c) => c.status === 200).length).toBe(5);
    for (let i = 0; i < 5; i++) {
      const chain = calls.filter((c) => c.headers['x-request-id'] === `rate-limit-call-${i}`);
      expect(chain.at(-1)!.status).toBe(200);
      // Every retry after a 429 went out no sooner than its Retry-After said.
      for (const [k, c] of chain.slice(0, -1).entries()) {
        expect(c.status).toBe(429);
        expect(Number(c.retryAfter)).toBeGreaterThanOrEqual(1);
        expect(chain[k + 1]!.sentAt - c.answeredAt).toBeGreaterThanOrEqual(Number(c.retryAfter) * 1000 - 2);
      }
    }

    const impatient = new Client({ baseUrl: limitedBase, apiKey: company.key, maxRetries: 0 });
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => impatient.me.get()));
    const refused = results.filter((r) => r.status === 'rejected').map((r) => r.reason as RateLimitError);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]).toBeInstanceOf(RateLimitError);
    expect(refused[0]).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect(refused[0]!.retryAfter).toBeGreaterThanOrEqual(1);
    expect(refused[0]!.requestId).toMatch(/\S/);
  });
});

describe('typed errors', () => {
  it('carry status, code, message, requestId and details', async () => {
    const client = new Client({ baseUrl: base, apiKey: company.key });
    const invalid = (await rejection(
      client.customers.create({ name: 'X', email: 'not-an-email' }, { headers: { 'X-Request-Id': 'sdk-test-0001' } }),
    )) as BadRequestError;
    expect(invalid).toBeInstanceOf(BadRequestError);
    expect(invalid).toBeInstanceOf(ApiError);
    expect(invalid).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', requestId: 'sdk-test-0001' });
    expect(invalid.fieldErrors.map((d) => d.path)).toContain('email');
    expect(invalid.operationId).toBe('createCustomer');

    const missing = (await rejection(client.bookings.get('0123456789abcdef01234567'))) as NotFoundError;
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing.code).toBe('NOT_FOUND');
    expect(missing.requestId).toBe(missing.headers.get('x-request-id'));

    const stranger = new Client({ baseUrl: base, apiKey: 'svc_sk_test_unknown' });
    expect(await rejection(stranger.me.get())).toBeInstanceOf(AuthenticationError);

    const token = await scopedToken(t.dbs, {
      accountId: w.account.id,
      companyId: company.company.id,
      mode: 'test',
      scope: 'company:read',
    });
    const narrow = new Client({ baseUrl: base, accessToken: async () => token });
    expect((await narrow.me.get())._id).toBe(company.company.id);
    const scope = (await rejection(narrow.bookings.list().page())) as PermissionDeniedError;
    expect(scope).toBeInstanceOf(PermissionDeniedError);
    expect(scope.code).toBe('INSUFFICIENT_SCOPE');
  });

  it('API-Version picks the answer shape, from the client or per call', async () => {
    const old = new Client({ baseUrl: base, apiKey: company.key, apiVersion: '2026-11-23' });
    expect('apiVersion' in (await old.me.get())).toBe(false);
    expect((await old.me.get({ apiVersion: '2026-11-24' })).apiVersion).toBe('2026-11-24');
    const calls: Call[] = [];
    const client = new Client({ baseUrl: base, apiKey: company.key, fetch: recordingFetch(ops, calls) });
    await client.me.get({ apiVersion: '2026-11-23' });
    expect(calls[0]!.headers['api-version']).toBe('2026-11-23');
  });
});
