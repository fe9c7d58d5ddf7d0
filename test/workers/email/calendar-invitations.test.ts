// Calendar invitations (docs/calendars.md): the confirmation, reschedule and cancellation
// e-mails carry an iCalendar file, read back here with ical.js (independent of the
// ical-generator that writes it) and compared field by field: one UID for the booking's life,
// SEQUENCE up by one on every move, METHOD REQUEST then CANCEL, the instants, the company as
// organizer, the customer as attendee, the address as location, the manage link. Times in the
// e-mail text are in the customer's zone when the booking has one. The sandbox log (REST,
// GraphQL, admin download) shows the file; live e-mail sends it over SMTP to a real local
// server as a text/calendar; method=REQUEST part and an invite.ics attachment.
import type { AddressInfo } from 'node:net';
import { DateTime } from 'luxon';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../../src/generated/prisma/client.js';
import { manageUrl } from '../../../src/schema/core/index.js';
import { createEmployee } from '../../../src/schema/staff/create-employee.js';
import { createService } from '../../../src/schema/services/manage-services.js';
import { startWorkers, type Workers } from '../../../src/workers/runtime.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { ALL_DAY } from '../../helpers/domain.js';
import { bearer, createAccountWithKeys, unique } from '../../helpers/factories.js';
import { parseCalendar } from '../../helpers/ical.js';
import { FAST_WORKERS, waitFor } from '../../helpers/receiver.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let workers: Workers;
let smtp: SMTPServer;
let cookie: string;
const inbox: string[] = [];
const ADDRESS = 'Hauptstraße 1, 10115 Berlin';

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        inbox.push(Buffer.concat(chunks).toString('utf8'));
        callback();
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
  t = await createTestApp({
    env: {
      ...FAST_WORKERS,
      BASE_URL: 'https://book.example.com',
      SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
      EMAIL_FROM: 'Bookings <no-reply@bookings.example>',
      RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000',
      RATE_LIMIT_PER_SECOND: '100000',
    },
  });
  w = await createAccountWithKeys(t.dbs);
  for (const mode of ['test', 'live'] as const)
    await t.dbs[mode].prisma.company.update({
      where: { id: w[mode].id },
      data: { timezone: 'Europe/Berlin', address: ADDRESS, email: 'hello@salon.example' },
    });
  workers = await startWorkers(t.services);
  const login = await t.app.inject({ method: 'GET', url: '/admin/login' });
  const res = await t.app.inject({
    method: 'POST',
    url: '/oauth/login',
    cookies: { svc_login_csrf: login.cookies.find((c) => c.name === 'svc_login_csrf')!.value },
    payload: new URLSearchParams({
      csrf_token: /name="csrf_token" value="([^"]+)"/.exec(login.body)![1]!,
      email: w.email,
      password: w.password,
      next: '/admin',
    }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  cookie = res.cookies.find((c) => c.name === 'svc_session')!.value;
}, 60_000);
afterAll(async () => {
  await workers?.stop();
  await t?.close();
  await new Promise<void>((r) => smtp.close(() => r()));
});

/** An employee and an appointment service of their own (confirmed at once: no payment). */
async function staffed(mode: 'test' | 'live') {
  const company: Company = await t.dbs[mode].prisma.company.findUniqueOrThrow({ where: { id: w[mode].id } });
  const employee = await createEmployee(t.dbs[mode].prisma, {
    companyId: company.id,
    input: { name: `Alex ${unique()}`, workingHours: ALL_DAY },
  });
  const service = await createService(t.dbs[mode].prisma, {
    companyId: company.id,
    input: { name: 'Colour', durationMinutes: 60, price: 4500, requiresPayment: false, employeeIds: [employee.id] },
  });
  return { company, employee, service };
}

const post = (key: string, url: string, payload: object) =>
  t.app.inject({ method: 'POST', url: `/api/v1${url}`, headers: bearer(key), payload });

