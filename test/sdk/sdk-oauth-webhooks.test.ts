// The SDK's OAuth helpers and webhooks.verify against the real app on a socket: the
// authorization code flow with PKCE and state through the server's own login and consent pages
// (played over HTTP with a cookie jar, as a browser would), code exchange, refresh and
// revocation; and real deliveries from the workers to a local receiver verified by both
// signature schemes, through a secret rotation, with a tampered body, an old timestamp and a
// wrong secret refused.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkers, type Workers } from '../../src/workers/runtime.js';
import { Client, createPkce, OAuth, OAuthError, webhooks, WebhookVerificationError } from '../../sdk/src/index.js';
import { createTestApp, listen, type TestApp } from '../helpers/app.js';
import { blankCompany } from '../helpers/domain.js';
import { FAST_WORKERS, startReceiver, waitFor, type Receiver } from '../helpers/receiver.js';
import { approveOverHttp, createWorld, type World } from '../auth/oauth/oauth-helpers.js';

let t: TestApp;
let base: string;
let w: World;
let workers: Workers;
let receiver: Receiver;
const CALLBACK = 'http://127.0.0.1/callback';

beforeAll(async () => {
  t = await createTestApp({ env: { ...FAST_WORKERS, RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000' } });
  base = await listen(t.app);
  w = await createWorld(t.dbs);
  receiver = await startReceiver();
  workers = await startWorkers(t.services);
});
afterAll(async () => {
  await workers?.stop();
  await receiver?.close();
  await t?.close();
});

/** A person signing in and approving (or denying) on the server's pages; answers the redirect back. */
const approve = (authorizationUrl: string, decision: 'approve' | 'deny' = 'approve'): Promise<URL> =>
  approveOverHttp(base, authorizationUrl, w, { decision });

describe('OAuth helpers', () => {
  it('PKCE pair: a 43-character verifier and its S256 challenge', async () => {
    const pair = await createPkce();
    expect(pair.codeVerifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(pair.codeChallenge).toBe(createHash('sha256').update(pair.codeVerifier).digest('base64url'));
    expect(pair.codeChallengeMethod).toBe('S256');
  });

  it('confidential client: authorization URL with PKCE and state, callback, exchange, API calls, refresh, revocation', async () => {
    const oauth = new OAuth({
      authUrl: base,
      clientId: w.confidential.clientId,
      clientSecret: w.confidential.secret,
      redirectUri: 'https://client.example.com/callback',
    });
    const { url, state, codeVerifier } = await oauth.authorizationUrl({ scope: ['company:read', 'bookings:read'] });
    const q = new URL(url).searchParams;
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toBe(createHash('sha256').update(codeVerifier).digest('base64url'));
    expect(q.get('state')).toBe(state);

    const callback = await approve(url);
    expect(() => oauth.parseCallback(callback, { state: 'someone-else' })).toThrow(OAuthError);
    const { code } = oauth.parseCallback(callback, { state });
    // The server checks the verifier against the challenge: a wrong one spends nothing.
    const wrong = await oauth.exchangeCode({ code, codeVerifier: (await createPkce()).codeVerifier }).catch((e) => e);
    expect(wrong).toBeInstanceOf(OAuthError);
    expect((wrong as OAuthError).error).toBe('invalid_grant');
    // A code is spent by a failed exchange too (one use), so go round again.
    const second = await oauth.authorizationUrl({ scope: 'company:read bookings:read' });
    const { code: code2 } = oauth.parseCallback(await approve(second.url), { state: second.state });
    let tokens = await oauth.exchangeCode({ code: code2, codeVerifier: second.codeVerifier });
    expect(tokens.accessToken).toMatch(/^svc_at_/);
    expect(tokens.refreshToken).toMatch(/^svc_rt_/);
    expect(tokens.scope.split(' ').sort()).toEqual(['bookings:read', 'company:read']);
    expect(tokens.expiresAt).toBeGreaterThan(Date.now());

    const client = new Client({ baseUrl: base, accessToken: () => tokens.accessToken });
    const me = await client.me.get();
    expect([w.live.id, w.test.id, ...w.testCompanies.map((c) => c.id)]).toContain(me._id);

    const spent = tokens.refreshToken!;
    tokens = await oauth.refresh(spent);
    expect(tokens.refreshToken).not.toBe(spent);
    expect((await client.me.get())._id).toBe(me._id); // the function answers the new token
    const reused = await oauth.refresh(spent).catch((e) => e);
    expect(reused).toBeInstanceOf(OAuthError);
    expect((reused as OAuthError).error).toBe('invalid_grant');
  });

  it('public client: PKCE alone, and a denial comes back as OAuthError', async () => {
    const oauth = new OAuth({ authUrl: base, clientId: w.publicClient.clientId, redirectUri: CALLBACK });
    const { url, state, codeVerifier } = await oauth.authorizationUrl({ scope: 'company:read' });
    const { code } = oauth.parseCallback(await approve(url), { state });
    const tokens = await oauth.exchangeCode({ code, codeVerifier });
    expect(tokens.accessToken).toMatch(/^svc_at_/);
    await oauth.revoke(tokens.refreshToken!);
    const revoked = await oauth.refresh(tokens.refreshToken!).catch((e) => e);
    expect(revoked).toBeInstanceOf(OAuthError);

    const denied = await oauth.authorizationUrl({ scope: 'company:read' });
    const back = await approve(denied.url, 'deny');
    const error = (() => {
      try {
        oauth.parseCallback(back, { state: denied.state });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(OAuthError);
    expect((error as OAuthError).error).toBe('access_denied');
  });
});

describe('webhooks.verify on real deliveries', () => {
  it('verifies both schemes, across a rotation; refuses a tampered body, an old timestamp and a wrong secret', async () => {
    const company = await blankCompany(t.dbs, w);
    const client = new Client({ baseUrl: base, apiKey: company.key });
    const endpoint = await client.webhookEndpoints.create({ url: receiver.url, events: ['customer.created'] });
    const secret = endpoint.secret;
    const customer = await client.customers.create({ name: 'Hook', email: 'hook@example.com' });
    const delivery = await waitFor(
      () => receiver.received.find((r) => r.body.includes(customer._id) && r.body.includes('customer.created')),
      { timeoutMs: 20_000, what: 'the customer.created delivery' },
    );
    const headers = delivery.headers;

    const event = await webhooks.verify(delivery.body, headers, secret);
    if (event.event !== 'customer.created') throw new Error(`verified a ${event.event}`);
    // Typed by the document's webhooks section: customer.created's data has customerId.
    expect(event.data.customerId).toBe(customer._id);
    // Each scheme on its own, from a fetch Headers too.
    const { 'x-signature': xSignature, ...standardOnly } = headers;
    expect(xSignature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    await expect(webhooks.verify(delivery.body, standardOnly, secret)).resolves.toMatchObject({
      event: 'customer.created',
    });
    const xOnly = new Headers({ 'x-signature': String(xSignature) });
    await expect(client.webhooks.verify(Buffer.from(delivery.body), xOnly, secret)).resolves.toMatchObject({
      event: 'customer.created',
    });

    const refused = async (p: Promise<unknown>) =>
      expect(await p.catch((e) => e)).toBeInstanceOf(WebhookVerificationError);
    const tampered = delivery.body.replace('Hook', 'Hack');
    await refused(webhooks.verify(tampered, headers, secret));
    await refused(webhooks.verify(tampered, standardOnly, secret));
    const otherSecret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    await refused(webhooks.verify(delivery.body, headers, otherSecret));
    await refused(webhooks.verify(delivery.body, standardOnly, otherSecret));
    const tenMinutesLater = Date.now() + 10 * 60_000;
    await refused(webhooks.verify(delivery.body, headers, secret, { now: tenMinutesLater }));
    await refused(webhooks.verify(delivery.body, standardOnly, secret, { now: tenMinutesLater }));
    await refused(webhooks.verify(delivery.body, {}, secret));

    // After a rotation both secrets sign: two v1 values, and either secret verifies alone.
    const rotated = await client.webhookEndpoints.rotateSecret(endpoint._id);
    const next = await client.customers.create({ name: 'Rotated', email: 'rotated@example.com' });
    const second = await waitFor(() => receiver.received.find((r) => r.body.includes(next._id)), {
      timeoutMs: 20_000,
      what: 'the delivery after the rotation',
    });
    expect(String(second.headers['x-signature']).match(/v1=/g)).toHaveLength(2);
    const { 'x-signature': _x, ...secondStandard } = second.headers;
    for (const s of [secret, rotated.secret]) {
      await expect(webhooks.verify(second.body, second.headers, s)).resolves.toMatchObject({
        event: 'customer.created',
      });
      await expect(webhooks.verify(second.body, secondStandard, s)).resolves.toMatchObject({
        event: 'customer.created',
      });
    }
    await expect(webhooks.verify(second.body, second.headers, [otherSecret, rotated.secret])).resolves.toBeTruthy();
  });
});
