// The operational surfaces (docs/scaling.md): /healthz, /readyz (database and Redis, 503 when one is
// down), /metrics (Prometheus, by route pattern and status), /openapi.json (a valid OpenAPI
// 3.1 document covering every /api/v1 route) and /docs (served entirely by the app itself).
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabases } from '../../src/db/databases.js';
import { createApiKey } from '../../src/schema/credentials/create-api-key.js';
import { revokeApiKey } from '../../src/schema/credentials/revoke-api-key.js';
import { createTestApp, redisUrl, type TestApp } from '../helpers/app.js';
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

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

describe('/healthz and /readyz', () => {
  it('are 200 when everything is up, with the checks named', async () => {
    const health = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({
      status: 'ok',
      checks: redisUrl() ? { database: 'ok', redis: 'ok' } : { database: 'ok' },
    });
  });

  it('/readyz is 503 with Retry-After when the database is unreachable; /healthz stays 200', async () => {
    // A database pair pointing at a port where nothing listens (pools connect lazily).
    const port = await freePort();
    const dead = await openDatabases({
      DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/none`,
      SANDBOX_SCHEMA: 'sandbox',
      DATABASE_POOL_SIZE: 1,
      DATA_DIR: '.data',
    });
    const broken = await createTestApp({
      db: { dbs: dead, url: `postgresql://postgres@127.0.0.1:${port}/none`, drop: async () => undefined },
    });
    try {
      const ready = await broken.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.headers['retry-after']).toBe('5');
      expect(ready.json().status).toBe('unavailable');
      // A generic reason: the driver's message (hosts, ports, users) goes to the log only.
      expect(ready.json()).toEqual({
        status: 'unavailable',
        checks: { database: 'error: unavailable', ...(redisUrl() ? { redis: 'ok' } : {}) },
      });
      expect(ready.body).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|postgres|none|\d{4,5}/);
      expect((await broken.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      // An API request needing the database is a 503 envelope, not a 500.
      const me = await broken.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(w.liveKey.key) });
      expect(me.statusCode).toBe(503);
      expect(me.json().error.code).toBe('SERVICE_UNAVAILABLE');
      expect(me.headers['retry-after']).toBeDefined();
    } finally {
      await broken.close();
      await dead.close();
    }
  });

  it.skipIf(!process.env.DATABASE_URL || !!process.env.TEST_EMBEDDED)(
    'an exhausted connection pool is a 503 with Retry-After once DATABASE_POOL_TIMEOUT_MS passes, not a hang',
    async () => {
      const url = (t as Awaited<ReturnType<typeof createTestApp>>).db.url!;
      const config = {
        DATABASE_URL: url,
        SANDBOX_SCHEMA: 'sandbox',
        DATABASE_POOL_SIZE: 1,
        DATABASE_POOL_TIMEOUT_MS: 300,
        DATA_DIR: '.data',
      };
      const small = await openDatabases(config);
      const app = await createTestApp({
        db: { dbs: small, url, drop: async () => undefined },
        env: { DATABASE_POOL_SIZE: '1', DATABASE_POOL_TIMEOUT_MS: '300' },
      });
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      // A transaction holds the pool's only connection until the request has been answered.
      const holder = small.live.prisma.$transaction(
        async (tx) => {
          await tx.$queryRaw`SELECT 1`;
          await held;
        },
        { timeout: 30_000 },
      );
      try {
        await new Promise((r) => setTimeout(r, 50));
        const me = await app.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(w.liveKey.key) });
        expect(me.statusCode).toBe(503);
        expect(me.json().error.code).toBe('SERVICE_UNAVAILABLE');
        expect(me.headers['retry-after']).toBeDefined();
        expect(me.body).not.toMatch(/timeout exceeded|postgres/i);
      } finally {
        release();
        await holder;
      }
      // The pool is free again: the same request is served.
      const again = await app.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(w.liveKey.key) });
      expect(again.statusCode).toBe(200);
      await app.close();
      await small.close();
    },
  );

  // Needs a Redis of its own to stop; the machine's redis-server binary starts one.
  describe.skipIf(!redisUrl())('with a Redis that goes away', () => {
    let redis: ChildProcess | undefined;
    let port: number;
    const startRedis = async () => {
      redis = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      );
      for (let i = 0; i < 100; i++) {
        const up = await new Promise<boolean>((resolve) => {
          const s = createServer();
          s.once('error', () => resolve(true));
          s.listen(port, '127.0.0.1', () => s.close(() => resolve(false)));
        });
        if (up) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('redis-server did not start');
    };
    const stopRedis = async () => {
      if (!redis || redis.exitCode !== null || redis.signalCode !== null) return;
      const exited = new Promise((r) => redis!.once('exit', r));
      redis.kill('SIGKILL');
      await exited;
    };
    afterAll(stopRedis);

    it('/readyz turns 503 naming Redis, the API keeps serving, and /readyz recovers', async () => {
      port = await freePort();
      await startRedis();
      const app = await createTestApp({
        db: (t as Awaited<ReturnType<typeof createTestApp>>).db,
        env: { REDIS_URL: `redis://127.0.0.1:${port}` },
      });
      try {
        expect((await app.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
        await stopRedis();
        const ready = await app.app.inject({ method: 'GET', url: '/readyz' });
        expect(ready.statusCode).toBe(503);
        expect(ready.json()).toEqual({
          status: 'unavailable',
          checks: { database: 'ok', redis: expect.stringMatching(/^error: (unavailable|timed out)$/) },
        });
        // Rate limiting fails open (skipOnError): requests are served, not 500s.
        const me = await app.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(w.testKey.key) });
        expect(me.statusCode).toBe(200);
        await startRedis();
        let status = 0;
        for (let i = 0; i < 100 && status !== 200; i++) {
          await new Promise((r) => setTimeout(r, 100));
          status = (await app.app.inject({ method: 'GET', url: '/readyz' })).statusCode;
        }
        expect(status).toBe(200);
      } finally {
        await app.close();
        await stopRedis();
      }
    });

    it('starts while Redis is down, serves, and joins pub/sub once Redis is up', async () => {
      port = await freePort();
      const shared = (t as Awaited<ReturnType<typeof createTestApp>>).db;
      // One deployment: the same Redis and prefix for both instances.
      const env = {
        REDIS_URL: `redis://127.0.0.1:${port}`,
        REDIS_PREFIX: `late${port}:`,
        CREDENTIAL_CACHE_TTL_SECONDS: '300',
      };
      const a = await createTestApp({ db: shared, env });
      let b: Awaited<ReturnType<typeof createTestApp>> | undefined;
      try {
        expect((await a.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
        const ready = await a.app.inject({ method: 'GET', url: '/readyz' });
        expect(ready.statusCode).toBe(503);
        expect(ready.json().checks.redis).toMatch(/^error: /);
        const { apiKey, key } = await createApiKey(a.dbs.live.prisma, { companyId: w.live.id, name: 'late redis' });
        expect((await a.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(key) })).statusCode).toBe(200); // cached for 300 s now

        await startRedis();
        let status = 0;
        for (let i = 0; i < 100 && status !== 200; i++) {
          await new Promise((r) => setTimeout(r, 100));
          status = (await a.app.inject({ method: 'GET', url: '/readyz' })).statusCode;
        }
        expect(status).toBe(200);
        // A revocation published by another instance reaches A at once, so A subscribed when
        // Redis came (its cache would otherwise serve the key for 300 s).
        b = await createTestApp({ db: shared, env });
        let refused = false;
        for (let i = 0; i < 50 && !refused; i++) {
          // The subscription is made on 'ready'; the first publish may race it by a moment.
          await revokeApiKey(b.dbs, b.services.credentials, { keyId: apiKey.id });
          refused = (await a.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(key) })).statusCode === 401;
          if (!refused) await new Promise((r) => setTimeout(r, 50));
        }
        expect(refused).toBe(true);
      } finally {
        await b?.close();
        await a.close();
        await stopRedis();
      }
    });
  });
});