/** The e-mail an event of the booking wrote, once the relay has composed it. */
async function emailOf(mode: 'test' | 'live', bookingId: string, type: string, nth = 0) {
  const events = await waitFor(async () => {
    const all = await t.dbs[mode].prisma.event.findMany({
      where: { type, data: { path: ['bookingId'], equals: bookingId } },
      orderBy: { id: 'asc' },
    });
    return all.length > nth ? all : null;
  });
  return waitFor(() => t.dbs[mode].prisma.email.findUnique({ where: { eventId: events[nth]!.id } }), {
    what: `the e-mail of ${type}`,
  });
}

const icsOf = (email: { attachments: unknown }) => {
  const files = email.attachments as { filename: string; contentType: string; content: string }[];
  expect(files).toHaveLength(1);
  return { file: files[0]!, cal: parseCalendar(files[0]!.content) };
};

// Next summer, a whole hour in UTC: 12:00Z is 14:00 in Berlin and 08:00 in New York.
const summer = DateTime.utc(DateTime.utc().year + 1, 7, 1, 12);
const day = (d: DateTime, zone: string) => d.setZone(zone).setLocale('en-GB').toFormat('cccc d LLLL yyyy');

describe('invitations in the sandbox e-mail log', () => {
  it('confirm, two reschedules and a cancel: one UID, SEQUENCE 0 1 2 3, REQUEST then CANCEL, field by field', async () => {
    const { employee, service } = await staffed('test');
    const created = await post(w.testKey.key, '/bookings', {
      serviceId: service.id,
      employeeId: employee.id,
      startTime: summer.toISO(),
      customerTimeZone: 'America/New_York',
      customer: { name: 'Dana, "Zoë" Customer', email: `dana-${unique()}@example.com` },
    });
    expect(created.statusCode).toBe(200);
    const booking = created.json().data as { _id: string; customerId: string };
    const customer = await t.dbs.test.prisma.customer.findUniqueOrThrow({ where: { id: booking.customerId } });
    const dbBooking = await t.dbs.test.prisma.booking.findUniqueOrThrow({ where: { id: booking._id } });
    const link = manageUrl(t.config, 'test', dbBooking);
    const uid = `${booking._id}@book.example.com`;

    const confirmed = await emailOf('test', booking._id, 'booking.created');
    const c = icsOf(confirmed);
    expect(c.file.filename).toBe('invite.ics');
    expect(c.file.contentType).toBe('text/calendar; charset=utf-8; method=REQUEST');
    expect(c.cal.method).toBe('REQUEST');
    expect(c.cal.version).toBe('2.0');
    expect(c.cal.events).toHaveLength(1);
    expect(c.cal.events[0]).toEqual({
      uid,
      sequence: 0,
      start: summer.toISO({ suppressMilliseconds: false }),
      end: summer.plus({ hours: 1 }).toISO({ suppressMilliseconds: false }),
      summary: `Colour at ${w.test.name}`,
      description: `Colour with ${employee.name} at ${w.test.name}.\n\nTo cancel or reschedule: ${link}\n\nBooking reference: ${booking._id}`,
      location: ADDRESS,
      url: link,
      status: 'CONFIRMED',
      organizer: { email: 'hello@salon.example', name: w.test.name },
      attendees: [{ email: customer.email, name: 'Dana, "Zoë" Customer' }],
    });
    // The e-mail's own text: the customer's zone, named (docs/calendars.md).
    expect(confirmed.text).toContain(`When: ${day(summer, 'America/New_York')}, 08:00–09:00 EDT (America/New_York)`);
    expect(confirmed.headers).toMatchObject({ 'Content-Type': 'multipart/mixed' });

    // Two moves: the same UID, one more SEQUENCE each, the new instants.
    const moves = [summer.plus({ days: 1 }), summer.plus({ days: 2, hours: 2 })];
    for (const [i, to] of moves.entries()) {
      const res = await post(w.testKey.key, `/bookings/${booking._id}/reschedule`, { startTime: to.toISO() });
      expect(res.statusCode).toBe(200);
      const moved = await emailOf('test', booking._id, 'booking.rescheduled', i);
      const r = icsOf(moved);
      expect(r.cal.method).toBe('REQUEST');
      expect(r.cal.events[0]).toMatchObject({
        uid,
        sequence: i + 1,
        start: to.toISO({ suppressMilliseconds: false }),
        end: to.plus({ hours: 1 }).toISO({ suppressMilliseconds: false }),
        url: link,
        status: 'CONFIRMED',
        location: ADDRESS,
        organizer: { email: 'hello@salon.example', name: w.test.name },
        attendees: [{ email: customer.email, name: 'Dana, "Zoë" Customer' }],
      });
      const local = to.setZone('America/New_York').toFormat('HH:mm');
      expect(moved.text).toContain(`New time: ${day(to, 'America/New_York')}, ${local}–`);
      expect(moved.text).toContain('(America/New_York)');
    }
    expect((await t.dbs.test.prisma.booking.findUniqueOrThrow({ where: { id: booking._id } })).calendarSequence).toBe(
      2,
    );

    const cancel = await post(w.testKey.key, `/bookings/${booking._id}/cancel`, { reason: 'Stylist ill' });
    expect(cancel.statusCode).toBe(200);
    const cancelled = await emailOf('test', booking._id, 'booking.cancelled');
    const x = icsOf(cancelled);
    expect(x.file.contentType).toBe('text/calendar; charset=utf-8; method=CANCEL');
    expect(x.cal.method).toBe('CANCEL');
    expect(x.cal.events[0]).toMatchObject({
      uid,
      // One above the last REQUEST (docs/calendars.md): the status changed.
      sequence: 3,
      start: moves[1]!.toISO({ suppressMilliseconds: false }),
      status: 'CANCELLED',
      url: null,
      organizer: { email: 'hello@salon.example', name: w.test.name },
      attendees: [{ email: customer.email, name: 'Dana, "Zoë" Customer' }],
    });
    expect(x.cal.events[0]!.description).not.toContain('/b/svc_ml_');

    // The log shows the file: REST, GraphQL, and the admin area's download.
    const rest = await t.app.inject({
      method: 'GET',
      url: `/api/v1/emails/${cancelled.id}`,
      headers: bearer(w.testKey.key),
    });
    expect(rest.json().data.attachments).toEqual([x.file]);
    const gql = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: bearer(w.testKey.key),
      payload: { query: `{ email(id: "${confirmed.id}") { attachments { filename contentType content } } }` },
    });
    expect(gql.json()).toEqual({ data: { email: { attachments: [c.file] } } });
    const admin = (path: string) =>
      t.app.inject({
        method: 'GET',
        url: `/admin/test/companies/${w.test.id}/emails/${confirmed.id}${path}`,
        cookies: { svc_session: cookie },
      });
    const page = await admin('');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`href="/admin/test/companies/${w.test.id}/emails/${confirmed.id}/attachments/0"`);
    const file = await admin('/attachments/0');
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('text/calendar; charset=utf-8; method=REQUEST');
    expect(file.headers['content-disposition']).toBe('attachment; filename="invite.ics"');
    expect(file.body).toBe(c.file.content);
    for (const bad of ['/attachments/1', '/attachments/-1', '/attachments/x', '/attachments/99999999999999999999'])
      expect((await admin(bad)).statusCode).toBe(404);
  });

  it("without the customer's zone the company's is shown, named; without the company's e-mail the organizer is the sender", async () => {
    const { employee, service } = await staffed('test');
    await t.dbs.test.prisma.company.update({ where: { id: w.test.id }, data: { email: null, address: null } });
    try {
      const res = await post(w.testKey.key, '/bookings', {
        serviceId: service.id,
        employeeId: employee.id,
        startTime: summer.plus({ days: 10 }).toISO(),
        customer: { name: 'Sam', email: `sam-${unique()}@example.com` },
      });
      const id = res.json().data._id as string;
      const email = await emailOf('test', id, 'booking.created');
      expect(email.text).toContain(
        `When: ${day(summer.plus({ days: 10 }), 'Europe/Berlin')}, 14:00–15:00 GMT+2 (Europe/Berlin)`,
      );
      const ev = icsOf(email).cal.events[0]!;
      expect(ev.organizer).toEqual({ email: 'no-reply@bookings.example', name: w.test.name });
      expect(ev.location).toBeNull();
    } finally {
      await t.dbs.test.prisma.company.update({
        where: { id: w.test.id },
        data: { email: 'hello@salon.example', address: ADDRESS },
      });
    }
  });
});

