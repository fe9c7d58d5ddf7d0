// logs:read is never preselected on the consent page (docs/oauth.md, Scopes): it is a box the
// person must tick, unticked by default; approving without ticking grants the other scopes only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOAuthClient } from '../../../src/schema/credentials/create-oauth-client.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { basic, Browser, codeFrom, createWorld, REDIRECT, tokenRequest, type World } from './oauth-helpers.js';

let t: TestApp;
let w: World;
let client: { clientId: string; secret: string };

beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000' } });
  w = await createWorld(t.dbs);
  const made = await createOAuthClient(t.dbs, {
    accountId: w.account.id,
    name: 'Log Viewer',
    redirectUris: [REDIRECT],
    scopes: ['company:read', 'logs:read'],
    type: 'confidential',
  });
  client = { clientId: made.client.clientId, secret: made.clientSecret! };
});
afterAll(async () => {
  await t?.close();
});

const query = (scope: string) => ({
  response_type: 'code',
  client_id: client.clientId,
  redirect_uri: REDIRECT,
  scope,
  state: 's',
});

async function grantedScope(res: Awaited<ReturnType<Browser['authorize']>>): Promise<string> {
  const { code } = codeFrom(res);
  const token = await tokenRequest(
    t.app,
    { grant_type: 'authorization_code', code, redirect_uri: REDIRECT },
    basic(client.clientId, client.secret),
  );
  expect(token.statusCode, token.body).toBe(200);
  return token.json().scope as string;
}

describe('consent to logs:read', () => {
  it('shows logs:read as an unticked box, and the other scopes as a list', async () => {
    const b = new Browser(t.app);
    await b.login(w.email, w.password, `/oauth/authorize?${new URLSearchParams(query('company:read logs:read'))}`);
    const page = await b.request('GET', `/oauth/authorize?${new URLSearchParams(query('company:read logs:read'))}`);
    expect(page.statusCode).toBe(200);
    const box = /<input type="checkbox"[^>]*value="logs:read"[^>]*>/.exec(page.body)?.[0];
    expect(box).toBeDefined();
    expect(box).not.toMatch(/checked/);
    expect(page.body).toContain('<li>See the company profile (<code>company:read</code>)</li>');
  });

  it('approving without ticking grants the rest only; ticking grants logs:read', async () => {
    const plain = await new Browser(t.app).authorize(query('company:read logs:read'), w);
    expect(await grantedScope(plain)).toBe('company:read');
    const ticked = await new Browser(t.app).authorize(query('company:read logs:read'), w, {
      grantScopes: ['logs:read'],
    });
    expect(await grantedScope(ticked)).toBe('company:read logs:read');
  });

  it('asked for logs:read alone, approving without ticking grants nothing', async () => {
    const res = await new Browser(t.app).authorize(query('logs:read'), w);
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Tick at least one permission');
  });
});

describe('the company to grant', () => {
  it('is not preselected: the select starts at "Choose a company"', async () => {
    const b = new Browser(t.app);
    const url = `/oauth/authorize?${new URLSearchParams(query('company:read'))}`;
    await b.login(w.email, w.password, url);
    const page = await b.request('GET', url);
    expect(page.statusCode).toBe(200);
    // An empty value is rendered as the bare attribute `value`, which HTML reads as "".
    const options = [...page.body.matchAll(/<option value(?:="([^"]*)")?( selected)?>/g)];
    expect(options.length).toBeGreaterThan(2);
    expect(options[0]![1] ?? '').toBe('');
    expect(options.filter((o) => o[2]).map((o) => o[1] ?? '')).toEqual(['']);
  });

  it('approving without choosing one is refused, and no code is issued', async () => {
    const codes = await t.dbs.live.prisma.oAuthCode.count();
    const res = await new Browser(t.app).authorize(query('company:read'), w, { company: '' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Choose one of your companies');
    expect(await t.dbs.live.prisma.oAuthCode.count()).toBe(codes);
  });
});
