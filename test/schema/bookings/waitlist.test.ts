// Class waitlists with fair offers (docs/api.md, Class waitlists): the configuration, joining a
// full class, promotion in auto and offer mode on every way a place frees (cancel, an expired
// payment hold, a lapsed offer, a capacity increase), accepting and leaving, the cut-off, every
// new transition and every illegal one, through the REST API as a client sees it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { createAccountWithKeys } from '../../helpers/factories.js';
import { composeEmails } from '../../../src/workers/email/compose-emails.js';
import { blankCompany, createDomainApp, expectError, ok, post, type World } from '../../helpers/domain.js';

let t: TestApp;
let w: World;

beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
});
afterAll(() => t?.close());

type Auth = Record<string, string>;
const HOUR = 3_600_000;

/** A blank company on a test clock, a class service with `waitlist` and one session of `capacity`. */
async function gym(
  waitlist: object | null,
  opts: { capacity?: number; requiresPayment?: boolean; hoursAhead?: number } = {},
) {
  const c = await blankCompany(t.dbs, w);
  const now = new Date(Date.UTC(2031, 0, 6, 8, 0, 0));
  const clock = await post(t.app, '/api/v1/test-clocks', c.auth, { frozenTime: now.toISOString() });
  ok(await t.app.inject({ method: 'PATCH', url: '/api/v1/me', headers: c.auth, payload: { testClockId: clock._id } }));
  const coach = await post(t.app, '/api/v1/employees', c.auth, { name: 'Coach' });
  const service = await post(t.app, '/api/v1/services', c.auth, {
    name: 'Spin',
    kind: 'class',
    durationMinutes: 45,
    price: 1200,
    requiresPayment: opts.requiresPayment ?? false,
    employeeIds: [coach._id],
    ...(waitlist ? { waitlist } : {}),
  });
  const session = await post(t.app, '/api/v1/classes', c.auth, {
    serviceId: service._id,
    employeeId: coach._id,
    startTime: new Date(now.getTime() + (opts.hoursAhead ?? 48) * HOUR).toISOString(),
    capacity: opts.capacity ?? 2,
  });
  let n = 0;
  const book = async (extra: object = {}) => {
    n++;
    return t.app.inject({
      method: 'POST',
      url: '/api/v1/bookings',
      headers: c.auth,
      payload: {
        serviceId: service._id,
        classId: session._id,
        customer: { name: `C${n}`, email: `c${n}@example.com` },
        ...extra,
      },
    });
  };
  return { ...c, clock, now, coach, service, session, book };
}

const act = (auth: Auth, id: string, action: string, payload?: object) =>
  t.app.inject({
    method: 'POST',
    url: `/api/v1/bookings/${id}/${action}`,
    headers: auth,
    ...(payload ? { payload } : {}),
  });
const getBooking = async (auth: Auth, id: string) =>
  ok(await t.app.inject({ method: 'GET', url: `/api/v1/bookings/${id}`, headers: auth }));
const getClass = async (auth: Auth, id: string) =>
  ok(await t.app.inject({ method: 'GET', url: `/api/v1/classes/${id}`, headers: auth }));
const events = (companyId: string) =>
  t.dbs.test.prisma.event.findMany({
    where: { companyId },
    orderBy: { id: 'asc' },
    select: { type: true, data: true },
  });
const line = async (auth: Auth, ids: string[]) =>
  Promise.all(
    ids.map(async (id) => [(await getBooking(auth, id)).status, (await getBooking(auth, id)).waitlistPosition]),
  );

