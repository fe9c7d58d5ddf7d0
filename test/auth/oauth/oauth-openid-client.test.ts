// An unmodified third-party client — openid-client v6 with algorithm 'oauth2' — against the
// app listening on a real 127.0.0.1 socket: discovery, PKCE, state and `iss` checks, the code
// exchange (client_secret_basic and a public client), refresh, introspection and revocation.
// The user's part (login, consent) is played over real HTTP with cookies.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOAuthClient } from '../../../src/schema/credentials/create-oauth-client.js';
import { bearer } from '../../helpers/factories.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { approveOverHttp, createWorld, type World } from './oauth-helpers.js';

let t: TestApp;
let w: World;
let origin: string;
const CALLBACK = 'http://127.0.0.1/callback';

beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000' } });
  w = await createWorld(t.dbs);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const address = t.app.server.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  await t?.close();
});

/** A person with a cookie jar following the login and consent pages over the socket. */
const approveInBrowser = (
  authorizationUrl: URL,
  decision: 'approve' | 'deny' = 'approve',
  companyValue?: string,
): Promise<URL> =>
  approveOverHttp(origin, authorizationUrl, w, {
    decision,
    ...(companyValue ? { company: companyValue } : {}),
    onConsent: (html) => expect(html).toContain('Acme'),
  });

describe('openid-client v6 (algorithm oauth2)', () => {
  it('confidential client: discovery, PKCE, state, iss, code, refresh, introspection, revocation', async () => {
    const config = await oidc.discovery(
      new URL(origin),
      w.confidential.clientId,
      undefined,
      oidc.ClientSecretBasic(w.confidential.secret),
      {
        algorithm: 'oauth2',
        execute: [oidc.allowInsecureRequests],
      },
    );
    expect(config.serverMetadata().issuer).toBe(origin);
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: 'https://client.example.com/callback',
      scope: 'company:read bookings:read',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    const callback = await approveInBrowser(url, 'approve', `live:${w.live.id}`);
    expect(callback.searchParams.get('iss')).toBe(origin);

    // A forged or missing iss is rejected by the client (RFC 9207 mix-up defence).
    const forged = new URL(callback);
    forged.searchParams.set('iss', 'https://evil.example');
    await expect(
      oidc.authorizationCodeGrant(config, forged, { pkceCodeVerifier: verifier, expectedState: state }),
    ).rejects.toMatchObject({
      cause: { message: expect.stringContaining('"iss" (issuer) response parameter') },
    });
    const missing = new URL(callback);
    missing.searchParams.delete('iss');
    await expect(
      oidc.authorizationCodeGrant(config, missing, { pkceCodeVerifier: verifier, expectedState: state }),
    ).rejects.toMatchObject({
      cause: { message: expect.stringContaining('iss') },
    });

    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'company:read bookings:read' });
    expect(tokens.access_token).toMatch(/^svc_at_live_/);
    const me = await fetch(`${origin}/api/v1/me`, { headers: bearer(tokens.access_token) });
    expect(((await me.json()) as { data: { _id: string } }).data._id).toBe(w.live.id);

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.scope).toBe('company:read bookings:read');

    expect(await oidc.tokenIntrospection(config, refreshed.access_token)).toMatchObject({
      active: true,
      client_id: w.confidential.clientId,
      scope: 'company:read bookings:read',
    });
    await oidc.tokenRevocation(config, refreshed.refresh_token!);
    expect(await oidc.tokenIntrospection(config, refreshed.access_token)).toEqual({ active: false });
    expect((await fetch(`${origin}/api/v1/me`, { headers: bearer(refreshed.access_token) })).status).toBe(401);
    await expect(oidc.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('public client with PKCE and a loopback redirect on any port; client_secret_post client too', async () => {
    const pub = await oidc.discovery(new URL(origin), w.publicClient.clientId, undefined, oidc.None(), {
      algorithm: 'oauth2',
      execute: [oidc.allowInsecureRequests],
    });
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(pub, {
      redirect_uri: 'http://127.0.0.1:61234/callback',
      scope: 'company:read',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    // state is optional; without it openid-client expects none back.
    const callback = await approveInBrowser(url, 'approve', `test:${w.test.id}`);
    expect(callback.searchParams.has('state')).toBe(false);
    const tokens = await oidc.authorizationCodeGrant(pub, callback, { pkceCodeVerifier: verifier });
    expect(tokens.access_token).toMatch(/^svc_at_test_/);
    const refreshed = await oidc.refreshTokenGrant(pub, tokens.refresh_token!);
    await oidc.tokenRevocation(pub, refreshed.access_token);
    expect((await fetch(`${origin}/api/v1/me`, { headers: bearer(refreshed.access_token) })).status).toBe(401);

    const post = await createOAuthClient(t.dbs, {
      accountId: w.account.id,
      name: 'Acme Post',
      redirectUris: [CALLBACK],
      type: 'confidential',
    });
    const cfg = await oidc.discovery(
      new URL(origin),
      post.client.clientId,
      undefined,
      oidc.ClientSecretPost(post.clientSecret!),
      { algorithm: 'oauth2', execute: [oidc.allowInsecureRequests] },
    );
    const v2 = oidc.randomPKCECodeVerifier();
    const cb2 = await approveInBrowser(
      oidc.buildAuthorizationUrl(cfg, {
        redirect_uri: CALLBACK,
        scope: 'bookings:read',
        code_challenge: await oidc.calculatePKCECodeChallenge(v2),
        code_challenge_method: 'S256',
      }),
    );
    expect((await oidc.authorizationCodeGrant(cfg, cb2, { pkceCodeVerifier: v2 })).scope).toBe('bookings:read');
  });

  it('Deny reaches the client as access_denied (an error response carrying iss)', async () => {
    const config = await oidc.discovery(
      new URL(origin),
      w.confidential.clientId,
      undefined,
      oidc.ClientSecretBasic(w.confidential.secret),
      { algorithm: 'oauth2', execute: [oidc.allowInsecureRequests] },
    );
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: 'https://client.example.com/callback',
      scope: 'company:read',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    const callback = await approveInBrowser(url, 'deny');
    await expect(
      oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state }),
    ).rejects.toMatchObject({ error: 'access_denied' });
  });
});