describe('invitations over SMTP', () => {
  it('sends a text/calendar; method=REQUEST alternative and the same file as invite.ics', async () => {
    const { employee, service } = await staffed('live');
    const res = await post(w.liveKey.key, '/bookings', {
      serviceId: service.id,
      employeeId: employee.id,
      startTime: summer.plus({ days: 20 }).toISO(),
      customer: { name: 'Lee', email: `lee-${unique()}@example.com` },
    });
    const id = res.json().data._id as string;
    const row = await waitFor(async () => {
      const e = await emailOf('live', id, 'booking.created');
      return e.status === 'sent' ? e : null;
    });
    const raw = await waitFor(() => inbox.find((m) => m.toLowerCase().includes(`x-booking-id: ${id}`)), {
      what: 'the delivery',
    });
    expect(raw).toMatch(/^Content-Type: multipart\/mixed/m);
    expect(raw).toMatch(/^Content-Type: multipart\/alternative/m);
    expect(raw).toMatch(/^Content-Type: text\/calendar; charset=utf-8; method=REQUEST/m);
    // The attachment part, base64: decoded, it is the stored invitation byte for byte.
    const part = /Content-Type: application\/ics; name=invite\.ics\r\n(?:[^\r\n]+\r\n)*\r\n([A-Za-z0-9+/=\r\n]+)/.exec(
      raw,
    );
    expect(part).not.toBeNull();
    const sent = Buffer.from(part![1]!.replace(/\r\n/g, ''), 'base64').toString('utf8');
    expect(sent).toBe(icsOf(row).file.content);
    const ev = parseCalendar(sent).events[0]!;
    expect(ev).toMatchObject({ uid: `${id}@book.example.com`, sequence: 0, status: 'CONFIRMED' });
  });

  it('a pending class booking whose session moved before it is confirmed: the confirmation carries the moved revision', async () => {
    const { employee, company } = await staffed('test');
    const spin = await createService(t.dbs.test.prisma, {
      companyId: company.id,
      input: {
        name: 'Paid spin',
        kind: 'class',
        durationMinutes: 45,
        price: 1200,
        requiresPayment: true,
        employeeIds: [employee.id],
      },
    });
    const session = await post(w.testKey.key, '/classes', {
      serviceId: spin.id,
      employeeId: employee.id,
      startTime: summer.plus({ days: 3 }).toISO(),
      capacity: 5,
    });
    expect(session.statusCode, session.body).toBe(200);
    const classId = session.json().data._id as string;
    const created = await post(w.testKey.key, '/bookings', {
      serviceId: spin.id,
      classId,
      customer: { name: 'Pat Pending', email: `pat-${unique()}@example.com` },
    });
    expect(created.json().data.status).toBe('pending');
    const id = created.json().data._id as string;
    const moved = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/classes/${classId}`,
      headers: bearer(w.testKey.key),
      payload: { startTime: summer.plus({ days: 4 }).toISO(), endTime: summer.plus({ days: 4, minutes: 45 }).toISO() },
    });
    expect(moved.statusCode, moved.body).toBe(200);
    expect((await post(w.testKey.key, `/bookings/${id}/confirm`, {})).statusCode).toBe(200);
    const confirmation = icsOf(await emailOf('test', id, 'booking.confirmed')).cal.events[0]!;
    expect(confirmation).toMatchObject({ uid: `${id}@book.example.com`, sequence: 1, status: 'CONFIRMED' });
    expect(confirmation.start).toBe(summer.plus({ days: 4 }).toJSDate().toISOString());
  });
});
