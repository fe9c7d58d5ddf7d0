// The booking actions of the admin area (src/admin/routes/booking-actions.tsx, booking-new.tsx)
// over inject: each action's confirmation page and POST, done and refused (the refusal in words,
// with the use case's 4xx), its CSRF guard, another company's booking and the other mode's URL
// (404), and the rows it leaves: the same events and e-mails as the API's verb leaves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkers, type Workers } from '../../src/workers/runtime.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { bookThroughUseCase } from '../helpers/bookings.js';
import { ALL_DAY, blankCompany, futureHour, post } from '../helpers/domain.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { FAST_WORKERS, waitFor } from '../helpers/receiver.js';
import { addMember, injectSignIn } from './admin-helpers.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let workers: Workers;
let cookie: string;
let csrf: string;
let co: Awaited<ReturnType<typeof blankCompany>>;
let anna: { _id: string };
let cut: { _id: string };
let paidCut: { _id: string };

beforeAll(async () => {
  t = await createTestApp({
    env: { ...FAST_WORKERS, RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000', RATE_LIMIT_PER_SECOND: '100000' },
  });
  w = await createAccountWithKeys(t.dbs);
  co = await blankCompany(t.dbs, w, { timezone: 'Europe/Berlin' });
  anna = await post(t.app, '/api/v1/employees', co.auth, { name: 'Anna', workingHours: ALL_DAY });
  cut = await post(t.app, '/api/v1/services', co.auth, {
    name: 'Cut',
    durationMinutes: 60,
    price: 4500,
    employeeIds: [anna._id],
  });
  paidCut = await post(t.app, '/api/v1/services', co.auth, {
    name: 'Paid cut',
    durationMinutes: 60,
    price: 4500,
    requiresPayment: true,
    employeeIds: [anna._id],
  });
  cookie = await injectSignIn(t.app, w);
  const page = await get(`/admin/test/companies/${co.company.id}/bookings/new`);
  csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
  workers = await startWorkers(t.services);
}, 60_000);
afterAll(async () => {
  await workers?.stop();
  await t?.close();
});

const base = () => `/admin/test/companies/${co.company.id}/bookings`;
const get = (url: string) => t.app.inject({ method: 'GET', url, cookies: { svc_session: cookie } });
const send = (url: string, fields: Record<string, string>, opts: { csrf?: string | null } = {}) =>
  t.app.inject({
    method: 'POST',
    url,
    cookies: { svc_session: cookie },
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      ...(opts.csrf === null ? {} : { csrf_token: opts.csrf ?? csrf }),
      ...fields,
    }).toString(),
  });
const booking = (id: string) => t.dbs.test.prisma.booking.findUniqueOrThrow({ where: { id } });
const eventTypes = async (bookingId: string) =>
  (
    await t.dbs.test.prisma.event.findMany({
      where: { data: { path: ['bookingId'], equals: bookingId } },
      orderBy: { id: 'asc' },
    })
  ).map((e) => e.type);
/** The kinds of the e-mails the workers composed from the booking's events, once there are `n`. */
const emailKinds = async (bookingId: string, n: number) =>
  waitFor(
    async () => {
      const events = await t.dbs.test.prisma.event.findMany({
        where: { data: { path: ['bookingId'], equals: bookingId } },
        select: { id: true },
      });
      const emails = await t.dbs.test.prisma.email.findMany({
        where: { eventId: { in: events.map((e) => e.id) } },
        orderBy: { id: 'asc' },
      });
      return emails.length >= n ? emails.map((m) => m.kind) : null;
    },
    { what: `${n} e-mails of booking ${bookingId}` },
  );
const viaApi = (path: string, payload: object = {}) => post(t.app, `/api/v1${path}`, co.auth, payload);
const book = (startTime: string, service = cut) =>
  viaApi('/bookings', {
    serviceId: service._id,
    employeeId: anna._id,
    startTime,
    customer: { name: 'Ben Kunde', email: 'ben@example.com' },
  });
/** Unescaped text of an HTML page, for sentences with apostrophes. */
const text = (html: string) =>
  html
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');

