// The booking state machine of docs/api.md:
//   pending → confirmed (payment or POST /confirm) · pending → expired (the system, after the
//   hold) · pending|confirmed → cancelled · confirmed → completed|no_show (once startTime has
//   passed). confirmed → confirmed by reschedule lives in reschedule-booking.ts.
//   Class waitlists (waitlist.ts): waitlisted|offered → cancelled (leaving the line, or giving
//   an offer back) · offered → expired (the offer lapsed, expiredReason offer_lapsed). The
//   promotions (waitlisted → confirmed|pending|offered) are waitlist.ts's, and offered →
//   confirmed|pending is accept-offer.ts's.
// Every other (from, to) pair is INVALID_STATE_TRANSITION with details { from, to }. The
// status change is a conditional UPDATE (WHERE status = from), so two concurrent transitions
// of one booking cannot both win. A class booking's transitions that free or give back a place
// take the class session's lock first, and the freed place goes to the waitlist in the same
// transaction (waitlist.ts).
import { z } from 'zod';
import type { Db, Tx } from '../../db/databases.js';
import type { Booking, BookingStatus, CancelledBy } from '../../generated/prisma/client.js';
import { AppError, isAppError } from '../../errors.js';
import { recordBookingEvent } from '../core/index.js';
import { cancelReminders, type WithdrawReason } from '../notifications/index.js';
import { domainTransaction } from '../db-errors.js';
import type { OutboxEventType } from '../events/index.js';
import { parseInput, text } from '../validation.js';
import { findBooking } from '../find-records.js';
import { domainNow } from '../domain-time.js';
import { lockClassSession, releaseClassPlace } from './waitlist.js';

export type BookingAction = 'confirm' | 'cancel' | 'complete' | 'no_show' | 'expire' | 'lapse';

export const TRANSITIONS: Record<BookingAction, { from: BookingStatus[]; to: BookingStatus; event: OutboxEventType }> =
  {
    confirm: { from: ['pending'], to: 'confirmed', event: 'booking.confirmed' },
    cancel: { from: ['pending', 'confirmed', 'waitlisted', 'offered'], to: 'cancelled', event: 'booking.cancelled' },
    complete: { from: ['confirmed'], to: 'completed', event: 'booking.completed' },
    no_show: { from: ['confirmed'], to: 'no_show', event: 'booking.no_show' },
    expire: { from: ['pending'], to: 'expired', event: 'booking.expired' },
    lapse: { from: ['offered'], to: 'expired', event: 'booking.offer_expired' },
  };

const WITHDRAWN_BY: Record<Exclude<BookingAction, 'confirm'>, WithdrawReason> = {
  cancel: 'booking_cancelled',
  complete: 'booking_completed',
  no_show: 'booking_no_show',
  expire: 'booking_expired',
  lapse: 'booking_expired',
};

export function invalidTransition(from: BookingStatus, to: BookingStatus, why?: string): AppError {
  return new AppError('INVALID_STATE_TRANSITION', why ?? `A ${from} booking cannot become ${to}`, {
    details: { from, to },
  });
}

const cancelInput = z.object({ reason: text(500).nullish() }).strict();

/**
 * A pending booking whose payment is processing keeps its slot until the payment settles: its
 * hold lasts while the processor decides, so nobody is charged for a booking that expired in
 * the meantime. The booking's row is locked first; createPayment takes the same lock before it
 * inserts a payment, so a payment is either seen here or refused there.
 */
async function refuseExpiryWhilePaying(tx: Tx, booking: Booking): Promise<void> {
  await tx.$queryRaw`SELECT id FROM bookings WHERE id = ${booking.id} FOR UPDATE`;
  // Its own payment, or its visit's (which createVisitPayment makes under the same row locks).
  const paying = await tx.payment.findFirst({
    where: {
      OR: [{ bookingId: booking.id }, ...(booking.visitId ? [{ visitId: booking.visitId }] : [])],
      status: 'processing',
    },
    select: { id: true },
  });
  if (paying) {
    throw new AppError(
      'INVALID_STATE_TRANSITION',
      'A payment for this booking is processing; the booking keeps its slot until the payment settles',
      {
        details: { from: booking.status, to: 'expired', paymentId: paying.id },
      },
    );
  }
}

