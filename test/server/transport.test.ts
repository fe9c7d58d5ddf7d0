// HTTPS (docs/scaling.md): TLS at the server (TLS_CERT/TLS_KEY) or
// at a trusted proxy (TRUST_PROXY); production refuses plain-HTTP API requests except from
// loopback and sends HSTS.
import { TEST_SECRET_KEY } from '../helpers/app.js';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trustedProxies } from '../../src/app.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';
import { tempDir } from '../helpers/server-process.js';

const REMOTE = '203.0.113.7';
let dev: Awaited<ReturnType<typeof createTestApp>>;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;

beforeAll(async () => {
  dev = await createTestApp();
  w = await createAccountWithKeys(dev.dbs);
});
afterAll(async () => {
  await dev?.close();
});

describe('production over plain HTTP', () => {
  let direct: TestApp;
  let proxied: TestApp;
  beforeAll(async () => {
    direct = await createTestApp({ db: dev.db, env: { NODE_ENV: 'production', SECRET_KEY: TEST_SECRET_KEY } });
    proxied = await createTestApp({
      db: dev.db,
      env: { NODE_ENV: 'production', SECRET_KEY: TEST_SECRET_KEY, TRUST_PROXY: 'true' },
    });
    listed = await createTestApp({
      db: dev.db,
      env: { NODE_ENV: 'production', SECRET_KEY: TEST_SECRET_KEY, TRUST_PROXY: '10.0.0.0/8' },
    });
  });
  afterAll(async () => {
    await direct?.close();
    await proxied?.close();
    await listed?.close();
  });
  let listed: TestApp;

  const me = (t: TestApp, remoteAddress: string, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'GET',
      url: '/api/v1/me',
      remoteAddress,
      headers: { ...bearer(w.liveKey.key), ...headers },
    });

  function expectRefused(res: { statusCode: number; json(): any; headers: Record<string, unknown> }) {
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ status: false, error: { code: 'FORBIDDEN', message: 'HTTPS is required' } });
    expect(res.headers['strict-transport-security']).toBe('max-age=63072000; includeSubDomains');
  }

  it('refuses a remote client, API and GraphQL alike, with HSTS', async () => {
    expectRefused(await me(direct, REMOTE));
    expectRefused(
      await direct.app.inject({
        method: 'POST',
        url: '/graphql',
        remoteAddress: REMOTE,
        headers: bearer(w.liveKey.key),
        payload: { query: '{ me { name } }' },
      }),
    );
  });

  it('does not believe X-Forwarded-Proto from a client when no proxy is trusted', async () => {
    expectRefused(await me(direct, REMOTE, { 'x-forwarded-proto': 'https' }));
  });

  it('serves loopback (health checks, local tools) and sends HSTS', async () => {
    const res = await me(direct, '127.0.0.1');
    expect(res.statusCode).toBe(200);
    expect(res.headers['strict-transport-security']).toBe('max-age=63072000; includeSubDomains');
    expect((await me(direct, '::1')).statusCode).toBe(200);
  });

  it('serves health checks to anyone', async () => {
    expect((await direct.app.inject({ method: 'GET', url: '/healthz', remoteAddress: REMOTE })).statusCode).toBe(200);
  });

  it('behind a trusted proxy on loopback: follows X-Forwarded-Proto and the client address', async () => {
    // What Fastify makes of the forwarded headers with TRUST_PROXY=true (one hop), as buildApp
    // configures it.
    const probe = Fastify({ trustProxy: trustedProxies(proxied.config.TRUST_PROXY) });
    probe.get('/', async (req) => ({ protocol: req.protocol, ip: req.ip, peer: req.socket.remoteAddress }));
    const forwarded = (proto: string, xff = REMOTE) =>
      probe.inject({
        method: 'GET',
        url: '/',
        remoteAddress: '127.0.0.1',
        headers: { 'x-forwarded-for': xff, 'x-forwarded-proto': proto },
      });
    expect((await forwarded('https')).json()).toEqual({ protocol: 'https', ip: REMOTE, peer: '127.0.0.1' });
    expect((await forwarded('http')).json()).toEqual({ protocol: 'http', ip: REMOTE, peer: '127.0.0.1' });
    // The client's own entries on the left are not its address.
    expect((await forwarded('https', `127.0.0.1, 10.9.9.9, ${REMOTE}`)).json().ip).toBe(REMOTE);
    await probe.close();

    const ok = await me(proxied, '127.0.0.1', { 'x-forwarded-for': REMOTE, 'x-forwarded-proto': 'https' });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['strict-transport-security']).toBe('max-age=63072000; includeSubDomains');
    // The proxy received plain HTTP from a remote client: refused, although the socket's peer
    // (the proxy) is loopback.
    const plain = await me(proxied, '127.0.0.1', { 'x-forwarded-for': REMOTE, 'x-forwarded-proto': 'http' });
    expectRefused(plain);
  });
});

