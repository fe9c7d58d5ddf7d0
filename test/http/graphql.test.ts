// GraphQL at /graphql (docs/graphql.md, issue 2 point 6): the same credentials and scopes as REST;
// AppErrors carry extensions.code, anything else is masked; abusive documents are refused
// before execution; no CORS headers.
import { TEST_SECRET_KEY } from '../helpers/app.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { hashToken } from '../../src/auth/tokens.js';
import { createTestDatabases, embedded } from '../helpers/db.js';
import { bearer, createAccountWithKeys, scopedToken } from '../helpers/factories.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let ip = 0;

beforeAll(async () => {
  t = await createTestApp();
  w = await createAccountWithKeys(t.dbs);
});
afterAll(async () => {
  await t?.close();
});

/** An OAuth access token for the test company, as the token endpoint stores one. */
async function oauthToken(o: { scope?: string; expiresAt?: Date; revokedAt?: Date } = {}): Promise<string> {
  const token = await scopedToken(t.dbs, {
    accountId: w.account.id,
    companyId: w.test.id,
    mode: 'test',
    scope: o.scope ?? 'company:read',
  });
  if (o.expiresAt || o.revokedAt) {
    await t.dbs.live.prisma.oAuthToken.update({
      where: { tokenHash: hashToken(token) },
      data: { ...(o.expiresAt ? { expiresAt: o.expiresAt } : {}), ...(o.revokedAt ? { revokedAt: o.revokedAt } : {}) },
    });
  }
  return token;
}

const gql = (
  query: string,
  opts: { key?: string | null; variables?: unknown; headers?: Record<string, string> } = {},
) =>
  t.app.inject({
    method: 'POST',
    url: '/graphql',
    remoteAddress: `192.0.2.${++ip % 250}`,
    headers: { ...(opts.key === null ? {} : bearer(opts.key ?? w.testKey.key)), ...(opts.headers ?? {}) },
    payload: { query, ...(opts.variables ? { variables: opts.variables } : {}) },
  });

