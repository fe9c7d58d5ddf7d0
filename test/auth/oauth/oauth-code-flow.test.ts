// The authorization code grant end to end over HTTP: authorize → login → consent → token,
// and every way a code exchange must fail (issue 4, "Tests that must exist").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../../src/auth/tokens.js';
import { bearer } from '../../helpers/factories.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { basic, Browser, codeFrom, createWorld, REDIRECT, tokenRequest, type World } from './oauth-helpers.js';

let t: TestApp;
let w: World;

beforeAll(async () => {
  // The per-IP limit of unauthenticated requests is not what these tests are about.
  t = await createTestApp({ env: { RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000' } });
  w = await createWorld(t.dbs);
});
afterAll(async () => {
  await t?.close();
});

const confidentialQuery = (extra: Record<string, string | undefined> = {}) => ({
  response_type: 'code',
  client_id: w.confidential.clientId,
  redirect_uri: REDIRECT,
  scope: 'company:read bookings:read',
  state: 'st-123',
  ...extra,
});

async function confidentialCode(extra: Record<string, string | undefined> = {}, company?: string) {
  const b = new Browser(t.app);
  const res = await b.authorize(confidentialQuery(extra), w, company ? { company } : {});
  return codeFrom(res);
}

describe('authorization_code as docs/oauth.md documents it (confidential client, secret in the form)', () => {
  it('issues tokens that work on REST and GraphQL, with the granted scopes only', async () => {
    const { code, location } = await confidentialCode({}, `live:${w.live.id}`);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get('state')).toBe('st-123');
    expect(location.searchParams.get('iss')).toBe('http://localhost:80');
    const res = await tokenRequest(t.app, {
      grant_type: 'authorization_code',
      code,
      client_id: w.confidential.clientId,
      client_secret: w.confidential.secret,
      redirect_uri: REDIRECT,
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body).toEqual({
      access_token: expect.stringMatching(/^svc_at_live_[0-9A-Za-z]{38}$/),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^svc_rt_live_[0-9A-Za-z]{38}$/),
      scope: 'company:read bookings:read',
    });
    // Stored hashed only.
    const row = await t.dbs.live.prisma.oAuthToken.findUniqueOrThrow({
      where: { tokenHash: hashToken(body.access_token) },
    });
    expect(row).toMatchObject({
      kind: 'access',
      companyId: w.live.id,
      mode: 'live',
      scope: 'company:read bookings:read',
    });
    expect(JSON.stringify(row)).not.toContain(body.access_token);

    const me = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(body.access_token) });
    expect(me.statusCode).toBe(200);
    expect(me.json().data._id).toBe(w.live.id);
    // Lowercase scheme too (RFC 6750 §2.1 is case-insensitive).
    const lower = await t.app.inject({
      method: 'GET',
      url: '/api/v1/me',
      headers: { authorization: `bearer ${body.access_token}` },
    });
    expect(lower.statusCode).toBe(200);
    // Not granted company:write → 403 with the RFC 6750 challenge.
    const patch = await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/me',
      headers: bearer(body.access_token),
      payload: { name: 'X' },
    });
    expect(patch.statusCode).toBe(403);
    expect(patch.json().error).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      details: { requiredScope: 'company:write' },
    });
    expect(patch.headers['www-authenticate']).toMatch(/^Bearer error="insufficient_scope", scope="company:write"/);
    const gql = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: bearer(body.access_token),
      payload: { query: 'mutation { updateMe(input: { name: "X" }) { name } }' },
    });
    expect(gql.json().errors[0].extensions).toMatchObject({ code: 'INSUFFICIENT_SCOPE' });
    const gqlRead = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: bearer(body.access_token),
      payload: { query: '{ me { _id name } }' },
    });
    expect(gqlRead.json()).toEqual({ data: { me: { _id: w.live.id, name: w.live.name } } });
    const unchanged = await t.dbs.live.prisma.company.findUniqueOrThrow({ where: { id: w.live.id } });
    expect(unchanged.name).toBe(w.live.name);
    // Tokens in the query string are ignored.
    const query = await t.app.inject({ method: 'GET', url: `/api/v1/me?access_token=${body.access_token}` });
    expect(query.statusCode).toBe(401);
  });

  it('a test company gives svc_at_test_ tokens that see the sandbox company', async () => {
    const { code } = await confidentialCode({}, `test:${w.test.id}`);
    const res = await tokenRequest(
      t.app,
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT },
      basic(w.confidential.clientId, w.confidential.secret),
    );
    expect(res.statusCode).toBe(200);
    expect(res.json().access_token).toMatch(/^svc_at_test_/);
    const me = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(res.json().access_token) });
    expect(me.json().data).toMatchObject({ _id: w.test.id, mode: 'test' });
  });

  it('Deny redirects with error=access_denied, state and iss, and issues nothing', async () => {
    const before = await t.dbs.live.prisma.oAuthCode.count();
    const res = await new Browser(t.app).authorize(confidentialQuery(), w, { decision: 'deny' });
    expect(res.statusCode).toBe(303);
    const loc = new URL(String(res.headers.location));
    expect(Object.fromEntries(loc.searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'The user denied the request',
      state: 'st-123',
      iss: 'http://localhost:80',
    });
    expect(await t.dbs.live.prisma.oAuthCode.count()).toBe(before);
  });
});
