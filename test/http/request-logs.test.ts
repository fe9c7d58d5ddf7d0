// Request logs (docs/api.md, Request logs): every /api/v1 and /graphql request of a company is
// recorded in batches, in its mode's database; bodies of 4xx/5xx answers only, redacted; read
// back by GET /api/v1/request-logs and GraphQL with logs:read, own company and mode only.
import { createConnection } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { bearer, createAccountWithKeys, scopedToken } from '../helpers/factories.js';

let t: Awaited<ReturnType<typeof createTestApp>>;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let other: Awaited<ReturnType<typeof createAccountWithKeys>>;

const logsOf = (db: TestApp['dbs']['live']['prisma'], companyId: string) =>
  db.requestLog.findMany({ where: { companyId }, orderBy: { id: 'asc' } });

beforeAll(async () => {
  // Flushed by hand below (or by size): the timer never fires within a test.
  t = await createTestApp({ env: { REQUEST_LOG_FLUSH_MS: '60000' } });
  w = await createAccountWithKeys(t.dbs);
  other = await createAccountWithKeys(t.dbs);
});
afterAll(async () => {
  await t?.close();
});

const writer = () => t.app.requestLogs!;

describe('recording', () => {
  it('records a 2xx with route, path, credential name and prefix, idempotency key, and no bodies', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/me?expand=nothing',
      headers: { ...bearer(w.testKey.key), 'idempotency-key': 'idem-1' },
    });
    expect(res.statusCode).toBe(200);
    // Nothing is written on the request path.
    expect(await logsOf(t.dbs.test.prisma, w.test.id)).toEqual([]);
    const flushed = await writer().flush();
    expect(flushed).toMatchObject({ statements: 1, failed: 0 });
    const [row] = await logsOf(t.dbs.test.prisma, w.test.id);
    expect(row).toMatchObject({
      method: 'GET',
      route: '/api/v1/me',
      path: '/api/v1/me',
      operationName: null,
      status: 200,
      requestId: res.headers['x-request-id'],
      credentialId: w.testKey.apiKey.id,
      credentialName: 'test key',
      credentialPrefix: `svc_sk_test_…${w.testKey.key.slice(-4)}`,
      ip: '127.0.0.1',
      idempotencyKey: 'idem-1',
      requestBody: null,
      responseBody: null,
    });
    expect(row!.durationMs).toBeGreaterThan(0);
    // The secret itself is nowhere in the row.
    expect(JSON.stringify(row)).not.toContain(w.testKey.key.slice(12, -4));
  });

  it('keeps the bodies of a 4xx, with secrets, a card number and a CVC redacted', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/customers',
      headers: bearer(w.testKey.key),
      payload: {
        name: 'Card Holder',
        password: 'hunter2-secret',
        cvc: '737',
        notes: 'pay with 4000 0566 5566 5556, cvc 737 please; token svc_sk_test_abcdefgh',
        card: { number: '4242424242424242', exp: '12/30' },
      },
    });
    expect(res.statusCode).toBe(400);
    await writer().flush();
    const row = (await logsOf(t.dbs.test.prisma, w.test.id)).find((r) => r.requestId === res.headers['x-request-id']);
    expect(row).toMatchObject({ method: 'POST', route: '/api/v1/customers', status: 400 });
    const stored = `${row!.requestBody} ${row!.responseBody}`;
    for (const secret of ['hunter2', '737', '4242424242424242', '4000 0566 5566 5556', 'abcdefgh'])
      expect(stored).not.toContain(secret);
    // What is not secret is kept, so the log still says what was sent.
    expect(JSON.parse(row!.requestBody!)).toMatchObject({ name: 'Card Holder', password: '[REDACTED]' });
    expect(JSON.parse(row!.responseBody!)).toMatchObject({ error: { code: 'VALIDATION_ERROR' } });
  });

  it('records /graphql with the operation name, and variables redacted when the answer has errors', async () => {
    const ok = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: bearer(w.liveKey.key),
      payload: { query: 'query Profile { me { name } }' },
    });
    expect(ok.statusCode).toBe(200);
    const bad = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: bearer(w.liveKey.key),
      payload: {
        query: 'mutation AddCustomer($input: CustomerInput!) { createCustomer(input: $input) { _id } }',
        variables: { input: { name: 'X 4242 4242 4242 4242', email: 'not-an-email' } },
      },
    });
    await writer().flush();
    const rows = await logsOf(t.dbs.live.prisma, w.live.id);
    const first = rows.find((r) => r.requestId === ok.headers['x-request-id']);
    const second = rows.find((r) => r.requestId === bad.headers['x-request-id']);
    expect(first).toMatchObject({ path: '/graphql', route: null, operationName: 'Profile', requestBody: null });
    expect(second).toMatchObject({ path: '/graphql', operationName: 'AddCustomer' });
    expect(second!.requestBody).toContain('not-an-email');
    expect(second!.requestBody).not.toContain('4242');
    expect(second!.responseBody).toContain('VALIDATION_ERROR');
  });

  it('does not record a request without a valid credential (it belongs to no company)', async () => {
    const before = writer().written + writer().pending;
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer('svc_sk_test_nope') });
    expect(res.statusCode).toBe(401);
    expect(writer().written + writer().pending).toBe(before);
  });
});