describe('/metrics', () => {
  it('counts requests and latency by route pattern and status, never by raw URL', async () => {
    await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(w.liveKey.key) });
    await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(w.liveKey.key) });
    await t.app.inject({ method: 'GET', url: '/api/v1/me' });
    await t.app.inject({ method: 'PATCH', url: '/api/v1/me', headers: bearer(w.testKey.key), payload: { nope: 1 } });
    await t.app.inject({
      method: 'GET',
      url: '/api/v1/no-such-thing/0123456789abcdef01234567',
      headers: bearer(w.liveKey.key),
    });
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.body;
    const count = (labels: string) => {
      const m = new RegExp(`^http_requests_total\\{${labels}\\} (\\d+)$`, 'm').exec(text);
      return m ? Number(m[1]) : 0;
    };
    expect(count('method="GET",route="/api/v1/me",status="200"')).toBeGreaterThanOrEqual(2);
    expect(count('method="GET",route="/api/v1/me",status="401"')).toBeGreaterThanOrEqual(1);
    expect(count('method="PATCH",route="/api/v1/me",status="400"')).toBe(1);
    expect(count('method="GET",route="unmatched",status="404"')).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^# TYPE http_request_duration_seconds histogram$/m);
    expect(text).toMatch(
      /^http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/api\/v1\/me",status="200"\} \d+$/m,
    );
    expect(text).toMatch(
      /^http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/me",status="200"\} [1-9]\d*$/m,
    );
    // Process metrics are there too, and no raw id made it into a label.
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(text).not.toContain('0123456789abcdef01234567');
  });
});

