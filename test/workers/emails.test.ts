// Customer e-mail (docs/sandbox.md): sandbox companies' e-mail is logged with recipient, every
// header, text and HTML, in the company's time zone, and never sent; GET /emails shows it and
// is FORBIDDEN for live companies. Live companies' e-mail goes out over SMTP, to a real local
// SMTP server (smtp-server) started by this test.
import type { AddressInfo } from 'node:net';
import addressparser from 'nodemailer/lib/addressparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import type { OutboxEventType } from '../../src/schema/events/events.js';
import { createPayment } from '../../src/schema/payments/create-payment.js';
import { rescheduleBooking } from '../../src/schema/bookings/reschedule-booking.js';
import { manageUrl } from '../../src/schema/core/index.js';
import { transitionBooking } from '../../src/schema/bookings/transition-booking.js';
import { startWorkers, type Workers } from '../../src/workers/runtime.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { bearer, createAccountWithKeys, scopedToken } from '../helpers/factories.js';
import { bookThroughUseCase, cancelledBooking } from '../helpers/bookings.js';
import { FAST_WORKERS, waitFor } from '../helpers/receiver.js';

interface Mail {
  from: string;
  to: string[];
  raw: string;
}

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let workers: Workers;
let smtp: SMTPServer;
const inbox: Mail[] = [];

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        inbox.push({
          from: String(session.envelope.mailFrom && session.envelope.mailFrom.address),
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
  const port = (smtp.server.address() as AddressInfo).port;
  t = await createTestApp({
    env: { ...FAST_WORKERS, SMTP_URL: `smtp://127.0.0.1:${port}`, EMAIL_FROM: 'Bookings <no-reply@bookings.example>' },
  });
  w = await createAccountWithKeys(t.dbs);
  await t.dbs.test.prisma.company.update({ where: { id: w.test.id }, data: { timezone: 'Europe/Berlin' } });
  workers = await startWorkers(t.services);
});
afterAll(async () => {
  await workers?.stop();
  await t?.close();
  await new Promise<void>((r) => smtp.close(() => r()));
});

type Db = 'test' | 'live';

/** The event a use case wrote for this booking (in the same transaction as the booking's change). */
const eventOf = (db: Db, bookingId: string, type: OutboxEventType) =>
  t.dbs[db].prisma.event.findFirstOrThrow({
    where: { type, data: { path: ['bookingId'], equals: bookingId } },
    orderBy: { id: 'desc' },
  });

/**
 * The next last Sunday of March (Berlin springs forward at 01:00 UTC) or of October (it falls
 * back), at least a week ahead, so a booking on it can be made today.
 */
function nextLastSunday(month: 3 | 10): DateTime {
  for (let year = DateTime.utc().year; ; year++) {
    const last = DateTime.utc(year, month, 1).endOf('month').startOf('day');
    const sunday = last.minus({ days: last.weekday % 7 });
    if (sunday > DateTime.utc().plus({ weeks: 1 })) return sunday.setLocale('en-GB');
  }
}
const day = (d: DateTime) => d.toFormat('cccc d LLLL yyyy');