describe('spoofed X-Forwarded-For behind a proxy that appends the client address', () => {
  // The proxy appends the address it saw; whatever the client wrote itself stays on the left.
  const PROXY = '10.1.2.3';
  let apps: TestApp[] = [];
  const app = async (trust: string, env: Record<string, string> = {}) => {
    const a = await createTestApp({
      db: dev.db,
      env: { NODE_ENV: 'production', SECRET_KEY: TEST_SECRET_KEY, TRUST_PROXY: trust, ...env },
    });
    apps.push(a);
    return a;
  };
  afterAll(async () => {
    for (const a of apps) await a.close();
    apps = [];
  });

  const refused = (res: { statusCode: number; json(): any }) => {
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toEqual({ code: 'FORBIDDEN', message: 'HTTPS is required' });
  };

  for (const [name, trust, peer] of [
    ['TRUST_PROXY=true (one hop), proxy on loopback', 'true', '127.0.0.1'],
    ['TRUST_PROXY=1, proxy on loopback', '1', '127.0.0.1'],
    ['TRUST_PROXY=10.0.0.0/8, proxy at 10.1.2.3', '10.0.0.0/8', PROXY],
  ] as const) {
    it(`${name}: "X-Forwarded-For: 127.0.0.1" from a remote client earns no loopback exemption`, async () => {
      const a = await app(trust);
      const res = await a.app.inject({
        method: 'GET',
        url: '/api/v1/me',
        remoteAddress: peer,
        headers: { ...bearer(w.liveKey.key), 'x-forwarded-for': `127.0.0.1, ${REMOTE}`, 'x-forwarded-proto': 'http' },
      });
      refused(res);
      // Through HTTPS at the proxy the same request is served.
      const ok = await a.app.inject({
        method: 'GET',
        url: '/api/v1/me',
        remoteAddress: peer,
        headers: { ...bearer(w.liveKey.key), 'x-forwarded-for': `127.0.0.1, ${REMOTE}`, 'x-forwarded-proto': 'https' },
      });
      expect(ok.statusCode).toBe(200);
    });
  }

  it('TRUST_PROXY=10.0.0.0/8: a client outside the list is not believed at all', async () => {
    const a = await app('10.0.0.0/8');
    const res = await a.app.inject({
      method: 'GET',
      url: '/api/v1/me',
      remoteAddress: REMOTE,
      headers: { ...bearer(w.liveKey.key), 'x-forwarded-for': '127.0.0.1', 'x-forwarded-proto': 'https' },
    });
    refused(res);
  });

  it('the per-IP limit counts the real client however it rewrites X-Forwarded-For', async () => {
    const a = await app('1');
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) {
      const res = await a.app.inject({
        method: 'GET',
        url: '/api/v1/me',
        remoteAddress: '127.0.0.1',
        headers: {
          authorization: 'Bearer svc_sk_live_000000000000000000000000000000000000000000',
          'x-forwarded-for': `198.51.100.${i}, ${REMOTE}`,
          'x-forwarded-proto': 'https',
        },
      });
      statuses.push(res.statusCode);
    }
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(401));
    expect(statuses.slice(20)).toEqual(Array(5).fill(429));
  });
});

