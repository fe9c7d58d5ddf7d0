// "Apps you authorised" on the OAuth apps page (docs/oauth.md, docs/admin.md): a person sees the
// apps they approved for their own companies and revokes one; its tokens stop at once. Another
// account cannot see or revoke it (404), and a revoke without the session's CSRF token is
// refused (403) and changes nothing. Over HTTP against the real app; grants come from the real
// consent flow.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { bearer } from '../helpers/factories.js';
import {
  basic,
  Browser,
  codeFrom,
  createWorld,
  hiddenValue,
  REDIRECT,
  tokenRequest,
  type World,
} from '../auth/oauth/oauth-helpers.js';

let t: TestApp;
let w: World;
let other: World;
let browser: Browser;
let tokens: { access_token: string; refresh_token: string };

beforeAll(async () => {
  t = await createTestApp({
    env: { RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000', RATE_LIMIT_PER_SECOND: '100000' },
  });
  w = await createWorld(t.dbs);
  other = await createWorld(t.dbs);
  browser = new Browser(t.app);
  const approved = await browser.authorize(
    {
      response_type: 'code',
      client_id: w.confidential.clientId,
      redirect_uri: REDIRECT,
      scope: 'company:read bookings:read',
      state: 's',
    },
    w,
    { company: `live:${w.live.id}` },
  );
  const { code } = codeFrom(approved);
  const res = await tokenRequest(
    t.app,
    { grant_type: 'authorization_code', code, redirect_uri: REDIRECT },
    basic(w.confidential.clientId, w.confidential.secret),
  );
  expect(res.statusCode, res.body).toBe(200);
  tokens = res.json();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const me = (token: string) => t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(token) });
const revokeUrl = (html: string) => /action="(\/admin\/authorized-apps\/[0-9a-f]{24}\/revoke)"/.exec(html)?.[1];

describe('apps you authorised', () => {
  it('lists the app with its company and permissions', async () => {
    const page = await browser.request('GET', '/admin/oauth-apps');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Apps you authorised');
    const section = page.body.slice(page.body.indexOf('id="authorized"'));
    expect(section).toContain('Acme Scheduler');
    expect(section).toContain(`${w.live.name} (live)`);
    expect(section).toContain('<code>company:read</code> <code>bookings:read</code>');
    expect(revokeUrl(section)).toBeDefined();
  });

  it('another account neither sees nor revokes it; a revoke without the CSRF token does nothing', async () => {
    const mine = await browser.request('GET', '/admin/oauth-apps');
    const url = revokeUrl(mine.body)!;
    const intruder = new Browser(t.app);
    await intruder.login(other.email, other.password, '/admin/login');
    const theirs = await intruder.request('GET', '/admin/oauth-apps');
    expect(theirs.statusCode).toBe(200);
    expect(theirs.body).toContain('You have not authorised any app.');
    const refused = await intruder.request('POST', url, { csrf_token: hiddenValue(theirs.body, 'csrf_token') });
    expect(refused.statusCode).toBe(404);
    const noCsrf = await browser.request('POST', url, {});
    expect(noCsrf.statusCode).toBe(403);
    expect((await me(tokens.access_token)).statusCode).toBe(200);
  });

  it('revoking it ends the access and refresh tokens at once', async () => {
    const page = await browser.request('GET', '/admin/oauth-apps');
    const res = await browser.request('POST', revokeUrl(page.body)!, {
      csrf_token: hiddenValue(page.body, 'csrf_token'),
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/admin/oauth-apps?done=revoked#authorized');
    expect((await me(tokens.access_token)).statusCode).toBe(401);
    const refreshed = await tokenRequest(
      t.app,
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
      basic(w.confidential.clientId, w.confidential.secret),
    );
    expect(refreshed.json().error).toBe('invalid_grant');
    const after = await browser.request('GET', '/admin/oauth-apps?done=revoked');
    expect(after.body).toContain('The app’s access was revoked.');
    expect(after.body).toContain('You have not authorised any app.');
  });
});