describe('sandbox e-mail log', () => {
  it('logs the confirmation with recipient, headers, text and HTML in the company time zone, and sends nothing', async () => {
    // Spring-forward day in Berlin: 09:00Z is 11:00 CEST.
    const spring = nextLastSunday(3).set({ hour: 9 });
    const { booking, customer, employee } = await bookThroughUseCase(t.dbs.test.prisma, w.test, {
      requiresPayment: false,
      startTime: spring.toJSDate(),
      customerName: 'Dana <script>',
    });
    const event = await eventOf('test', booking.id, 'booking.created');
    expect(event.data).toMatchObject({ status: 'confirmed' });
    const email = await waitFor(() => t.dbs.test.prisma.email.findUnique({ where: { eventId: event.id } }), {
      what: 'the e-mail',
    });
    expect(email).toMatchObject({
      to: customer.email,
      from: 'Bookings <no-reply@bookings.example>',
      status: 'logged',
      kind: 'booking_confirmed',
      sentAt: null,
    });
    expect(email.subject).toBe(`Your booking at ${w.test.name} is confirmed`);
    expect(email.text).toContain('Hello Dana <script>,');
    expect(email.text).toContain(`Your Haircut & Style with ${employee.name} is confirmed.`);
    expect(email.text).toContain(`When: ${day(spring)}, 11:00–12:00 GMT+2 (Europe/Berlin)`);
    expect(email.html).toContain('Hello Dana &lt;script&gt;,');
    expect(email.html).not.toContain('<script>');
    expect(email.html).toContain(`${day(spring)}, 11:00–12:00 GMT+2`);
    // The customer's manage link, in the text and as a link in the HTML (docs/manage-links.md).
    const link = manageUrl(t.config, 'test', booking);
    expect(link).toMatch(/\/b\/svc_ml_/);
    expect(email.text).toContain(`To cancel or reschedule, use your booking link (keep it private):\n${link}\n`);
    expect(email.html).toContain(`<a href="${link}">Manage your booking</a>`);
    expect(email.headers).toMatchObject({
      From: 'Bookings <no-reply@bookings.example>',
      // RFC 5322: a display name with specials goes out as a quoted-string.
      To: `"Dana <script>" <${customer.email}>`,
      Subject: email.subject,
      'Message-ID': expect.stringMatching(/^<[0-9a-f]{24}\.[0-9a-f]{8}@bookings\.example>$/),
      'MIME-Version': '1.0',
      'X-Booking-Id': booking.id,
      'X-Event-Id': event.id,
    });
    // Read back by a mail parser, the header names one mailbox: the customer's.
    expect(addressparser((email.headers as Record<string, string>).To)).toEqual([
      { name: 'Dana <script>', address: customer.email },
    ]);
    expect(inbox).toHaveLength(0);

    const list = await t.app.inject({ method: 'GET', url: '/api/v1/emails', headers: bearer(w.testKey.key) });
    expect(list.statusCode).toBe(200);
    expect(list.json().data[0]).toEqual({
      _id: email.id,
      to: email.to,
      from: email.from,
      subject: email.subject,
      text: email.text,
      html: email.html,
      headers: email.headers,
      // The booking's invitation (test/workers/email/calendar-invitations.test.ts reads it).
      attachments: [
        {
          filename: 'invite.ics',
          contentType: 'text/calendar; charset=utf-8; method=REQUEST',
          content: expect.any(String),
        },
      ],
      kind: 'booking_confirmed',
      createdAt: email.createdAt.toISOString(),
    });
    const one = await t.app.inject({
      method: 'GET',
      url: `/api/v1/emails/${email.id}`,
      headers: bearer(w.testKey.key),
    });
    expect(one.json().data).toEqual(list.json().data[0]);
  });

  it('writes rescheduled, cancelled and receipt e-mails; a relayed event never writes two', async () => {
    // Berlin leaves summer time on the last Sunday of October at 01:00Z: 08:30Z is 09:30 CET.
    const autumn = nextLastSunday(10).set({ hour: 8, minute: 30 });
    const moved = autumn.plus({ days: 1 });
    const { booking } = await bookThroughUseCase(t.dbs.test.prisma, w.test, {
      requiresPayment: false,
      startTime: autumn.toJSDate(),
    });
    await rescheduleBooking(t.dbs.test.prisma, {
      company: w.test,
      bookingId: booking.id,
      input: { startTime: moved.toJSDate().toISOString() },
    });
    await transitionBooking(t.dbs.test.prisma, {
      companyId: w.test.id,
      bookingId: booking.id,
      action: 'cancel',
      input: { reason: 'Stylist ill' },
    });
    // A receipt: another booking, paid with the sandbox's test card and settled by the payments worker.
    const paid = (await bookThroughUseCase(t.dbs.test.prisma, w.test)).booking;
    const payment = await createPayment(t.dbs.test.prisma, {
      companyId: w.test.id,
      mode: 'test',
      config: t.config,
      input: {
        bookingId: paid.id,
        card: { number: '4242424242424242', expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvc: '123' },
      },
    });
    const e1 = await eventOf('test', booking.id, 'booking.rescheduled');
    const e2 = await eventOf('test', booking.id, 'booking.cancelled');
    const e3 = await waitFor(
      () =>
        t.dbs.test.prisma.event.findFirst({
          where: { type: 'payment.succeeded', data: { path: ['paymentId'], equals: payment.id } },
        }),
      { what: 'the payment to settle' },
    );
    const [r, c, p] = await Promise.all(
      [e1, e2, e3].map((e) => waitFor(() => t.dbs.test.prisma.email.findUnique({ where: { eventId: e.id } }))),
    );
    expect(r!.text).toContain(`New time: ${day(moved)}, 09:30–10:30 GMT+1`);
    expect(r!.text).toContain(`Was: ${day(autumn)}, 09:30–10:30 GMT+1`);
    expect(r!.text).toContain(manageUrl(t.config, 'test', booking));
    expect(r!.html).toContain(`<a href="${manageUrl(t.config, 'test', booking)}">Manage your booking</a>`);
    expect(c!.text).not.toContain('/b/svc_ml_');
    expect(c!.subject).toMatch(/is cancelled$/);
    expect(c!.text).toContain('Reason: Stylist ill');
    expect(p!.kind).toBe('payment_receipt');
    expect(p!.text).toContain('Amount: €45.00');
    expect(p!.text).toContain('Card: visa ending in 4242');
    // Relaying the same event again (as after a crash between fan-out and mark) adds nothing.
    await t.dbs.test.prisma.event.update({ where: { id: e3.id }, data: { dispatchedAt: null } });
    workers.kick();
    await waitFor(
      async () => (await t.dbs.test.prisma.event.findUniqueOrThrow({ where: { id: e3.id } })).dispatchedAt !== null,
    );
    expect(await t.dbs.test.prisma.email.count({ where: { eventId: e3.id } })).toBe(1);
  });

  it('other events write no e-mail', async () => {
    // A booking that waits for payment is pending: its booking.created is no confirmation.
    const { booking } = await bookThroughUseCase(t.dbs.test.prisma, w.test);
    const e = await eventOf('test', booking.id, 'booking.created');
    expect(e.data).toMatchObject({ status: 'pending' });
    await waitFor(
      async () => (await t.dbs.test.prisma.event.findUniqueOrThrow({ where: { id: e.id } })).dispatchedAt !== null,
    );
    expect(await t.dbs.test.prisma.email.count({ where: { eventId: e.id } })).toBe(0);
  });

  it('is FORBIDDEN to live companies, needs emails:read, and is NOT_FOUND across companies', async () => {
    const live = await t.app.inject({ method: 'GET', url: '/api/v1/emails', headers: bearer(w.liveKey.key) });
    expect([live.statusCode, live.json().error.code]).toEqual([403, 'FORBIDDEN']);
    const token = await scopedToken(t.dbs, {
      accountId: w.account.id,
      companyId: w.test.id,
      mode: 'test',
      scope: 'bookings:read',
    });
    const scoped = await t.app.inject({ method: 'GET', url: '/api/v1/emails', headers: bearer(token) });
    expect([scoped.statusCode, scoped.json().error.details]).toEqual([403, { requiredScope: 'emails:read' }]);
    const other = await createAccountWithKeys(t.dbs);
    const mine = await t.dbs.test.prisma.email.findFirstOrThrow({ where: { companyId: w.test.id } });
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/emails/${mine.id}`,
      headers: bearer(other.testKey.key),
    });
    expect(res.statusCode).toBe(404);
    const bad = await t.app.inject({ method: 'GET', url: '/api/v1/emails?limit=500', headers: bearer(w.testKey.key) });
    expect(bad.statusCode).toBe(400);
  });
});

describe('live e-mail over SMTP', () => {
  // A display name is whatever the booker typed. Were it parsed as part of an address list,
  // each of these would add or replace the recipient.
  it.each([
    ['x <attacker@evil.example>', '"x <attacker@evil.example>"'],
    ['attacker@evil.example', '"attacker@evil.example"'],
    ['Dana, attacker@evil.example', '"Dana, attacker@evil.example"'],
    ['Dana" <attacker@evil.example>, "x', '"Dana\\" <attacker@evil.example>, \\"x"'],
    ['Dana\\", attacker@evil.example', '"Dana\\\\\\", attacker@evil.example"'],
    ['Dana\r\nBcc: attacker@evil.example', '"Dana Bcc: attacker@evil.example"'],
    ['Zoë <attacker@evil.example>', /^=\?UTF-8\?[BQ]\?[^?\s]+\?=$/],
  ])('a customer named %j gets the e-mail, and nobody else', async (name, quoted) => {
    const { booking, customer } = await bookThroughUseCase(t.dbs.live.prisma, w.live, {
      requiresPayment: false,
      customerName: name,
    });
    const event = await eventOf('live', booking.id, 'booking.created');
    const mail = await waitFor(() => inbox.find((m) => m.raw.includes(event.id)), { what: 'the SMTP delivery' });
    // The SMTP envelope: RCPT TO is the customer's stored address and nothing else.
    expect(mail.to).toEqual([customer.email]);
    const row = await waitFor(async () => {
      const e = await t.dbs.live.prisma.email.findUnique({ where: { eventId: event.id } });
      return e?.status === 'sent' ? e : null;
    });
    const logged = (row.headers as Record<string, string>).To!;
    const display = logged.slice(0, logged.lastIndexOf(' <'));
    if (typeof quoted === 'string') expect(display).toBe(quoted);
    else expect(display).toMatch(quoted);
    expect(logged.endsWith(` <${customer.email}>`)).toBe(true);
    // Both the logged header and the one on the wire parse back to the one customer mailbox.
    const wire = /^To: (.*(?:\r\n[ \t].*)*)/m.exec(mail.raw)![1]!.replace(/\r\n[ \t]/g, ' ');
    for (const header of [logged, wire]) {
      const parsed = addressparser(header, { flatten: true });
      expect(parsed.map((a) => a.address)).toEqual([customer.email]);
    }
    expect(row.to).toBe(customer.email);
  });

  it('sends the cancellation with text and HTML to the customer and marks it sent', async () => {
    // Next summer: 07:00Z is 09:00 in Berlin.
    const summer = DateTime.utc(DateTime.utc().year + 1, 7, 1, 7);
    const { booking, customer } = await cancelledBooking(t.dbs.live.prisma, w.live, {
      requiresPayment: false,
      startTime: summer.toJSDate(),
    });
    const event = await eventOf('live', booking.id, 'booking.cancelled');
    const mail = await waitFor(() => inbox.find((m) => m.raw.includes(event.id)), { what: 'the SMTP delivery' });
    expect(mail.to).toEqual([customer.email]);
    expect(mail.from).toBe('no-reply@bookings.example');
    expect(mail.raw).toMatch(/^Subject: Your booking at .* is cancelled$/m);
    expect(mail.raw).toMatch(/^Content-Type: multipart\/alternative/m);
    expect(mail.raw).toMatch(/Content-Type: text\/plain/);
    expect(mail.raw).toMatch(/Content-Type: text\/html/);
    expect(mail.raw).toContain('09:00');
    const row = await waitFor(async () => {
      const e = await t.dbs.live.prisma.email.findUnique({ where: { eventId: event.id } });
      return e?.status === 'sent' ? e : null;
    });
    expect(row.sentAt).toBeInstanceOf(Date);
    expect(mail.raw).toContain(`Message-ID: ${(row.headers as Record<string, string>)['Message-ID']}`);
  });
});
