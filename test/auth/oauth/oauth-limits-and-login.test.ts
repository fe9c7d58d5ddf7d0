// Sessions and the login form (cookie flags, CSRF, attempt limits), the brute-force limit on
// client secrets, the per-credential rate limit for tokens, RFC 8414 metadata with AUTH_URL,
// and `svc oauth-client create`.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_AUTH_LIMITS } from '../../../src/auth/oauth/client-auth.js';
import { LOGIN_LIMITS } from '../../../src/auth/sessions.js';
import { hashToken } from '../../../src/auth/tokens.js';
import { SCOPES } from '../../../src/auth/scopes.js';
import { bearer, createAccountWithKeys } from '../../helpers/factories.js';
import { checkServerConfig, ConfigError, loadConfig } from '../../../src/config.js';
import { createTestApp, TEST_SECRET_KEY } from '../../helpers/app.js';
import { startServer } from '../../helpers/server-process.js';
import {
  Browser,
  codeFrom,
  createWorld,
  form,
  hiddenValue,
  REDIRECT,
  tokenRequest,
  type World,
} from './oauth-helpers.js';

const AUTH_URL = 'https://auth.bookings.example';
let t: Awaited<ReturnType<typeof createTestApp>>;
let w: World;

beforeAll(async () => {
  t = await createTestApp({
    env: { AUTH_URL, RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000', RATE_LIMIT_PER_SECOND: '5' },
  });
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

  it('with AUTH_URL: cacheable, and no Host header changes it', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/.well-known/oauth-authorization-server',
      headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example' },
    });
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.json().issuer).toBe(AUTH_URL);
  });

  it('without AUTH_URL or BASE_URL the issuer follows the request: never stored by a shared cache, and varies by host', async () => {
    const open = await createTestApp({ db: t.db, env: { RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000' } });
    try {
      const res = await open.app.inject({
        method: 'GET',
        url: '/.well-known/oauth-authorization-server',
        headers: { host: 'evil.example' },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().issuer).toBe('http://evil.example');
      expect(res.headers['cache-control']).toBe('no-store');
      const vary = String(res.headers.vary)
        .toLowerCase()
        .split(/\s*,\s*/);
      expect(vary).toEqual(expect.arrayContaining(['host', 'x-forwarded-host', 'x-forwarded-proto']));
    } finally {
      await open.close();
    }
  });

  it('AUTH_URL must be an origin (the metadata lives at the root well-known path)', () => {
    for (const env of [
      { AUTH_URL: 'https://auth.example.com/tenant' },
      { AUTH_URL: 'https://auth.example.com/?x=1' },
      { AUTH_URL: 'https://u:p@auth.example.com' },
    ]) {
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(/AUTH_URL: must/);
    }
    // BASE_URL is the default issuer: with a path it needs an AUTH_URL of its own.
    expect(() => loadConfig({ BASE_URL: 'https://example.com/booking' })).toThrow(
      /AUTH_URL: must be set when BASE_URL is not an origin/,
    );
    expect(
      loadConfig({ BASE_URL: 'https://example.com/booking', AUTH_URL: 'https://auth.example.com/' }).AUTH_URL,
    ).toBe('https://auth.example.com');
    expect(loadConfig({ AUTH_URL: 'https://auth.example.com:8443/' }).AUTH_URL).toBe('https://auth.example.com:8443');
  });

  it('production refuses to serve without AUTH_URL or BASE_URL, with a message naming them', async () => {
    const prod = { NODE_ENV: 'production', SECRET_KEY: TEST_SECRET_KEY };
    expect(() => checkServerConfig(loadConfig(prod))).toThrow(/AUTH_URL: is required in production, or BASE_URL/);
    expect(() => checkServerConfig(loadConfig({ ...prod, BASE_URL: 'https://api.example.com' }))).not.toThrow();
    expect(() => checkServerConfig(loadConfig({ ...prod, AUTH_URL: 'https://auth.example.com' }))).not.toThrow();
    expect(() => checkServerConfig(loadConfig({}))).not.toThrow();
    // The real start-up: exit 78 (configuration error) with the message, before anything else.
    const server = startServer({ ...prod, DATA_DIR: '/nonexistent-svc-dir' });
    const { code } = await server.exited;
    expect(code).toBe(78);
    expect(server.stderr()).toContain('AUTH_URL: is required in production');
  }, 60_000);

  it('iss on redirects is AUTH_URL too', async () => {
    const res = await new Browser(t.app).authorize(
      { response_type: 'code', client_id: w.confidential.clientId, redirect_uri: REDIRECT, scope: 'company:read' },
      w,
    );
    expect(codeFrom(res).location.searchParams.get('iss')).toBe(AUTH_URL);
  });
});

describe('login form and session', () => {
  it('sets an HttpOnly, SameSite=Lax session cookie (Secure behind HTTPS) whose hash only is stored', async () => {
    const b = new Browser(t.app);
    const page = await b.request(
      'GET',
      '/oauth/authorize?' + form({ response_type: 'code', client_id: w.confidential.clientId, scope: 'company:read' }),
    );
    const csrf = hiddenValue(page.body, 'csrf_token');
    const res = await t.app.inject({
      method: 'POST',
      url: '/oauth/login',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: b.cookieHeader,
        'x-forwarded-proto': 'https',
      },
      payload: form({
        email: w.email.toUpperCase(),
        password: w.password,
        csrf_token: csrf,
        next: '/oauth/authorize?client_id=x',
      }),
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/oauth/authorize?client_id=x');
    const cookie = (res.cookies as Array<Record<string, unknown>>).find((c) => c.name === 'svc_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    // TRUST_PROXY is off here, so X-Forwarded-Proto is not believed and the cookie is not Secure.
    expect(cookie.secure).toBeUndefined();
    const session = await t.dbs.live.prisma.session.findUniqueOrThrow({
      where: { tokenHash: hashToken(String(cookie.value)) },
    });
    expect(session.accountId).toBe(w.account.id);
  });

  it('Secure when the request came over HTTPS (trusted proxy)', async () => {
    const proxied = await createTestApp({
      db: t.db,
      env: { TRUST_PROXY: 'true', RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000' },
    });
    try {
      const b = new Browser(proxied.app);
      const page = await b.request(
        'GET',
        '/oauth/authorize?' +
          form({ response_type: 'code', client_id: w.confidential.clientId, scope: 'company:read' }),
      );
      const res = await proxied.app.inject({
        method: 'POST',
        url: '/oauth/login',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: b.cookieHeader,
          'x-forwarded-proto': 'https',
        },
        payload: form({
          email: w.email,
          password: w.password,
          csrf_token: hiddenValue(page.body, 'csrf_token'),
          next: '/oauth/authorize',
        }),
      });
      expect((res.cookies as Array<Record<string, unknown>>).find((c) => c.name === 'svc_session')).toMatchObject({
        secure: true,
        httpOnly: true,
        sameSite: 'Lax',
      });
    } finally {
      await proxied.close();
    }
  });

  it('refuses a login without the CSRF token, and never follows an outside `next`', async () => {
    const noCsrf = await t.app.inject({
      method: 'POST',
      url: '/oauth/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ email: w.email, password: w.password, next: '/oauth/authorize' }),
    });
    expect(noCsrf.statusCode).toBe(403);
    expect(noCsrf.cookies.find((c: { name: string }) => c.name === 'svc_session')).toBeUndefined();
    for (const next of ['https://evil.example/', '//evil.example/x', '/\\evil.example', '/oauth/token']) {
      const b = new Browser(t.app);
      const page = await b.request(
        'GET',
        '/oauth/authorize?client_id=' + w.confidential.clientId + '&response_type=code&scope=company:read',
      );
      const res = await b.request('POST', '/oauth/login', {
        email: w.email,
        password: w.password,
        csrf_token: hiddenValue(page.body, 'csrf_token'),
        next,
      });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/oauth/authorize');
    }
  });

  it('refuses the consent form without the session CSRF token and issues no code', async () => {
    const b = new Browser(t.app);
    const query = {
      response_type: 'code',
      client_id: w.confidential.clientId,
      redirect_uri: REDIRECT,
      scope: 'company:read',
    };
    await b.login(w.email, w.password, '/oauth/authorize?' + form(query));
    const before = await t.dbs.live.prisma.oAuthCode.count();
    const res = await b.request('POST', '/oauth/authorize', {
      ...query,
      company: `live:${w.live.id}`,
      decision: 'approve',
      csrf_token: 'forged',
    });
    expect(res.statusCode).toBe(403);
    expect(res.headers.location).toBeUndefined();
    // Another account's company cannot be chosen either.
    const page = await b.request('GET', '/oauth/authorize?' + form(query));
    const other = await b.request('POST', '/oauth/authorize', {
      ...query,
      company: 'live:ffffffffffffffffffffffff',
      decision: 'approve',
      csrf_token: hiddenValue(page.body, 'csrf_token'),
    });
    expect(other.statusCode).toBe(400);
    expect(await t.dbs.live.prisma.oAuthCode.count()).toBe(before);
  });

  it(`limits failed logins per account e-mail (${LOGIN_LIMITS.perEmail.max}) and answers 429`, async () => {
    const b = new Browser(t.app);
    const page = await b.request(
      'GET',
      '/oauth/authorize?client_id=' + w.confidential.clientId + '&response_type=code&scope=company:read',
    );
    const victim = await createWorld(t.dbs);
    const attempt = (password: string) =>
      b.request('POST', '/oauth/login', {
        email: victim.email,
        password,
        csrf_token: hiddenValue(page.body, 'csrf_token'),
        next: '/oauth/authorize',
      });
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
    expect(
      (
        await b.request('POST', '/oauth/login', {
          email: w.email,
          password: w.password,
          csrf_token: hiddenValue(page.body, 'csrf_token'),
          next: '/oauth/authorize',
        })
      ).statusCode,
    ).toBe(303);
  });

  const loginPage = async (b: Browser) => {
    const page = await b.request(
      'GET',
      `/oauth/authorize?${form({ response_type: 'code', client_id: w.confidential.clientId, scope: 'company:read' })}`,
    );
    return hiddenValue(page.body, 'csrf_token');
  };

  it('counts an attempt before the password is checked: parallel guesses beyond the limit are refused while argon2 runs', async () => {
    const b = new Browser(t.app, { remoteAddress: '198.51.100.7' });
    const csrf = await loginPage(b);
    const victim = await createAccountWithKeys(t.dbs);
    const extra = 6;
    const results = await Promise.all(
      Array.from({ length: LOGIN_LIMITS.perEmail.max + extra }, (_, i) =>
        b.request('POST', '/oauth/login', {
          email: victim.email,
          password: `wrong-${i}`,
          csrf_token: csrf,
          next: '/oauth/authorize',
        }),
      ),
    );
    const statuses = results.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(LOGIN_LIMITS.perEmail.max);
    expect(statuses.filter((s) => s === 429)).toHaveLength(extra);
    // The account's own password is refused too until the window ends (injected clock).
    const right = () =>
      b.request('POST', '/oauth/login', {
        email: victim.email,
        password: victim.password,
        csrf_token: csrf,
        next: '/oauth/authorize',
      });
    expect((await right()).statusCode).toBe(429);
    t.services.now = () => Date.now() + LOGIN_LIMITS.perEmail.windowMs + 1000;
    try {
      expect((await right()).statusCode).toBe(303);
    } finally {
      delete t.services.now;
    }
  });

  it(`limits failed logins per IP (${LOGIN_LIMITS.perIp.max}) across e-mails; successes from that IP do not count`, async () => {
    const ip = '198.51.100.8';
    // A fresh browser per attempt: a successful login replaces the login form's CSRF cookie.
    const post = async (email: string, password: string) => {
      const b = new Browser(t.app, { remoteAddress: ip });
      return b.request('POST', '/oauth/login', {
        email,
        password,
        csrf_token: await loginPage(b),
        next: '/oauth/authorize',
      });
    };
    for (let i = 0; i < 3; i++) expect((await post(w.email, w.password)).statusCode).toBe(303);
    for (let batch = 0; batch < LOGIN_LIMITS.perIp.max / 10; batch++) {
      const statuses = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          post(`nobody-${batch}-${i}@example.com`, 'wrong password').then((r) => r.statusCode),
        ),
      );
      expect(statuses).toEqual(Array(10).fill(200));
    }
    const blocked = await post(w.email, w.password);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.cookies.find((c: { name: string }) => c.name === 'svc_session')).toBeUndefined();
    // Another address logs in to the same account.
    const elsewhere = new Browser(t.app, { remoteAddress: '198.51.100.9' });
    const other = await elsewhere.request('POST', '/oauth/login', {
      email: w.email,
      password: w.password,
      csrf_token: await loginPage(elsewhere),
      next: '/oauth/authorize',
    });
    expect(other.statusCode).toBe(303);
  });

  it('a NUL or control character in the e-mail (or a NUL in the password) is a form error, never a 500', async () => {
    const b = new Browser(t.app, { remoteAddress: '198.51.100.10' });
    const csrf = await loginPage(b);
    const cases: Array<[string, string]> = [
      ['\u0000', w.password],
      [`${w.email}\u0000`, w.password],
      [`\u0000${w.email}`, w.password],
      [`${w.email}\r\n`, w.password],
      [`a\u0001b@example.com`, w.password],
      [w.email, `${w.password}\u0000`],
    ];
    for (const [email, password] of cases) {
      const res = await b.request('POST', '/oauth/login', {
        email,
        password,
        csrf_token: csrf,
        next: '/oauth/authorize',
      });
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('role="alert"');
      expect(res.body).toContain('<label for="email">Email</label>');
      expect(res.cookies.find((c: { name: string }) => c.name === 'svc_session')).toBeUndefined();
    }
  });

  it('a `next` with CR LF or characters a Location header cannot carry is not followed (no 500)', async () => {
    for (const next of [
      '/oauth/authorize?x\r\nSet-Cookie: a=b',
      '/admin/\u00fc',
      '/admin/\u4e2d',
      '/admin\t',
      '/oauth/authorize?\u0000',
    ]) {
      const b = new Browser(t.app, { remoteAddress: '198.51.100.11' });
      const res = await b.request('POST', '/oauth/login', {
        email: w.email,
        password: w.password,
        csrf_token: await loginPage(b),
        next,
      });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/oauth/authorize');
    }
  });

  it('logout is a CSRF-protected form: without the session token it ends nothing', async () => {
    const b = new Browser(t.app);
    const query = {
      response_type: 'code',
      client_id: w.confidential.clientId,
      redirect_uri: REDIRECT,
      scope: 'company:read',
    };
    await b.login(w.email, w.password, `/oauth/authorize?${form(query)}`);
    const sessionCookie = b.cookies.get('svc_session')!;
    const stored = () => t.dbs.live.prisma.session.count({ where: { tokenHash: hashToken(sessionCookie) } });
    for (const fields of [{}, { csrf_token: 'forged' }, { csrf_token: ['x', 'y'] }]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/oauth/logout',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: b.cookieHeader },
        payload: form(fields),
      });
      expect(res.statusCode).toBe(403);
      expect(res.headers['set-cookie'] ?? '').not.toContain('svc_session=;');
      expect(await stored()).toBe(1);
    }
    // Still signed in: the consent page, with its CSRF token.
    const page = await b.request('GET', `/oauth/authorize?${form(query)}`);
    expect(page.body).toContain('Approve');
    const res = await b.request('POST', '/oauth/logout', { csrf_token: hiddenValue(page.body, 'csrf_token') });
    expect(res.statusCode).toBe(303);
    expect(await stored()).toBe(0);
    expect(b.cookies.has('svc_session')).toBe(false);
    expect((await b.request('GET', `/oauth/authorize?${form(query)}`)).body).toContain('name="password"');
  });
});