describe('waitlist configuration', () => {
  it('a class service takes a waitlist, its defaults filled in; null removes it', async () => {
    const g = await gym({ enabled: true });
    expect(g.service.waitlist).toEqual({
      enabled: true,
      maxSize: 20,
      offerMode: 'auto',
      offerMinutes: 60,
      cutoffMinutes: 60,
    });
    const changed = ok(
      await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/services/${g.service._id}`,
        headers: g.auth,
        payload: { waitlist: { enabled: true, maxSize: 3, offerMode: 'offer', offerMinutes: 30, cutoffMinutes: 0 } },
      }),
    );
    expect(changed.waitlist).toEqual({
      enabled: true,
      maxSize: 3,
      offerMode: 'offer',
      offerMinutes: 30,
      cutoffMinutes: 0,
    });
    const removed = ok(
      await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/services/${g.service._id}`,
        headers: g.auth,
        payload: { waitlist: null },
      }),
    );
    expect(removed.waitlist).toBeNull();
  });

  it('hostile values are a 400 naming the field, and nothing is written', async () => {
    const g = await gym(null);
    const bad: Array<[object, string]> = [
      [{ enabled: true, maxSize: 0 }, 'waitlist.maxSize'],
      [{ enabled: true, maxSize: 1e9 }, 'waitlist.maxSize'],
      [{ enabled: true, offerMode: 'lottery' }, 'waitlist.offerMode'],
      [{ enabled: true, offerMinutes: -5 }, 'waitlist.offerMinutes'],
      [{ enabled: true, cutoffMinutes: 1.5 }, 'waitlist.cutoffMinutes'],
      [{ enabled: 'yes' }, 'waitlist.enabled'],
      [{ maxSize: 3 }, 'waitlist.enabled'],
      [{ enabled: true, surprise: 1 }, 'waitlist'],
    ];
    for (const [waitlist, path] of bad) {
      const res = await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/services/${g.service._id}`,
        headers: g.auth,
        payload: { waitlist },
      });
      const body = expectError(res, 400, 'VALIDATION_ERROR');
      expect(JSON.stringify(body.error.details)).toContain(path);
    }
    const appointment = await t.app.inject({
      method: 'POST',
      url: '/api/v1/services',
      headers: g.auth,
      payload: { name: 'Cut', durationMinutes: 30, waitlist: { enabled: true } },
    });
    expect(expectError(appointment, 400, 'VALIDATION_ERROR').error.details).toEqual([
      { path: 'waitlist', message: 'is only for class services' },
    ]);
    const stored = await t.dbs.test.prisma.service.findUniqueOrThrow({ where: { id: g.service._id } });
    expect(stored.waitlist).toBeNull();
    // waitlist: true on an appointment, or a non-boolean, is refused too.
    expectError(await g.book({ waitlist: 'please' }), 400, 'VALIDATION_ERROR');
  });
});

describe('joining a full class', () => {
  it('without waitlist: true the 409 CLASS_FULL stays, with a hint; with it, waitlisted at the end of the line', async () => {
    const g = await gym({ enabled: true, maxSize: 2 }, { capacity: 1 });
    const first = ok(await g.book());
    expect(first).toMatchObject({ status: 'confirmed', waitlistPosition: null, offerExpiresAt: null });
    const refused = expectError(await g.book(), 409, 'CLASS_FULL');
    expect(refused.error.details).toMatchObject({
      classId: g.session._id,
      waitlist: { available: true, waitlistCount: 0, maxSize: 2 },
    });
    const w1 = ok(await g.book({ waitlist: true, notes: 'front row please' }));
    const w2 = ok(await g.book({ waitlist: true }));
    expect([w1.status, w1.waitlistPosition, w2.status, w2.waitlistPosition]).toEqual([
      'waitlisted',
      1,
      'waitlisted',
      2,
    ]);
    const full = expectError(await g.book({ waitlist: true }), 409, 'CLASS_FULL');
    expect(full.error.details).toMatchObject({ reason: 'WAITLIST_FULL', waitlist: { available: false } });
    expect(await getClass(g.auth, g.session._id)).toMatchObject({
      capacity: 1,
      bookedCount: 1,
      offeredCount: 0,
      spotsLeft: 0,
      waitlistCount: 2,
    });
    const types = (await events(g.company.id)).map((e) => e.type);
    expect(types.filter((x) => x.startsWith('booking.'))).toEqual([
      'booking.created',
      'booking.waitlisted',
      'booking.waitlisted',
    ]);
    const waitlisted = (await events(g.company.id)).find((e) => e.type === 'booking.waitlisted')!;
    expect(waitlisted.data).toMatchObject({ bookingId: w1._id, status: 'waitlisted', waitlistPosition: 1 });
    // No reminders are planned for a booking that holds no place.
    expect(await t.dbs.test.prisma.notification.count({ where: { bookingId: w1._id } })).toBe(0);
    // The same customer cannot wait twice, nor wait while holding a place.
    const again = await t.app.inject({
      method: 'POST',
      url: '/api/v1/bookings',
      headers: g.auth,
      payload: { serviceId: g.service._id, classId: g.session._id, customerId: first.customerId, waitlist: true },
    });
    expect(again.statusCode).toBe(409);
  });

  it('waitlist: true on a class with places books a place; on a class without a waitlist it is CLASS_FULL', async () => {
    const g = await gym(null, { capacity: 1 });
    expect(ok(await g.book({ waitlist: true })).status).toBe('confirmed');
    const res = expectError(await g.book({ waitlist: true }), 409, 'CLASS_FULL');
    expect(res.error.details.waitlist).toEqual({ available: false });
  });
});

describe('auto mode', () => {
  it('a cancel promotes the first in line at once: booking.created { fromWaitlist: true }, the line moves up', async () => {
    const g = await gym({ enabled: true, offerMode: 'auto' }, { capacity: 1 });
    const a = ok(await g.book());
    const [w1, w2, w3] = [
      ok(await g.book({ waitlist: true })),
      ok(await g.book({ waitlist: true })),
      ok(await g.book({ waitlist: true })),
    ];
    ok(await act(g.auth, a._id, 'cancel', { reason: 'sick' }));
    expect(await line(g.auth, [w1._id, w2._id, w3._id])).toEqual([
      ['confirmed', null],
      ['waitlisted', 1],
      ['waitlisted', 2],
    ]);
    const created = (await events(g.company.id)).filter((e) => e.type === 'booking.created');
    expect(created.at(-1)!.data).toMatchObject({ bookingId: w1._id, status: 'confirmed', fromWaitlist: true });
    expect(await getClass(g.auth, g.session._id)).toMatchObject({ bookedCount: 1, spotsLeft: 0, waitlistCount: 2 });
    // Leaving the line from the middle closes the gap.
    ok(await act(g.auth, w2._id, 'cancel', { cancelledBy: 'customer' }));
    expect(await line(g.auth, [w2._id, w3._id])).toEqual([
      ['cancelled', null],
      ['waitlisted', 1],
    ]);
  });

  it('a paid class promotes to pending with a hold; the hold expiring (test clock) passes the place on', async () => {
    const g = await gym({ enabled: true }, { capacity: 1, requiresPayment: true });
    const a = ok(await g.book());
    expect(a.status).toBe('pending');
    const w1 = ok(await g.book({ waitlist: true }));
    const w2 = ok(await g.book({ waitlist: true }));
    // a's hold lapses → w1 is promoted (pending, its own hold) → that lapses too → w2.
    ok(
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/test-clocks/${g.clock._id}/advance`,
        headers: g.auth,
        payload: { to: new Date(g.now.getTime() + 16 * 60_000).toISOString() },
      }),
    );
    expect(await getBooking(g.auth, a._id)).toMatchObject({ status: 'expired', expiredReason: 'hold_lapsed' });
    const p1 = await getBooking(g.auth, w1._id);
    expect(p1).toMatchObject({ status: 'pending', waitlistPosition: null });
    expect(Date.parse(p1.holdExpiresAt)).toBe(g.now.getTime() + 30 * 60_000);
    expect((await getBooking(g.auth, w2._id)).waitlistPosition).toBe(1);
  });

  it('a capacity increase promotes as many as it adds', async () => {
    const g = await gym({ enabled: true }, { capacity: 1 });
    ok(await g.book());
    const ws = [];
    for (let i = 0; i < 3; i++) ws.push(ok(await g.book({ waitlist: true })));
    const grown = ok(
      await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/classes/${g.session._id}`,
        headers: g.auth,
        payload: { capacity: 3 },
      }),
    );
    expect(grown).toMatchObject({ capacity: 3, bookedCount: 3, spotsLeft: 0, waitlistCount: 1 });
    expect(
      await line(
        g.auth,
        ws.map((x) => x._id),
      ),
    ).toEqual([
      ['confirmed', null],
      ['confirmed', null],
      ['waitlisted', 1],
    ]);
    // Shrinking below what is held is refused.
    expectError(
      await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/classes/${g.session._id}`,
        headers: g.auth,
        payload: { capacity: 2 },
      }),
      400,
      'VALIDATION_ERROR',
    );
  });
});

