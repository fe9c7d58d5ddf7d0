// The admin area's safety rules over HTTP (app.inject, the real app and databases): no page
// without a session; every form POST refused without the session's own CSRF token (403,
// nothing done); one account's session never sees or changes another account's companies,
// keys or apps (404, indistinguishable from a missing id); the page headers; hostile input
// answered with a 4xx page and nothing written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { createTestApp } from '../helpers/app.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { createOAuthClient } from '../../src/schema/credentials/create-oauth-client.js';
import { createWebhookEndpoint } from '../../src/schema/webhooks/create-webhook-endpoint.js';

let t: TestApp & { db: Awaited<ReturnType<typeof createTestApp>>['db'] };
type World = Awaited<ReturnType<typeof createAccountWithKeys>>;
let a: World;
let b: World;
let sa: Session;
let sb: Session;
let appOfA: string;
let hookOfA: string;

interface Session {
  cookie: string;
  csrf: string;
}

async function signIn(w: World): Promise<Session> {
  const login = await t.app.inject({ method: 'GET', url: '/admin/login' });
  expect(login.statusCode).toBe(200);
  const loginCsrf = login.cookies.find((c) => c.name === 'svc_login_csrf')!.value;
  const token = /name="csrf_token" value="([^"]+)"/.exec(login.body)![1]!;
  const res = await t.app.inject({
    method: 'POST',
    url: '/oauth/login',
    cookies: { svc_login_csrf: loginCsrf },
    payload: new URLSearchParams({
      csrf_token: token,
      email: w.email,
      password: w.password,
      next: '/admin',
    }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(res.statusCode).toBe(303);
  expect(res.headers.location).toBe('/admin');
  const cookie = res.cookies.find((c) => c.name === 'svc_session')!.value;
  const page = await t.app.inject({ method: 'GET', url: '/admin/test', cookies: { svc_session: cookie } });
  return { cookie, csrf: /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]! };
}

const get = (s: Session | null, url: string) =>
  t.app.inject({ method: 'GET', url, cookies: s ? { svc_session: s.cookie } : {} });
// csrf: the session's token unless given; null sends none.
// A field given as a list is repeated (hidden `company` fields of a confirmation page).
const post = (
  s: Session | null,
  url: string,
  form: Record<string, string | string[]> = {},
  csrf: string | null = s?.csrf ?? null,
) =>
  t.app.inject({
    method: 'POST',
    url,
    cookies: s ? { svc_session: s.cookie } : {},
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams([
      ...Object.entries(form).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => [k, x])),
      ...(csrf !== null ? [['csrf_token', csrf]] : []),
    ]).toString(),
  });

