// The customer's manage pages over inject (docs/manage-links.md): the headers of a secret URL
// on every answer, one 404 for every link that opens nothing, a started booking read-only,
// the per-IP rate limit, the sandbox/live binding, HTTPS in production, and forms that answer
// bad, stale or cross-site input with the page and a message, changing nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_SECRET_KEY, type TestApp } from '../../helpers/app.js';
import { bearer, createAccountWithKeys } from '../../helpers/factories.js';
import { blankCompany, futureHour, ok, post, salon, type World } from '../../helpers/domain.js';

let t: TestApp;
let w: World;
let c: Awaited<ReturnType<typeof blankCompany>>;
let service: { _id: string };
let day = 2;

beforeAll(async () => {
  t = await createTestApp({
    env: { RATE_LIMIT_PER_SECOND: '1000000', RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '1000000' },
  });
  w = await createAccountWithKeys(t.dbs);
  c = await blankCompany(t.dbs, w, { timezone: 'Europe/Berlin' });
  service = (await salon(t.app, c.auth)).service;
});
afterAll(async () => t?.close());

const book = async (auth = c.auth, serviceId = service._id) =>
  post(t.app, '/api/v1/bookings', auth, {
    serviceId,
    startTime: futureHour(day++),
    customer: { name: 'Ann', email: 'ann@example.com' },
  });
const pathOf = (b: { manageUrl: string }) => new URL(b.manageUrl).pathname;
const get = (url: string, app = t.app) => app.inject({ method: 'GET', url });
const form = (url: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(fields).toString(),
  });
const row = (id: string) => t.dbs.test.prisma.booking.findUniqueOrThrow({ where: { id } });