describe('offer mode', () => {
  const OFFER = { enabled: true, offerMode: 'offer', offerMinutes: 30, cutoffMinutes: 60 };

  it('a freed place is offered to the first in line; accept claims it; a waitlisted booking cannot accept', async () => {
    const g = await gym(OFFER, { capacity: 1 });
    const a = ok(await g.book());
    const w1 = ok(await g.book({ waitlist: true }));
    const w2 = ok(await g.book({ waitlist: true }));
    ok(await act(g.auth, a._id, 'cancel'));
    const offered = await getBooking(g.auth, w1._id);
    expect(offered).toMatchObject({ status: 'offered', waitlistPosition: null });
    expect(Date.parse(offered.offerExpiresAt)).toBe(g.now.getTime() + 30 * 60_000);
    expect(await getClass(g.auth, g.session._id)).toMatchObject({
      bookedCount: 0,
      offeredCount: 1,
      spotsLeft: 0,
      waitlistCount: 1,
    });
    // The reserved place is not free to anyone else.
    expectError(await g.book(), 409, 'CLASS_FULL');
    const ev = (await events(g.company.id)).find((e) => e.type === 'booking.offered')!;
    expect(ev.data).toMatchObject({ bookingId: w1._id, status: 'offered', offerExpiresAt: offered.offerExpiresAt });
    const refused = expectError(await act(g.auth, w2._id, 'accept-offer'), 409, 'INVALID_STATE_TRANSITION');
    expect(refused.error.details).toEqual({ from: 'waitlisted', to: 'confirmed' });
    const accepted = ok(await act(g.auth, w1._id, 'accept-offer'));
    expect(accepted).toMatchObject({ status: 'confirmed', offerExpiresAt: null });
    expect(await getClass(g.auth, g.session._id)).toMatchObject({ bookedCount: 1, offeredCount: 0, spotsLeft: 0 });
    const created = (await events(g.company.id)).filter((e) => e.type === 'booking.created');
    expect(created.at(-1)!.data).toMatchObject({ bookingId: w1._id, fromWaitlist: true });
    expectError(await act(g.auth, w1._id, 'accept-offer'), 409, 'INVALID_STATE_TRANSITION');
    // The offer's e-mail, as the outbox relay composes it: to the customer, with the link to accept.
    const offeredEvents = await t.dbs.test.prisma.event.findMany({
      where: { companyId: g.company.id, type: 'booking.offered' },
    });
    const [mail] = await composeEmails(t.dbs.test.prisma, {
      mode: 'test',
      events: offeredEvents,
      from: 'Gym <gym@example.com>',
      config: t.config,
    });
    expect(mail).toMatchObject({
      to: 'c2@example.com',
      kind: 'waitlist_offer',
      subject: 'A place is free for you at ' + g.company.name,
    });
    expect(mail!.text).toContain('Accept by:');
    expect(mail!.text).toContain('/b/svc_ml_');
  });

  it('an offer lapses when the test clock passes offerExpiresAt and passes to the next in line', async () => {
    const g = await gym(OFFER, { capacity: 1 });
    const a = ok(await g.book());
    const w1 = ok(await g.book({ waitlist: true }));
    const w2 = ok(await g.book({ waitlist: true }));
    const w3 = ok(await g.book({ waitlist: true }));
    ok(await act(g.auth, a._id, 'cancel'));
    // 65 minutes: w1's offer lapses at +30, w2's (made at +30) at +60, w3 is offered until +90.
    ok(
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/test-clocks/${g.clock._id}/advance`,
        headers: g.auth,
        payload: { to: new Date(g.now.getTime() + 65 * 60_000).toISOString() },
      }),
    );
    expect(await getBooking(g.auth, w1._id)).toMatchObject({
      status: 'expired',
      expiredReason: 'offer_lapsed',
      offerExpiresAt: null,
    });
    expect(await getBooking(g.auth, w2._id)).toMatchObject({ status: 'expired', expiredReason: 'offer_lapsed' });
    const w3now = await getBooking(g.auth, w3._id);
    expect(w3now.status).toBe('offered');
    expect(Date.parse(w3now.offerExpiresAt)).toBe(g.now.getTime() + 90 * 60_000);
    const types = (await events(g.company.id)).map((e) => e.type).filter((x) => x.startsWith('booking.'));
    expect(types.slice(-6)).toEqual([
      'booking.cancelled',
      'booking.offered',
      'booking.offer_expired',
      'booking.offered',
      'booking.offer_expired',
      'booking.offered',
    ]);
    const lapsed = (await events(g.company.id)).find((e) => e.type === 'booking.offer_expired')!;
    expect(lapsed.data).toMatchObject({ bookingId: w1._id, status: 'expired', expiredReason: 'offer_lapsed' });
    // Accepting after the lapse is refused; giving an offer back passes it on too.
    expectError(await act(g.auth, w1._id, 'accept-offer'), 409, 'INVALID_STATE_TRANSITION');
    ok(await act(g.auth, w3._id, 'cancel', { cancelledBy: 'customer' }));
    expect(await getClass(g.auth, g.session._id)).toMatchObject({
      bookedCount: 0,
      offeredCount: 0,
      spotsLeft: 1,
      waitlistCount: 0,
    });
  });

  it('no offers within the cut-off: the freed place stays open, and the line takes no new names', async () => {
    const g = await gym(OFFER, { capacity: 1, hoursAhead: 2 });
    const a = ok(await g.book());
    const w1 = ok(await g.book({ waitlist: true }));
    ok(
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/test-clocks/${g.clock._id}/advance`,
        headers: g.auth,
        payload: { to: new Date(g.now.getTime() + 61 * 60_000).toISOString() },
      }),
    );
    const closed = expectError(await g.book({ waitlist: true }), 409, 'CLASS_FULL');
    expect(closed.error.details).toMatchObject({ reason: 'WAITLIST_CLOSED', waitlist: { available: false } });
    ok(await act(g.auth, a._id, 'cancel'));
    expect(await getBooking(g.auth, w1._id)).toMatchObject({ status: 'waitlisted', waitlistPosition: 1 });
    expect(ok(await g.book()).status).toBe('confirmed');
  });
});

