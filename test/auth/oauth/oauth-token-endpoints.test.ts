// POST /oauth/token (refresh rotation, client authentication, hostile forms), /oauth/revoke,
// /oauth/introspect, and the brute-force limit on client secrets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../../src/auth/tokens.js';
import { createOAuthClient } from '../../../src/schema/credentials/create-oauth-client.js';
import { bearer } from '../../helpers/factories.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { basic, Browser, codeFrom, createWorld, form, REDIRECT, tokenRequest, type World } from './oauth-helpers.js';

let t: TestApp;
let w: World;

beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000' } });
  w = await createWorld(t.dbs);
});
afterAll(async () => {
  await t?.close();
});

const secretPost = () => ({ client_id: w.confidential.clientId, client_secret: w.confidential.secret });

async function tokens(scope = 'company:read bookings:read bookings:write') {
  const res = await new Browser(t.app).authorize(
    { response_type: 'code', client_id: w.confidential.clientId, redirect_uri: REDIRECT, scope },
    w,
    { company: `live:${w.live.id}` },
  );
  const { code } = codeFrom(res);
  const tok = await tokenRequest(t.app, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    ...secretPost(),
  });
  expect(tok.statusCode).toBe(200);
  return tok.json<{ access_token: string; refresh_token: string; scope: string }>();
}

const refresh = (refreshToken: string, extra: Record<string, string> = {}) =>
  tokenRequest(t.app, { grant_type: 'refresh_token', refresh_token: refreshToken, ...secretPost(), ...extra });

const me = (token: string) => t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(token) });

describe('refresh_token', () => {
  it('rotates: new tokens, the old refresh token spent, same scope', async () => {
    const first = await tokens();
    const res = await refresh(first.refresh_token);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const second = res.json();
    expect(second).toEqual({
      access_token: expect.stringMatching(/^svc_at_live_/),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^svc_rt_live_/),
      scope: first.scope,
    });
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await me(second.access_token)).statusCode).toBe(200);
  });

  it('a narrower scope narrows the access token only; the new refresh token keeps the grant scope', async () => {
    const first = await tokens();
    const narrow = (await refresh(first.refresh_token, { scope: 'bookings:read' })).json();
    expect(narrow.scope).toBe('bookings:read');
    expect((await me(narrow.access_token)).statusCode).toBe(403);
    const again = (await refresh(narrow.refresh_token)).json();
    expect(again.scope).toBe(first.scope);
  });

  it('a wider scope → invalid_scope, and the refresh token is not spent by it', async () => {
    const first = await tokens('company:read');
    for (const scope of ['company:read company:write', 'bookings:read', 'company:read nonsense:scope']) {
      const res = await refresh(first.refresh_token, { scope });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'invalid_scope', error_description: expect.any(String) });
    }
    const row = await t.dbs.live.prisma.oAuthToken.findUniqueOrThrow({
      where: { tokenHash: hashToken(first.refresh_token) },
    });
    expect(row).toMatchObject({ usedAt: null, revokedAt: null });
    // The same refresh token still works, and the grant was not revoked as a reuse.
    expect((await me(first.access_token)).statusCode).toBe(200);
    const again = await refresh(first.refresh_token);
    expect(again.statusCode).toBe(200);
    expect(again.json().scope).toBe('company:read');
    expect((await me(again.json().access_token)).statusCode).toBe(200);
    expect((await me(first.access_token)).statusCode).toBe(200);
  });

  it('reusing a spent refresh token revokes the whole grant', async () => {
    const first = await tokens();
    const second = (await refresh(first.refresh_token)).json();
    expect((await me(second.access_token)).statusCode).toBe(200);
    const reuse = await refresh(first.refresh_token);
    expect(reuse.json().error).toBe('invalid_grant');
    expect((await me(second.access_token)).statusCode).toBe(401);
    expect((await refresh(second.refresh_token)).json().error).toBe('invalid_grant');
  });

  it('concurrent double refresh: at most one succeeds and the grant ends revoked', async () => {
    const first = await tokens();
    const results = await Promise.all([
      refresh(first.refresh_token),
      refresh(first.refresh_token),
      refresh(first.refresh_token),
    ]);
    const ok = results.filter((r) => r.statusCode === 200);
    expect(ok.length).toBeLessThanOrEqual(1);
    expect(results.filter((r) => r.statusCode === 400).every((r) => r.json().error === 'invalid_grant')).toBe(true);
    for (const r of ok) {
      expect((await me(r.json().access_token)).statusCode).toBe(401);
      expect((await refresh(r.json().refresh_token)).json().error).toBe('invalid_grant');
    }
    expect((await me(first.access_token)).statusCode).toBe(401);
  });

  it("another client's refresh token → invalid_grant, and it stays usable by its owner", async () => {
    const first = await tokens();
    const other = await createOAuthClient(t.dbs, {
      accountId: w.account.id,
      name: 'Other',
      redirectUris: [REDIRECT],
      type: 'confidential',
    });
    const res = await tokenRequest(t.app, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      client_id: other.client.clientId,
      client_secret: other.clientSecret!,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('invalid_grant');
    expect((await refresh(first.refresh_token)).statusCode).toBe(200);
  });

  it('an expired refresh token → invalid_grant (30 days, injected clock)', async () => {
    const first = await tokens();
    t.services.now = () => Date.now() + 30 * 24 * 3600 * 1000 + 1000;
    try {
      expect((await refresh(first.refresh_token)).json().error).toBe('invalid_grant');
    } finally {
      delete t.services.now;
    }
  });
});