/** Applies one transition inside a transaction the caller owns. */
export async function applyTransition(
  tx: Tx,
  booking: Booking,
  action: BookingAction,
  opts: {
    reason?: string | null;
    now: Date;
    /** A cancel's party and money (cancel-booking.ts); without it, a business cancel without a fee. */
    cancellation?: { cancelledBy: CancelledBy; fee: number; refundAmount: number };
    /** Give a freed class place to the waitlist (default true; a closure's cancels do not). */
    refill?: boolean;
  },
): Promise<Booking> {
  const rule = TRANSITIONS[action];
  const freesPlace = action === 'cancel' || action === 'expire' || action === 'lapse';
  // The session's lock before the booking's (waitlist.ts): the order every class write takes.
  if (booking.classSessionId && freesPlace) await lockClassSession(tx, booking.classSessionId);
  if (!rule.from.includes(booking.status)) throw invalidTransition(booking.status, rule.to);
  if ((action === 'complete' || action === 'no_show') && booking.startTime.getTime() > opts.now.getTime()) {
    throw invalidTransition(
      booking.status,
      rule.to,
      `A booking can be marked ${rule.to} only once its startTime has passed`,
    );
  }
  if (action === 'expire') await refuseExpiryWhilePaying(tx, booking);
  const changed = await tx.booking.updateMany({
    where: { id: booking.id, status: booking.status },
    data: {
      status: rule.to,
      ...(rule.to !== 'pending' ? { holdExpiresAt: null } : {}),
      // A waitlisted booking leaves the line; an offered one gives its offer back.
      ...(freesPlace ? { waitlistPosition: null, offerExpiresAt: null } : {}),
      ...(action === 'expire' ? { expiredReason: 'hold_lapsed' } : {}),
      ...(action === 'lapse' ? { expiredReason: 'offer_lapsed' } : {}),
      ...(action === 'cancel'
        ? {
            cancelReason: opts.reason ?? null,
            cancelledBy: opts.cancellation?.cancelledBy ?? 'business',
            cancellationFee: opts.cancellation?.fee ?? 0,
          }
        : {}),
    },
  });
  if (changed.count === 0) {
    // Someone else changed it first; answer with the state it is in now.
    const now = await tx.booking.findUniqueOrThrow({ where: { id: booking.id } });
    throw invalidTransition(now.status, rule.to);
  }
  // A booking that no longer holds a place is not reminded: its scheduled reminders withdrawn.
  if (action !== 'confirm') await cancelReminders(tx, booking.id, WITHDRAWN_BY[action]);
  const after = await tx.booking.findUniqueOrThrow({ where: { id: booking.id } });
  await recordBookingEvent(
    tx,
    after,
    rule.event,
    action === 'cancel'
      ? {
          reason: opts.reason ?? null,
          // What it was: a receiver tells leaving a waitlist (waitlisted, offered) from a cancel.
          previousStatus: booking.status,
          cancelledBy: after.cancelledBy,
          cancellationFee: after.cancellationFee,
          ...(opts.cancellation ? { refundAmount: opts.cancellation.refundAmount } : {}),
        }
      : action === 'expire' || action === 'lapse'
        ? { expiredReason: after.expiredReason }
        : {},
  );
  // After this booking's event, so the events of the place passing on follow it.
  if (freesPlace)
    await releaseClassPlace(tx, booking, booking.status, booking.waitlistPosition, {
      now: opts.now,
      refill: opts.refill,
    });
  return after;
}

export async function transitionBooking(
  db: Db,
  opts: { companyId: string; bookingId: string; action: BookingAction; input?: unknown; now?: Date },
): Promise<Booking> {
  const booking = await findBooking(db, opts.companyId, opts.bookingId);
  const { reason } = opts.action === 'cancel' ? parseInput(cancelInput, opts.input ?? {}) : { reason: null };
  const now = opts.now ?? (await domainNow(db, opts.companyId));
  if (opts.action === 'confirm' && holdHasPassed(booking, now)) {
    // Its hold is over, so it is expired (docs/api.md) even if the workers' sweep has not got to
    // it yet: expire it now (booking.expired, the slot given back) and refuse the confirmation.
    let paymentId: string | undefined;
    await domainTransaction(db, (tx) => applyTransition(tx, booking, 'expire', { now })).catch((err) => {
      if (!(isAppError(err) && err.code === 'INVALID_STATE_TRANSITION')) throw err; // changed meanwhile
      paymentId = (err.details as { paymentId?: string } | undefined)?.paymentId;
    });
    const current = await findBooking(db, opts.companyId, booking.id);
    if (current.status === 'pending' && paymentId) {
      // Its hold is kept while a payment processes (refuseExpiryWhilePaying): the payment's
      // outcome decides, not a manual confirmation.
      throw new AppError(
        'INVALID_STATE_TRANSITION',
        `The booking's hold ended at ${booking.holdExpiresAt!.toISOString()} while payment ${paymentId} was processing; the booking is confirmed if that payment succeeds and expires if it fails`,
        {
          details: { from: 'pending', to: 'confirmed', paymentId },
        },
      );
    }
    throw invalidTransition(
      current.status,
      'confirmed',
      current.status === 'expired'
        ? `The booking's hold ended at ${booking.holdExpiresAt!.toISOString()}; it has expired`
        : undefined,
    );
  }
  return domainTransaction(db, (tx) => applyTransition(tx, booking, opts.action, { reason, now }));
}

/** An unpaid pending booking whose hold has ended: expired, whether or not it has been swept. */
export function holdHasPassed(b: Booking, now: Date): boolean {
  return b.status === 'pending' && b.holdExpiresAt !== null && b.holdExpiresAt.getTime() <= now.getTime();
}
