// Which events send which customer e-mail (docs/sandbox.md), composed inside the relay's
// transaction so an event's e-mail exists exactly once (emails.event_id is unique).
// Sandbox companies' e-mails are logged, never sent; live ones are queued for SMTP.
import type { Tx } from '../../db/databases.js';
import { randomBytes } from 'node:crypto';
import type { Prisma } from '../../generated/prisma/client.js';
import type { BookingStatus, Mode } from '../../generated/prisma/enums.js';
import { newId } from '../../ids.js';
import type { Config } from '../../config.js';
import { manageUrl, publicOrigin } from '../../schema/core/index.js';
import { renderInvitation, uidHostOf, type InvitationMethod } from '../../schema/calendars/index.js';
import { displayName, formatMailbox, renderEmail, type EmailKind } from '../../schema/emails/index.js';

interface EventRow {
  id: string;
  companyId: string;
  type: string;
  data: Prisma.JsonValue;
}

function kindFor(e: EventRow): EmailKind | null {
  const data = (e.data ?? {}) as Record<string, unknown>;
  switch (e.type) {
    // A booking made without payment is confirmed at creation: that is its confirmation.
    case 'booking.created':
      return data.status === 'confirmed' ? 'booking_confirmed' : null;
    case 'booking.confirmed':
      return 'booking_confirmed';
    case 'booking.rescheduled':
      return 'booking_rescheduled';
    // Leaving a waitlist (docs/api.md, Class waitlists): the customer held no place and was
    // never sent an invitation (neither joining nor an offer carries one), so no ICS CANCEL.
    case 'booking.cancelled':
      return data.previousStatus === 'waitlisted' || data.previousStatus === 'offered'
        ? 'waitlist_left'
        : 'booking_cancelled';
    // A waitlisted customer is offered a freed place (docs/api.md, Class waitlists).
    case 'booking.offered':
      return 'waitlist_offer';
    case 'payment.succeeded':
      return 'payment_receipt';
    default:
      return null;
  }
}

/** The states of a visit's items that its payment paid for and that still stand. */
const PAID_ITEM: BookingStatus[] = ['pending', 'confirmed', 'completed', 'no_show'];

const asDate = (v: unknown) => (typeof v === 'string' ? new Date(v) : undefined);

/** What an e-mail carries: a booking's invitation is text, kept as written (docs/calendars.md). */
export interface EmailAttachment {
  filename: string;
  contentType: string;
  content: string;
}

const INVITATION_METHOD: Partial<Record<EmailKind, InvitationMethod>> = {
  booking_confirmed: 'REQUEST',
  booking_rescheduled: 'REQUEST',
  booking_cancelled: 'CANCEL',
};

/** The bare address of a mailbox header value (`Name <a@b>` or `a@b`). */
const addressOf = (mailbox: string) => /<([^>]+)>\s*$/.exec(mailbox)?.[1] ?? mailbox.trim();

/**
 * The SEQUENCE of the invitation an event's e-mail carries (RFC 5546 §2.1.4). A confirmation:
 * the booking's revision, since a pending booking may have moved before it was confirmed (a
 * calendar ignores a REQUEST older than the one it holds). A reschedule: the revision its event
 * recorded (the booking may have moved again before this e-mail is composed). A cancel: one more than the last revision,
 * because the STATUS changes, which RFC 5546 counts as a revision; every client takes a CANCEL
 * whose SEQUENCE is higher than the one it holds, and some (Outlook) ignore one that is not.
 */
function sequenceFor(kind: EmailKind, data: Record<string, unknown>, booking: { calendarSequence: number }): number {
  if (kind === 'booking_rescheduled')
    return typeof data.calendarSequence === 'number' ? data.calendarSequence : booking.calendarSequence;
  if (kind === 'booking_cancelled') return booking.calendarSequence + 1;
  return booking.calendarSequence;
}