describe('brute force of client secrets', () => {
  const { perClientAndIp, perIp } = CLIENT_AUTH_LIMITS;
  const attempt = (clientId: string, secret: string | undefined, ip: string) =>
    tokenRequest(
      t.app,
      { grant_type: 'refresh_token', refresh_token: 'svc_rt_live_x', client_id: clientId, client_secret: secret },
      {},
      ip,
    );

  it(`→ 429 after ${perClientAndIp.max} failures from one IP, even with the right secret from there; the window passes (injected clock, Redis too)`, async () => {
    const { clientId, secret } = w.confidential;
    const attacker = '203.0.113.10';
    for (let i = 0; i < perClientAndIp.max; i++)
      expect((await attempt(clientId, `svc_cs_guess${i}`, attacker)).statusCode).toBe(401);
    const blocked = await attempt(clientId, secret, attacker);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toEqual({ error: 'invalid_client', error_description: expect.stringContaining('Too many') });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    const revoke = await t.app.inject({
      method: 'POST',
      url: '/oauth/revoke',
      remoteAddress: attacker,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ token: 'x', client_id: clientId, client_secret: secret }),
    });
    expect(revoke.statusCode).toBe(429);
    // Client ids are public: the client itself is not locked out from its own address.
    expect((await attempt(clientId, secret, '203.0.113.11')).json().error).toBe('invalid_grant');
    // The window passes (injected clock; the Redis counters are judged through it as well).
    t.services.now = () => Date.now() + perClientAndIp.windowMs + 1000;
    try {
      expect((await attempt(clientId, secret, attacker)).json().error).toBe('invalid_grant');
    } finally {
      delete t.services.now;
    }
  });

  it('counts each attempt before judging it: a parallel burst of guesses gets no more than the limit', async () => {
    const ip = '203.0.113.12';
    const results = await Promise.all(
      Array.from({ length: perClientAndIp.max + 5 }, (_, i) =>
        attempt(w.confidential.clientId, `svc_cs_burst${i}`, ip),
      ),
    );
    const statuses = results.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 401)).toHaveLength(perClientAndIp.max);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
  });

  it('a public client: a secret sent with it is invalid_client but never counted, so nobody can lock it out', async () => {
    const ip = '203.0.113.13';
    for (let i = 0; i < perClientAndIp.max + 5; i++) {
      const res = await attempt(w.publicClient.clientId, `guess${i}`, ip);
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toBe('invalid_client');
    }
    // The public client itself (no secret) is still served from that address.
    expect((await attempt(w.publicClient.clientId, undefined, ip)).json().error).toBe('invalid_grant');
  });

  it(`per IP: ${perIp.max} failures over any clients block that IP only; successes do not count`, async () => {
    const ip = '203.0.113.14';
    // Successes take their count back.
    for (let i = 0; i < perIp.max + 5; i++)
      expect((await attempt(w.confidential.clientId, w.confidential.secret, ip)).json().error).toBe('invalid_grant');
    const statuses = await Promise.all(
      Array.from({ length: perIp.max }, (_, i) => attempt(`client_unknown${i}`, 'x', ip).then((r) => r.statusCode)),
    );
    expect(statuses.every((s) => s === 401)).toBe(true);
    expect((await attempt(w.confidential.clientId, w.confidential.secret, ip)).statusCode).toBe(429);
    expect((await attempt(w.confidential.clientId, w.confidential.secret, '203.0.113.15')).json().error).toBe(
      'invalid_grant',
    );
  });
});

