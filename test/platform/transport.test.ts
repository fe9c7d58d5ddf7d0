// HTTPS (API.md §9; spec "Security rules for clients"): TLS at the server (TLS_CERT/TLS_KEY) or
// at a trusted proxy (TRUST_PROXY); production refuses plain-HTTP API requests except from
// loopback and sends HSTS.
import { TEST_SECRET_KEY } from '../helpers/app.js';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    proxied = await createTestApp({ db: dev.db, env: { NODE_ENV: 'production', SECRET_KEY: TEST_SECRET_KEY, TRUST_PROXY: 'true' } });
  });
  afterAll(async () => {
    await direct?.close();
    await proxied?.close();
  });

  const me = (t: TestApp, remoteAddress: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: '/api/v1/me', remoteAddress, headers: { ...bearer(w.liveKey.key), ...headers } });

  function expectRefused(res: { statusCode: number; json(): any; headers: Record<string, unknown> }) {
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ status: false, error: { code: 'FORBIDDEN', message: 'HTTPS is required' } });
    expect(res.headers['strict-transport-security']).toBe('max-age=63072000; includeSubDomains');
  }

  it('refuses a remote client, API and GraphQL alike, with HSTS', async () => {
    expectRefused(await me(direct, REMOTE));
    expectRefused(await direct.app.inject({ method: 'POST', url: '/graphql', remoteAddress: REMOTE, headers: bearer(w.liveKey.key), payload: { query: '{ me { name } }' } }));
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
    // What Fastify makes of the forwarded headers with trustProxy, as buildApp configures it.
    const probe = Fastify({ trustProxy: true });
    probe.get('/', async (req) => ({ protocol: req.protocol, ip: req.ip, peer: req.socket.remoteAddress }));
    const forwarded = (proto: string) =>
      probe.inject({ method: 'GET', url: '/', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': REMOTE, 'x-forwarded-proto': proto } });
    expect((await forwarded('https')).json()).toEqual({ protocol: 'https', ip: REMOTE, peer: '127.0.0.1' });
    expect((await forwarded('http')).json()).toEqual({ protocol: 'http', ip: REMOTE, peer: '127.0.0.1' });
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

describe('development', () => {
  it('serves plain HTTP from anywhere, without HSTS', async () => {
    const res = await dev.app.inject({ method: 'GET', url: '/api/v1/me', remoteAddress: REMOTE, headers: bearer(w.liveKey.key) });
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
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], { stdio: 'ignore' });
    cert = readFileSync(certFile);
    tls = await createTestApp({ db: dev.db, env: { NODE_ENV: 'production', SECRET_KEY: TEST_SECRET_KEY, TLS_CERT: certFile, TLS_KEY: keyFile } });
    await tls.app.listen({ host: '127.0.0.1', port: 0 });
    port = (tls.app.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await tls?.close();
    dir.remove();
  });

  it('serves the API over HTTPS with HSTS', async () => {
    const res = await new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
      const req = httpsRequest({ host: '127.0.0.1', port, path: '/api/v1/me', ca: cert, headers: bearer(w.liveKey.key) }, (r) => {
        let body = '';
        r.on('data', (d) => (body += d));
        r.on('end', () => resolve({ status: r.statusCode!, headers: r.headers, body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).data._id).toBe(w.live.id);
    expect(res.headers['strict-transport-security']).toBe('max-age=63072000; includeSubDomains');
  });

  it('does not speak plain HTTP on the TLS port', async () => {
    const outcome = await new Promise<string>((resolve) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/api/v1/me', headers: bearer(w.liveKey.key) }, (r) => resolve(`HTTP ${r.statusCode}`));
      req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
      req.setTimeout(5000, () => req.destroy(new Error('timeout')));
      req.end();
    });
    expect(outcome).not.toMatch(/^HTTP 2/);
  });
});