describe('Idempotency-Key under OAuth', () => {
  // A client retries a POST after its access token expired and was refreshed: the retry
  // must get the first result back, not create a second record. Keys live per grant.
  it('is kept per grant: a refreshed token replays, another grant does not', async () => {
    const app = await createOAuthClient(t.dbs, {
      accountId: w.account.id,
      name: 'CRM sync',
      redirectUris: [REDIRECT],
      scopes: ['customers:write'],
      type: 'confidential',
    });
    const creds = { client_id: app.client.clientId, client_secret: app.clientSecret! };
    const grant = async () => {
      const res = await new Browser(t.app).authorize(
        { response_type: 'code', client_id: creds.client_id, redirect_uri: REDIRECT, scope: 'customers:write' },
        w,
        { company: `live:${w.live.id}` },
      );
      const tok = await tokenRequest(t.app, {
        grant_type: 'authorization_code',
        code: codeFrom(res).code,
        redirect_uri: REDIRECT,
        ...creds,
      });
      expect(tok.statusCode).toBe(200);
      return tok.json<{ access_token: string; refresh_token: string }>();
    };
    const body = { name: 'Ada Lovelace', email: `ada.${Date.now()}@example.com` };
    const create = (token: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/customers',
        headers: { ...bearer(token), 'idempotency-key': 'crm-sync-42' },
        payload: body,
      });

    const first = await grant();
    const created = await create(first.access_token);
    expect(created.statusCode).toBe(200);
    expect(created.headers['idempotent-replayed']).toBeUndefined();

    const refreshed = await tokenRequest(t.app, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      ...creds,
    });
    expect(refreshed.statusCode).toBe(200);
    const retry = await create(refreshed.json().access_token);
    expect(retry.statusCode).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json().data._id).toBe(created.json().data._id);

    // Another grant (another install of the app) has its own keys: the request runs, and
    // the e-mail is taken by the first customer.
    const other = await grant();
    const elsewhere = await create(other.access_token);
    expect(elsewhere.statusCode).toBe(409);
    expect(elsewhere.json().error.code).toBe('CONFLICT');
    expect(elsewhere.headers['idempotent-replayed']).toBeUndefined();
    expect(await t.dbs.live.prisma.customer.count({ where: { companyId: w.live.id, email: body.email } })).toBe(1);
  });
});