describe('resource side with tokens', () => {
  it('the per-credential rate limit applies to OAuth tokens per grant: refreshing does not multiply the budget', async () => {
    const b = new Browser(t.app);
    const { code } = codeFrom(
      await b.authorize(
        {
          response_type: 'code',
          client_id: w.publicClient.clientId,
          redirect_uri: 'com.acme.app:/oauth',
          scope: 'company:read',
          code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          code_challenge_method: 'S256',
        },
        w,
      ),
    );
    const first = (
      await tokenRequest(t.app, {
        grant_type: 'authorization_code',
        code,
        client_id: w.publicClient.clientId,
        redirect_uri: 'com.acme.app:/oauth',
        code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
      })
    ).json();
    expect(first.access_token).toMatch(/^svc_at_/);
    // Three live access tokens of one grant.
    const second = (
      await tokenRequest(t.app, {
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: w.publicClient.clientId,
      })
    ).json();
    const third = (
      await tokenRequest(t.app, {
        grant_type: 'refresh_token',
        refresh_token: second.refresh_token,
        client_id: w.publicClient.clientId,
      })
    ).json();
    const tokens = [first.access_token, second.access_token, third.access_token] as string[];
    // 3×limit requests at once: per token they would all fit; per grant at most 2×limit can
    // (the burst may straddle two fixed windows).
    const results = await Promise.all(
      Array.from({ length: 15 }, (_, i) =>
        t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(tokens[i % 3]!) }),
      ),
    );
    expect(results.filter((r) => r.statusCode === 429).length).toBeGreaterThanOrEqual(5);
    expect(results.every((r) => r.statusCode === 200 || r.statusCode === 429)).toBe(true);
    const limited = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(tokens[0]!) });
    expect(limited.headers['ratelimit-limit']).toBe('5');
    // Another credential has its own budget.
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(w.liveKey.key) })).statusCode).toBe(
      200,
    );
  });
});

