// Manage links (docs/api.md, Manage links): every booking's
// manageUrl is BASE_URL/b/svc_ml_<token>, over REST and GraphQL (bookings:read); the token is
// bound to one booking, its mode and its link version; rotating revokes the earlier links;
// MANAGE_LINK_SECRETS rotates the signing key without breaking links signed by a key still listed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { openManageLink } from '../../../src/schema/core/index.js';
import { manageLinkKeys, verifyManageToken } from '../../../src/crypto/manage-link-token.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { bearer, createAccountWithKeys } from '../../helpers/factories.js';
import {
  blankCompany,
  expectError,
  futureHour,
  ok,
  post,
  salon,
  tokenWithScopes,
  type World,
} from '../../helpers/domain.js';

const BASE_URL = 'https://book.example.com';
let t: TestApp;
let w: World;
let c: Awaited<ReturnType<typeof blankCompany>>;
let service: { _id: string };
let day = 2;

beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_PER_SECOND: '1000000', BASE_URL } });
  w = await createAccountWithKeys(t.dbs);
  c = await blankCompany(t.dbs, w);
  service = (await salon(t.app, c.auth)).service;
});
afterAll(async () => t?.close());

const book = (auth = c.auth, serviceId = service._id) =>
  post(t.app, '/api/v1/bookings', auth, {
    serviceId,
    startTime: futureHour(day++),
    customer: { name: 'Ann', email: 'ann@example.com' },
  });
const tokenOf = (url: string) => url.slice(`${BASE_URL}/b/`.length);
const gql = (auth: Record<string, string>, query: string, variables: Record<string, unknown> = {}) =>
  t.app.inject({ method: 'POST', url: '/graphql', headers: auth, payload: { query, variables } });

describe('manageUrl', () => {
  it('is BASE_URL/b/svc_ml_… on every booking over REST, the same on create, get and list', async () => {
    const b = await book();
    expect(b.manageUrl).toMatch(/^https:\/\/book\.example\.com\/b\/svc_ml_[A-Za-z0-9_-]{55}$/);
    const got = ok(await t.app.inject({ method: 'GET', url: `/api/v1/bookings/${b._id}`, headers: c.auth }));
    expect(got.manageUrl).toBe(b.manageUrl);
    const list = ok(await t.app.inject({ method: 'GET', url: '/api/v1/bookings?limit=100', headers: c.auth }));
    expect(list.find((x: { _id: string }) => x._id === b._id).manageUrl).toBe(b.manageUrl);
    // ≥128 bits of MAC: the token carries 41 bytes, 17 of them the claims.
    expect(Buffer.from(tokenOf(b.manageUrl).slice(7), 'base64url').length).toBe(41);
  });

  it('GraphQL Booking.manageUrl is the same URL and needs bookings:read', async () => {
    const b = await book();
    const q = 'query($id: ID!) { booking(id: $id) { manageUrl } }';
    const res = await gql(c.auth, q, { id: b._id });
    expect(res.json().data.booking.manageUrl).toBe(b.manageUrl);
    const noRead = await tokenWithScopes(t.dbs, w, 'customers:read');
    const refused = (await gql(noRead, q, { id: b._id })).json();
    expect(refused.errors[0].extensions.code).toBe('INSUFFICIENT_SCOPE');
  });

  it('opens its booking in its own mode only: a sandbox token never reaches a live booking', async () => {
    const live = await salon(t.app, bearer(w.liveKey.key));
    const lb = await book(bearer(w.liveKey.key), live.service._id);
    const tb = await book();
    const liveOpen = await openManageLink(t.dbs, t.config, tokenOf(lb.manageUrl));
    expect(liveOpen).toMatchObject({ mode: 'live', booking: { id: lb._id } });
    expect(await openManageLink(t.dbs, t.config, tokenOf(tb.manageUrl))).toMatchObject({
      mode: 'test',
      booking: { id: tb._id },
    });
    // The same claims with the mode byte flipped: the MAC no longer matches.
    const raw = Buffer.from(tokenOf(tb.manageUrl).slice(7), 'base64url');
    raw[0] = 0;
    raw.write(lb._id, 1, 'hex');
    expect(await openManageLink(t.dbs, t.config, `svc_ml_${raw.toString('base64url')}`)).toBeNull();
  });

  it('a tampered, truncated or foreign token opens nothing', async () => {
    const b = await book();
    const token = tokenOf(b.manageUrl);
    const flip = (i: number) => token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
    for (const bad of [flip(10), flip(token.length - 2), token.slice(0, -1), `${token}A`, 'svc_ml_', 'x', '']) {
      expect(await openManageLink(t.dbs, t.config, bad), bad).toBeNull();
    }
    // Signed with another deployment's secret.
    const other = loadConfig({ MANAGE_LINK_SECRETS: 'z'.repeat(40) });
    expect(verifyManageToken(manageLinkKeys(other), token)).toBeNull();
  });

  it('expires 7 days after the booking ends', async () => {
    const b = await book();
    const end = new Date(b.endTime).getTime();
    const week = 7 * 86_400_000;
    expect(await openManageLink(t.dbs, t.config, tokenOf(b.manageUrl), new Date(end + week))).not.toBeNull();
    expect(await openManageLink(t.dbs, t.config, tokenOf(b.manageUrl), new Date(end + week + 1))).toBeNull();
  });
});