describe('GET /api/v1/request-logs', () => {
  let token: string;
  beforeAll(async () => {
    token = await scopedToken(t.dbs, {
      accountId: w.account.id,
      companyId: w.test.id,
      mode: 'test',
      scope: 'logs:read',
    });
    for (let i = 0; i < 3; i++)
      await t.app.inject({ method: 'GET', url: '/api/v1/services', headers: bearer(w.testKey.key) });
    await t.app.inject({
      method: 'GET',
      url: '/api/v1/bookings/000000000000000000000000',
      headers: bearer(w.testKey.key),
    });
    // Another company's and the live mode's requests: never shown here.
    await t.app.inject({ method: 'GET', url: '/api/v1/services', headers: bearer(other.testKey.key) });
    await t.app.inject({ method: 'GET', url: '/api/v1/services', headers: bearer(w.liveKey.key) });
    await writer().flush();
  });

  const list = async (query: string, key = w.testKey.key) => {
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/request-logs${query}`, headers: bearer(key) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ data: Array<Record<string, unknown>>; meta: { pagination: { nextCursor: string | null } } }>();
  };

  it('lists own company and mode only, newest first, without bodies', async () => {
    const { data } = await list('?limit=100');
    const ids = data.map((r) => r._id as string);
    expect(ids).toEqual([...ids].sort().reverse());
    const mine = await t.dbs.test.prisma.requestLog.findMany({ where: { companyId: w.test.id } });
    expect(new Set(ids)).toEqual(new Set(mine.map((r) => r.id)));
    expect(data.every((r) => r.credentialId === w.testKey.apiKey.id)).toBe(true);
    expect(data[0]).not.toHaveProperty('requestBody');
    // The other company's log has its own request and nothing of ours.
    const theirs = await list('?limit=100', other.testKey.key);
    expect(theirs.data.map((r) => r.path)).toEqual(['/api/v1/services']);
  });

  it('filters by status class, path, credential, request id and time', async () => {
    const notFound = await list('?status=4xx');
    expect(notFound.data.map((r) => [r.statusCode, r.route])).toContainEqual([404, '/api/v1/bookings/:id']);
    expect(notFound.data.every((r) => (r.statusCode as number) >= 400 && (r.statusCode as number) < 500)).toBe(true);
    const services = await list('?path=/api/v1/services&status=2xx');
    expect(services.data).toHaveLength(3);
    const byRoute = await list(`?path=${encodeURIComponent('/api/v1/bookings/:id')}`);
    expect(byRoute.data).toHaveLength(1);
    const one = services.data[1]!;
    const byRequest = await list(`?requestId=${one.requestId as string}`);
    expect(byRequest.data.map((r) => r._id)).toEqual([one._id]);
    expect((await list(`?credentialId=${w.testKey.apiKey.id}&limit=100`)).data.length).toBeGreaterThan(4);
    expect((await list('?credentialId=000000000000000000000000')).data).toEqual([]);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await list(`?from=${future}`)).data).toEqual([]);
    expect((await list(`?to=${future}&path=/api/v1/services`)).data).toHaveLength(3);
    const page = await list('?limit=2&path=/api/v1/services');
    const next = await list(`?limit=2&path=/api/v1/services&cursor=${page.meta.pagination.nextCursor}`);
    expect([...page.data, ...next.data].map((r) => r._id)).toEqual(services.data.map((r) => r._id));
  });

  it('refuses a bad filter naming the field', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/request-logs?status=3xx',
      headers: bearer(w.testKey.key),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details[0].path).toContain('status');
  });

  it('shows one request in full; another company or mode cannot see it', async () => {
    const row = (await logsOf(t.dbs.test.prisma, w.test.id)).find((r) => r.status === 400)!;
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/request-logs/${row.id}`, headers: bearer(token) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      _id: row.id,
      statusCode: 400,
      requestBody: row.requestBody,
      ip: '127.0.0.1',
    });
    for (const key of [other.testKey.key, w.liveKey.key]) {
      const denied = await t.app.inject({ method: 'GET', url: `/api/v1/request-logs/${row.id}`, headers: bearer(key) });
      expect(denied.statusCode).toBe(404);
    }
  });

  it('needs logs:read: an OAuth token without it is 403, on REST and GraphQL', async () => {
    const without = await scopedToken(t.dbs, {
      accountId: w.account.id,
      companyId: w.test.id,
      mode: 'test',
      scope: 'company:read bookings:read events:read',
    });
    const rest = await t.app.inject({ method: 'GET', url: '/api/v1/request-logs', headers: bearer(without) });
    expect([rest.statusCode, rest.json().error.details]).toEqual([403, { requiredScope: 'logs:read' }]);
    const gql = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: bearer(without),
      payload: { query: '{ requestLogs { nodes { _id } } }' },
    });
    expect(gql.json().errors[0].extensions.code).toBe('INSUFFICIENT_SCOPE');
    const withIt = await t.app.inject({ method: 'GET', url: '/api/v1/request-logs', headers: bearer(token) });
    expect(withIt.statusCode).toBe(200);
  });

  it('answers the same from GraphQL', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: bearer(w.testKey.key),
      payload: {
        query:
          'query Logs($p: String) { requestLogs(first: 10, status: "2xx", path: $p) { totalCount nodes { path statusCode credentialName } } }',
        variables: { p: '/api/v1/services' },
      },
    });
    const data = res.json().data.requestLogs;
    expect(data.totalCount).toBe(3);
    expect(data.nodes[0]).toEqual({ path: '/api/v1/services', statusCode: 200, credentialName: 'test key' });
  });
});