describe('admin booking page', () => {
  it('shows every field, the customer link and only the actions its state allows', async () => {
    const b = await book(futureHour(3, 9), paidCut);
    const res = await get(`${base()}/${b._id}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`href="/admin/test/companies/${co.company.id}/customers/${b.customerId}"`);
    for (const label of ['When', 'Customer', 'Service', 'Staff', 'Price', 'Hold expires', 'Customer time zone'])
      expect(res.body).toContain(`<dt>${label}</dt>`);
    for (const h of ['Payments', 'Reminders', 'E-mails', 'Events']) expect(res.body).toContain(`<h2>${h}</h2>`);
    // Pending: confirm and cancel; not complete, no-show or move.
    expect(res.body).toContain(`href="${base()}/${b._id}/confirm"`);
    expect(res.body).toContain(`href="${base()}/${b._id}/cancel"`);
    expect(res.body).not.toContain(`/complete"`);
    expect(res.body).not.toContain(`/no-show"`);
    expect(res.body).not.toContain(`/reschedule"`);
  });
});

describe('create', () => {
  it('prefills from the calendar link and books through the API use case: the same events and e-mail', async () => {
    const start = futureHour(4, 10);
    const form = await get(
      `${base()}/new?employeeId=${anna._id}&serviceId=${cut._id}&start=${encodeURIComponent(start)}`,
    );
    expect(form.statusCode).toBe(200);
    expect(form.body).toMatch(new RegExp(`name="startTime" value="${start.replace(/\./g, '\\.')}"[^>]* checked`));
    const res = await send(`${base()}/new`, {
      serviceId: cut._id,
      employeeId: anna._id,
      startTime: start,
      customerId: 'new',
      name: 'Cleo Neu',
      email: 'cleo@example.com',
      phone: '',
      notes: 'Walk-in',
    });
    expect(res.statusCode).toBe(303);
    const id = /bookings\/([0-9a-f]{24})\?done=created$/.exec(res.headers.location as string)![1]!;
    const made = await booking(id);
    expect(made).toMatchObject({ status: 'confirmed', employeeId: anna._id, notes: 'Walk-in' });
    expect(made.startTime.toISOString()).toBe(start);
    expect((await get(res.headers.location as string)).body).toContain('Booking made.');
    const api = await book(futureHour(4, 13));
    expect(await eventTypes(id)).toEqual(await eventTypes(api._id));
    expect(await emailKinds(id, 1)).toEqual(await emailKinds(api._id, 1));
  });

  it('books an existing customer found by the search use case', async () => {
    const found = await get(`${base()}/new?serviceId=${cut._id}&date=${futureHour(5).slice(0, 10)}&q=ben`);
    expect(found.statusCode).toBe(200);
    const ben = await t.dbs.test.prisma.customer.findFirstOrThrow({
      where: { companyId: co.company.id, email: 'ben@example.com' },
    });
    expect(found.body).toContain(`name="customerId" value="${ben.id}"`);
    const slot = /name="startTime" value="([^"]+)"/.exec(found.body)![1]!;
    const res = await send(`${base()}/new`, { serviceId: cut._id, startTime: slot, customerId: ben.id });
    expect(res.statusCode).toBe(303);
    const id = /bookings\/([0-9a-f]{24})\?/.exec(res.headers.location as string)![1]!;
    expect(await booking(id)).toMatchObject({ customerId: ben.id, status: 'confirmed' });
  });

  it('refuses a time Anna is off in words, and a bad e-mail next to its field; nothing is booked', async () => {
    const start = futureHour(6, 10);
    await viaApi(`/employees/${anna._id}/time-off`, {
      startTime: futureHour(6, 8),
      endTime: futureHour(6, 12),
    });
    const before = await t.dbs.test.prisma.booking.count({ where: { companyId: co.company.id } });
    const fields = { serviceId: cut._id, employeeId: anna._id, startTime: start, customerId: 'new' };
    const off = await send(`${base()}/new`, { ...fields, name: 'Dora', email: 'dora@example.com' });
    expect(off.statusCode).toBe(409);
    expect(text(off.body)).toContain('<p class="notice error" role="alert">Anna is off at that time.</p>');
    const bad = await send(`${base()}/new`, {
      ...fields,
      startTime: futureHour(7, 10),
      name: 'Dora',
      email: 'not-an-email',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toMatch(/<p class="field-error" id="f-email-error">[^<]+<\/p>/);
    expect(bad.body).toContain('value="not-an-email"');
    expect(await t.dbs.test.prisma.booking.count({ where: { companyId: co.company.id } })).toBe(before);
  });
});

describe('confirm, complete, no-show', () => {
  it('confirms a pending booking as POST /confirm does, and refuses a second confirmation in words', async () => {
    const b = await book(futureHour(8, 9), paidCut);
    const page = await get(`${base()}/${b._id}/confirm`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('A booking.confirmed event goes to your webhooks');
    const res = await send(`${base()}/${b._id}/confirm`, {});
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`${base()}/${b._id}?done=confirmed`);
    expect((await booking(b._id)).status).toBe('confirmed');
    const api = await book(futureHour(8, 12), paidCut);
    await viaApi(`/bookings/${api._id}/confirm`);
    expect(await eventTypes(b._id)).toEqual(await eventTypes(api._id));
    expect(await emailKinds(b._id, 1)).toEqual(await emailKinds(api._id, 1));

    const again = await send(`${base()}/${b._id}/confirm`, {});
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain(
      '<p class="notice error" role="alert">A confirmed booking cannot become confirmed.</p>',
    );
    expect(await eventTypes(b._id)).toEqual(['booking.created', 'booking.confirmed']);
  });

  it('completes and marks no-show a booking that has started; refuses one that has not', async () => {
    const company = co.company;
    const past = (h: number) => ({
      requiresPayment: false,
      startTime: new Date(Date.now() - h * 3600_000),
      bookedAt: new Date(Date.now() - 48 * 3600_000),
    });
    const done = (await bookThroughUseCase(t.dbs.test.prisma, company, past(3))).booking;
    const missed = (await bookThroughUseCase(t.dbs.test.prisma, company, past(5))).booking;
    const page = await get(`${base()}/${done.id}`);
    expect(page.body).toContain(`href="${base()}/${done.id}/complete"`);
    expect(page.body).toContain(`href="${base()}/${done.id}/no-show"`);
    expect((await send(`${base()}/${done.id}/complete`, {})).statusCode).toBe(303);
    expect((await send(`${base()}/${missed.id}/no-show`, {})).statusCode).toBe(303);
    expect((await booking(done.id)).status).toBe('completed');
    expect((await booking(missed.id)).status).toBe('no_show');
    expect(await eventTypes(done.id)).toEqual(['booking.created', 'booking.completed']);
    expect(await eventTypes(missed.id)).toEqual(['booking.created', 'booking.no_show']);

    const future = await book(futureHour(9, 9));
    const early = await send(`${base()}/${future._id}/complete`, {});
    expect(early.statusCode).toBe(409);
    expect(early.body).toContain('A booking can be marked completed only once its startTime has passed');
    expect((await get(`${base()}/${future._id}`)).body).not.toContain('/complete"');
    expect((await booking(future._id)).status).toBe('confirmed');
  });
});

describe('cancel', () => {
  it("quotes the customer's fee, cancels as POST /cancel does, and refuses a second cancel in words", async () => {
    const policy = await viaApi('/services', {
      name: 'Colour',
      durationMinutes: 60,
      price: 8000,
      employeeIds: [anna._id],
      cancellationPolicy: { freeUntilMinutesBefore: 60 * 24 * 30, lateFee: { percent: 50 } },
    });
    const b = await book(futureHour(10, 9), policy);
    const page = await get(`${base()}/${b._id}/cancel`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Cancelled by the customer now');
    expect(page.body).toContain('Waive the');
    const bad = await send(`${base()}/${b._id}/cancel`, { reason: 'x', cancelledBy: 'nobody' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('must be business or customer');
    expect((await booking(b._id)).status).toBe('confirmed');

    const res = await send(`${base()}/${b._id}/cancel`, { reason: 'Ill', cancelledBy: 'customer', waiveFee: 'true' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`${base()}/${b._id}?done=cancelled`);
    expect(await booking(b._id)).toMatchObject({
      status: 'cancelled',
      cancelReason: 'Ill',
      cancelledBy: 'customer',
      cancellationFee: 0,
    });
    const api = await book(futureHour(10, 12), policy);
    await viaApi(`/bookings/${api._id}/cancel`, { reason: 'Ill', cancelledBy: 'customer', waiveFee: true });
    expect(await eventTypes(b._id)).toEqual(await eventTypes(api._id));
    expect(await emailKinds(b._id, 2)).toEqual(await emailKinds(api._id, 2));

    const again = await send(`${base()}/${b._id}/cancel`, { cancelledBy: 'business' });
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('role="alert">A cancelled booking cannot become cancelled.</p>');
  });
});

describe('reschedule', () => {
  it('lists the free times of a day, moves the booking as POST /reschedule does, refuses time off in words', async () => {
    const b = await book(futureHour(11, 9));
    const day = futureHour(12).slice(0, 10);
    const page = await get(`${base()}/${b._id}/reschedule?date=${day}`);
    expect(page.statusCode).toBe(200);
    const to = futureHour(12, 14);
    expect(page.body).toContain(`name="startTime" value="${to}"`);
    const res = await send(`${base()}/${b._id}/reschedule`, { startTime: to, date: day });
    expect(res.statusCode).toBe(303);
    expect((await booking(b._id)).startTime.toISOString()).toBe(to);
    expect(await eventTypes(b._id)).toEqual(['booking.created', 'booking.rescheduled']);

    await viaApi(`/employees/${anna._id}/time-off`, { startTime: futureHour(13, 8), endTime: futureHour(13, 12) });
    const off = await send(`${base()}/${b._id}/reschedule`, { startTime: futureHour(13, 10), date: day });
    expect(off.statusCode).toBe(409);
    expect(text(off.body)).toContain('role="alert">Anna is off at that time.</p>');
    expect((await booking(b._id)).startTime.toISOString()).toBe(to);
    const none = await send(`${base()}/${b._id}/reschedule`, { date: day });
    expect(none.statusCode).toBe(400);
    expect(none.body).toContain('id="f-slot-error"');
  });
});

describe('refund', () => {
  it("links each refundable payment to its payment page's refund form, and no other", async () => {
    const b = await book(futureHour(14, 9), paidCut);
    const card = { number: '4242424242424242', expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvc: '123' };
    const payment = await viaApi('/payments', { bookingId: b._id, card });
    const link = `href="/admin/test/companies/${co.company.id}/payments/${payment._id}#f-amount"`;
    await waitFor(
      async () =>
        (await t.dbs.test.prisma.payment.findUniqueOrThrow({ where: { id: payment._id } })).status === 'succeeded',
      { what: 'the payment to succeed' },
    );
    expect((await get(`${base()}/${b._id}`)).body).toContain(link);
    await viaApi(`/payments/${payment._id}/refund`, { amount: 1000 });
    const partly = (await get(`${base()}/${b._id}`)).body;
    expect(partly).toContain(link);
    expect(partly).toMatch(/<td[^>]*>EUR\s10\.00 /);
    await viaApi(`/payments/${payment._id}/refund`);
    expect((await get(`${base()}/${b._id}`)).body).not.toContain(link);
  });
});

describe('roles', () => {
  it("staff see and act on their employee's bookings only, and book for that employee only", async () => {
    const bo = await post(t.app, '/api/v1/employees', co.auth, { name: 'Bo', workingHours: ALL_DAY });
    const mine = await book(futureHour(17, 9), paidCut);
    const company = co.company;
    const theirs = (await bookThroughUseCase(t.dbs.test.prisma, company, { requiresPayment: true })).booking;
    const member = await createAccountWithKeys(t.dbs);
    await addMember(t.dbs, { team: w.account.id, member: member.account.id, role: 'staff', testEmployeeId: anna._id });
    const staffCookie = await injectSignIn(t.app, member);
    const as = (url: string) => t.app.inject({ method: 'GET', url, cookies: { svc_session: staffCookie } });
    const page = await as(`${base()}/${mine._id}`);
    expect(page.statusCode).toBe(200);
    // Refunds are the payments section's, which staff do not open.
    expect(page.body).not.toContain('/payments/');
    const staffCsrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
    const postAs = (url: string, fields: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url,
        cookies: { svc_session: staffCookie },
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ csrf_token: staffCsrf, ...fields }).toString(),
      });
    for (const path of ['', '/confirm', '/cancel', '/reschedule'])
      expect((await as(`${base()}/${theirs.id}${path}`)).statusCode, path).toBe(404);
    expect((await postAs(`${base()}/${theirs.id}/cancel`, { cancelledBy: 'business' })).statusCode).toBe(404);
    expect((await booking(theirs.id)).status).toBe('pending');
    expect((await postAs(`${base()}/${mine._id}/confirm`, {})).statusCode).toBe(303);
    expect((await booking(mine._id)).status).toBe('confirmed');

    const form = await as(`${base()}/new?serviceId=${cut._id}&employeeId=${bo._id}&q=ben`);
    expect(form.statusCode).toBe(200);
    expect(form.body).not.toContain(`value="${bo._id}"`);
    expect(form.body).not.toContain('name="q"');
    const made = await postAs(`${base()}/new`, {
      serviceId: cut._id,
      employeeId: bo._id,
      startTime: futureHour(17, 13),
      customerId: 'new',
      name: 'Eva',
      email: 'eva@example.com',
    });
    expect(made.statusCode).toBe(303);
    const id = /bookings\/([0-9a-f]{24})\?/.exec(made.headers.location as string)![1]!;
    expect((await booking(id)).employeeId).toBe(anna._id);
  });

  it('a viewer sees no action buttons, and their posts are refused (403) with nothing changed', async () => {
    const b = await book(futureHour(18, 9), paidCut);
    const member = await createAccountWithKeys(t.dbs);
    await addMember(t.dbs, { team: w.account.id, member: member.account.id, role: 'viewer' });
    const viewerCookie = await injectSignIn(t.app, member);
    const page = await t.app.inject({
      method: 'GET',
      url: `${base()}/${b._id}`,
      cookies: { svc_session: viewerCookie },
    });
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain(`${b._id}/confirm`);
    expect(page.body).not.toContain(`${b._id}/cancel`);
    const token = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
    const res = await t.app.inject({
      method: 'POST',
      url: `${base()}/${b._id}/cancel`,
      cookies: { svc_session: viewerCookie },
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ csrf_token: token, cancelledBy: 'business' }).toString(),
    });
    expect(res.statusCode).toBe(403);
    expect((await booking(b._id)).status).toBe('pending');
  });
});

