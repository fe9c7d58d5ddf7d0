// Sessions and the login form (cookie flags, CSRF, attempt limits), the brute-force limit on
// client secrets, the per-credential rate limit for tokens, RFC 8414 metadata with AUTH_URL,
// and `svc oauth-client create`.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_AUTH_LIMITS } from '../../src/auth/oauth/client-auth.js';
import { LOGIN_LIMITS } from '../../src/auth/sessions.js';
import { hashToken } from '../../src/auth/tokens.js';
import { SCOPES } from '../../src/auth/scopes.js';
import { bearer } from '../helpers/factories.js';
import { createTestApp } from '../helpers/app.js';
import { Browser, codeFrom, createWorld, form, hiddenValue, REDIRECT, tokenRequest, type World } from './oauth-helpers.js';

const AUTH_URL = 'https://auth.bookings.example';
let t: Awaited<ReturnType<typeof createTestApp>>;
let w: World;

beforeAll(async () => {
  t = await createTestApp({ env: { AUTH_URL, RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000', RATE_LIMIT_PER_SECOND: '5' } });
  w = await createWorld(t.dbs);
});
afterAll(async () => {
  await t?.close();
});

describe('metadata (RFC 8414)', () => {
  it('names AUTH_URL exactly as issuer and every endpoint under it', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      issuer: AUTH_URL,
      authorization_endpoint: `${AUTH_URL}/oauth/authorize`,
      token_endpoint: `${AUTH_URL}/oauth/token`,
      revocation_endpoint: `${AUTH_URL}/oauth/revoke`,
      introspection_endpoint: `${AUTH_URL}/oauth/introspect`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      code_challenge_methods_supported: ['S256'],
      scopes_supported: [...SCOPES],
      authorization_response_iss_parameter_supported: true,
    });
  });

  it('iss on redirects is AUTH_URL too', async () => {
    const res = await new Browser(t.app).authorize({ response_type: 'code', client_id: w.confidential.clientId, redirect_uri: REDIRECT, scope: 'company:read' }, w);
    expect(codeFrom(res).location.searchParams.get('iss')).toBe(AUTH_URL);
  });
});