describe('batching', () => {
  it('writes once batchRows wait, in one COPY, without waiting for the timer', async () => {
    const b = await createTestApp({ db: t.db, env: { REQUEST_LOG_FLUSH_MS: '60000', REQUEST_LOG_BATCH_ROWS: '3' } });
    try {
      const flushed = b.app.requestLogs!.nextFlush();
      for (let i = 0; i < 3; i++)
        await b.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(other.liveKey.key) });
      expect(await flushed).toEqual({ statements: 1, written: 3, failed: 0 });
      expect(await logsOf(t.dbs.live.prisma, other.live.id)).toHaveLength(3);
    } finally {
      await b.close();
    }
  });

  it('writes on the timer, and what is left when the app closes', async () => {
    const b = await createTestApp({ db: t.db, env: { REQUEST_LOG_FLUSH_MS: '20' } });
    const before = (await logsOf(t.dbs.live.prisma, other.live.id)).length;
    const flushed = b.app.requestLogs!.nextFlush();
    await b.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(other.liveKey.key) });
    expect((await flushed).written).toBeGreaterThanOrEqual(1);
    expect(await logsOf(t.dbs.live.prisma, other.live.id)).toHaveLength(before + 1);
    const c = await createTestApp({ db: t.db, env: { REQUEST_LOG_FLUSH_MS: '60000' } });
    await c.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(other.liveKey.key) });
    await c.close();
    await b.close();
    expect(await logsOf(t.dbs.live.prisma, other.live.id)).toHaveLength(before + 2);
  });

  it('a failed write never fails a request: the rows are counted as lost', async () => {
    await writer().flush();
    await t.dbs.test.prisma.$executeRawUnsafe('ALTER TABLE request_logs RENAME COLUMN ip TO ip_away');
    try {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(w.testKey.key) });
      expect(res.statusCode).toBe(200);
      const failedBefore = writer().failed;
      expect(await writer().flush()).toMatchObject({ written: 0, failed: 1 });
      expect(writer().failed).toBe(failedBefore + 1);
    } finally {
      await t.dbs.test.prisma.$executeRawUnsafe('ALTER TABLE request_logs RENAME COLUMN ip_away TO ip');
    }
  });

  it('REQUEST_LOGS=off records nothing', async () => {
    const off = await createTestApp({ db: t.db, env: { REQUEST_LOGS: 'off' } });
    try {
      expect(off.app.requestLogs).toBeNull();
      const before = await t.dbs.live.prisma.requestLog.count();
      await off.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(other.liveKey.key) });
      await off.close();
      expect(await t.dbs.live.prisma.requestLog.count()).toBe(before);
    } finally {
      await off.close().catch(() => undefined);
    }
  });
});

