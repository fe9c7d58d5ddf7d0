// What the customer sees of a booking's location (docs/api.md, Locations; docs/calendars.md): a
// Berlin company's booking at its New York site. The confirmation, reschedule and cancellation
// e-mails name the location (name and address) and show times in the location's zone, named
// (the customer's own zone when the booking has one), and so does the payment receipt of one paid
// for; their invitations carry LOCATION with the
// name and address; the calendar feed's event too; the webhook payload carries locationId. A
// booking without a location keeps the company's address and zone. The reminder e-mail is
// rendered by the same template (renderEmail), checked here with a location.
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderEmail } from '../../../src/schema/emails/index.js';
import { startWorkers, type Workers } from '../../../src/workers/runtime.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { bearer, createAccountWithKeys, unique } from '../../helpers/factories.js';
import { parseCalendar } from '../../helpers/ical.js';
import { FAST_WORKERS, waitFor } from '../../helpers/receiver.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let workers: Workers;
const ADDRESS = 'Hauptstraße 1, 10115 Berlin';
const SITE = { name: 'SoHo studio', address: '100 Spring St, New York, NY 10012', timeZone: 'America/New_York' };

beforeAll(async () => {
  t = await createTestApp({
    env: {
      ...FAST_WORKERS,
      BASE_URL: 'https://book.example.com',
      EMAIL_FROM: 'Bookings <no-reply@bookings.example>',
      RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000',
      RATE_LIMIT_PER_SECOND: '100000',
    },
  });
  w = await createAccountWithKeys(t.dbs);
  await t.dbs.test.prisma.company.update({
    where: { id: w.test.id },
    data: { timezone: 'Europe/Berlin', address: ADDRESS, email: 'hello@salon.example' },
  });
  workers = await startWorkers(t.services);
}, 60_000);
afterAll(async () => {
  await workers?.stop();
  await t?.close();
});

const call = async (method: 'GET' | 'POST', url: string, payload?: object) => {
  const res = await t.app.inject({
    method,
    url: url.startsWith('/calendar') ? url : `/api/v1${url}`,
    headers: bearer(w.testKey.key),
    ...(payload ? { payload } : {}),
  });
  return res;
};
const data = async (method: 'GET' | 'POST', url: string, payload?: object) => {
  const res = await call(method, url, payload);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};

async function emailOf(bookingId: string, type: string) {
  const events = await waitFor(async () => {
    const all = await t.dbs.test.prisma.event.findMany({
      where: { type, data: { path: ['bookingId'], equals: bookingId } },
    });
    return all.length ? all : null;
  });
  return waitFor(() => t.dbs.test.prisma.email.findUnique({ where: { eventId: events[0]!.id } }), {
    what: `the e-mail of ${type}`,
  });
}
const icsOf = (email: { attachments: unknown }) =>
  parseCalendar((email.attachments as { content: string }[])[0]!.content).events[0]!;

// Next summer: 14:00 UTC is 10:00 in New York (EDT) and 16:00 in Berlin (CEST).
const summer = DateTime.utc(DateTime.utc().year + 1, 7, 6, 14);
const day = (d: DateTime, zone: string) => d.setZone(zone).setLocale('en-GB').toFormat('cccc d LLLL yyyy');

