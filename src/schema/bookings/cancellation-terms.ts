// What cancelling a booking costs and returns (docs/api.md, Cancellation and deposits), decided
// by one function, cancellationTerms: GET /bookings/:id/cancellation-quote shows its answer and
// POST /bookings/:id/cancel applies it, so a quote and the cancel that follows can never disagree.
//   business: allowed while the booking is pending or confirmed; no fee; all that was paid is refunded.
//   customer: also refused after the cancellation cut-off (409 CUTOFF_PASSED, details.deadline);
//     free until the policy's freeUntil, then the late fee (a percent of the booking's price, or
//     an amount), never more than was paid; the rest of what was paid is refunded.
//   waiveFee: the fee is 0 (a business waiving it for a customer's cancel).
import type { Tx } from '../../db/databases.js';
import type { Booking, CancelledBy, Company, Payment, PaymentStatus } from '../../generated/prisma/client.js';
import { cutoffDeadline, effectiveBookingRules, type BookingRules } from '../booking-rules.js';
import { storedCancellationPolicy, type CancellationPolicy } from '../services/index.js';
import { visitShareOf } from '../core/index.js';
import { TRANSITIONS } from './transition-booking.js';

export interface CancellationTerms {
  /** Minor units kept from what was paid. */
  fee: number;
  /** Minor units given back: what was paid (less earlier refunds) minus the fee. */
  refundAmount: number;
  /** Until when a customer cancel costs nothing; null without a policy (always free). */
  freeUntil: Date | null;
  /** Whether this cancel would be accepted now. */
  allowed: boolean;
  /** A customer's cancellation cut-off; null for a business cancel, which has none. */
  deadline: Date | null;
  /** Why it is not allowed: the booking's state, or the cut-off. */
  refusal: 'state' | 'cutoff' | null;
}

/** The one computation of a cancellation's fee and refund. Pure: it reads and changes nothing. */
export function cancellationTerms(t: {
  booking: Pick<Booking, 'status' | 'startTime' | 'price'>;
  policy: CancellationPolicy | null;
  rules: Pick<BookingRules, 'cancellationCutoffMinutes'>;
  /** Minor units paid and not refunded, over the booking's charged payments. */
  paid: number;
  cancelledBy: CancelledBy;
  waiveFee?: boolean;
  now: Date;
}): CancellationTerms {
  const start = t.booking.startTime.getTime();
  const freeUntil = t.policy ? new Date(start - t.policy.freeUntilMinutesBefore * 60_000) : null;
  const customer = t.cancelledBy === 'customer';
  // Leaving a waitlist, or giving an offer back, holds nothing and costs nothing: no cut-off.
  const waiting = t.booking.status === 'waitlisted' || t.booking.status === 'offered';
  const deadline = customer && !waiting ? cutoffDeadline(t.booking.startTime, t.rules.cancellationCutoffMinutes) : null;
  const refusal = !TRANSITIONS.cancel.from.includes(t.booking.status)
    ? 'state'
    : deadline && t.now.getTime() > deadline.getTime()
      ? 'cutoff'
      : null;
  let fee = 0;
  // Free up to and including the freeUntil instant; one minute later the fee applies.
  if (customer && !t.waiveFee && t.policy && freeUntil && t.now.getTime() > freeUntil.getTime()) {
    const late = t.policy.lateFee;
    fee = 'percent' in late ? Math.round((t.booking.price * late.percent) / 100) : late.amount;
  }
  fee = Math.max(0, Math.min(fee, t.paid));
  return { fee, refundAmount: t.paid - fee, freeUntil, allowed: refusal === null, deadline, refusal };
}

/** Payments that hold money: charged, and not refunded in full. */
export const CHARGED: PaymentStatus[] = ['succeeded', 'partially_refunded'];

/**
 * What was paid for a booking and by which payments: its own charged payments, and for an item
 * of a visit paid as one that still holds its place, its share of the visit's payment (its
 * price, up to what is left of that payment; docs/api.md, Payments: paying a visit). The
 * refunds of a cancel are taken from these payments, at most `paid` in all.
 */
export async function paidFor(db: Tx, booking: Booking): Promise<{ payments: Payment[]; paid: number }> {
  const payments = await db.payment.findMany({
    where: { bookingId: booking.id, status: { in: CHARGED } },
    orderBy: { id: 'asc' },
  });
  let paid = payments.reduce((sum, p) => sum + p.amount - p.amountRefunded, 0);
  const visit = booking.status === 'pending' || booking.status === 'confirmed' ? await visitShareOf(db, booking) : null;
  if (visit && visit.share > 0) {
    payments.push(visit.payment);
    paid += visit.share;
  }
  return { payments, paid };
}

/** cancellationTerms with the facts read from the database: service, rules, payments. */
export async function loadCancellationTerms(
  db: Tx,
  t: {
    company: Pick<Company, 'bookingRules'>;
    booking: Booking;
    cancelledBy: CancelledBy;
    waiveFee?: boolean;
    now: Date;
  },
): Promise<{ terms: CancellationTerms; payments: Payment[] }> {
  const service = await db.service.findUniqueOrThrow({ where: { id: t.booking.serviceId } });
  const { payments, paid } = await paidFor(db, t.booking);
  const terms = cancellationTerms({
    booking: t.booking,
    policy: storedCancellationPolicy(service.cancellationPolicy),
    rules: effectiveBookingRules(t.company.bookingRules, service.bookingRules),
    paid,
    cancelledBy: t.cancelledBy,
    waiveFee: t.waiveFee,
    now: t.now,
  });
  return { terms, payments };
}