describe('/graphql', () => {
  it('me with a test key and with a live key', async () => {
    const test = await gql('{ me { _id name mode } }');
    expect(test.statusCode).toBe(200);
    expect(test.json()).toEqual({ data: { me: { _id: w.test.id, name: 'Sample Hair Salon', mode: 'test' } } });
    const live = await gql('{ me { _id mode } }', { key: w.liveKey.key });
    expect(live.json()).toEqual({ data: { me: { _id: w.live.id, mode: 'live' } } });
  });

  it('updateMe changes the profile; REST sees it', async () => {
    const res = await gql('mutation($i: UpdateCompanyInput!) { updateMe(input: $i) { name currency } }', {
      key: w.liveKey.key,
      variables: { i: { name: 'GraphQL Renamed', currency: 'GBP' } },
    });
    expect(res.json()).toEqual({ data: { updateMe: { name: 'GraphQL Renamed', currency: 'GBP' } } });
    const rest = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(w.liveKey.key) });
    expect(rest.json().data).toMatchObject({ name: 'GraphQL Renamed', currency: 'GBP' });
  });

  it('invalid input is a VALIDATION_ERROR with field details, and changes nothing', async () => {
    const before = await t.dbs.test.prisma.company.findUniqueOrThrow({ where: { id: w.test.id } });
    const res = await gql('mutation { updateMe(input: { timezone: "Mars/Olympus_Mons", currency: "eur" }) { name } }');
    const body = res.json();
    expect(body.data).toBeNull();
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
    expect(body.errors[0].extensions.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: expect.any(String), message: expect.any(String) })]),
    );
    expect(await t.dbs.test.prisma.company.findUniqueOrThrow({ where: { id: w.test.id } })).toEqual(before);
  });

  it('UNAUTHORIZED with no credential: a GraphQL error on the fields that need one', async () => {
    const res = await gql('{ me { name } }', { key: null });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data?.me ?? null).toBeNull();
    expect(body.errors[0].extensions.code).toBe('UNAUTHORIZED');
    expect(JSON.stringify(body)).not.toContain(w.test.name);
  });

  // As on REST (docs/api.md): a credential that was sent but is not valid is a 401 with
  // WWW-Authenticate: Bearer error="invalid_token", the body in GraphQL's error shape.
  const invalid: Array<[string, () => Promise<Record<string, string>>]> = [
    ['an unknown key', async () => bearer('svc_sk_test_000000000000000000000000000000000000000000')],
    ['a malformed credential', async () => bearer('not-a-key')],
    ['another scheme', async () => ({ authorization: `Basic ${Buffer.from('a:b').toString('base64')}` })],
    ['an expired access token', async () => bearer(await oauthToken({ expiresAt: new Date(Date.now() - 1000) }))],
    ['a revoked access token', async () => bearer(await oauthToken({ revokedAt: new Date() }))],
  ];
  for (const [name, header] of invalid) {
    it(`401 invalid_token with ${name}`, async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/graphql',
        remoteAddress: `192.0.2.${++ip % 250}`,
        headers: await header(),
        payload: { query: '{ me { name } }' },
      });
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer .*error="invalid_token"/);
      const body = res.json();
      expect(body.data ?? null).toBeNull();
      expect(body.errors).toEqual([{ message: expect.any(String), extensions: { code: 'UNAUTHORIZED' } }]);
      expect(JSON.stringify(body)).not.toContain(w.test.name);
    });
  }

  it('a live OAuth access token works; insufficient scope keeps the GraphQL shape with INSUFFICIENT_SCOPE and the scope', async () => {
    const ok = await gql('{ me { name } }', { key: await oauthToken({ scope: 'company:read' }) });
    expect(ok.json()).toEqual({ data: { me: { name: 'Sample Hair Salon' } } });
    const res = await gql('{ me { name } }', { key: await oauthToken({ scope: 'bookings:read' }) });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data ?? null).toBeNull();
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].extensions).toEqual({
      code: 'INSUFFICIENT_SCOPE',
      details: { requiredScope: 'company:read' },
    });
    expect(body.errors[0].message).toContain('company:read');
  });

  it('ignores credentials in the query string (only the Authorization header counts)', async () => {
    for (const param of ['access_token', 'token', 'api_key', 'key']) {
      const q = new URLSearchParams({ query: '{ me { name } }', [param]: w.testKey.key });
      const get = await t.app.inject({
        method: 'GET',
        url: `/graphql?${q}`,
        remoteAddress: `192.0.2.${++ip % 250}`,
        headers: { accept: 'application/json' },
      });
      expect(get.json().errors[0].extensions.code).toBe('UNAUTHORIZED');
      expect(get.body).not.toContain(w.test.name);
      const post = await t.app.inject({
        method: 'POST',
        url: `/graphql?${param}=${w.testKey.key}`,
        remoteAddress: `192.0.2.${++ip % 250}`,
        payload: { query: '{ me { name } }' },
      });
      expect(post.json().errors[0].extensions.code).toBe('UNAUTHORIZED');
      expect(post.body).not.toContain(w.test.name);
    }
  });

  it('masks internal errors: no internals, code INTERNAL_ERROR; AppErrors keep their code', async () => {
    const { maskError } = await import('../../src/http/graphql.js');
    const { GraphQLError } = await import('graphql');
    const { AppError } = await import('../../src/errors.js');
    const internal = maskError(
      new GraphQLError('boom', { originalError: new Error('relation "api_keys" at 10.0.0.5 password=x') }),
    );
    expect(internal.message).toBe('Something went wrong on our side; retry later');
    expect(internal.extensions).toEqual({ code: 'INTERNAL_ERROR' });
    const app = maskError(new GraphQLError('x', { originalError: new AppError('NOT_FOUND', 'No such booking') }));
    expect({ message: app.message, extensions: app.extensions }).toEqual({
      message: 'No such booking',
      extensions: { code: 'NOT_FOUND' },
    });
  });

  it('a database outage while authenticating is a 503 in the envelope, without internals', async () => {
    // A second app on a database pair where nothing listens: the credential cannot be looked up.
    const { openDatabases } = await import('../../src/db/databases.js');
    const down = await createTestApp({
      db: {
        dbs: await openDatabases({
          DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/none',
          SANDBOX_SCHEMA: 'sandbox',
          DATABASE_POOL_SIZE: 1,
          DATA_DIR: '.data',
        }),
        url: undefined,
        drop: async () => undefined,
      },
    });
    try {
      const res = await down.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: bearer(w.testKey.key),
        payload: { query: '{ me { name } }' },
      });
      // The credential is resolved before GraphQL runs, so the outage answers in the envelope.
      expect(res.statusCode).toBe(503);
      expect(res.body).not.toMatch(/prisma|127\.0\.0\.1|ECONNREFUSED|stack|invocation|at \//i);
      expect(res.json().error.code).toBe('SERVICE_UNAVAILABLE');
    } finally {
      await down.close();
    }
  });

  // PostgreSQL only: the app's database connection runs through a TCP relay that the test cuts.
  it.skipIf(embedded())(
    'a database outage during an operation’s resolver (credential cached) is SERVICE_UNAVAILABLE over REST and GraphQL, leaking nothing',
    async () => {
      const { openDatabases } = await import('../../src/db/databases.js');
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
        const query = { query: '{ customers { data { _id } } }' };
        // The credential is resolved and cached while the database is there...
        const before = await down.app.inject({
          method: 'POST',
          url: '/graphql',
          headers: bearer(k.testKey.key),
          payload: query,
        });
        expect(before.json()).toEqual({ data: { customers: { data: expect.any(Array) } } });
        await proxy.close();
        // ...so the outage meets the resolver of the operation, not the authentication. REST runs
        // the same GraphQL operation in process and answers in its envelope.
        const rest = await down.app.inject({ method: 'GET', url: '/api/v1/customers', headers: bearer(k.testKey.key) });
        expect([rest.statusCode, rest.json().error.code, rest.headers['retry-after']]).toEqual([
          503,
          'SERVICE_UNAVAILABLE',
          '5',
        ]);
        const gql = await down.app.inject({
          method: 'POST',
          url: '/graphql',
          headers: bearer(k.testKey.key),
          payload: query,
        });
        // GraphQL reads the same error table: the same code, at the field's path, and no data.
        expect(gql.json().data ?? null).toBeNull();
        expect(gql.json().errors).toEqual([
          expect.objectContaining({ path: ['customers'], extensions: { code: 'SERVICE_UNAVAILABLE' } }),
        ]);
        for (const body of [rest.body, gql.body])
          expect(body).not.toMatch(/prisma|127\.0\.0\.1|ECONNREFUSED|terminated|stack|invocation|at \//i);
      } finally {
        await down.close();
        await dbs.close();
        await proxy.close().catch(() => undefined);
        await db.drop();
      }
    },
  );

  const abusive: Array<[string, string]> = [
    ['too many aliases', `{ ${Array.from({ length: 50 }, (_, i) => `a${i}: me { name }`).join(' ')} }`],
    ['too many tokens', `{ me { ${'name '.repeat(3000)} } }`],
    ['too many directives', `{ me { name ${'@include(if: true) '.repeat(60)} } }`],
    ['a syntax error', '{ me { name '],
    ['an unknown field', '{ me { password } }'],
  ];
  for (const [name, query] of abusive) {
    it(`refuses a document with ${name} before execution, not with a 500`, async () => {
      const res = await gql(query);
      expect(res.statusCode).toBeGreaterThanOrEqual(200);
      expect(res.statusCode).toBeLessThan(500);
      const body = res.json();
      expect(body.data ?? null).toBeNull();
      expect(body.errors.length).toBeGreaterThan(0);
      expect(body.errors[0].message).toEqual(expect.any(String));
    });
  }

  // graphql-armor counts an inline fragment as a level (flattenFragments is off), so a valid
  // document can be made as deep or as costly as wanted on this schema.
  const nested = (levels: number) => `{ me { ${'... on Company { '.repeat(levels)}name${' }'.repeat(levels)} } }`;

  it('the depth limit (10) refuses a deeper document before execution; one within it runs', async () => {
    expect((await gql(nested(5))).json()).toEqual({ data: { me: { name: 'Sample Hair Salon' } } });
    const res = await gql(nested(9));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      errors: [{ message: 'Query depth limit of 10 exceeded, found 11.', extensions: { code: 'QUERY_TOO_DEEP' } }],
    });
  });

  it('repeated fragment spreads run once each field (no shape cost limit any more), within the token limit', async () => {
    const fragment = 'fragment F on Company { _id name email phone address timezone currency mode createdAt }';
    const spreads = (n: number) => `{ me { ${'...F '.repeat(n)}} } ${fragment}`;
    const res = await gql(spreads(300));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: { me: expect.objectContaining({ name: 'Sample Hair Salon' }) } });
    const tooMany = await gql(spreads(1100));
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
  });

  it('GraphiQL is served in development only', async () => {
    const page = (t: TestApp) =>
      t.app.inject({ method: 'GET', url: '/graphql', remoteAddress: '127.0.0.1', headers: { accept: 'text/html' } });
    const dev = await createTestApp({
      db: (t as Awaited<ReturnType<typeof createTestApp>>).db,
      env: { NODE_ENV: 'development' },
    });
    const prod = await createTestApp({
      db: (t as Awaited<ReturnType<typeof createTestApp>>).db,
      env: { NODE_ENV: 'production', SECRET_KEY: TEST_SECRET_KEY },
    });
    try {
      const served = await page(dev);
      expect(served.statusCode).toBe(200);
      expect(served.headers['content-type']).toMatch(/^text\/html/);
      expect(served.body).toMatch(/GraphiQL/);
      // It opens with an example query that says where the key goes, and a header to fill in.
      const options = JSON.parse(
        /data-options="([^"]*)"/
          .exec(served.body)![1]!
          .replace(/&quot;/g, '"')
          .replace(/&amp;/g, '&'),
      ) as { defaultQuery: string; headers: string; defaultEditorToolsVisibility: string };
      expect(options.defaultQuery).toMatch(/API key goes in the Headers tab/);
      expect(options.defaultQuery).toMatch(/query Example \{\s+me \{/);
      expect(JSON.parse(options.headers)).toEqual({ Authorization: 'Bearer svc_sk_test_...' });
      expect(options.defaultEditorToolsVisibility).toBe('headers');
      // Served from this app (test/http/graphiql-chromium.test.ts runs it offline).
      expect(served.body).not.toMatch(/https?:\/\//);
      expect(served.headers['content-security-policy']).toMatch(/script-src 'self';/);
      const assets = [...served.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      expect(assets).toEqual(
        expect.arrayContaining([expect.stringMatching(/^\/graphiql\/assets\/[0-9a-f]{12}\/graphiql\.js$/)]),
      );
      for (const path of assets)
        expect((await dev.app.inject({ method: 'GET', url: path })).statusCode, path).toBe(200);
      for (const other of [prod, t]) {
        const res = await page(other);
        expect(String(res.headers['content-type'])).not.toMatch(/^text\/html/);
        expect(res.body).not.toMatch(/GraphiQL/i);
        expect(
          (await other.app.inject({ method: 'GET', url: assets[0]!, remoteAddress: '127.0.0.1' })).statusCode,
        ).toBe(404);
      }
    } finally {
      await dev.close();
      await prod.close();
    }
  });

  it('sends no CORS headers, also on a preflight', async () => {
    const res = await gql('{ me { name } }', { headers: { origin: 'https://evil.example' } });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/graphql',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect(preflight.statusCode).toBeLessThan(500);
  });

  it('in production, introspection (whose cycles the depth and cost limits skip) is refused before execution', async () => {
    const prod = await createTestApp({
      db: (t as Awaited<ReturnType<typeof createTestApp>>).db,
      env: { NODE_ENV: 'production', SECRET_KEY: TEST_SECRET_KEY },
    });
    try {
      const cyclic = `{ __schema { types { fields { type { fields { type { fields { type { fields { type { fields { name } } } } } } } } } } } }`;
      for (const query of [cyclic, '{ __schema { queryType { name } } }', '{ me { name } }']) {
        const res = await prod.app.inject({
          method: 'POST',
          url: '/graphql',
          remoteAddress: '127.0.0.1',
          headers: bearer(w.testKey.key),
          payload: { query },
        });
        if (query.includes('__schema')) {
          // A validation error: yoga answers 200 to application/json clients (400 with
          // Accept: application/graphql-response+json), never a 500, and nothing executed.
          expect(res.statusCode).toBeLessThan(500);
          expect(res.json().data ?? null).toBeNull();
          expect(res.json().errors[0].message).toMatch(/introspection/i);
        } else {
          expect(res.json()).toEqual({ data: { me: { name: expect.any(String) } } });
        }
      }
    } finally {
      await prod.close();
    }
  });

  it('outside production, introspection is allowed (GraphiQL and codegen need the schema)', async () => {
    const res = await gql('{ __schema { queryType { name } } }');
    expect(res.json()).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
  });
});
