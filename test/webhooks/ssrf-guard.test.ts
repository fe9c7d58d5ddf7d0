// SSRF (docs/webhooks.md): live endpoints must be https and must not reach internal addresses,
// checked after DNS resolution on every attempt, with the connection pinned to the checked
// address; redirects are not followed. Real sockets, a resolver replaced only where a name
// must resolve to a private address without touching the machine's DNS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { guardedLookup, policyFor, refusalFor, type UrlPolicy } from '../../src/webhooks/ssrf-guard.js';
import { sendWebhook } from '../../src/workers/webhook-sender.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

const live: UrlPolicy = policyFor('live', loadConfig({ NODE_ENV: 'test' }));
const sandbox: UrlPolicy = policyFor('test', loadConfig({ NODE_ENV: 'test' }));
// NODE_ENV's default: live endpoints may be http and loopback there, and nothing more.
const liveInDevelopment: UrlPolicy = policyFor('live', loadConfig({ NODE_ENV: 'development' }));
const production = { NODE_ENV: 'production', SECRET_KEY: 'a'.repeat(64) };

// Internal addresses no relaxation short of an explicit opt-in lets through.
const INTERNAL = [
  ['10.0.0.1', /private/],
  ['172.16.5.4', /private/],
  ['192.168.1.1', /private/],
  ['169.254.169.254', /link-local/],
  ['100.64.0.1', /carrier-grade NAT/],
  ['0.0.0.0', /unspecified/],
  ['224.0.0.1', /multicast/],
  ['255.255.255.255', /broadcast/],
  ['240.0.0.1', /reserved/],
  ['192.0.2.10', /reserved/],
  ['fd12:3456::1', /unique-local/],
  ['fe80::1', /link-local/],
  ['ff02::1', /multicast/],
  ['::', /unspecified/],
  ['::ffff:10.0.0.1', /IPv4-mapped: 10\.0\.0\.1 is a private/],
  ['::ffff:a9fe:a9fe', /IPv4-mapped: 169\.254\.169\.254 is a private, link-local/],
  ['::7f00:1', /deprecated IPv4-compatible/],
  ['::a9fe:a9fe', /deprecated IPv4-compatible/],
  ['::10.0.0.1', /deprecated IPv4-compatible/],
  // Public inside, but ::/96 is not IPv4-mapped: refused whole (a parser reading the dotted
  // tail as ::ffff:93.184.216.34 would let it through).
  ['::93.184.216.34', /deprecated IPv4-compatible/],
  ['::ffff:0:10.0.0.1', /IPv4-translated/],
  ['64:ff9b::a9fe:a9fe', /NAT64: 169\.254\.169\.254 is a private, link-local/],
  ['64:ff9b::10.1.2.3', /NAT64: 10\.1\.2\.3 is a private/],
  ['64:ff9b:1::1', /local-use NAT64/],
  ['2002:0a00:0001::1', /6to4: 10\.0\.0\.1 is a private/],
  ['2002:a9fe:a9fe::', /6to4: 169\.254\.169\.254/],
  ['2001:0:4136:e378::1', /Teredo/],
  ['2001:db8::1', /reserved/],
] as const;
const LOOPBACK = [
  '127.0.0.1',
  '127.8.9.10',
  '::1',
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '64:ff9b::7f00:1',
  '2002:7f00:1::1',
];
const fakeDns = (table: Record<string, string[]>) =>
  Object.assign(
    (host: string, cb: (err: NodeJS.ErrnoException | null, a: { address: string; family: number }[]) => void) => {
      const list = table[host];
      if (!list) return cb(Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
      cb(
        null,
        list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      );
    },
    { table },
  );

let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(() => rx.close());

const send = (url: string, policy: UrlPolicy, resolve?: ReturnType<typeof fakeDns>) =>
  sendWebhook({ url, body: '{}', headers: {}, timeoutMs: 2000, policy, resolve });

describe('the live policy', () => {
  it('is https-only and public-only; development and the sandbox relax http and loopback only; internal ranges need an explicit opt-in', () => {
    expect(live).toEqual({ requireHttps: true, allowLoopback: false, allowPrivate: false });
    expect(policyFor('live', loadConfig(production))).toEqual({
      requireHttps: true,
      allowLoopback: false,
      allowPrivate: false,
    });
    expect(liveInDevelopment).toEqual({ requireHttps: false, allowLoopback: true, allowPrivate: false });
    expect(
      policyFor(
        'live',
        loadConfig({ NODE_ENV: 'production', SECRET_KEY: 'a'.repeat(64), WEBHOOK_LIVE_ALLOW_PRIVATE: '1' }),
      ),
    ).toEqual({ requireHttps: false, allowLoopback: true, allowPrivate: true });
    for (const NODE_ENV of ['development', 'test', 'production']) {
      expect(policyFor('test', loadConfig({ ...production, NODE_ENV }))).toEqual({
        requireHttps: false,
        allowLoopback: true,
        allowPrivate: false,
      });
    }
    expect(policyFor('test', loadConfig({ NODE_ENV: 'development', WEBHOOK_SANDBOX_ALLOW_LOOPBACK: '0' }))).toEqual({
      requireHttps: false,
      allowLoopback: false,
      allowPrivate: false,
    });
    expect(policyFor('test', loadConfig({ NODE_ENV: 'development', WEBHOOK_SANDBOX_ALLOW_PRIVATE: '1' }))).toEqual({
      requireHttps: false,
      allowLoopback: true,
      allowPrivate: true,
    });
  });

  it.each(INTERNAL)(
    'refuses %s under every policy without the opt-in: live, live in development, the sandbox',
    (address, reason) => {
      for (const policy of [live, liveInDevelopment, sandbox]) expect(refusalFor(address, policy)).toMatch(reason);
      expect(refusalFor(address, { requireHttps: false, allowLoopback: true, allowPrivate: true })).toBeNull();
    },
  );

  it('refuses loopback, and its IPv4-in-IPv6 forms, to live endpoints; development and the sandbox allow it', () => {
    for (const address of LOOPBACK) {
      expect([address, refusalFor(address, live)]).toEqual([address, expect.stringMatching(/loopback/)]);
      expect(refusalFor(address, liveInDevelopment)).toBeNull();
      expect(refusalFor(address, sandbox)).toBeNull();
    }
  });

  it.each([
    ['http://10.0.0.1/hooks', /private/],
    ['http://169.254.169.254/latest/meta-data/', /link-local/],
    ['http://[fd00::1]/hooks', /unique-local/],
    ['http://[::ffff:a9fe:a9fe]/hooks', /link-local/],
    ['http://[::7f00:1]/hooks', /IPv4-compatible/],
    ['http://[64:ff9b::a9fe:a9fe]/hooks', /NAT64/],
  ])('refuses %s in the sandbox and to live endpoints in development, before connecting', async (url, reason) => {
    for (const policy of [liveInDevelopment, sandbox]) {
      const r = await send(url, policy);
      expect(r).toMatchObject({ ok: false, statusCode: null });
      expect(r.error).toMatch(reason);
    }
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
    ['https://[::7f00:1]/hooks', /deprecated IPv4-compatible/],
    ['https://[64:ff9b::7f00:1]/hooks', /NAT64: 127\.0\.0\.1 is a loopback/],
    ['https://[2002:7f00:1::1]/hooks', /6to4: 127\.0\.0\.1 is a loopback/],
    ['https://[2002:c0a8:101::1]/hooks', /6to4: 192\.168\.1\.1 is a private/],
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
    const dns = fakeDns({
      'hooks.attacker.test': ['10.1.2.3'],
      'mixed.attacker.test': ['93.184.216.34', '127.0.0.1'],
      'v6.attacker.test': ['::ffff:192.168.0.1'],
      'metadata.attacker.test': ['169.254.169.254'],
      'compat.attacker.test': ['::7f00:1'],
      'nat64.attacker.test': ['64:ff9b::a9fe:a9fe'],
    });
    for (const host of Object.keys(dns.table)) {
      const r = await send(`https://${host}/hooks`, live, dns);
      expect(r.ok).toBe(false);
      expect(r.error).toMatch(/resolves to a refused address/);
    }
    // Development's relaxation is http and loopback, not the internal network.
    for (const host of ['hooks.attacker.test', 'metadata.attacker.test', 'nat64.attacker.test']) {
      const r = await send(`http://${host}/hooks`, liveInDevelopment, dns);
      expect(r.error).toMatch(/resolves to a refused address \(.* is a private, link-local or reserved address/);
    }
  });

  it('checks the system resolver answer too: localhost resolves to loopback and is refused in the lookup', async () => {
    // The literal-name rule aside, the connection's own lookup (system DNS) refuses it.
    const err = await new Promise<Error | null>((resolve) =>
      (guardedLookup(live) as unknown as (h: string, o: object, cb: (e: Error | null) => void) => void)(
        'localhost',
        { all: true },
        (e) => resolve(e),
      ),
    );
    expect(err?.message).toMatch(
      /localhost resolves to a refused address \(127\.0\.0\.1 is a loopback address\)|::1 is a loopback/,
    );
    expect(rx.received).toHaveLength(0);
  });

  it('allows public addresses, also inside NAT64 and 6to4', () => {
    for (const address of [
      '93.184.216.34',
      '2606:4700:4700::1111',
      '::ffff:93.184.216.34',
      '64:ff9b::5db8:d822',
      '2002:5db8:d822::1',
    ]) {
      expect([address, refusalFor(address, live)]).toEqual([address, null]);
    }
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

  it('does not follow a redirect to an internal address, under the live policy', async () => {
    // The live policy of development (NODE_ENV's default), the only live policy a local
    // receiver can be reached under: http and loopback, no internal network. The redirect
    // names the cloud metadata address and then a loopback receiver; neither is requested.
    const target = await startReceiver();
    for (const location of ['http://169.254.169.254/latest/meta-data/', `http://127.0.0.1:${target.port}/internal`]) {
      const redirecting = await startReceiver((_r, res) => res.writeHead(302, { location }).end());
      const r = await send(redirecting.url, liveInDevelopment);
      expect(r).toMatchObject({ ok: false, statusCode: 302, error: `redirect to ${location} not followed` });
      expect(redirecting.received).toHaveLength(1);
      await redirecting.close();
    }
    expect(target.received).toHaveLength(0);
    // Production's live policy refuses the redirecting receiver itself (http, loopback).
    expect((await send(target.url, live)).error).toMatch(/https/);
    await target.close();
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
    'https://[::7f00:1]/hooks',
    'https://[64:ff9b::a9fe:a9fe]/hooks',
  ])('refuses a live endpoint at %s with a 400 naming url, and writes nothing', async (url) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhook-endpoints',
      headers: bearer(w.liveKey.key),
      payload: { url, events: ['*'] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ path: 'url', message: expect.any(String) }],
    });
    expect(await t.dbs.live.prisma.webhookEndpoint.count()).toBe(0);
  });

  it('accepts a public https live endpoint, and http on loopback in the sandbox', async () => {
    const a = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhook-endpoints',
      headers: bearer(w.liveKey.key),
      payload: { url: 'https://hooks.example.com/in', events: ['*'] },
    });
    expect(a.statusCode).toBe(200);
    const b = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhook-endpoints',
      headers: bearer(w.testKey.key),
      payload: { url: 'http://127.0.0.1:9/in', events: ['*'] },
    });
    expect(b.statusCode).toBe(200);
    // Changing a live endpoint's URL to an internal one is refused the same way.
    const c = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/webhook-endpoints/${a.json().data._id}`,
      headers: bearer(w.liveKey.key),
      payload: { url: 'https://[::ffff:7f00:1]/' },
    });
    expect(c.statusCode).toBe(400);
    expect((await t.dbs.live.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: a.json().data._id } })).url).toBe(
      'https://hooks.example.com/in',
    );
  });

  it.each([
    'http://10.0.0.1/in',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd00::1]/in',
    'http://[::ffff:a9fe:a9fe]/in',
  ])('refuses a sandbox endpoint at %s: the sandbox allows loopback, not the internal network', async (url) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhook-endpoints',
      headers: bearer(w.testKey.key),
      payload: { url, events: ['*'] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details).toEqual([{ path: 'url', message: expect.stringMatching(/internal address/) }]);
  });
});