describe('a booking at a location', () => {
  it('its e-mails name the location and show its zone; the invitations and the feed carry LOCATION; the payload locationId', async () => {
    const site = await data('POST', '/locations', SITE);
    const employee = await data('POST', '/employees', {
      name: `Alex ${unique()}`,
      workingHours: Object.fromEntries(
        ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [
          d,
          [{ start: '06:00', end: '18:00', locationId: site._id }],
        ]),
      ),
    });
    const service = await data('POST', '/services', {
      name: 'Colour',
      durationMinutes: 60,
      price: 4500,
      employeeIds: [employee._id],
    });
    const booking = await data('POST', '/bookings', {
      serviceId: service._id,
      employeeId: employee._id,
      startTime: summer.toISO(),
      customer: { name: 'Dana', email: `dana-${unique()}@example.com` },
    });
    expect(booking.locationId).toBe(site._id);
    const place = `${SITE.name}, ${SITE.address}`;

    const confirmed = await emailOf(booking._id, 'booking.created');
    expect(confirmed.text).toContain(
      `When: ${day(summer, 'America/New_York')}, 10:00–11:00 EDT (America/New_York)\nWhere: ${place}`,
    );
    expect(confirmed.html).toContain(`Where: ${SITE.name}, 100 Spring St, New York, NY 10012`);
    expect(icsOf(confirmed).location).toBe(place);
    const created = await t.dbs.test.prisma.event.findFirstOrThrow({
      where: { type: 'booking.created', data: { path: ['bookingId'], equals: booking._id } },
    });
    expect((created.data as { locationId?: string }).locationId).toBe(site._id);

    const to = summer.plus({ days: 1 });
    await data('POST', `/bookings/${booking._id}/reschedule`, { startTime: to.toISO() });
    const moved = await emailOf(booking._id, 'booking.rescheduled');
    expect(moved.text).toContain(`New time: ${day(to, 'America/New_York')}, 10:00–11:00 EDT (America/New_York)`);
    expect(moved.text).toContain(`Where: ${place}`);
    expect(icsOf(moved).location).toBe(place);

    // The employee's calendar feed (180 days ahead) shows a booking there with its location too.
    const soon = DateTime.utc().plus({ days: 10 }).set({ hour: 15, minute: 0, second: 0, millisecond: 0 });
    await data('POST', '/bookings', {
      serviceId: service._id,
      employeeId: employee._id,
      startTime: soon.toISO(),
      customer: { name: 'Sam', email: `sam-${unique()}@example.com` },
    });
    const feed = await data('POST', `/employees/${employee._id}/calendar-feed/rotate`);
    const ics = await t.app.inject({ method: 'GET', url: new URL(feed.url).pathname });
    expect(ics.statusCode).toBe(200);
    const events = parseCalendar(ics.body).events;
    expect(events.map((e) => e.location)).toEqual([place]);

    await data('POST', `/bookings/${booking._id}/cancel`, { reason: 'Stylist ill' });
    const cancelled = await emailOf(booking._id, 'booking.cancelled');
    expect(cancelled.text).toContain(`Where: ${place}`);
    expect(cancelled.text).toContain('(America/New_York)');
    expect(icsOf(cancelled).location).toBe(place);
  });

  it('the payment receipt of a booking there names the location too', async () => {
    const site = await data('POST', '/locations', { ...SITE, name: `Receipt site ${unique()}` });
    const employee = await data('POST', '/employees', {
      name: `Robin ${unique()}`,
      workingHours: Object.fromEntries(
        ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [
          d,
          [{ start: '06:00', end: '18:00', locationId: site._id }],
        ]),
      ),
    });
    const service = await data('POST', '/services', {
      name: 'Massage',
      durationMinutes: 60,
      price: 6000,
      requiresPayment: true,
      employeeIds: [employee._id],
    });
    const at = summer.plus({ days: 3 });
    const booking = await data('POST', '/bookings', {
      serviceId: service._id,
      employeeId: employee._id,
      startTime: at.toISO(),
      customer: { name: 'Pat', email: `pat-${unique()}@example.com` },
    });
    expect(booking).toMatchObject({ status: 'pending', locationId: site._id });
    const payment = await data('POST', '/payments', {
      bookingId: booking._id,
      card: { number: '4242424242424242', expMonth: 12, expYear: DateTime.utc().year + 2, cvc: '123' },
    });
    const succeeded = await waitFor(
      () =>
        t.dbs.test.prisma.event.findFirst({
          where: { type: 'payment.succeeded', data: { path: ['paymentId'], equals: payment._id } },
        }),
      { what: 'payment.succeeded' },
    );
    const receipt = await waitFor(() => t.dbs.test.prisma.email.findUnique({ where: { eventId: succeeded.id } }), {
      what: 'the receipt',
    });
    expect(receipt.kind).toBe('payment_receipt');
    expect(receipt.text).toContain(
      `For: Massage with ${employee.name}, ${day(at, 'America/New_York')}, 10:00–11:00 EDT (America/New_York)\n` +
        `Where: ${site.name}, ${SITE.address}\nReceipt number: ${payment._id}`,
    );
    expect(receipt.html).toContain(`<p>Where: ${site.name}, 100 Spring St, New York, NY 10012</p>`);
  });

  it("the customer's own zone still wins; a booking without a location keeps the company's address and zone", () => {
    const facts = {
      kind: 'booking_reminder' as const,
      company: { name: 'Salon', timezone: 'Europe/Berlin', email: null, phone: null, address: ADDRESS },
      customer: { name: 'Dana' },
      service: { name: 'Colour' },
      employee: { name: 'Alex' },
      booking: { id: 'b'.repeat(24), startTime: summer.toJSDate(), endTime: summer.plus({ hours: 1 }).toJSDate() },
    };
    const there = renderEmail({ ...facts, location: SITE });
    expect(there.text).toContain('10:00–11:00 EDT (America/New_York)');
    expect(there.text).toContain(`Where: ${SITE.name}, ${SITE.address}`);
    expect(there.text).not.toContain(`Where: ${ADDRESS}`);
    const theirs = renderEmail({
      ...facts,
      location: SITE,
      booking: { ...facts.booking, customerTimeZone: 'Asia/Tokyo' },
    });
    expect(theirs.text).toContain('23:00–00:00 GMT+9 (Asia/Tokyo)');
    expect(theirs.text).toContain(`Where: ${SITE.name}, ${SITE.address}`);
    const home = renderEmail(facts);
    expect(home.text).toContain('16:00–17:00 GMT+2 (Europe/Berlin)');
    expect(home.text).toContain(`Where: ${ADDRESS}`);
  });

  it('a move to another site at the same time says where it moved, not a new time equal to the old one', () => {
    const start = DateTime.fromISO('2026-07-01T14:00:00Z').toJSDate();
    const end = DateTime.fromISO('2026-07-01T15:00:00Z').toJSDate();
    const facts = {
      kind: 'booking_rescheduled' as const,
      company: { name: 'Salon', timezone: 'Europe/Berlin', address: ADDRESS, email: null, phone: null },
      customer: { name: 'Ann' },
      service: { name: 'Pilates' },
      employee: { name: 'Alex' },
      location: SITE,
      booking: { id: 'b'.repeat(24), startTime: start, endTime: end },
    };
    const moved = renderEmail({ ...facts, previous: { startTime: start, endTime: end } });
    expect(moved.text).toContain('has moved to another place');
    expect(moved.text).toContain(`New place: ${SITE.name}, ${SITE.address}`);
    expect(moved.text).not.toContain('New time:');
    expect(moved.text).not.toContain('Was:');
    const later = renderEmail({
      ...facts,
      previous: { startTime: new Date(start.getTime() - 3_600_000), endTime: start },
    });
    expect(later.text).toContain('has been rescheduled');
    expect(later.text).toContain('New time: ');
    expect(later.text).toContain('Was: ');
  });
});