describe('login form and session', () => {
  it('sets an HttpOnly, SameSite=Lax session cookie (Secure behind HTTPS) whose hash only is stored', async () => {
    const b = new Browser(t.app);
    const page = await b.request('GET', '/oauth/authorize?' + form({ response_type: 'code', client_id: w.confidential.clientId, scope: 'company:read' }));
    const csrf = hiddenValue(page.body, 'csrf_token');
    const res = await t.app.inject({
      method: 'POST',
      url: '/oauth/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: b.cookieHeader, 'x-forwarded-proto': 'https' },
      payload: form({ email: w.email.toUpperCase(), password: w.password, csrf_token: csrf, next: '/oauth/authorize?client_id=x' }),
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/oauth/authorize?client_id=x');
    const cookie = (res.cookies as Array<Record<string, unknown>>).find((c) => c.name === 'svc_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    // TRUST_PROXY is off here, so X-Forwarded-Proto is not believed and the cookie is not Secure.
    expect(cookie.secure).toBeUndefined();
    const session = await t.dbs.live.prisma.session.findUniqueOrThrow({ where: { tokenHash: hashToken(String(cookie.value)) } });
    expect(session.accountId).toBe(w.account.id);
  });

  it('Secure when the request came over HTTPS (trusted proxy)', async () => {
    const proxied = await createTestApp({ db: t.db, env: { TRUST_PROXY: 'true', RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000' } });
    try {
      const b = new Browser(proxied.app);
      const page = await b.request('GET', '/oauth/authorize?' + form({ response_type: 'code', client_id: w.confidential.clientId, scope: 'company:read' }));
      const res = await proxied.app.inject({
        method: 'POST',
        url: '/oauth/login',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: b.cookieHeader, 'x-forwarded-proto': 'https' },
        payload: form({ email: w.email, password: w.password, csrf_token: hiddenValue(page.body, 'csrf_token'), next: '/oauth/authorize' }),
      });
      expect((res.cookies as Array<Record<string, unknown>>).find((c) => c.name === 'svc_session')).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Lax' });
    } finally {
      await proxied.close();
    }
  });

  it('refuses a login without the CSRF token, and never follows an outside `next`', async () => {
    const noCsrf = await t.app.inject({ method: 'POST', url: '/oauth/login', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: form({ email: w.email, password: w.password, next: '/oauth/authorize' }) });
    expect(noCsrf.statusCode).toBe(403);
    expect(noCsrf.cookies.find((c: { name: string }) => c.name === 'svc_session')).toBeUndefined();
    for (const next of ['https://evil.example/', '//evil.example/x', '/\\evil.example', '/oauth/token']) {
      const b = new Browser(t.app);
      const page = await b.request('GET', '/oauth/authorize?client_id=' + w.confidential.clientId + '&response_type=code&scope=company:read');
      const res = await b.request('POST', '/oauth/login', { email: w.email, password: w.password, csrf_token: hiddenValue(page.body, 'csrf_token'), next });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/oauth/authorize');
    }
  });

  it('refuses the consent form without the session CSRF token and issues no code', async () => {
    const b = new Browser(t.app);
    const query = { response_type: 'code', client_id: w.confidential.clientId, redirect_uri: REDIRECT, scope: 'company:read' };
    await b.login(w.email, w.password, '/oauth/authorize?' + form(query));
    const before = await t.dbs.live.prisma.oAuthCode.count();
    const res = await b.request('POST', '/oauth/authorize', { ...query, company: `live:${w.live.id}`, decision: 'approve', csrf_token: 'forged' });
    expect(res.statusCode).toBe(403);
    expect(res.headers.location).toBeUndefined();
    // Another account's company cannot be chosen either.
    const page = await b.request('GET', '/oauth/authorize?' + form(query));
    const other = await b.request('POST', '/oauth/authorize', { ...query, company: 'live:ffffffffffffffffffffffff', decision: 'approve', csrf_token: hiddenValue(page.body, 'csrf_token') });
    expect(other.statusCode).toBe(400);
    expect(await t.dbs.live.prisma.oAuthCode.count()).toBe(before);
  });

  it(`limits failed logins per account e-mail (${LOGIN_LIMITS.perEmail.max}) and answers 429`, async () => {
    const b = new Browser(t.app);
    const page = await b.request('GET', '/oauth/authorize?client_id=' + w.confidential.clientId + '&response_type=code&scope=company:read');
    const victim = await createWorld(t.dbs);
    const attempt = (password: string) => b.request('POST', '/oauth/login', { email: victim.email, password, csrf_token: hiddenValue(page.body, 'csrf_token'), next: '/oauth/authorize' });
    for (let i = 0; i < LOGIN_LIMITS.perEmail.max; i++) {
      const res = await attempt(`wrong-${i}`);
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('The e-mail or password is wrong.');
    }
    const blocked = await attempt(victim.password);
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.cookies.find((c: { name: string }) => c.name === 'svc_session')).toBeUndefined();
    // Another account is not affected.
    expect((await b.request('POST', '/oauth/login', { email: w.email, password: w.password, csrf_token: hiddenValue(page.body, 'csrf_token'), next: '/oauth/authorize' })).statusCode).toBe(303);
  });
});

describe('brute force of client secrets', () => {
  it(`→ 429 after ${CLIENT_AUTH_LIMITS.perClient.max} failures for the client, even with the right secret`, async () => {
    const { clientId, secret } = w.confidential;
    const attempt = (s: string) => tokenRequest(t.app, { grant_type: 'refresh_token', refresh_token: 'svc_rt_live_x', client_id: clientId, client_secret: s });
    for (let i = 0; i < CLIENT_AUTH_LIMITS.perClient.max; i++) expect((await attempt(`svc_cs_guess${i}`)).statusCode).toBe(401);
    const blocked = await attempt(secret);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toEqual({ error: 'invalid_client', error_description: expect.stringContaining('Too many') });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    const revoke = await t.app.inject({ method: 'POST', url: '/oauth/revoke', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: form({ token: 'x', client_id: clientId, client_secret: secret }) });
    expect(revoke.statusCode).toBe(429);
    // The window passes (injected clock; in-memory or Redis TTL alike is checked through it).
    if (!t.services.redis) {
      t.services.now = () => Date.now() + CLIENT_AUTH_LIMITS.perClient.windowMs + 1000;
      try {
        expect((await attempt(secret)).json().error).toBe('invalid_grant');
      } finally {
        delete t.services.now;
      }
    }
  });
});

describe('resource side with tokens', () => {
  it('the per-credential rate limit applies to access tokens, per token', async () => {
    const b = new Browser(t.app);
    const { code } = codeFrom(await b.authorize({ response_type: 'code', client_id: w.publicClient.clientId, redirect_uri: 'com.acme.app:/oauth', scope: 'company:read', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' }, w));
    const tok = (await tokenRequest(t.app, { grant_type: 'authorization_code', code, client_id: w.publicClient.clientId, redirect_uri: 'com.acme.app:/oauth', code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk' })).json();
    expect(tok.access_token).toMatch(/^svc_at_/);
    // 2×limit+2 requests inside one second cannot all fit in two fixed windows.
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(tok.access_token) })).statusCode);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(2);
    const limited = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(tok.access_token) });
    expect(limited.headers['ratelimit-limit']).toBe('5');
    // Another credential has its own budget.
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(w.liveKey.key) })).statusCode).toBe(200);
  });
});