describe('the state machine', () => {
  it('confirm, complete, no-show and reschedule of waitlisted and offered bookings are 409 INVALID_STATE_TRANSITION', async () => {
    const g = await gym({ enabled: true, offerMode: 'offer' }, { capacity: 1 });
    const a = ok(await g.book());
    const w1 = ok(await g.book({ waitlist: true }));
    const w2 = ok(await g.book({ waitlist: true }));
    ok(await act(g.auth, a._id, 'cancel'));
    const cases: Array<[string, string, object | undefined, string, string]> = [];
    for (const [id, from] of [
      [w1._id, 'offered'],
      [w2._id, 'waitlisted'],
    ] as const) {
      cases.push([id, 'confirm', undefined, from, 'confirmed']);
      cases.push([id, 'complete', undefined, from, 'completed']);
      cases.push([id, 'no-show', undefined, from, 'no_show']);
      cases.push([
        id,
        'reschedule',
        { startTime: new Date(g.now.getTime() + 72 * HOUR).toISOString() },
        from,
        'confirmed',
      ]);
    }
    for (const [id, action, payload, from, to] of cases) {
      const body = expectError(await act(g.auth, id, action, payload), 409, 'INVALID_STATE_TRANSITION');
      expect(body.error.details).toEqual({ from, to });
    }
    expect((await getBooking(g.auth, w1._id)).status).toBe('offered');
    expect((await getBooking(g.auth, w2._id)).status).toBe('waitlisted');
    // A cancelled or expired booking cannot accept; an appointment has nothing to accept.
    expectError(await act(g.auth, a._id, 'accept-offer'), 409, 'INVALID_STATE_TRANSITION');
    expectError(await act(g.auth, '0123456789abcdef01234567', 'accept-offer'), 404, 'NOT_FOUND');
    expectError(await act(g.auth, 'not-an-id', 'accept-offer'), 404, 'NOT_FOUND');
    // Another company's booking is not found.
    const other = await blankCompany(t.dbs, w);
    expectError(await act(other.auth, w1._id, 'accept-offer'), 404, 'NOT_FOUND');
    expect((await getBooking(g.auth, w1._id)).status).toBe('offered');
  });

  it('cancelling the class cancels its line and its offers with it', async () => {
    const g = await gym({ enabled: true, offerMode: 'offer' }, { capacity: 1 });
    const a = ok(await g.book());
    const w1 = ok(await g.book({ waitlist: true }));
    const w2 = ok(await g.book({ waitlist: true }));
    ok(await act(g.auth, a._id, 'cancel'));
    ok(
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/classes/${g.session._id}/cancel`,
        headers: g.auth,
        payload: {},
      }),
    );
    expect(await line(g.auth, [w1._id, w2._id])).toEqual([
      ['cancelled', null],
      ['cancelled', null],
    ]);
    expect(await getClass(g.auth, g.session._id)).toMatchObject({
      status: 'cancelled',
      offeredCount: 0,
      waitlistCount: 0,
    });
  });
});

describe('the manage link of a waitlisted or offered booking', () => {
  const form = (url: string, fields: Record<string, string> = {}, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: new URLSearchParams(fields).toString(),
    });
  const pathOf = (b: { manageUrl: string }) => new URL(b.manageUrl).pathname;

  it('shows the place in line and leaves it; an offered customer accepts the place', async () => {
    const g = await gym({ enabled: true, offerMode: 'offer' }, { capacity: 1 });
    const a = ok(await g.book());
    const w1 = ok(await g.book({ waitlist: true }));
    const w2 = ok(await g.book({ waitlist: true }));
    const w3 = ok(await g.book({ waitlist: true }));
    const page = await t.app.inject({ method: 'GET', url: pathOf(w2) });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('On the waitlist');
    expect(page.body).toContain('<dt>Place in line</dt><dd>2</dd>');
    expect(page.body).toContain('Leave the waitlist');
    expect(page.body).not.toContain('/accept');
    // Leaving through the link: a customer's cancel, free, and the line closes up.
    const quote = await t.app.inject({ method: 'GET', url: `${pathOf(w2)}/cancel` });
    expect(quote.body).toContain('name="fee" value="0"');
    const left = await form(`${pathOf(w2)}/cancel`, { fee: '0' });
    expect(left.statusCode).toBe(303);
    expect(await getBooking(g.auth, w2._id)).toMatchObject({ status: 'cancelled', cancelledBy: 'customer' });
    expect((await getBooking(g.auth, w3._id)).waitlistPosition).toBe(2);
    // A waitlisted customer has nothing to accept yet.
    const early = await form(`${pathOf(w1)}/accept`);
    expect(early.statusCode).toBe(409);
    expect(early.body).toContain('There is no offer to accept');
    ok(await act(g.auth, a._id, 'cancel'));
    const offer = await t.app.inject({ method: 'GET', url: pathOf(w1) });
    expect(offer.body).toContain('A place is offered to you');
    expect(offer.body).toContain('Offer open until');
    expect(offer.body).toContain(`action="${pathOf(w1)}/accept"`);
    // A cross-site post changes nothing.
    const cross = await form(`${pathOf(w1)}/accept`, {}, { 'sec-fetch-site': 'cross-site' });
    expect(cross.statusCode).toBe(403);
    expect((await getBooking(g.auth, w1._id)).status).toBe('offered');
    const accepted = await form(`${pathOf(w1)}/accept`);
    expect(accepted.statusCode).toBe(303);
    expect(accepted.headers.location).toBe(`${pathOf(w1)}?done=accepted`);
    expect((await getBooking(g.auth, w1._id)).status).toBe('confirmed');
    const again = await form(`${pathOf(w1)}/accept`);
    expect(again.statusCode).toBe(409);
  });
});

describe('the e-mail of leaving a waitlist', () => {
  const pathOf = (b: { manageUrl: string }) => new URL(b.manageUrl).pathname;
  const mailsOf = async (companyId: string, bookingId: string) => {
    const rows = await t.dbs.test.prisma.event.findMany({
      where: { companyId, type: 'booking.cancelled' },
      orderBy: { id: 'asc' },
    });
    const mine = rows.filter((e) => (e.data as { bookingId?: string }).bookingId === bookingId);
    return composeEmails(t.dbs.test.prisma, {
      mode: 'test',
      events: mine,
      from: 'Gym <gym@example.com>',
      config: t.config,
    });
  };

  it('says "you have left the waitlist", without a calendar CANCEL, by API, by link and from an offer', async () => {
    const g = await gym({ enabled: true, offerMode: 'offer' }, { capacity: 1 });
    const a = ok(await g.book());
    const w1 = ok(await g.book({ waitlist: true }));
    const w2 = ok(await g.book({ waitlist: true }));
    const w3 = ok(await g.book({ waitlist: true }));
    // Waitlisted, cancelled by the business through the API.
    ok(await act(g.auth, w3._id, 'cancel', { reason: 'Moved to Thursday' }));
    // Waitlisted, left by the customer through the manage link.
    const left = await t.app.inject({
      method: 'POST',
      url: `${pathOf(w2)}/cancel`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'fee=0',
    });
    expect(left.statusCode).toBe(303);
    // Offered (a's place freed), then given back through the API.
    ok(await act(g.auth, a._id, 'cancel'));
    expect((await getBooking(g.auth, w1._id)).status).toBe('offered');
    ok(await act(g.auth, w1._id, 'cancel'));

    const byBooking = new Map(
      (await events(g.company.id))
        .filter((e) => e.type === 'booking.cancelled')
        .map((e) => [(e.data as { bookingId: string }).bookingId, e.data as Record<string, unknown>]),
    );
    // The event says what the booking was, so receivers tell leaving a waitlist from a cancel.
    expect(byBooking.get(w3._id)).toMatchObject({ previousStatus: 'waitlisted', cancelledBy: 'business' });
    expect(byBooking.get(w2._id)).toMatchObject({ previousStatus: 'waitlisted', cancelledBy: 'customer' });
    expect(byBooking.get(w1._id)).toMatchObject({ previousStatus: 'offered' });
    expect(byBooking.get(a._id)).toMatchObject({ previousStatus: 'confirmed' });

    for (const [b, n] of [
      [w3, 4],
      [w2, 3],
      [w1, 2],
    ] as const) {
      const [mail, ...more] = await mailsOf(g.company.id, b._id);
      expect(more).toEqual([]);
      expect(mail).toMatchObject({
        to: `c${n}@example.com`,
        kind: 'waitlist_left',
        subject: `You have left the waitlist at ${g.company.name}`,
        attachments: [],
      });
      expect(mail!.text).toContain('You are no longer on the waitlist for Spin with Coach');
      expect(mail!.text).not.toContain('has been cancelled');
      expect((mail!.headers as Record<string, string>)['Content-Type']).toBe('multipart/alternative');
    }
    const [w3mail] = await mailsOf(g.company.id, w3._id);
    expect(w3mail!.text).toContain('Reason: Moved to Thursday');
    // A booking that held its place still gets the cancellation, with its calendar CANCEL.
    const [held] = await mailsOf(g.company.id, a._id);
    expect(held).toMatchObject({ kind: 'booking_cancelled', to: 'c1@example.com' });
    expect((held!.attachments as Array<{ contentType: string }>)[0]!.contentType).toContain('method=CANCEL');
  });
});