describe('guards', () => {
  it('refuses a POST without the CSRF token (403) and changes nothing', async () => {
    const b = await book(futureHour(15, 9), paidCut);
    for (const action of ['confirm', 'cancel']) {
      const res = await send(`${base()}/${b._id}/${action}`, { cancelledBy: 'business' }, { csrf: null });
      expect(res.statusCode).toBe(403);
      const forged = await send(`${base()}/${b._id}/${action}`, { cancelledBy: 'business' }, { csrf: 'x'.repeat(43) });
      expect(forged.statusCode).toBe(403);
    }
    const created = await send(`${base()}/new`, { serviceId: cut._id, startTime: futureHour(15, 12) }, { csrf: null });
    expect(created.statusCode).toBe(403);
    expect((await booking(b._id)).status).toBe('pending');
    expect(await eventTypes(b._id)).toEqual(['booking.created']);
  });

  it("another account's booking and the other mode's URL are 404, and nothing changes", async () => {
    const stranger = await createAccountWithKeys(t.dbs);
    const theirs = (await bookThroughUseCase(t.dbs.test.prisma, stranger.test, { requiresPayment: true })).booking;
    const mine = await book(futureHour(16, 9), paidCut);
    const urls = [
      `${base()}/${theirs.id}`,
      `/admin/test/companies/${stranger.test.id}/bookings/${theirs.id}`,
      `/admin/live/companies/${co.company.id}/bookings/${mine._id}`,
      `/admin/live/companies/${w.live.id}/bookings/${mine._id}`,
    ];
    for (const url of urls) {
      expect((await get(url)).statusCode, url).toBe(404);
      for (const action of ['confirm', 'cancel', 'reschedule', 'complete'])
        expect((await get(`${url}/${action}`)).statusCode, `${url}/${action}`).toBe(404);
      for (const action of ['confirm', 'cancel'])
        expect((await send(`${url}/${action}`, {})).statusCode, `POST ${url}/${action}`).toBe(404);
    }
    expect((await get(`/admin/live/companies/${co.company.id}/bookings/new`)).statusCode).toBe(404);
    expect((await booking(theirs.id)).status).toBe('pending');
    expect((await booking(mine._id)).status).toBe('pending');
    // A payment of another booking is not found under this one.
    const other = await book(futureHour(16, 12), paidCut);
    const payment = await viaApi('/payments', {
      bookingId: other._id,
      card: { number: '4242424242424242', expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvc: '123' },
    });
    expect((await get(`${base()}/${mine._id}/payments/${payment._id}/refund`)).statusCode).toBe(404);
  });
});