describe('svc oauth-client create', () => {
  const run = promisify(execFile);
  // A clean environment: vitest puts Vite's BASE_URL="/" into process.env.
  const svc = (args: string[]) =>
    run('node_modules/.bin/tsx', ['src/cli/main.ts', ...args, '--json'], { env: { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: t.db.url } });

  it.skipIf(!process.env.DATABASE_URL || process.env.TEST_EMBEDDED === '1')('prints the client id and the secret once; stores only its hash', async () => {
    const { stdout } = await svc(['oauth-client', 'create', '--account', w.email, '--name', 'CLI App', '--redirect-uri', REDIRECT, '--redirect-uri', 'http://127.0.0.1/cb', '--scopes', 'bookings:read bookings:write']);
    const out = JSON.parse(stdout);
    expect(out).toEqual({ clientId: expect.stringMatching(/^client_[0-9a-f]{24}$/), clientSecret: expect.stringMatching(/^svc_cs_[A-Za-z0-9_-]{43}$/) });
    const row = await t.dbs.live.prisma.oAuthClient.findUniqueOrThrow({ where: { clientId: out.clientId } });
    expect(row).toMatchObject({ type: 'confidential', secretHash: hashToken(out.clientSecret), redirectUris: [REDIRECT, 'http://127.0.0.1/cb'], scopes: ['bookings:read', 'bookings:write'] });
    const pub = JSON.parse((await svc(['oauth-client', 'create', '--account', w.email, '--name', 'Mobile', '--redirect-uri', 'com.acme.app:/cb', '--public'])).stdout);
    expect(Object.keys(pub)).toEqual(['clientId']);
    await expect(svc(['oauth-client', 'create', '--account', w.email, '--name', 'Bad', '--redirect-uri', 'http://evil.example/cb'])).rejects.toMatchObject({ stderr: expect.stringContaining('VALIDATION_ERROR') });
    await expect(svc(['oauth-client', 'create', '--account', w.email, '--name', 'Bad', '--redirect-uri', REDIRECT, '--scopes', 'admin:all'])).rejects.toMatchObject({ stderr: expect.stringContaining('VALIDATION_ERROR') });
  }, 60_000);
});
