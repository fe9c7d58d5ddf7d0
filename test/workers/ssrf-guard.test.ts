// SSRF (API.md §6): live endpoints must be https and must not reach internal addresses,
// checked after DNS resolution on every attempt, with the connection pinned to the checked
// address; redirects are not followed. Real sockets, a resolver replaced only where a name
// must resolve to a private address without touching the machine's DNS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { guardedLookup, policyFor, refusalFor, type UrlPolicy } from '../../src/workers/ssrf-guard.js';
import { sendWebhook } from '../../src/workers/webhook-sender.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';
import { startReceiver, type Receiver } from './receiver.js';

const live: UrlPolicy = policyFor('live', loadConfig({ NODE_ENV: 'test' }));
const sandbox: UrlPolicy = policyFor('test', loadConfig({ NODE_ENV: 'test' }));
const fakeDns = (table: Record<string, string[]>) => (host: string, cb: (err: NodeJS.ErrnoException | null, a: { address: string; family: number }[]) => void) => {
  const list = table[host];
  if (!list) return cb(Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
  cb(null, list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
};

let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(() => rx.close());

const send = (url: string, policy: UrlPolicy, resolve?: ReturnType<typeof fakeDns>) =>
  sendWebhook({ url, body: '{}', headers: {}, timeoutMs: 2000, policy, resolve });

describe('the live policy', () => {
  it('is https-only and closed to internal addresses by default outside development', () => {
    expect(live).toEqual({ requireHttps: true, allowLoopback: false, allowPrivate: false });
    expect(policyFor('live', loadConfig({ NODE_ENV: 'development' }))).toEqual({ requireHttps: false, allowLoopback: true, allowPrivate: true });
    expect(policyFor('test', loadConfig({ NODE_ENV: 'production', SECRET_KEY: 'a'.repeat(64) }))).toEqual({ requireHttps: false, allowLoopback: true, allowPrivate: false });
  });

  it.each([
    ['https://127.0.0.1/hooks', /loopback/],
    ['https://127.8.9.10/hooks', /loopback/],
    ['https://10.0.0.1/hooks', /private/],
    ['https://172.16.5.4/hooks', /private/],
    ['https://192.168.1.1/hooks', /private/],
    ['https://169.254.169.254/latest/meta-data/', /private, link-local/],
    ['https://0.0.0.0/hooks', /private/],
    ['https://100.64.0.1/hooks', /private/],
    ['https://[::1]/hooks', /loopback/],
    ['https://[::ffff:127.0.0.1]/hooks', /loopback/],
    ['https://[::ffff:a9fe:a9fe]/hooks', /link-local/],
    ['https://[::ffff:10.0.0.1]/hooks', /private/],
    ['https://[fd12:3456::1]/hooks', /private/],
    ['https://[fe80::1]/hooks', /link-local/],
    ['https://[::]/hooks', /reserved|private/],
    ['https://localhost/hooks', /localhost/],
    ['https://api.localhost/hooks', /localhost/],
    ['http://hooks.example.com/hooks', /https/],
    ['ftp://hooks.example.com/', /http/],
    ['https://user:pw@hooks.example.com/', /credentials/],
  ])('refuses %s before connecting', async (url, reason) => {
    const r = await send(url, live);
    expect(r).toMatchObject({ ok: false, statusCode: null });
    expect(r.error).toMatch(reason);
  });

  it('refuses a host name that resolves to a private address, and one with any private address among public ones', async () => {
    const dns = fakeDns({ 'hooks.attacker.test': ['10.1.2.3'], 'mixed.attacker.test': ['93.184.216.34', '127.0.0.1'], 'v6.attacker.test': ['::ffff:192.168.0.1'] });
    for (const host of ['hooks.attacker.test', 'mixed.attacker.test', 'v6.attacker.test']) {
      const r = await send(`https://${host}/hooks`, live, dns);
      expect(r.ok).toBe(false);
      expect(r.error).toMatch(/resolves to a refused address/);
    }
  });

  it('checks the system resolver answer too: localhost resolves to loopback and is refused in the lookup', async () => {
    // The literal-name rule aside, the connection's own lookup (system DNS) refuses it.
    const err = await new Promise<Error | null>((resolve) =>
      (guardedLookup(live) as unknown as (h: string, o: object, cb: (e: Error | null) => void) => void)('localhost', { all: true }, (e) => resolve(e)),
    );
    expect(err?.message).toMatch(/localhost resolves to a refused address \(127\.0\.0\.1 is a loopback address\)|::1 is a loopback/);
    expect(rx.received).toHaveLength(0);
  });

  it('allows public addresses', () => {
    expect(refusalFor('93.184.216.34', live)).toBeNull();
    expect(refusalFor('2606:4700:4700::1111', live)).toBeNull();
    expect(refusalFor('::ffff:93.184.216.34', live)).toBeNull();
  });
});

describe('the connection', () => {
  it('goes to the address the guard checked (pinned), not to a second DNS answer', async () => {
    // The name exists only in the guard's resolver: reaching the receiver proves the socket
    // used the checked answer rather than resolving again.
    const dns = fakeDns({ 'pinned.example.test': ['127.0.0.1'] });
    const r = await send(`http://pinned.example.test:${rx.port}/hooks`, sandbox, dns);
    expect(r).toMatchObject({ ok: true, statusCode: 200 });
    expect(rx.received.at(-1)!.headers.host).toBe(`pinned.example.test:${rx.port}`);
  });

  it('does not follow a redirect to an internal address', async () => {
    const target = await startReceiver();
    const redirecting = await startReceiver((_r, res) => res.writeHead(302, { location: `http://127.0.0.1:${target.port}/internal` }).end());
    const r = await send(redirecting.url, sandbox);
    expect(r).toMatchObject({ ok: false, statusCode: 302 });
    expect(r.error).toMatch(/redirect to http:\/\/127\.0\.0\.1:\d+\/internal not followed/);
    expect(redirecting.received).toHaveLength(1);
    expect(target.received).toHaveLength(0);
    await Promise.all([target.close(), redirecting.close()]);
  });

  it('times out a receiver that does not answer', async () => {
    const silent = await startReceiver(() => undefined);
    const r = await sendWebhook({ url: silent.url, body: '{}', headers: {}, timeoutMs: 300, policy: sandbox });
    expect(r).toMatchObject({ ok: false, statusCode: null, error: 'timed out after 300 ms' });
    await silent.close();
  });
});

describe('the API', () => {
  let t: TestApp;
  let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
  beforeAll(async () => {
    t = await createTestApp();
    w = await createAccountWithKeys(t.dbs);
  });
  afterAll(() => t?.close());

  it.each([
    'https://127.0.0.1/hooks',
    'https://10.0.0.1/hooks',
    'https://169.254.169.254/latest/meta-data/',
    'https://[::1]/hooks',
    'https://[::ffff:127.0.0.1]/hooks',
    'https://localhost/hooks',
    'http://hooks.example.com/hooks',
  ])('refuses a live endpoint at %s with a 400 naming url, and writes nothing', async (url) => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/webhook-endpoints', headers: bearer(w.liveKey.key), payload: { url, events: ['*'] } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'url', message: expect.any(String) }] });
    expect(await t.dbs.live.prisma.webhookEndpoint.count()).toBe(0);
  });

  it('accepts a public https live endpoint, and http on loopback in the sandbox', async () => {
    const a = await t.app.inject({ method: 'POST', url: '/api/v1/webhook-endpoints', headers: bearer(w.liveKey.key), payload: { url: 'https://hooks.example.com/in', events: ['*'] } });
    expect(a.statusCode).toBe(200);
    const b = await t.app.inject({ method: 'POST', url: '/api/v1/webhook-endpoints', headers: bearer(w.testKey.key), payload: { url: 'http://127.0.0.1:9/in', events: ['*'] } });
    expect(b.statusCode).toBe(200);
    // Changing a live endpoint's URL to an internal one is refused the same way.
    const c = await t.app.inject({ method: 'PATCH', url: `/api/v1/webhook-endpoints/${a.json().data._id}`, headers: bearer(w.liveKey.key), payload: { url: 'https://[::ffff:7f00:1]/' } });
    expect(c.statusCode).toBe(400);
    expect((await t.dbs.live.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: a.json().data._id } })).url).toBe('https://hooks.example.com/in');
  });
});