function expectSecretUrlHeaders(res: { headers: Record<string, unknown> }) {
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
  expect(res.headers['x-robots-tag']).toBe('noindex, nofollow');
  expect(res.headers['x-frame-options']).toBe('DENY');
  const csp = String(res.headers['content-security-policy']);
  expect(csp).toContain("default-src 'none'");
  expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'(;|$)/);
  expect(csp).toContain("form-action 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toContain('unsafe-eval');
  expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
}

describe('GET /b/<token>', () => {
  it('shows the booking in the company zone, with secret-URL headers', async () => {
    const b = await book();
    const res = await get(pathOf(b));
    expect(res.statusCode).toBe(200);
    expectSecretUrlHeaders(res);
    expect(res.body).toContain('<h1>Your booking</h1>');
    expect(res.body).toContain('Cut');
    expect(res.body).toContain('Stylist 0');
    expect(res.body).toContain('(Europe/Berlin)');
    expect(res.body).toContain('Confirmed');
    expect(res.body).toContain(`data-start="${b.startTime}"`);
    expect(res.body).toContain('href="' + pathOf(b) + '/cancel"');
    expect(res.body).toContain('href="' + pathOf(b) + '/reschedule"');
  });

  it('a wrong, tampered, revoked, expired or foreign-mode link: the same 404 page', async () => {
    const b = await book();
    const token = pathOf(b).slice(3);
    const tampered = token.slice(0, 20) + (token[20] === 'A' ? 'B' : 'A') + token.slice(21);
    const revokedBooking = await book();
    ok(
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/bookings/${revokedBooking._id}/manage-link/rotate`,
        headers: c.auth,
      }),
    );
    const expired = await book();
    const past = Date.now() - 9 * 86_400_000;
    await t.dbs.test.prisma.booking.update({
      where: { id: expired._id },
      data: {
        startTime: new Date(past),
        endTime: new Date(past + 3600_000),
        blockStart: new Date(past),
        blockEnd: new Date(past + 3600_000),
      },
    });
    // The same claims under the live mode byte: not signed, so not opened.
    const raw = Buffer.from(token.slice(7), 'base64url');
    raw[0] = 0;
    const answers = await Promise.all(
      [
        '/b/svc_ml_nothing',
        '/b/nothing',
        `/b/${tampered}`,
        pathOf(revokedBooking),
        pathOf(expired),
        `/b/svc_ml_${raw.toString('base64url')}`,
        `/b/${tampered}/cancel`,
        `/b/${tampered}/reschedule`,
        `${pathOf(b)}/elsewhere`,
      ].map((u) => get(u)),
    );
    const posted = await form(`/b/${tampered}/cancel`, { fee: '0' });
    for (const res of [...answers, posted]) {
      expect(res.statusCode).toBe(404);
      expectSecretUrlHeaders(res);
      expect(res.body).toBe(answers[0]!.body);
    }
    expect(answers[0]!.body).toContain('Link not found');
    expect(answers[0]!.body).not.toMatch(/revoked|expired booking|sandbox|live/i);
  });

  it('a sandbox link opens only its sandbox booking; a live link only its live booking', async () => {
    const live = await salon(t.app, bearer(w.liveKey.key));
    const lb = await book(bearer(w.liveKey.key), live.service._id);
    const tb = await book();
    expect(lb.manageUrl).not.toBe(tb.manageUrl);
    const liveRes = await get(pathOf(lb));
    expect(liveRes.statusCode).toBe(200);
    expect(liveRes.body).toContain(w.live.name);
    // The sandbox token carries the sandbox mode: with the live booking's id it opens nothing.
    const raw = Buffer.from(pathOf(tb).slice(10), 'base64url');
    raw.write(lb._id, 1, 'hex');
    expect((await get(`/b/svc_ml_${raw.toString('base64url')}`)).statusCode).toBe(404);
  });

  it('once the booking has started nothing can be changed, and the page says so', async () => {
    const b = await book();
    const start = Date.now() - 10 * 60_000;
    await t.dbs.test.prisma.booking.update({
      where: { id: b._id },
      data: {
        startTime: new Date(start),
        endTime: new Date(start + 3600_000),
        blockStart: new Date(start),
        blockEnd: new Date(start + 3600_000),
      },
    });
    const page = await get(pathOf(b));
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('This booking has started, so it can no longer be changed online.');
    expect(page.body).not.toContain('/cancel"');
    const cancel = await form(`${pathOf(b)}/cancel`, { fee: '0' });
    expect(cancel.statusCode).toBe(409);
    expect(cancel.body).toContain('can no longer be changed online');
    const moved = await form(`${pathOf(b)}/reschedule`, { startTime: futureHour(20) });
    expect(moved.statusCode).toBe(409);
    expect((await row(b._id)).status).toBe('confirmed');
    expect((await row(b._id)).startTime.getTime()).toBe(start);
  });

  it('is HTTPS-only in production (loopback excepted, as for the API)', async () => {
    const prod = await createTestApp({ db: undefined, env: { NODE_ENV: 'production', SECRET_KEY: TEST_SECRET_KEY } });
    try {
      const res = await prod.app.inject({ method: 'GET', url: '/b/svc_ml_x', remoteAddress: '203.0.113.9' });
      expect(res.statusCode).toBe(403);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('HTTPS is required');
      expectSecretUrlHeaders(res);
    } finally {
      await prod.close();
    }
  });
});

describe('cancel from the page', () => {
  it('shows the customer quote, then cancels as the customer: booking.cancelled with cancelledBy customer', async () => {
    const b = await book();
    const page = await get(`${pathOf(b)}/cancel`);
    expect(page.statusCode).toBe(200);
    expectSecretUrlHeaders(page);
    expect(page.body).toContain('Cancellation fee');
    expect(page.body).toContain('name="fee" value="0"');
    const res = await form(`${pathOf(b)}/cancel`, { fee: '0', reason: 'Cannot come' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`${pathOf(b)}?done=cancelled`);
    const after = await row(b._id);
    expect(after).toMatchObject({ status: 'cancelled', cancelledBy: 'customer', cancelReason: 'Cannot come' });
    const event = await t.dbs.test.prisma.event.findFirstOrThrow({
      where: { type: 'booking.cancelled', data: { path: ['bookingId'], equals: b._id } },
    });
    expect(event.data).toMatchObject({ cancelledBy: 'customer' });
    const done = await get(`${pathOf(b)}?done=cancelled`);
    expect(done.body).toContain('Your booking is cancelled.');
    expect(done.body).toContain('Cancelled');
    // A second post (a double click, a back button): the page and a message, no change.
    const again = await form(`${pathOf(b)}/cancel`, { fee: '0' });
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('can no longer be cancelled online');
  });

  it('two concurrent cancel posts (a double click): one cancel, one event, the other a message', async () => {
    const b = await book();
    const answers = await Promise.all([1, 2, 3].map(() => form(`${pathOf(b)}/cancel`, { fee: '0' })));
    expect(answers.map((r) => r.statusCode).sort()).toEqual([303, 409, 409]);
    for (const r of answers.filter((a) => a.statusCode === 409))
      expect(r.body).toMatch(/can no longer be (cancelled|changed) online/);
    const events = await t.dbs.test.prisma.event.count({
      where: { type: 'booking.cancelled', data: { path: ['bookingId'], equals: b._id } },
    });
    expect(events).toBe(1);
  });

  it('a stale fee, a cross-site post or a JSON body changes nothing and never answers 500', async () => {
    const b = await book();
    const stale = await form(`${pathOf(b)}/cancel`, { fee: '999' });
    expect(stale.statusCode).toBe(409);
    expect(stale.body).toContain('The cancellation terms have changed');
    const cross = await form(`${pathOf(b)}/cancel`, { fee: '0' }, { 'sec-fetch-site': 'cross-site' });
    expect(cross.statusCode).toBe(403);
    const foreign = await form(`${pathOf(b)}/cancel`, { fee: '0' }, { origin: 'https://evil.example' });
    expect(foreign.statusCode).toBe(403);
    expectSecretUrlHeaders(foreign);
    const sameSiteOnly = await form(
      `${pathOf(b)}/cancel`,
      { fee: '0' },
      { origin: 'null', 'sec-fetch-site': 'same-site' },
    );
    expect(sameSiteOnly.statusCode).toBe(403);
    const json = await t.app.inject({
      method: 'POST',
      url: `${pathOf(b)}/cancel`,
      headers: { 'content-type': 'application/json' },
      payload: '{"fee":"0"}',
    });
    expect(json.statusCode).toBe(400);
    expect(json.headers['content-type']).toMatch(/^text\/html/);
    const garbage = await t.app.inject({
      method: 'POST',
      url: `${pathOf(b)}/cancel`,
      headers: { 'content-type': 'text/xml' },
      payload: '<x/>',
    });
    expect(garbage.statusCode).toBeGreaterThanOrEqual(400);
    expect(garbage.statusCode).toBeLessThan(500);
    expect(garbage.headers['content-type']).toMatch(/^text\/html/);
    expect((await row(b._id)).status).toBe('confirmed');
  });

  it('after the cut-off: a clear message on the page, not a 500, and the booking stays', async () => {
    const other = await blankCompany(t.dbs, w, { timezone: 'Europe/Berlin' });
    ok(
      await t.app.inject({
        method: 'PATCH',
        url: '/api/v1/me',
        headers: other.auth,
        payload: { bookingRules: { cancellationCutoffMinutes: 525_600, rescheduleCutoffMinutes: 525_600 } },
      }),
    );
    const svc = (await salon(t.app, other.auth)).service;
    const b = await book(other.auth, svc._id);
    const page = await get(`${pathOf(b)}/cancel`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('It is too late to cancel online');
    const res = await form(`${pathOf(b)}/cancel`, { fee: '0' });
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain('It is too late to do this online');
    const moved = await form(`${pathOf(b)}/reschedule`, { startTime: futureHour(30) });
    expect(moved.statusCode).toBe(409);
    expect(moved.body).toContain('It is too late to do this online');
    expect(await row(b._id)).toMatchObject({ status: 'confirmed', startTime: new Date(b.startTime) });
  });
});

describe('reschedule from the page', () => {
  it('offers findAvailability’s slots in the company zone and moves the booking as the customer', async () => {
    const b = await book();
    const page = await get(`${pathOf(b)}/reschedule`);
    expect(page.statusCode).toBe(200);
    expectSecretUrlHeaders(page);
    const starts = [...page.body.matchAll(/name="startTime" id="slot-\d+" value="([^"]+)"/g)].map((m) => m[1]!);
    expect(starts.length).toBeGreaterThan(10);
    const availability = ok(
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/availability?serviceId=${service._id}&employeeId=${b.employeeId}&from=${encodeURIComponent(starts[0]!)}&to=${encodeURIComponent(new Date(new Date(starts.at(-1)!).getTime() + 1).toISOString())}`,
        headers: c.auth,
      }),
    );
    expect(starts).toEqual(availability.slots.map((s: { startTime: string }) => s.startTime));
    const target = starts.find((s) => new Date(s).getTime() > Date.now() + 2 * 3600_000)!;
    const res = await form(`${pathOf(b)}/reschedule`, { startTime: target, from: '' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`${pathOf(b)}?done=rescheduled`);
    expect((await row(b._id)).startTime.toISOString()).toBe(target);
    const event = await t.dbs.test.prisma.event.findFirstOrThrow({
      where: { type: 'booking.rescheduled', data: { path: ['bookingId'], equals: b._id } },
    });
    expect(event.data).toMatchObject({ rescheduledBy: 'customer', previousStartTime: b.startTime });
    // The same link still works after a reschedule.
    expect((await get(`${pathOf(b)}?done=rescheduled`)).body).toContain('Your booking has moved');
  });

  it('pages by days; bad dates and bad or taken times are the page again with a message', async () => {
    const b = await book();
    const later = await get(`${pathOf(b)}/reschedule?from=2099-01-01`);
    expect(later.statusCode).toBe(200);
    const bad = await get(`${pathOf(b)}/reschedule?from=not-a-date`);
    expect(bad.statusCode).toBe(200);
    expect(bad.body).toContain('That date is not valid');
    const next = /href="([^"]+\/reschedule\?from=\d{4}-\d{2}-\d{2})">Later days/.exec(
      (await get(`${pathOf(b)}/reschedule`)).body,
    );
    expect(next).not.toBeNull();
    expect((await get(next![1]!)).body).toContain('Earlier days');
    for (const startTime of ['', 'yesterday', '2026-13-45T99:00:00Z', '1999-01-01T00:00:00Z']) {
      const res = await form(`${pathOf(b)}/reschedule`, { startTime });
      expect(res.statusCode, startTime).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, startTime).toBeLessThan(500);
      expect(res.body).toContain('Choose a new time');
    }
    // Taken meanwhile by another booking.
    const taken = await book();
    const res = await form(`${pathOf(b)}/reschedule`, { startTime: taken.startTime });
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain('That time is no longer free');
    expect((await row(b._id)).startTime.toISOString()).toBe(b.startTime);
  });
});

describe('rate limit', () => {
  it('per IP, its own bucket at the unauthenticated limit: a 429 page', async () => {
    const limited = await createTestApp({ env: { RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '3' } });
    try {
      const answers = await Promise.all(
        Array.from({ length: 8 }, () =>
          limited.app.inject({ method: 'GET', url: '/b/svc_ml_x', remoteAddress: '198.51.100.7' }),
        ),
      );
      const codes = answers.map((r) => r.statusCode);
      expect(codes.filter((s) => s === 404).length).toBeLessThanOrEqual(3);
      const refused = answers.find((r) => r.statusCode === 429)!;
      expect(refused.body).toContain('Too many requests');
      expect(refused.headers['retry-after']).toBeDefined();
      expectSecretUrlHeaders(refused);
      // Another address has its own budget.
      expect(
        (await limited.app.inject({ method: 'GET', url: '/b/svc_ml_x', remoteAddress: '198.51.100.8' })).statusCode,
      ).toBe(404);
    } finally {
      await limited.close();
    }
  });
});