describe('/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('has every /api/v1 route with request and response schemas and the bearer scheme', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.components.securitySchemes.bearer).toEqual({
      type: 'http',
      scheme: 'bearer',
      description: expect.any(String),
    });
    expect(doc.security).toEqual([{ bearer: [] }]);

    // Every /api/v1 route the app serves, read from Fastify's route table.
    const served = new Set<string>();
    const tree = t.app.printRoutes({ commonPrefix: false, includeHooks: false });
    // printRoutes prints a tree: "├── /api/v1/customers (GET, HEAD, POST)" with children such as
    // "│   └── /:id (GET, HEAD, PATCH, DELETE)" four columns further in.
    const stack: string[] = [];
    for (const line of tree.split('\n')) {
      const m = /^([│ ]*)[├└]── (\S+)(?: \(([^)]+)\))?$/.exec(line);
      if (!m) continue;
      const depth = m[1]!.length / 4;
      stack.length = depth;
      stack.push(m[2]!);
      const path = stack.join('');
      if (!m[3] || !path.startsWith('/api/v1/')) continue;
      for (const method of m[3].split(', '))
        if (method !== 'HEAD') served.add(`${method} ${path.replace(/:(\w+)/g, '{$1}')}`);
    }
    expect(served.size).toBeGreaterThanOrEqual(2);
    expect(served).toContain('GET /api/v1/me');
    expect(served).toContain('PATCH /api/v1/me');

    const documented = new Set<string>();
    for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (!['get', 'post', 'patch', 'put', 'delete'].includes(method)) continue;
        documented.add(`${method.toUpperCase()} ${path}`);
        expect(op.summary, `${method} ${path}`).toEqual(expect.any(String));
        // Responses: the success envelope with a data schema, and the error envelope.
        const ok = op.responses['200'].content['application/json'].schema;
        expect(ok.properties.status, `${method} ${path}`).toBeDefined();
        expect(ok.properties.data, `${method} ${path}`).toBeDefined();
        expect(ok.properties.meta, `${method} ${path}`).toBeDefined();
        for (const code of ['400', '401', '403', '429', '500', '503'])
          expect(op.responses[code], `${method} ${path} ${code}`).toBeDefined();
        // 404 where a record is named: by a path id, or (src/rest/error-codes.ts) a field naming one.
        if (path.includes('{')) expect(op.responses['404'], `${method} ${path} 404`).toBeDefined();
        // Conflicts and Idempotency-Key answers on writes; 413 wherever a body is taken.
        if (method !== 'get') expect(op.responses['409'], `${method} ${path} 409`).toBeDefined();
        if (op.requestBody) expect(op.responses['413'], `${method} ${path} 413`).toBeDefined();
        if (method === 'post' || method === 'patch' || method === 'put') {
          const body = op.requestBody?.content?.['application/json']?.schema;
          expect(body, `${method} ${path} has a request body schema`).toBeDefined();
          expect(body.additionalProperties, `${method} ${path} refuses unknown fields`).toBe(false);
        }
      }
    }
    // Exactly the served routes are documented, and nothing outside /api/v1 is.
    expect([...documented].sort()).toEqual([...served].sort());
  });
});

describe('/docs', () => {
  it('serves the reference page and every asset it loads from the app itself', async () => {
    let res = await t.app.inject({ method: 'GET', url: '/docs' });
    if (res.statusCode >= 300 && res.statusCode < 400)
      res = await t.app.inject({
        method: 'GET',
        url: new URL(String(res.headers.location), 'http://app/docs').pathname,
      });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const html = res.body;
    // A phone lays it out at its own width, not 980 px (issue 41 §5).
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    const refs = [...html.matchAll(/<(?:script|link|img)\b[^>]*?\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThanOrEqual(3);
    const base = 'http://app/docs/';
    const texts = [html];
    for (const ref of refs) {
      const url = new URL(ref, base);
      // Relative to the app: nothing from another host.
      expect(url.host, ref).toBe('app');
      const asset = await t.app.inject({ method: 'GET', url: url.pathname + url.search });
      expect(asset.statusCode, ref).toBe(200);
      expect(asset.body.length, ref).toBeGreaterThan(0);
      if (/\.(js|css|html)$/.test(url.pathname) && asset.body.length < 50_000) texts.push(asset.body);
    }
    // The page and its small scripts (the initializer) name no other host.
    for (const text of texts) {
      // Comments link to web pages; they load nothing.
      const code = text
        .split('\n')
        .filter((l) => !l.trim().startsWith('//'))
        .join('\n');
      const hosts = [...code.matchAll(/https?:\/\/([a-z0-9.-]+)/gi)].map((m) => m[1]!.toLowerCase());
      expect(hosts.filter((h) => !['localhost', '127.0.0.1', 'www.w3.org'].includes(h))).toEqual([]);
    }
    // The initializer points the page at our document.
    const initializer = refs.find((r) => r.includes('initializer'));
    expect(initializer).toBeDefined();
    const init = await t.app.inject({ method: 'GET', url: new URL(initializer!, base).pathname });
    expect(init.body).toMatch(/json/);
    const spec = await t.app.inject({ method: 'GET', url: '/docs/json' });
    expect(spec.statusCode).toBe(200);
    expect(spec.json().openapi).toBe('3.1.0');
  });
});