describe('development', () => {
  it('serves plain HTTP from anywhere, without HSTS', async () => {
    const res = await dev.app.inject({
      method: 'GET',
      url: '/api/v1/me',
      remoteAddress: REMOTE,
      headers: bearer(w.liveKey.key),
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });
});

describe('TLS at the server', () => {
  const dir = tempDir();
  let tls: TestApp;
  let port: number;
  let cert: Buffer;
  beforeAll(async () => {
    const certFile = join(dir.path, 'cert.pem');
    const keyFile = join(dir.path, 'key.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        keyFile,
        '-out',
        certFile,
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
      ],
      { stdio: 'ignore' },
    );
    cert = readFileSync(certFile);
    tls = await createTestApp({
      db: dev.db,
      env: { NODE_ENV: 'production', SECRET_KEY: TEST_SECRET_KEY, TLS_CERT: certFile, TLS_KEY: keyFile },
    });
    await tls.app.listen({ host: '127.0.0.1', port: 0 });
    port = (tls.app.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await tls?.close();
    dir.remove();
  });

  it('serves the API over HTTPS with HSTS', async () => {
    const res = await new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
      (resolve, reject) => {
        const req = httpsRequest(
          { host: '127.0.0.1', port, path: '/api/v1/me', ca: cert, headers: bearer(w.liveKey.key) },
          (r) => {
            let body = '';
            r.on('data', (d) => (body += d));
            r.on('end', () => resolve({ status: r.statusCode!, headers: r.headers, body }));
          },
        );
        req.on('error', reject);
        req.end();
      },
    );
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).data._id).toBe(w.live.id);
    expect(res.headers['strict-transport-security']).toBe('max-age=63072000; includeSubDomains');
  });

  it('does not speak plain HTTP on the TLS port', async () => {
    const outcome = await new Promise<string>((resolve) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/api/v1/me', headers: bearer(w.liveKey.key) }, (r) =>
        resolve(`HTTP ${r.statusCode}`),
      );
      req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
      req.setTimeout(5000, () => req.destroy(new Error('timeout')));
      req.end();
    });
    expect(outcome).not.toMatch(/^HTTP 2/);
  });
});

describe('shutdown', () => {
  it('a request arriving on a kept-alive connection while the server closes gets the 503 envelope with Retry-After', async () => {
    const s = await createTestApp({ db: dev.db });
    await s.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = s.app.server.address() as { port: number };
    const socket = connect(port, '127.0.0.1');
    try {
      await new Promise((r) => socket.once('connect', r));
      let raw = '';
      socket.on('data', (d: Buffer) => (raw += d.toString()));
      const ended = new Promise((r) => socket.once('close', r));
      // A request in flight (its body arrives slowly) keeps the connection busy...
      const body = JSON.stringify({ address: 'Kept alive 1' });
      socket.write(
        `PATCH /api/v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${w.liveKey.key}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 5)}`,
      );
      await new Promise((r) => setTimeout(r, 100));
      const closing = s.app.close();
      await new Promise((r) => setTimeout(r, 100));
      // ...it finishes, and the next request on the same connection meets the closing server.
      socket.write(
        `${body.slice(5)}GET /api/v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${w.liveKey.key}\r\n\r\n`,
      );
      await ended;
      await closing;

      const responses = raw.split(/(?=HTTP\/1\.1 )/);
      expect(responses).toHaveLength(2);
      expect(responses[0]).toMatch(/^HTTP\/1\.1 200 /);
      const [head, payload] = responses[1]!.split('\r\n\r\n');
      const headers = Object.fromEntries(
        head!
          .split('\r\n')
          .slice(1)
          .map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      expect(head).toMatch(/^HTTP\/1\.1 503 /);
      expect(headers.connection).toBe('close');
      expect(headers['retry-after']).toBe('1');
      expect(headers['content-type']).toMatch(/^application\/json/);
      expect(headers['x-request-id']).toMatch(/^req_[0-9a-f]{24}$/);
      const envelope = JSON.parse(payload!);
      expect(envelope).toEqual({
        status: false,
        error: { code: 'SERVICE_UNAVAILABLE', message: 'This instance is shutting down; retry the request' },
        meta: { timestamp: expect.any(Number), requestId: headers['x-request-id'] },
      });
      expect(Math.abs(envelope.meta.timestamp - Date.now())).toBeLessThan(60_000);
    } finally {
      socket.destroy();
      await s.services.close();
    }
  });
});