export async function composeEmails(
  tx: Tx,
  o: { mode: Mode; events: EventRow[]; from: string; config: Config },
): Promise<Prisma.EmailCreateManyInput[]> {
  const wanted = o.events
    .map((e) => ({ e, kind: kindFor(e) }))
    .filter((x): x is { e: EventRow; kind: EmailKind } => x.kind !== null);
  if (!wanted.length) return [];
  const paymentIds = wanted
    .filter((w) => w.kind === 'payment_receipt')
    .map((w) => String((w.e.data as Record<string, unknown>).paymentId));
  const payments = paymentIds.length ? await tx.payment.findMany({ where: { id: { in: paymentIds } } }) : [];
  const bookingIds = [
    ...wanted
      .filter((w) => w.kind !== 'payment_receipt')
      .map((w) => String((w.e.data as Record<string, unknown>).bookingId)),
    ...payments.flatMap((p) => (p.bookingId ? [p.bookingId] : [])),
  ];
  const visitIds = payments.flatMap((p) => (p.visitId ? [p.visitId] : []));
  const bookings = await tx.booking.findMany({
    where: {
      OR: [
        { id: { in: bookingIds } },
        // A visit's receipt names each item it paid for: those still standing (not cancelled or expired).
        ...(visitIds.length ? [{ visitId: { in: visitIds }, status: { in: PAID_ITEM } }] : []),
      ],
    },
    include: { customer: true, service: true, employee: true, company: true, location: true },
    orderBy: [{ startTime: 'asc' }, { id: 'asc' }],
  });
  const out: Prisma.EmailCreateManyInput[] = [];
  for (const { e, kind } of wanted) {
    const data = e.data as Record<string, unknown>;
    const payment = kind === 'payment_receipt' ? payments.find((p) => p.id === data.paymentId) : undefined;
    const items = payment?.visitId ? bookings.filter((b) => b.visitId === payment.visitId) : [];
    const booking = payment?.visitId
      ? items[0]
      : bookings.find((b) => b.id === (payment ? payment.bookingId : data.bookingId));
    if (!booking || booking.companyId !== e.companyId || (kind === 'payment_receipt' && !payment)) continue;
    // An erased customer has no address any more (docs/api.md, Customers: erase and export).
    if (booking.customer.erasedAt) continue;
    const prevStart = asDate(data.previousStartTime);
    const prevEnd = asDate(data.previousEndTime);
    const url = manageUrl(o.config, o.mode, booking);
    const startTime = asDate(data.startTime) ?? booking.startTime;
    const endTime = asDate(data.endTime) ?? booking.endTime;
    const rendered = renderEmail({
      kind,
      company: booking.company,
      customer: booking.customer,
      service: booking.service,
      employee: booking.employee,
      location: booking.location,
      booking: {
        id: booking.id,
        startTime,
        endTime,
        cancelReason: (data.reason as string | undefined) ?? booking.cancelReason,
        offerExpiresAt: asDate(data.offerExpiresAt) ?? null,
        customerTimeZone: booking.customerTimeZone,
      },
      previous: prevStart && prevEnd ? { startTime: prevStart, endTime: prevEnd } : undefined,
      payment: payment ?? undefined,
      items: items.length
        ? items.map((b) => ({
            service: b.service,
            employee: b.employee,
            startTime: b.startTime,
            endTime: b.endTime,
            price: b.price,
            currency: b.currency,
          }))
        : undefined,
      // The link as it is now (a rotated link's e-mails carry the new one).
      manageUrl: url,
    });
    const method = INVITATION_METHOD[kind];
    const attachments: EmailAttachment[] = method
      ? [
          {
            filename: 'invite.ics',
            contentType: `text/calendar; charset=utf-8; method=${method}`,
            content: renderInvitation({
              method,
              uidHost: uidHostOf(publicOrigin(o.config)),
              company: booking.company,
              organizerEmail: booking.company.email ?? addressOf(o.from),
              customer: booking.customer,
              service: booking.service,
              employee: booking.employee,
              booking: { id: booking.id, startTime, endTime },
              location: booking.location,
              sequence: sequenceFor(kind, data, booking),
              manageUrl: method === 'REQUEST' ? url : undefined,
              stamp: new Date(),
            }),
          },
        ]
      : [];
    const id = newId();
    const domain = /@([^>\s]+)>?\s*$/.exec(o.from)?.[1] ?? 'bookings.localhost';
    const recipient = { name: displayName(booking.customer.name), address: booking.customer.email };
    const headers = {
      From: o.from,
      // For the log only: the sender addresses recipient.address, never this string.
      To: formatMailbox(recipient),
      Subject: rendered.subject,
      Date: new Date().toUTCString(),
      'Message-ID': `<${id}.${randomBytes(4).toString('hex')}@${domain}>`,
      'MIME-Version': '1.0',
      // With an invitation, SMTP sends multipart/mixed: the text, HTML and text/calendar
      // alternatives, and the same calendar as an invite.ics attachment.
      'Content-Type': attachments.length ? 'multipart/mixed' : 'multipart/alternative',
      'X-Booking-Id': booking.id,
      'X-Event-Id': e.id,
      'Auto-Submitted': 'auto-generated',
    };
    out.push({
      id,
      companyId: e.companyId,
      to: recipient.address,
      toName: recipient.name || null,
      from: o.from,
      subject: rendered.subject,
      text: rendered.text,
      html: rendered.html,
      headers,
      attachments: attachments as unknown as Prisma.InputJsonValue,
      kind,
      eventId: e.id,
      // Sandbox: kept in the e-mail log, not sent (docs/sandbox.md).
      status: o.mode === 'test' ? 'logged' : 'queued',
    });
  }
  return out;
}