describe('svc oauth-client create', () => {
  const run = promisify(execFile);
  // A clean environment: vitest puts Vite's BASE_URL="/" into process.env.
  const svc = (args: string[]) =>
    run(process.execPath, ['bin/svc.mjs', ...args, '--json'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: t.db.url },
    });

  it.skipIf(!process.env.DATABASE_URL || process.env.TEST_EMBEDDED === '1')(
    'prints the client id and the secret once; stores only its hash',
    async () => {
      const { stdout } = await svc([
        'oauth-client',
        'create',
        '--account',
        w.email,
        '--name',
        'CLI App',
        '--redirect-uri',
        REDIRECT,
        '--redirect-uri',
        'http://127.0.0.1/cb',
        '--scopes',
        'bookings:read bookings:write',
      ]);
      const out = JSON.parse(stdout);
      expect(out).toEqual({
        clientId: expect.stringMatching(/^client_[0-9a-f]{24}$/),
        clientSecret: expect.stringMatching(/^svc_cs_[A-Za-z0-9_-]{43}$/),
      });
      const row = await t.dbs.live.prisma.oAuthClient.findUniqueOrThrow({ where: { clientId: out.clientId } });
      expect(row).toMatchObject({
        type: 'confidential',
        secretHash: hashToken(out.clientSecret),
        redirectUris: [REDIRECT, 'http://127.0.0.1/cb'],
        scopes: ['bookings:read', 'bookings:write'],
      });
      const pub = JSON.parse(
        (
          await svc([
            'oauth-client',
            'create',
            '--account',
            w.email,
            '--name',
            'Mobile',
            '--redirect-uri',
            'com.acme.app:/cb',
            '--public',
          ])
        ).stdout,
      );
      expect(Object.keys(pub)).toEqual(['clientId']);
      await expect(
        svc([
          'oauth-client',
          'create',
          '--account',
          w.email,
          '--name',
          'Bad',
          '--redirect-uri',
          'http://evil.example/cb',
        ]),
      ).rejects.toMatchObject({ stderr: expect.stringContaining('VALIDATION_ERROR') });
      await expect(
        svc([
          'oauth-client',
          'create',
          '--account',
          w.email,
          '--name',
          'Bad',
          '--redirect-uri',
          REDIRECT,
          '--scopes',
          'admin:all',
        ]),
      ).rejects.toMatchObject({ stderr: expect.stringContaining('VALIDATION_ERROR') });
    },
    60_000,
  );
});