describe('client authentication and hostile forms', () => {
  it('client_secret_basic with form-url-encoded credentials', async () => {
    const first = await tokens();
    // A client that percent-encodes every reserved character must still be understood.
    const id = w.confidential.clientId.replace(/_/g, '%5F');
    const header = {
      authorization: `Basic ${Buffer.from(`${id}:${w.confidential.secret.replace(/_/g, '%5F')}`).toString('base64')}`,
    };
    const res = await tokenRequest(t.app, { grant_type: 'refresh_token', refresh_token: first.refresh_token }, header);
    expect(res.statusCode).toBe(200);
  });

  const cases: Array<
    [
      string,
      () => Promise<{ fields: Record<string, string | string[] | undefined>; headers?: Record<string, string> }>,
      number,
      string,
    ]
  > = [
    [
      'confidential client without secret',
      async () => ({ fields: { grant_type: 'refresh_token', refresh_token: 'x', client_id: w.confidential.clientId } }),
      401,
      'invalid_client',
    ],
    [
      'a wrong secret',
      async () => ({
        fields: {
          grant_type: 'refresh_token',
          refresh_token: 'x',
          client_id: w.confidential.clientId,
          client_secret: 'svc_cs_wrong',
        },
      }),
      401,
      'invalid_client',
    ],
    [
      'a wrong Basic secret',
      async () => ({
        fields: { grant_type: 'refresh_token', refresh_token: 'x' },
        headers: basic(w.confidential.clientId, 'nope'),
      }),
      401,
      'invalid_client',
    ],
    [
      'a secret sent by a public client',
      async () => ({
        fields: {
          grant_type: 'refresh_token',
          refresh_token: 'x',
          client_id: w.publicClient.clientId,
          client_secret: 'whatever',
        },
      }),
      401,
      'invalid_client',
    ],
    [
      'an unknown client',
      async () => ({ fields: { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'client_unknown' } }),
      401,
      'invalid_client',
    ],
    [
      'no client at all',
      async () => ({ fields: { grant_type: 'refresh_token', refresh_token: 'x' } }),
      401,
      'invalid_client',
    ],
    [
      'Basic and client_secret together',
      async () => ({
        fields: { grant_type: 'refresh_token', refresh_token: 'x', client_secret: w.confidential.secret },
        headers: basic(w.confidential.clientId, w.confidential.secret),
      }),
      400,
      'invalid_request',
    ],
    [
      'grant_type=password',
      async () => ({ fields: { grant_type: 'password', username: w.email, password: w.password, ...secretPost() } }),
      400,
      'unsupported_grant_type',
    ],
    [
      'grant_type=client_credentials',
      async () => ({ fields: { grant_type: 'client_credentials', ...secretPost() } }),
      400,
      'unsupported_grant_type',
    ],
    [
      'an implicit-style grant',
      async () => ({ fields: { grant_type: 'token', ...secretPost() } }),
      400,
      'unsupported_grant_type',
    ],
    ['no grant_type', async () => ({ fields: { ...secretPost() } }), 400, 'invalid_request'],
    [
      'a repeated grant_type',
      async () => ({ fields: { grant_type: ['refresh_token', 'refresh_token'], ...secretPost() } }),
      400,
      'invalid_request',
    ],
    [
      'a repeated refresh_token',
      async () => ({ fields: { grant_type: 'refresh_token', refresh_token: ['a', 'b'], ...secretPost() } }),
      400,
      'invalid_request',
    ],
    [
      'a repeated client_id',
      async () => ({
        fields: {
          grant_type: 'refresh_token',
          refresh_token: 'x',
          client_id: [w.confidential.clientId, w.confidential.clientId],
          client_secret: w.confidential.secret,
        },
      }),
      400,
      'invalid_request',
    ],
    [
      'an unknown refresh token',
      async () => ({ fields: { grant_type: 'refresh_token', refresh_token: 'svc_rt_live_nope', ...secretPost() } }),
      400,
      'invalid_grant',
    ],
    [
      'an access token as refresh token',
      async () => ({
        fields: { grant_type: 'refresh_token', refresh_token: (await tokens()).access_token, ...secretPost() },
      }),
      400,
      'invalid_grant',
    ],
    [
      'an unknown code',
      async () => ({
        fields: { grant_type: 'authorization_code', code: 'abc', redirect_uri: REDIRECT, ...secretPost() },
      }),
      400,
      'invalid_grant',
    ],
    [
      'no code',
      async () => ({ fields: { grant_type: 'authorization_code', redirect_uri: REDIRECT, ...secretPost() } }),
      400,
      'invalid_request',
    ],
    [
      'a NUL in the client id',
      async () => ({
        fields: { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'client\u0000', client_secret: 'x' },
      }),
      400,
      'invalid_request',
    ],
    [
      'a control character in the refresh token',
      async () => ({ fields: { grant_type: 'refresh_token', refresh_token: 'svc_rt_live_\u0001', ...secretPost() } }),
      400,
      'invalid_request',
    ],
    [
      'a newline in the secret',
      async () => ({
        fields: {
          grant_type: 'refresh_token',
          refresh_token: 'x',
          client_id: w.confidential.clientId,
          client_secret: `${w.confidential.secret}\n`,
        },
      }),
      400,
      'invalid_request',
    ],
  ];
  for (const [name, make, status, error] of cases) {
    it(`${name} → ${status} ${error}`, async () => {
      const { fields, headers } = await make();
      const before = await t.dbs.live.prisma.oAuthToken.count();
      const res = await tokenRequest(t.app, fields, headers);
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual({ error, error_description: expect.any(String) });
      expect(res.headers['cache-control']).toBe('no-store');
      expect(await t.dbs.live.prisma.oAuthToken.count()).toBe(before);
    });
  }

  it('JSON bodies and other content types → invalid_request in RFC 6749 JSON', async () => {
    for (const [type, body] of [
      ['application/json', JSON.stringify({ grant_type: 'refresh_token' })],
      ['text/plain', 'grant_type=refresh_token'],
      ['multipart/form-data; boundary=x', '--x--'],
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': type! },
        payload: body,
      });
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
      expect(res.json().error).toBe('invalid_request');
    }
  });

  it('no CORS headers on the token endpoint', async () => {
    const res = await tokenRequest(t.app, { grant_type: 'refresh_token' }, { origin: 'https://evil.example' });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('revocation (RFC 7009) and introspection (RFC 7662)', () => {
  const post = (url: string, fields: Record<string, string | undefined>, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: form(fields),
    });

  it('introspects a live token, then {active:false} alone once revoked', async () => {
    const tok = await tokens();
    const live = await post(
      '/oauth/introspect',
      { token: tok.access_token },
      basic(w.confidential.clientId, w.confidential.secret),
    );
    expect(live.statusCode).toBe(200);
    expect(live.json()).toEqual({
      active: true,
      scope: tok.scope,
      client_id: w.confidential.clientId,
      token_type: 'Bearer',
      exp: expect.any(Number),
      iat: expect.any(Number),
      sub: w.account.id,
      iss: 'http://localhost:80',
      company_id: w.live.id,
      mode: 'live',
    });
    expect(live.json().exp - live.json().iat).toBe(3600);
    expect((await me(tok.access_token)).statusCode).toBe(200);
    const revoked = await post('/oauth/revoke', {
      token: tok.access_token,
      token_type_hint: 'access_token',
      ...secretPost(),
    });
    expect(revoked.statusCode).toBe(200);
    expect((await me(tok.access_token)).statusCode).toBe(401);
    const dead = await post('/oauth/introspect', { token: tok.access_token, ...secretPost() });
    expect(dead.json()).toEqual({ active: false });
    // The refresh token of the grant still works after an access token was revoked.
    expect((await refresh(tok.refresh_token)).statusCode).toBe(200);
  });

  it('revoking a refresh token revokes the grant, access tokens included', async () => {
    const tok = await tokens();
    expect((await post('/oauth/revoke', { token: tok.refresh_token, ...secretPost() })).statusCode).toBe(200);
    expect((await me(tok.access_token)).statusCode).toBe(401);
    expect((await refresh(tok.refresh_token)).json().error).toBe('invalid_grant');
  });

  it('unknown tokens and other clients’ tokens: 200 on revoke, {active:false} on introspect, nothing changes', async () => {
    const tok = await tokens();
    const other = await createOAuthClient(t.dbs, {
      accountId: w.account.id,
      name: 'Other',
      redirectUris: [REDIRECT],
      type: 'confidential',
    });
    const otherAuth = basic(other.client.clientId, other.clientSecret!);
    expect((await post('/oauth/revoke', { token: 'garbage' }, otherAuth)).statusCode).toBe(200);
    expect((await post('/oauth/revoke', { token: tok.access_token }, otherAuth)).statusCode).toBe(200);
    expect((await post('/oauth/introspect', { token: tok.access_token }, otherAuth)).json()).toEqual({ active: false });
    expect((await me(tok.access_token)).statusCode).toBe(200);
  });

  it('both endpoints require client authentication; introspection only for confidential clients', async () => {
    const tok = await tokens();
    expect((await post('/oauth/revoke', { token: tok.access_token })).json().error).toBe('invalid_client');
    expect(
      (
        await post('/oauth/introspect', {
          token: tok.access_token,
          client_id: w.confidential.clientId,
          client_secret: 'bad',
        })
      ).statusCode,
    ).toBe(401);
    expect(
      (await post('/oauth/introspect', { token: tok.access_token, client_id: w.publicClient.clientId })).statusCode,
    ).toBe(401);
    expect((await me(tok.access_token)).statusCode).toBe(200);
  });

  it('token_type_hint is only a hint: an unknown or wrong one is ignored (RFC 7009 §2.1, §2.2)', async () => {
    const a = await tokens();
    const weird = await post('/oauth/revoke', { token: a.access_token, token_type_hint: 'weird', ...secretPost() });
    expect(weird.statusCode).toBe(200);
    expect((await me(a.access_token)).statusCode).toBe(401);
    const b = await tokens();
    expect(
      (await post('/oauth/revoke', { token: b.refresh_token, token_type_hint: 'access_token', ...secretPost() }))
        .statusCode,
    ).toBe(200);
    expect((await me(b.access_token)).statusCode).toBe(401);
  });

  it('introspection: token_type Bearer for an access token, none for a refresh token', async () => {
    const tok = await tokens();
    const auth = basic(w.confidential.clientId, w.confidential.secret);
    expect((await post('/oauth/introspect', { token: tok.access_token }, auth)).json().token_type).toBe('Bearer');
    const rt = (await post('/oauth/introspect', { token: tok.refresh_token }, auth)).json();
    expect(rt).toMatchObject({ active: true, scope: tok.scope, client_id: w.confidential.clientId });
    expect(rt).not.toHaveProperty('token_type');
  });
});
