// What Fastify's router and Node's HTTP parser refuse before a route runs still answers in the
// envelope (docs/api.md): over-long path parameters, paths that are not valid percent-encoded
// UTF-8, an oversized header block. And an id that cannot be an id is 404 NOT_FOUND on every
// route with a path id, whatever its length or bytes, with nothing written.
// Raw requests go over a real socket: an HTTP client library would refuse or re-encode them.
import { createConnection } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../src/errors.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let port: number;

beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_PER_SECOND: '1000000' } });
  w = await createAccountWithKeys(t.dbs);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as { port: number }).port;
});
afterAll(async () => {
  await t?.close();
});

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends a raw request (`head`: request line and headers, no blank line) and reads the whole answer. */
function raw(head: string, body = ''): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(statusLine?.split(' ')[1]), headers, body: text.slice(split + 4) });
    });
    const length = body ? `\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}` : '';
    // write, not end: Node's server aborts a request whose client half-closes before the answer.
    socket.write(`${head}\r\nHost: 127.0.0.1${length}\r\nConnection: close\r\n\r\n${body}`);
  });
}

const get = (path: string, headers: Record<string, string> = bearer(w.testKey.key)) =>
  raw([`GET ${path} HTTP/1.1`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)].join('\r\n'));

/** The error envelope with a code of the error table, the request id in body and header. */
function expectEnvelope(res: RawResponse, status: number, code: keyof typeof ERROR_STATUS) {
  expect(res.status, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(res.body);
  expect(body).toEqual({
    status: false,
    error: { code, message: expect.any(String) },
    meta: { timestamp: expect.any(Number), requestId: expect.stringMatching(/^req_[0-9a-f]{24}$/) },
  });
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(res.headers['x-request-id']).toBe(body.meta.requestId);
  return body;
}

describe('an id that cannot be an id is 404 NOT_FOUND in the envelope', () => {
  const HOSTILE_IDS: Array<[string, string]> = [
    ['250 characters', 'a'.repeat(250)],
    ['250 hex characters', '0123456789abcdef'.repeat(16).slice(0, 250)],
    ['65 characters', 'b'.repeat(65)],
    ['a lone %', '%'],
    ['%zz', '%zz'],
    ['%00', '%00'],
    ['truncated UTF-8 %E0%A4%A', '%E0%A4%A'],
    ['an encoded surrogate %ED%A0%80', '%ED%A0%80'],
    ['an id with a %00 inside', `${'a'.repeat(12)}%00${'a'.repeat(11)}`],
    ['upper-case hex', 'ABCDEF0123456789ABCDEF01'],
    ['23 hex characters', 'abcdef0123456789abcdef0'],
    ['a traversal', '..%2F..%2Fme'],
  ];
  for (const [name, id] of HOSTILE_IDS) {
    it(`GET /api/v1/bookings/<${name}>`, async () => {
      const body = expectEnvelope(await get(`/api/v1/bookings/${id}`), 404, 'NOT_FOUND');
      expect(body.error.details).toBeUndefined();
    });
  }

  it('on every route of the registry with a path id, GET or write, and nothing is written', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const routes: Array<[string, string]> = [];
    for (const [path, ops] of Object.entries<Record<string, unknown>>(doc.paths)) {
      if (path.startsWith('/api/v1/') && path.includes('{'))
        for (const method of Object.keys(ops)) routes.push([method.toUpperCase(), path]);
    }
    expect(routes.length).toBeGreaterThanOrEqual(25);
    const before = await Promise.all([t.dbs.test.prisma.event.count(), t.dbs.test.prisma.idempotencyRecord.count()]);
    for (const [method, path] of routes) {
      for (const id of ['x'.repeat(250), 'c'.repeat(65), 'nope', '%zz', '%E0%A4%A', '%00']) {
        const url = path.replace(/\{[^}]+\}/g, id);
        const res = await raw(
          `${method} ${url} HTTP/1.1\r\nAuthorization: Bearer ${w.testKey.key}`,
          method === 'GET' || method === 'DELETE' ? '' : '{}',
        );
        expect(res.status, `${method} ${url}: ${res.body}`).toBe(404);
        expectEnvelope(res, 404, 'NOT_FOUND');
      }
    }
    expect(await Promise.all([t.dbs.test.prisma.event.count(), t.dbs.test.prisma.idempotencyRecord.count()])).toEqual(
      before,
    );
  });
});

describe('malformed paths that are not ids', () => {
  it.each(['/api/v1/book%zzings', '/api/v1/%', '/api/v1/%E0%A4%A/x'])(
    '%s is 404 NOT_FOUND in the envelope',
    async (path) => {
      expectEnvelope(await get(path), 404, 'NOT_FOUND');
    },
  );

  it('a request id sent by the caller is kept on a framework error', async () => {
    const res = await get('/api/v1/bookings/%zz', { ...bearer(w.testKey.key), 'X-Request-Id': 'caller-trace-0001' });
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body).meta.requestId).toBe('caller-trace-0001');
    expect(res.headers['x-request-id']).toBe('caller-trace-0001');
  });
});

describe("Node's HTTP parser", () => {
  it('an oversized header block (20 kB) is 431 with the BAD_REQUEST envelope and a request id', async () => {
    const res = await raw(
      `GET /api/v1/me HTTP/1.1\r\nAuthorization: Bearer ${w.testKey.key}\r\nX-Padding: ${'p'.repeat(20_000)}`,
    );
    expect(res.status).toBe(431);
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.body)));
    const body = expectEnvelope(res, 431, 'BAD_REQUEST');
    expect(body.error.message).toMatch(/header/i);
  });

  it('a request line that is not HTTP is 400 BAD_REQUEST in the envelope', async () => {
    const res = await raw('GARBAGE\x01 / HTTP/1.1');
    expectEnvelope(res, 400, 'BAD_REQUEST');
  });

  it('the server keeps answering afterwards', async () => {
    const res = await get('/api/v1/me');
    expect(res.status).toBe(200);
  });
});