describe("one company's hostile values never cost another company its rows", () => {
  // Behind a proxy (TRUST_PROXY) the address is the client's own X-Forwarded-For entry: text the
  // client chooses, like the path, the idempotency key, the operation name and the bodies. A
  // value that broke a line of the COPY batch lost every company's rows of that batch.
  let p: Awaited<ReturnType<typeof createTestApp>>;
  beforeAll(async () => {
    p = await createTestApp({ db: t.db, env: { TRUST_PROXY: '1', REQUEST_LOG_FLUSH_MS: '60000' } });
  });
  afterAll(async () => {
    await p?.close();
  });

  /** A GET over a real socket, its head as bytes (Latin-1): what no HTTP client would send. */
  function rawGet(path: string, headers: Record<string, string>): Promise<string> {
    return new Promise((resolve, reject) => {
      const { port } = p.app.server.address() as { port: number };
      const socket = createConnection({ port, host: '127.0.0.1' });
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('error', reject);
      socket.on('close', () => {
        const text = Buffer.concat(chunks).toString('latin1');
        resolve(/\r\nx-request-id: ([^\r]*)/i.exec(text)?.[1] ?? text.slice(0, 200));
      });
      const lines = [`GET ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
      for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
      socket.write(Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'));
    });
  }

  it('writes every row of the batch, each value in its own column as it was sent', async () => {
    await p.app.listen({ host: '127.0.0.1', port: 0 });
    const a = w.testKey.key;
    const b = other.testKey.key;
    const addresses = [
      '203.0.113.7\tinjected', // the reported one: a tab
      'line\nbreak',
      'carriage\rreturn',
      'crlf\r\nafter',
      '\\N', // COPY's NULL, read unescaped
      '\\.', // COPY's end of data
      'back\\tslash', // an escaped tab, read unescaped
      'trailing\\',
      'nul\u0000byte',
      'ü 日本 🙂',
      '9'.repeat(10_000),
    ];
    /** What each request's row must hold, by request id. */
    const expected = new Map<string, Record<string, unknown>>();
    const me = { method: 'GET', route: '/api/v1/me', path: '/api/v1/me', status: 200, operationName: null };
    const send = async (
      key: string,
      o: { method?: 'GET' | 'POST'; url?: string; headers?: Record<string, string>; payload?: object },
      row: Record<string, unknown>,
    ) => {
      const res = await p.app.inject({
        method: o.method ?? 'GET',
        url: o.url ?? '/api/v1/me',
        headers: { ...bearer(key), ...o.headers },
        ...(o.payload ? { payload: o.payload } : {}),
      });
      expect(res.statusCode).toBe(row.status);
      expected.set(res.headers['x-request-id'] as string, row);
    };
    const ordinary = async () => {
      await send(b, {}, { ...me, companyId: other.test.id, ip: '127.0.0.1', idempotencyKey: null });
      await send(
        b,
        { url: '/api/v1/services' },
        { method: 'GET', route: '/api/v1/services', path: '/api/v1/services', status: 200, companyId: other.test.id },
      );
    };

    for (const address of addresses) {
      await send(
        a,
        { headers: { 'x-forwarded-for': address } },
        // A NUL, which no PostgreSQL text holds, is stored as U+FFFD (docs/api.md, Request logs).
        { ...me, companyId: w.test.id, ip: address.replaceAll('\u0000', '\uFFFD') },
      );
      await ordinary();
    }
    const odd = 'k\tv\\N\n\r\\.';
    await send(
      a,
      { headers: { 'idempotency-key': odd, 'x-forwarded-for': '10.0.0.1' } },
      { ...me, companyId: w.test.id, ip: '10.0.0.1', idempotencyKey: odd },
    );
    await send(
      a,
      { url: '/api/v1/bookings/%09%0A%5C%00%E6%97%A5' },
      { method: 'GET', route: '/api/v1/bookings/:id', path: '/api/v1/bookings/%09%0A%5C%00%E6%97%A5', status: 404 },
    );
    // A path no route serves has no route (the writer's memo of route texts never holds a path).
    await send(
      a,
      { url: '/api/v1/no-such-thing/%09%5C' },
      { method: 'GET', route: null, path: '/api/v1/no-such-thing/%09%5C', status: 404 },
    );
    await send(
      a,
      { method: 'POST', url: '/api/v1/customers', payload: { name: odd, email: 'not-an-email' } },
      { method: 'POST', route: '/api/v1/customers', status: 400 },
    );
    await send(
      a,
      {
        method: 'POST',
        url: '/graphql',
        payload: { query: 'query Q { me { name } }', operationName: `Op${odd}` },
      },
      // An operation name the document lacks: refused, so its bodies are kept too.
      { method: 'POST', route: null, path: '/graphql', operationName: `Op${odd}`, status: 400 },
    );
    await ordinary();
    // Over a real socket: Latin-1 bytes, a tab and a backslash, as Node reads them.
    const raw = 'x\t\\N\u00ff\u00fe';
    const rawId = await rawGet('/api/v1/me', { ...bearer(a), 'X-Forwarded-For': raw });
    expected.set(rawId, { ...me, companyId: w.test.id, ip: raw });
    await ordinary();

    const flushed = await p.app.requestLogs!.flush();
    expect(flushed).toEqual({ statements: 1, written: expected.size, failed: 0 });
    const rows = await t.dbs.test.prisma.requestLog.findMany({ where: { requestId: { in: [...expected.keys()] } } });
    const byRequest = new Map(rows.map((r) => [r.requestId, r]));
    for (const [requestId, row] of expected) {
      const key = row.companyId === other.test.id ? other.testKey : w.testKey;
      expect(byRequest.get(requestId), requestId).toMatchObject({
        companyId: w.test.id,
        credentialId: key.apiKey.id,
        credentialName: 'test key',
        credentialPrefix: `svc_sk_test_…${key.key.slice(-4)}`,
        ...row,
      });
    }
    expect(rows).toHaveLength(expected.size);
    const [bad] = rows.filter((r) => r.method === 'POST' && r.route === '/api/v1/customers');
    expect(JSON.parse(bad!.requestBody!)).toEqual({ name: odd, email: 'not-an-email' });
  });
});
