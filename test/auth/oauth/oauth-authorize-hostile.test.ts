// GET /oauth/authorize and the code exchange under hostile input: PKCE missing, plain,
// wrong or downgraded; redirect URIs that are almost right; expired and replayed codes.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../../src/crypto/password.js';
import { newId } from '../../../src/ids.js';
import { bearer } from '../../helpers/factories.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { Browser, codeFrom, createWorld, form, pkce, REDIRECT, tokenRequest, type World } from './oauth-helpers.js';

let t: TestApp;
let w: World;

beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000' } });
  w = await createWorld(t.dbs);
});
afterAll(async () => {
  await t?.close();
});

const publicQuery = (extra: Record<string, string | undefined> = {}) => ({
  response_type: 'code',
  client_id: w.publicClient.clientId,
  redirect_uri: 'http://127.0.0.1:49152/callback',
  scope: 'company:read',
  state: 'xyz',
  ...extra,
});

async function publicCode(extra: Record<string, string | undefined> = {}) {
  const p = pkce();
  const res = await new Browser(t.app).authorize(
    publicQuery({ code_challenge: p.challenge, code_challenge_method: 'S256', ...extra }),
    w,
  );
  return { ...codeFrom(res), verifier: p.verifier };
}

const exchangePublic = (code: string, verifier: string | undefined, redirect = 'http://127.0.0.1:49152/callback') =>
  tokenRequest(t.app, {
    grant_type: 'authorization_code',
    code,
    client_id: w.publicClient.clientId,
    redirect_uri: redirect,
    code_verifier: verifier,
  });

async function authorizeGet(query: Record<string, string | string[] | undefined>) {
  return t.app.inject({ method: 'GET', url: `/oauth/authorize?${form(query)}` });
}

function redirectParams(res: { statusCode: number; headers: Record<string, unknown> }) {
  expect(res.statusCode).toBe(302);
  return Object.fromEntries(new URL(String(res.headers.location)).searchParams);
}

describe('errors shown as a page (400), never redirected', () => {
  const cases: Array<[string, () => Record<string, string | string[] | undefined>]> = [
    ['unknown client', () => publicQuery({ client_id: 'client_nope' })],
    ['missing client_id', () => publicQuery({ client_id: undefined })],
    ['repeated client_id', () => ({ ...publicQuery(), client_id: [w.publicClient.clientId, w.confidential.clientId] })],
    ['an unregistered redirect URI', () => publicQuery({ redirect_uri: 'https://evil.example/callback' })],
    [
      'a trailing slash',
      () => ({ ...publicQuery(), client_id: w.confidential.clientId, redirect_uri: `${REDIRECT}/` }),
    ],
    [
      'another case',
      () => ({
        ...publicQuery(),
        client_id: w.confidential.clientId,
        redirect_uri: REDIRECT.replace('callback', 'Callback'),
      }),
    ],
    [
      'an extra query parameter',
      () => ({ ...publicQuery(), client_id: w.confidential.clientId, redirect_uri: `${REDIRECT}?next=/admin` }),
    ],
    [
      'a different host',
      () => ({
        ...publicQuery(),
        client_id: w.confidential.clientId,
        redirect_uri: 'https://CLIENT.example.com/callback',
      }),
    ],
    ['a loopback with another path', () => publicQuery({ redirect_uri: 'http://127.0.0.1:5000/callback/../evil' })],
    ['localhost for a 127.0.0.1 registration', () => publicQuery({ redirect_uri: 'http://localhost:5000/callback' })],
    ['several registered URIs and none sent', () => publicQuery({ redirect_uri: undefined })],
    [
      'a repeated redirect_uri',
      () => ({ ...publicQuery(), redirect_uri: ['http://127.0.0.1/callback', 'http://127.0.0.1/callback'] }),
    ],
    ['a loopback port above 65535', () => publicQuery({ redirect_uri: 'http://127.0.0.1:99999/callback' })],
    ['a loopback port of 65536', () => publicQuery({ redirect_uri: 'http://127.0.0.1:65536/callback' })],
    ['a loopback port 0', () => publicQuery({ redirect_uri: 'http://127.0.0.1:0/callback' })],
    ['a NUL in client_id', () => publicQuery({ client_id: '\u0000' })],
    ['a NUL after a valid client_id', () => publicQuery({ client_id: `${w.publicClient.clientId}\u0000` })],
    ['a control character in state', () => publicQuery({ state: 'a\u0001b' })],
    ['a newline in redirect_uri', () => publicQuery({ redirect_uri: 'http://127.0.0.1/callback\n' })],
    ['a NUL in scope', () => publicQuery({ scope: 'company:read\u0000' })],
    [
      'a DEL in code_challenge',
      () => publicQuery({ code_challenge: `${'a'.repeat(42)}\u007f`, code_challenge_method: 'S256' }),
    ],
  ];
  for (const [name, query] of cases) {
    it(name, async () => {
      const res = await authorizeGet(query());
      expect(res.statusCode).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('role="alert"');
      expect(res.headers['x-frame-options']).toBe('DENY');
    });
  }

  it('the same checks on the consent form post (a NUL, a port out of range) → 400 page, never a 500', async () => {
    for (const fields of [
      publicQuery({ client_id: '\u0000' }),
      publicQuery({ redirect_uri: 'http://127.0.0.1:99999/callback' }),
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/oauth/authorize',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: form(fields),
      });
      expect(res.statusCode).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.body).toContain('role="alert"');
    }
  });

  it('the highest loopback port (65535) is accepted', async () => {
    const p = pkce();
    const res = await new Browser(t.app).authorize(
      publicQuery({
        redirect_uri: 'http://127.0.0.1:65535/callback',
        code_challenge: p.challenge,
        code_challenge_method: 'S256',
      }),
      w,
    );
    expect(res.statusCode).toBe(303);
    expect(String(res.headers.location)).toMatch(/^http:\/\/127\.0\.0\.1:65535\/callback\?code=/);
  });

  it('the only registered URI is used when none is sent', async () => {
    const res = await authorizeGet({
      response_type: 'code',
      client_id: w.confidential.clientId,
      scope: 'company:read',
    });
    expect(res.statusCode).toBe(200); // the login page
    expect(res.body).toContain('<label for="email">Email</label>');
  });
});