describe('POST /bookings/:id/manage-link/rotate', () => {
  it('revokes the earlier link and returns the booking with its new manageUrl (REST and GraphQL)', async () => {
    const b = await book();
    const rotated = ok(
      await t.app.inject({ method: 'POST', url: `/api/v1/bookings/${b._id}/manage-link/rotate`, headers: c.auth }),
    );
    expect(rotated._id).toBe(b._id);
    expect(rotated.manageUrl).not.toBe(b.manageUrl);
    expect(await openManageLink(t.dbs, t.config, tokenOf(b.manageUrl))).toBeNull();
    expect(await openManageLink(t.dbs, t.config, tokenOf(rotated.manageUrl))).not.toBeNull();

    const res = await gql(c.auth, 'mutation($id: ID!) { rotateBookingManageLink(id: $id) { _id manageUrl } }', {
      id: b._id,
    });
    const again = res.json().data.rotateBookingManageLink;
    expect(again._id).toBe(b._id);
    expect(await openManageLink(t.dbs, t.config, tokenOf(rotated.manageUrl))).toBeNull();
    expect(await openManageLink(t.dbs, t.config, tokenOf(again.manageUrl))).not.toBeNull();
  });

  it('needs bookings:write; another company’s booking or a bad id is a 404 and changes nothing', async () => {
    const b = await book();
    const readOnly = await tokenWithScopes(t.dbs, w, 'bookings:read');
    expectError(
      await t.app.inject({ method: 'POST', url: `/api/v1/bookings/${b._id}/manage-link/rotate`, headers: readOnly }),
      403,
      'INSUFFICIENT_SCOPE',
    );
    const other = await blankCompany(t.dbs, w);
    expectError(
      await t.app.inject({ method: 'POST', url: `/api/v1/bookings/${b._id}/manage-link/rotate`, headers: other.auth }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await t.app.inject({ method: 'POST', url: '/api/v1/bookings/nope/manage-link/rotate', headers: c.auth }),
      404,
      'NOT_FOUND',
    );
    expect(await openManageLink(t.dbs, t.config, tokenOf(b.manageUrl))).not.toBeNull();
  });
});

describe('MANAGE_LINK_SECRETS', () => {
  const claims = { mode: 'test' as const, bookingId: 'a'.repeat(24), version: 3 };
  const A = 'a-secret-of-at-least-thirty-two-characters';
  const B = 'b-secret-of-at-least-thirty-two-characters';

  it('the first secret signs, every listed one verifies, a dropped one no longer does', async () => {
    const { signManageToken } = await import('../../../src/crypto/manage-link-token.js');
    const before = loadConfig({ MANAGE_LINK_SECRETS: A });
    const during = loadConfig({ MANAGE_LINK_SECRETS: `${B},${A}` });
    const after = loadConfig({ MANAGE_LINK_SECRETS: B });
    const old = signManageToken(manageLinkKeys(before), claims);
    const fresh = signManageToken(manageLinkKeys(during), claims);
    expect(verifyManageToken(manageLinkKeys(during), old)).toEqual(claims);
    expect(verifyManageToken(manageLinkKeys(after), fresh)).toEqual(claims);
    expect(verifyManageToken(manageLinkKeys(after), old)).toBeNull();
  });

  it('unset, a key derived from SECRET_KEY signs; the entry SECRET_KEY keeps those links working', async () => {
    const { signManageToken } = await import('../../../src/crypto/manage-link-token.js');
    const SECRET_KEY = 'cd'.repeat(32);
    const byDefault = signManageToken(manageLinkKeys(loadConfig({ SECRET_KEY })), claims);
    const moving = loadConfig({ SECRET_KEY, MANAGE_LINK_SECRETS: `${A},SECRET_KEY` });
    expect(verifyManageToken(manageLinkKeys(moving), byDefault)).toEqual(claims);
    expect(verifyManageToken(manageLinkKeys(loadConfig({ SECRET_KEY, MANAGE_LINK_SECRETS: A })), byDefault)).toBeNull();
    // Production needs nothing new: SECRET_KEY, which it requires, is enough.
    expect(loadConfig({ NODE_ENV: 'production', SECRET_KEY }).MANAGE_LINK_SECRETS).toBeUndefined();
  });

  it('refuses short or repeated secrets, naming the variable', () => {
    expect(() => loadConfig({ MANAGE_LINK_SECRETS: 'short' })).toThrow(/MANAGE_LINK_SECRETS: must be a comma list/);
    expect(() => loadConfig({ MANAGE_LINK_SECRETS: `${A},${A}` })).toThrow(/MANAGE_LINK_SECRETS/);
  });
});
