// Sends a live company's queued e-mail over SMTP (SMTP_URL) with nodemailer. Sandbox e-mails
// never reach here: they are logged, not sent. The row is claimed with a lease first (as a
// webhook delivery is), so two workers holding a job for the same e-mail (a stalled job handed
// on, a sweep racing the relay) never both send it. A failure releases the lease and is
// retried by the queue; an e-mail still queued afterwards is re-enqueued by the relay's sweep.
// A worker that dies mid-send leaves the lease to run out, then the e-mail is sent again
// (at-least-once, like webhooks).
import nodemailer from 'nodemailer';
import type { Config } from '../config.js';
import type { Services } from '../services.js';
import { anyLiveCompanyHasBegun } from '../schema/companies/index.js';
import { reminderWithdrawnReason } from '../schema/notifications/index.js';
import type { JobContext } from './job-types.js';

// eslint-disable-next-line no-restricted-syntax -- process state: per-configuration clients
const transports = new WeakMap<Config, ReturnType<typeof nodemailer.createTransport>>();

// nodemailer waits up to 2 min to connect and 10 min on an idle socket by default; these bound
// a send well inside the lease, so a lease never runs out while its sender is still talking.
const SMTP_TIMEOUTS = { connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 30_000 };
const LEASE_SECONDS = 300;

function transportFor(config: Config) {
  let t = transports.get(config);
  if (!t) {
    t = nodemailer.createTransport({ url: config.SMTP_URL!, ...SMTP_TIMEOUTS });
    transports.set(config, t);
  }
  return t;
}

interface StoredAttachment {
  filename: string;
  contentType: string;
  content: string;
}

/** The stored attachments as nodemailer takes them: the first calendar as its icalEvent. */
function mimeParts(stored: unknown) {
  const all = (Array.isArray(stored) ? stored : []) as StoredAttachment[];
  const calendar = all.find((a) => /^text\/calendar\b/i.test(a.contentType));
  const method = calendar && /;\s*method=([A-Za-z-]+)/i.exec(calendar.contentType)?.[1];
  return {
    icalEvent: calendar
      ? { method: method ?? 'PUBLISH', filename: calendar.filename, content: calendar.content }
      : null,
    attachments: all
      .filter((a) => a !== calendar)
      .map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content })),
  };
}

export async function sendEmail(ctx: JobContext, p: { mode: 'live' | 'test'; emailId: string }): Promise<void> {
  const { config } = ctx.services;
  if (p.mode === 'test') return;
  const db = ctx.services.dbs.forMode(p.mode);
  if (!config.SMTP_URL) {
    const { count } = await db.email.updateMany({
      where: { id: p.emailId, status: 'queued' },
      data: { status: 'failed', lastError: 'SMTP_URL is not configured' },
    });
    if (count) ctx.services.logger.error({ emailId: p.emailId }, 'live e-mail not sent: SMTP_URL is not configured');
    return;
  }
  // The claim: only a queued e-mail that no other worker is sending. The attempt counts from
  // here, so one cut short by a crash is counted too.
  const claimed = await db.$queryRaw<{ id: string }[]>`
    UPDATE emails SET lease_until = now() + make_interval(secs => ${LEASE_SECONDS}), attempts = attempts + 1
    WHERE id = ${p.emailId} AND status = 'queued' AND (lease_until IS NULL OR lease_until <= now())
    RETURNING id`;
  if (!claimed.length) return;
  const email = await db.email.findUniqueOrThrow({ where: { id: p.emailId } });
  // A reminder whose booking was cancelled or moved while its e-mail waited is not sent.
  const withdrawn = email.notificationId
    ? await reminderWithdrawnReason(db, { notificationId: email.notificationId, now: new Date() })
    : null;
  if (withdrawn) {
    await db.email.update({
      where: { id: email.id },
      data: { status: 'failed', leaseUntil: null, lastError: `reminder withdrawn before sending: ${withdrawn}` },
    });
    return;
  }
  const headers = email.headers as Record<string, string>;
  const { icalEvent, attachments } = mimeParts(email.attachments);
  try {
    await transportFor(config).sendMail({
      from: email.from,
      // The stored recipient, structured: nodemailer must not parse a name that may hold
      // `<`, `,` or `@` (see src/schema/emails/mailbox.ts). The To header it writes encodes the name.
      to: { name: email.toName ?? '', address: email.to },
      subject: email.subject,
      text: email.text,
      html: email.html,
      // The invitation goes as calendar clients expect it (docs/calendars.md): a text/calendar;
      // method=… alternative beside the text and HTML, and the same file as invite.ics.
      ...(icalEvent ? { icalEvent } : {}),
      ...(attachments.length ? { attachments } : {}),
      messageId: headers['Message-ID'],
      date: headers.Date ? new Date(headers.Date) : undefined,
      headers: {
        'X-Booking-Id': headers['X-Booking-Id'] ?? '',
        'X-Event-Id': headers['X-Event-Id'] ?? '',
        ...(headers['X-Notification-Id'] ? { 'X-Notification-Id': headers['X-Notification-Id'] } : {}),
        'Auto-Submitted': 'auto-generated',
      },
    });
  } catch (err) {
    // Released at once: the queue's next attempt (or the sweep) may claim it again.
    await db.email.update({
      where: { id: email.id },
      data: { leaseUntil: null, lastError: (err as Error).message.slice(0, 500) },
    });
    throw err;
  }
  await db.email.update({
    where: { id: email.id },
    data: { status: 'sent', sentAt: new Date(), leaseUntil: null, lastError: null },
  });
}

/**
 * Says once, at start-up, that live companies' e-mails will fail: without SMTP_URL each one is
 * marked failed with that reason (the admin area shows it), which nobody sees until a customer
 * asks where their confirmation went. Only while a live company takes bookings (it has a service
 * or a staff member, what its customers' e-mails come from): the demo's live company, which has
 * not begun, leaves a fresh `npm start` quiet. The log names no company and no address.
 */
export async function warnIfLiveEmailCannotBeSent(
  services: Pick<Services, 'config' | 'dbs' | 'logger'>,
): Promise<void> {
  if (services.config.SMTP_URL) return;
  if (await anyLiveCompanyHasBegun(services.dbs))
    services.logger.warn(
      'SMTP_URL is not set: e-mails of live companies are not sent but marked failed; set SMTP_URL to an SMTP relay',
    );
}