describe('errors redirected to the client with state and iss', () => {
  const iss = 'http://localhost:80';
  const cases: Array<[string, Record<string, string | string[] | undefined>, Record<string, string>]> = [
    ['public client without PKCE', {}, { error: 'invalid_request' }],
    [
      'public client with plain PKCE',
      { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' },
      { error: 'invalid_request' },
    ],
    ['a challenge without method (plain by default)', { code_challenge: 'a'.repeat(43) }, { error: 'invalid_request' }],
    [
      'a malformed S256 challenge',
      { code_challenge: 'short', code_challenge_method: 'S256' },
      { error: 'invalid_request' },
    ],
    [
      'response_type=token',
      { response_type: 'token', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' },
      { error: 'unsupported_response_type' },
    ],
    [
      'an unknown scope',
      { scope: 'company:read admin:all', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' },
      { error: 'invalid_scope' },
    ],
    [
      'no scope',
      { scope: undefined, code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' },
      { error: 'invalid_scope' },
    ],
    [
      'a repeated scope parameter',
      { scope: ['company:read', 'bookings:read'], code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' },
      { error: 'invalid_request' },
    ],
  ];
  for (const [name, extra, expected] of cases) {
    it(name, async () => {
      const params = redirectParams(await authorizeGet({ ...publicQuery(), ...extra }));
      expect(params).toMatchObject({ ...expected, state: 'xyz', iss });
      expect(params.error_description).toEqual(expect.any(String));
      expect(params.code).toBeUndefined();
    });
  }

  it('a user without any company → access_denied with state and iss (RFC 6749 §4.1.2.1), not a dead end', async () => {
    const email = `nobody-${randomBytes(4).toString('hex')}@example.com`;
    const password = 'a long enough password';
    await t.dbs.live.prisma.account.create({
      data: { id: newId(), email, passwordHash: await hashPassword(password) },
    });
    const res = await new Browser(t.app).authorize(
      publicQuery({ code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' }),
      { email, password },
    );
    const params = redirectParams(res);
    expect(params).toMatchObject({ error: 'access_denied', state: 'xyz', iss });
    expect(params.error_description).toEqual(expect.any(String));
    expect(params.code).toBeUndefined();
  });

  it('a scope the client may not ask for', async () => {
    const params = redirectParams(
      await authorizeGet({
        response_type: 'code',
        client_id: w.confidential.clientId,
        redirect_uri: REDIRECT,
        scope: 'payments:write',
      }),
    );
    expect(params).toMatchObject({ error: 'invalid_scope', iss });
    expect(params.state).toBeUndefined(); // state is optional and only echoed when sent
  });
});

describe('PKCE at the token endpoint', () => {
  it('loopback redirect on any port, the right verifier → tokens', async () => {
    const { code, verifier, location } = await publicCode();
    expect(location.port).toBe('49152');
    const res = await exchangePublic(code, verifier);
    expect(res.statusCode).toBe(200);
    expect(res.json().scope).toBe('company:read');
  });

  it('a public client without the verifier → invalid_grant', async () => {
    const { code } = await publicCode();
    const res = await exchangePublic(code, undefined);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'invalid_grant', error_description: expect.any(String) });
  });

  it('a wrong verifier → invalid_grant', async () => {
    const { code } = await publicCode();
    const res = await exchangePublic(code, pkce().verifier);
    expect(res.json().error).toBe('invalid_grant');
  });

  it('downgrade: a verifier for a code issued without challenge → invalid_grant', async () => {
    const res1 = await new Browser(t.app).authorize(
      { response_type: 'code', client_id: w.confidential.clientId, redirect_uri: REDIRECT, scope: 'company:read' },
      w,
    );
    const { code } = codeFrom(res1);
    const res = await tokenRequest(t.app, {
      grant_type: 'authorization_code',
      code,
      client_id: w.confidential.clientId,
      client_secret: w.confidential.secret,
      redirect_uri: REDIRECT,
      code_verifier: pkce().verifier,
    });
    expect(res.json().error).toBe('invalid_grant');
  });

  it('a confidential client that sent a challenge must send the verifier', async () => {
    const p = pkce();
    const res1 = await new Browser(t.app).authorize(
      {
        response_type: 'code',
        client_id: w.confidential.clientId,
        redirect_uri: REDIRECT,
        scope: 'company:read',
        code_challenge: p.challenge,
        code_challenge_method: 'S256',
      },
      w,
    );
    const { code } = codeFrom(res1);
    const res = await tokenRequest(t.app, {
      grant_type: 'authorization_code',
      code,
      client_id: w.confidential.clientId,
      client_secret: w.confidential.secret,
      redirect_uri: REDIRECT,
    });
    expect(res.json().error).toBe('invalid_grant');
  });

  it('redirect_uri at the token endpoint must be the one of the request → invalid_grant (RFC 6749 §5.2)', async () => {
    const { code, verifier } = await publicCode();
    const res = await exchangePublic(code, verifier, 'http://127.0.0.1:49153/callback');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'invalid_grant', error_description: expect.any(String) });
    // Left out although the authorization request named one: invalid_grant too.
    const other = await publicCode();
    const missing = await tokenRequest(t.app, {
      grant_type: 'authorization_code',
      code: other.code,
      client_id: w.publicClient.clientId,
      code_verifier: other.verifier,
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toBe('invalid_grant');
  });
});

describe('code lifetime and replay', () => {
  it('a code expires after 10 minutes (injected clock)', async () => {
    const { code, verifier } = await publicCode();
    t.services.now = () => Date.now() + 10 * 60 * 1000 + 1;
    try {
      const res = await exchangePublic(code, verifier);
      expect(res.json()).toEqual({ error: 'invalid_grant', error_description: 'authorization code has expired' });
    } finally {
      delete t.services.now;
    }
  });

  it('a code just under 10 minutes old still works', async () => {
    const { code, verifier } = await publicCode();
    t.services.now = () => Date.now() + 10 * 60 * 1000 - 5_000;
    try {
      expect((await exchangePublic(code, verifier)).statusCode).toBe(200);
    } finally {
      delete t.services.now;
    }
  });

  it('a replay with a wrong verifier is refused and revokes nothing', async () => {
    const { code, verifier } = await publicCode();
    const first = (await exchangePublic(code, verifier)).json();
    const replay = await exchangePublic(code, pkce().verifier);
    expect(replay.json().error).toBe('invalid_grant');
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(first.access_token) })).statusCode,
    ).toBe(200);
  });

  it('a valid replay → invalid_grant and every token of that code is revoked at once', async () => {
    const { code, verifier } = await publicCode();
    const first = (await exchangePublic(code, verifier)).json();
    // Warm the credential cache, so the revocation must reach it.
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(first.access_token) })).statusCode,
    ).toBe(200);
    const replay = await exchangePublic(code, verifier);
    expect(replay.statusCode).toBe(400);
    expect(replay.json().error).toBe('invalid_grant');
    const me = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(first.access_token) });
    expect(me.statusCode).toBe(401);
    expect(me.headers['www-authenticate']).toContain('error="invalid_token"');
    const refresh = await tokenRequest(t.app, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      client_id: w.publicClient.clientId,
    });
    expect(refresh.json().error).toBe('invalid_grant');
  });

  it('concurrent exchanges of one code: exactly one gets tokens, the others invalid_grant, and none survive', async () => {
    for (let round = 0; round < 3; round++) {
      const { code, verifier } = await publicCode();
      const results = await Promise.all([
        exchangePublic(code, verifier),
        exchangePublic(code, verifier),
        exchangePublic(code, verifier),
      ]);
      const ok = results.filter((r) => r.statusCode === 200);
      expect(ok).toHaveLength(1);
      const failed = results.filter((r) => r.statusCode !== 200);
      expect(failed.map((r) => [r.statusCode, r.json().error])).toEqual([
        [400, 'invalid_grant'],
        [400, 'invalid_grant'],
      ]);
      const tok = ok[0]!.json();
      expect(tok.access_token).toMatch(/^svc_at_live_/);
      const me = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(tok.access_token) });
      expect(me.statusCode).toBe(401);
      const refresh = await tokenRequest(t.app, {
        grant_type: 'refresh_token',
        refresh_token: tok.refresh_token,
        client_id: w.publicClient.clientId,
      });
      expect(refresh.json().error).toBe('invalid_grant');
    }
  });
});