beforeAll(async () => {
  t = await createTestApp({
    env: { RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000', RATE_LIMIT_PER_SECOND: '100000' },
  });
  a = await createAccountWithKeys(t.dbs);
  b = await createAccountWithKeys(t.dbs);
  appOfA = (
    await createOAuthClient(t.dbs, {
      accountId: a.account.id,
      name: 'A app',
      redirectUris: ['https://a.example.com/cb'],
      type: 'public',
    })
  ).client.id;
  hookOfA = (
    await createWebhookEndpoint(t.dbs.test.prisma, {
      companyId: a.test.id,
      mode: 'test',
      config: t.config,
      input: { url: 'https://hooks.example.com/a', events: ['*'] },
    })
  ).endpoint.id;
  [sa, sb] = [await signIn(a), await signIn(b)];
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const keyOfA = () => a.testKey.apiKey.id;
const pagesOfA = () => [
  `/admin/live/companies/${a.live.id}`,
  `/admin/live/companies/${a.live.id}/edit`,
  `/admin/live/companies/${a.live.id}/api-keys`,
  `/admin/live/companies/${a.live.id}/api-keys/${a.liveKey.apiKey.id}/revoke`,
  `/admin/test/companies/${a.test.id}/api-keys/${keyOfA()}/roll`,
  `/admin/test/companies/${a.test.id}/api-keys/${keyOfA()}/delete`,
  `/admin/test/companies/${a.test.id}/calendar`,
  `/admin/test/companies/${a.test.id}/emails`,
  `/admin/oauth-apps/${appOfA}/delete`,
  `/admin/test/companies/${a.test.id}/webhooks`,
  `/admin/test/companies/${a.test.id}/webhooks/${hookOfA}`,
  `/admin/test/companies/${a.test.id}/webhooks/${hookOfA}/delete`,
];

describe('sessions', () => {
  it('without a session every page sends to the login form, with a safe next', async () => {
    for (const url of ['/admin', '/admin/live', ...pagesOfA()]) {
      const res = await get(null, url);
      expect(res.statusCode, url).toBe(303);
      expect(res.headers.location).toBe(`/admin/login?next=${encodeURIComponent(url)}`);
    }
    const wipe = await post(null, '/admin/test/sandbox/wipe', {}, 'anything');
    expect(wipe.statusCode).toBe(303);
    expect(await t.dbs.test.prisma.company.count({ where: { accountId: a.account.id } })).toBe(3);
    // An open redirect through next is refused.
    for (const next of ['https://evil.example/', '//evil.example/admin', '/admin/../oauth/token', '/admin\\x']) {
      const res = await get(null, `/admin/login?next=${encodeURIComponent(next)}`);
      expect(/name="next" value="([^"]*)"/.exec(res.body)![1]).toBe('/admin');
    }
  });

  it('pages carry no-store, DENY framing and a CSP with no outside source', async () => {
    const res = await get(sa, `/admin/live/companies/${a.live.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-frame-options']).toBe('DENY');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/https?:|\*/);
    expect(res.body).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  it('in production a remote client over plain HTTP is refused (the session cookie would travel in clear)', async () => {
    const prod = await createTestApp({ db: t.db, env: { NODE_ENV: 'production', SECRET_KEY: 'a'.repeat(64) } });
    try {
      for (const url of ['/admin', '/admin/login', `/admin/live/companies/${a.live.id}`]) {
        const res = await prod.app.inject({
          method: 'GET',
          url,
          remoteAddress: '203.0.113.9',
          cookies: { svc_session: sa.cookie },
        });
        expect(res.statusCode, url).toBe(403);
        expect(res.body).toContain('HTTPS is required');
        expect(res.headers['strict-transport-security']).toContain('max-age=');
      }
    } finally {
      await prod.close();
    }
  });

  it('sign out needs the token, then ends the session', async () => {
    const s = await signIn(a);
    expect((await post(s, '/admin/logout', {}, null)).statusCode).toBe(403);
    const out = await post(s, '/admin/logout');
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe('/admin/login');
    expect((await get(s, '/admin/live')).statusCode).toBe(303);
  });
});

describe('CSRF', () => {
  const posts = (): Array<{ url: string; form: Record<string, string | string[]> }> => [
    { url: `/admin/test/companies/${a.test.id}/api-keys`, form: { name: 'csrf' } },
    { url: `/admin/test/companies/${a.test.id}/api-keys/${keyOfA()}/revoke`, form: {} },
    { url: `/admin/test/companies/${a.test.id}/api-keys/${keyOfA()}/roll`, form: { grace: '0' } },
    { url: `/admin/test/companies/${a.test.id}/api-keys/${keyOfA()}/delete`, form: {} },
    { url: `/admin/live/companies/${a.live.id}/edit`, form: { name: 'Hijacked' } },
    { url: '/admin/test/companies', form: { name: 'csrf co' } },
    { url: '/admin/oauth-apps', form: { name: 'x', redirect_uris: 'https://x.example/cb', type: 'public' } },
    { url: `/admin/oauth-apps/${appOfA}/delete`, form: {} },
    {
      url: '/admin/test/sandbox/restore',
      form: { reset: '1', confirm: '1', company: a.testCompanies.map((c) => c.id) },
    },
    { url: '/admin/test/sandbox/wipe', form: { company: a.testCompanies.map((c) => c.id) } },
    { url: `/admin/test/companies/${a.test.id}/webhooks`, form: { url: 'https://x.example/h' } },
    { url: `/admin/test/companies/${a.test.id}/webhooks/${hookOfA}/reveal`, form: {} },
    { url: `/admin/test/companies/${a.test.id}/webhooks/${hookOfA}/rotate`, form: {} },
    { url: `/admin/test/companies/${a.test.id}/webhooks/${hookOfA}/disable`, form: {} },
    { url: `/admin/test/companies/${a.test.id}/webhooks/${hookOfA}/delete`, form: {} },
  ];

  it.each([
    ['no token', null],
    ['an empty token', ''],
    ['a wrong token', 'x'.repeat(43)],
    ['another session’s token', 'B'],
  ])('a form post with %s is refused with 403 and nothing changes', async (_name, token) => {
    const snapshot = async () => ({
      keys: await t.dbs.test.prisma.apiKey.findMany({ where: { companyId: a.test.id }, orderBy: { id: 'asc' } }),
      live: await t.dbs.live.prisma.company.findUnique({ where: { id: a.live.id } }),
      companies: await t.dbs.test.prisma.company.count({ where: { accountId: a.account.id } }),
      apps: await t.dbs.live.prisma.oAuthClient.count({ where: { accountId: a.account.id } }),
      hooks: await t.dbs.test.prisma.webhookEndpoint.findMany({ where: { companyId: a.test.id } }),
    });
    const before = await snapshot();
    for (const p of posts()) {
      const res = await post(sa, p.url, p.form, token === 'B' ? sb.csrf : token);
      expect(res.statusCode, p.url).toBe(403);
      expect(res.body).toContain('Form expired');
      expect(res.body).not.toContain('whsec_');
    }
    expect(await snapshot()).toEqual(before);
  });
});

describe('another account', () => {
  it('cannot see this account’s companies, keys, bookings, e-mails or apps: 404', async () => {
    for (const url of pagesOfA()) {
      const res = await get(sb, url);
      expect(res.statusCode, url).toBe(404);
      expect(res.body).not.toContain(a.live.name);
    }
    // A's own session sees them (the 404s above are not broken pages).
    for (const url of pagesOfA()) expect((await get(sa, url)).statusCode, url).toBe(200);
    // The picker does not open another account's company.
    const open = await get(sb, `/admin/live/open?company=${a.live.id}`);
    expect(open.headers.location).toBe('/admin/live');
    const list = await get(sb, '/admin/test');
    expect(list.body).not.toContain(a.test.id);
  });

  it('cannot change them with its own valid token: 404 and nothing changes', async () => {
    const actions: Array<{ url: string; form: Record<string, string> }> = [
      { url: `/admin/test/companies/${a.test.id}/api-keys`, form: { name: 'intruder' } },
      { url: `/admin/test/companies/${a.test.id}/api-keys/${keyOfA()}/revoke`, form: {} },
      { url: `/admin/test/companies/${a.test.id}/api-keys/${keyOfA()}/roll`, form: { grace: '0' } },
      { url: `/admin/test/companies/${a.test.id}/api-keys/${keyOfA()}/delete`, form: {} },
      { url: `/admin/live/companies/${a.live.id}/edit`, form: { name: 'Hijacked' } },
      { url: `/admin/oauth-apps/${appOfA}/delete`, form: {} },
      { url: `/admin/test/companies/${a.test.id}/webhooks/${hookOfA}/reveal`, form: {} },
      { url: `/admin/test/companies/${a.test.id}/webhooks/${hookOfA}/rotate`, form: {} },
      { url: `/admin/test/companies/${a.test.id}/webhooks/${hookOfA}/test`, form: {} },
      { url: `/admin/test/companies/${a.test.id}/webhooks/${hookOfA}/disable`, form: {} },
      { url: `/admin/test/companies/${a.test.id}/webhooks/${hookOfA}/delete`, form: {} },
      // B's own company with A's endpoint id.
      { url: `/admin/test/companies/${b.test.id}/webhooks/${hookOfA}/reveal`, form: {} },
      { url: `/admin/test/companies/${b.test.id}/webhooks/${hookOfA}/delete`, form: {} },
      // B's own company with A's key id: the key is looked up under B's company only.
      { url: `/admin/test/companies/${b.test.id}/api-keys/${keyOfA()}/revoke`, form: {} },
      { url: `/admin/test/companies/${b.test.id}/api-keys/${keyOfA()}/delete`, form: {} },
    ];
    const hookBefore = await t.dbs.test.prisma.webhookEndpoint.findUnique({ where: { id: hookOfA } });
    for (const p of actions) {
      const res = await post(sb, p.url, p.form);
      expect(res.statusCode, p.url).toBe(404);
      expect(res.body).not.toContain('whsec_');
    }
    expect(await t.dbs.test.prisma.webhookEndpoint.findUnique({ where: { id: hookOfA } })).toEqual(hookBefore);
    expect(await t.dbs.test.prisma.webhookDelivery.count({ where: { endpointId: hookOfA } })).toBe(0);
    const key = await t.dbs.test.prisma.apiKey.findUnique({ where: { id: keyOfA() } });
    expect(key).toMatchObject({ revokedAt: null, expiresAt: null });
    expect(await t.dbs.test.prisma.apiKey.count({ where: { companyId: a.test.id } })).toBe(1);
    expect((await t.dbs.live.prisma.company.findUnique({ where: { id: a.live.id } }))!.name).toBe(a.live.name);
    expect(await t.dbs.live.prisma.oAuthClient.count({ where: { id: appOfA } })).toBe(1);
    // B's wipe deletes B's test companies only, even when its form names A's too; so does a reset.
    const everyone = [...a.testCompanies, ...b.testCompanies].map((c) => c.id);
    expect(
      (await post(sb, '/admin/test/sandbox/restore', { reset: '1', confirm: '1', company: everyone })).headers.location,
    ).toBe('/admin/test/sandbox?done=reset&d=3&n=3');
    expect(await t.dbs.test.prisma.company.count({ where: { accountId: a.account.id } })).toBe(3);
    const bNow = await t.dbs.test.prisma.company.findMany({ where: { accountId: b.account.id }, select: { id: true } });
    expect(
      (
        await post(sb, '/admin/test/sandbox/wipe', {
          company: [...a.testCompanies.map((c) => c.id), ...bNow.map((c) => c.id)],
        })
      ).statusCode,
    ).toBe(303);
    expect(await t.dbs.test.prisma.company.count({ where: { accountId: b.account.id } })).toBe(0);
    expect(await t.dbs.test.prisma.company.count({ where: { accountId: a.account.id } })).toBe(3);
  });

  it('a company of the other mode or a malformed id is the same 404', async () => {
    for (const url of [
      `/admin/test/companies/${a.live.id}`,
      `/admin/live/companies/${a.test.id}/api-keys`,
      '/admin/live/companies/not-an-id',
      `/admin/prod/companies/${a.live.id}`,
      `/admin/live/companies/${a.live.id}/api-keys/zzz/revoke`,
      `/admin/test/companies/${a.test.id}/bookings/${'f'.repeat(24)}`,
      `/admin/test/companies/${a.test.id}/emails/${'0'.repeat(24)}`,
      '/admin/nothing/here/at/all',
    ]) {
      const res = await get(sa, url);
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type']).toContain('text/html');
    }
  });
});

describe('hostile input', () => {
  it('is answered with a 4xx page naming the problem, and nothing is written', async () => {
    const keys = await t.dbs.test.prisma.apiKey.count({ where: { companyId: a.test.id } });
    const cases: Array<{ url: string; form: Record<string, string>; says: string }> = [
      { url: `/admin/test/companies/${a.test.id}/api-keys`, form: { name: '' }, says: 'Key name' },
      { url: `/admin/test/companies/${a.test.id}/api-keys`, form: { name: 'x'.repeat(101) }, says: 'Key name' },
      {
        url: `/admin/test/companies/${a.test.id}/api-keys/${keyOfA()}/roll`,
        form: { grace: '604801' },
        says: 'up to 7 days',
      },
      {
        url: `/admin/test/companies/${a.test.id}/api-keys/${keyOfA()}/roll`,
        form: { grace: '-1' },
        says: 'up to 7 days',
      },
      { url: `/admin/test/companies/${a.test.id}/api-keys/${keyOfA()}/roll`, form: {}, says: 'up to 7 days' },
      { url: `/admin/live/companies/${a.live.id}/edit`, form: { name: '' }, says: 'f-name-error' },
      {
        url: `/admin/live/companies/${a.live.id}/edit`,
        form: { name: 'ok', timezone: 'Mars/Olympus' },
        says: 'f-timezone-error',
      },
      {
        url: `/admin/live/companies/${a.live.id}/edit`,
        form: { name: 'ok', currency: 'EURO' },
        says: 'f-currency-error',
      },
      {
        url: `/admin/live/companies/${a.live.id}/edit`,
        form: { name: 'ok', email: 'not-mail' },
        says: 'f-email-error',
      },
      { url: '/admin/test/companies', form: { name: 'x', template: 'castle' }, says: 'template' },
      { url: '/admin/live/companies', form: { name: '' }, says: 'f-name-error' },
      {
        url: '/admin/oauth-apps',
        form: { name: 'x', redirect_uris: 'javascript:alert(1)', type: 'public' },
        says: 'f-redirect-error',
      },
      {
        url: '/admin/oauth-apps',
        form: { name: 'x', redirect_uris: 'https://x.example/cb', type: 'public', scopes: 'root:all' },
        says: '<fieldset aria-describedby="f-scopes-error">',
      },
      { url: `/admin/test/companies/${a.test.id}/webhooks`, form: { url: 'not a url' }, says: 'f-url-error' },
      {
        url: `/admin/test/companies/${a.test.id}/webhooks`,
        form: { url: 'https://x.example/h', events: 'booking.exploded' },
        says: '<fieldset aria-describedby="f-events-error">',
      },
      {
        url: `/admin/live/companies/${a.live.id}/webhooks`,
        form: { url: 'http://169.254.169.254/latest/meta-data' },
        says: 'f-url-error',
      },
    ];
    for (const c of cases) {
      const res = await post(sa, c.url, c.form);
      expect(res.statusCode, c.url).toBe(400);
      expect(res.body, JSON.stringify(c)).toContain(c.says);
    }
    // Markup in a field is escaped when re-shown.
    const xss = await post(sa, `/admin/test/companies/${a.test.id}/api-keys`, {
      name: `<script>alert(1)</script>${'x'.repeat(100)}`,
    });
    expect(xss.body).not.toContain('<script>alert(1)');
    expect(xss.body).toContain('&lt;script>');
    expect(await t.dbs.test.prisma.apiKey.count({ where: { companyId: a.test.id } })).toBe(keys);
    expect((await t.dbs.live.prisma.company.findUnique({ where: { id: a.live.id } }))!.name).toBe(a.live.name);
    expect(await t.dbs.live.prisma.oAuthClient.count({ where: { accountId: a.account.id } })).toBe(1);
    expect(await t.dbs.test.prisma.webhookEndpoint.count({ where: { companyId: a.test.id } })).toBe(1);
    expect(await t.dbs.live.prisma.webhookEndpoint.count({ where: { companyId: a.live.id } })).toBe(0);
    // A body that is not a form is refused before any handler.
    const json = await t.app.inject({
      method: 'POST',
      url: '/admin/test/sandbox/wipe',
      cookies: { svc_session: sa.cookie },
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ csrf_token: sa.csrf }),
    });
    expect(json.statusCode).toBe(415);
    expect(await t.dbs.test.prisma.company.count({ where: { accountId: a.account.id } })).toBe(3);
  });
});

describe('the sandbox tools are the CLI’s use cases', () => {
  it('a confirmed reset that fails half-way deletes nothing: the samples go and come back in one transaction', async () => {
    const c = await createAccountWithKeys(t.dbs);
    const sc = await signIn(c);
    const ids = c.testCompanies.map((x) => x.id);
    // A real fault in the middle of the reset: the database refuses this account's new companies.
    await t.dbs.test.prisma.$executeRawUnsafe(`
      CREATE FUNCTION refuse_company() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.account_id = '${c.account.id}' THEN RAISE EXCEPTION 'no new companies today'; END IF; RETURN NEW; END $$`);
    await t.dbs.test.prisma.$executeRawUnsafe(
      'CREATE TRIGGER refuse_company BEFORE INSERT ON companies FOR EACH ROW EXECUTE FUNCTION refuse_company()',
    );
    try {
      const res = await post(sc, '/admin/test/sandbox/restore', { reset: '1', confirm: '1', company: ids });
      expect(res.statusCode).toBe(500);
      expect(res.body).not.toContain('no new companies today');
    } finally {
      await t.dbs.test.prisma.$executeRawUnsafe('DROP TRIGGER refuse_company ON companies');
      await t.dbs.test.prisma.$executeRawUnsafe('DROP FUNCTION refuse_company()');
    }
    const after = await t.dbs.test.prisma.company.findMany({
      where: { accountId: c.account.id },
      select: { id: true },
      orderBy: { createdAt: 'asc' },
    });
    expect(after.map((x) => x.id).sort()).toEqual([...ids].sort());
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { authorization: `Bearer ${c.testKey.key}` } }))
        .statusCode,
    ).toBe(200);
  });
});
