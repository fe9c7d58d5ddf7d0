// Which events send which customer e-mail (docs/sandbox.md), composed inside the relay's
// transaction so an event's e-mail exists exactly once (emails.event_id is unique).
// Sandbox companies' e-mails are logged, never sent; live ones are queued for SMTP.
import { randomBytes } from 'node:crypto';
import type { Prisma } from '../../generated/prisma/client.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { newId } from '../../ids.js';
import type { Config } from '../../config.js';
import { manageUrl } from '../../schema/bookings/index.js';
import type { Tx } from '../../schema/events/index.js';
import { displayName, formatMailbox } from './mailbox.js';
import { renderEmail, type EmailKind } from './templates.js';

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
    case 'booking.cancelled':
      return 'booking_cancelled';
    case 'payment.succeeded':
      return 'payment_receipt';
    default:
      return null;
  }
}

const asDate = (v: unknown) => (typeof v === 'string' ? new Date(v) : undefined);

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
    ...payments.map((p) => p.bookingId),
  ];
  const bookings = await tx.booking.findMany({
    where: { id: { in: bookingIds } },
    include: { customer: true, service: true, employee: true, company: true },
  });
  const out: Prisma.EmailCreateManyInput[] = [];
  for (const { e, kind } of wanted) {
    const data = e.data as Record<string, unknown>;
    const payment = kind === 'payment_receipt' ? payments.find((p) => p.id === data.paymentId) : undefined;
    const booking = bookings.find((b) => b.id === (payment ? payment.bookingId : data.bookingId));
    if (!booking || booking.companyId !== e.companyId || (kind === 'payment_receipt' && !payment)) continue;
    const prevStart = asDate(data.previousStartTime);
    const prevEnd = asDate(data.previousEndTime);
    const rendered = renderEmail({
      kind,
      company: booking.company,
      customer: booking.customer,
      service: booking.service,
      employee: booking.employee,
      booking: {
        id: booking.id,
        startTime: asDate(data.startTime) ?? booking.startTime,
        endTime: asDate(data.endTime) ?? booking.endTime,
        cancelReason: (data.reason as string | undefined) ?? booking.cancelReason,
      },
      previous: prevStart && prevEnd ? { startTime: prevStart, endTime: prevEnd } : undefined,
      payment: payment ?? undefined,
      // The link as it is now (a rotated link's e-mails carry the new one).
      manageUrl: manageUrl(o.config, o.mode, booking),
    });
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
      'Content-Type': 'multipart/alternative',
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
      kind,
      eventId: e.id,
      // Sandbox: kept in the e-mail log, not sent (docs/sandbox.md).
      status: o.mode === 'test' ? 'logged' : 'queued',
    });
  }
  return out;
}
