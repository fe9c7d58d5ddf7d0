// Settling a payment (docs/api.md, Payments): the payment state machine. A `processing`
// payment becomes succeeded or failed with payment.succeeded / payment.failed; a succeeded
// payment confirms its pending booking, or every pending item of the visit it pays
// (booking.confirmed each), all in one transaction with the payment's change. The settle-payment
// worker calls this; it adds nothing but the job.
//
// A payment is only ever for a booking that holds its slot: a pending booking is not expired
// while its payment is processing (applyTransition), so a charge that succeeds after the hold
// time still confirms it. One that stopped holding its slot anyway is refunded
// (unheld-refunds.ts): the payment stays processing, with the charge's facts, until the refund
// is done, so a run that dies between the two finishes the refund on the next.
import type { Tx } from '../../db/databases.js';
import type { BookingStatus, Payment } from '../../generated/prisma/client.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { applyTransition } from '../bookings/index.js';
import { recordEvent } from '../events/index.js';
import { chargeVerdict, chargeWithoutVerdict, type ChargeResult } from './charge-verdict.js';
import { paymentEventData } from '../core/index.js';
import {
  paymentStandsFor,
  refundOwed,
  refundUnheldBooking,
  refundUnheldItems,
  type SettleDeps,
} from './unheld-refunds.js';

export type { SettleDeps };

/** pending → confirmed through the booking state machine, which records booking.confirmed. */
async function confirmPendingBooking(tx: Tx, bookingId: string): Promise<void> {
  const booking = await tx.booking.findUniqueOrThrow({ where: { id: bookingId } });
  // A booking confirmed by hand, or cancelled meanwhile, stays as it is.
  if (booking.status !== 'pending') return;
  await applyTransition(tx, booking, 'confirm', { now: new Date() });
}

/**
 * The bookings a payment is for, their rows locked in id order: its booking, or every item of
 * its visit (as createPayment locks them).
 */
async function lockPaidFor(
  tx: Tx,
  payment: Payment,
): Promise<Array<{ id: string; status: BookingStatus; price: number; startTime: Date }>> {
  const rows = payment.visitId
    ? await tx.$queryRaw<Array<{ id: string }>>`
        SELECT id FROM bookings WHERE visit_id = ${payment.visitId} ORDER BY id FOR UPDATE`
    : await tx.$queryRaw<Array<{ id: string }>>`SELECT id FROM bookings WHERE id = ${payment.bookingId} FOR UPDATE`;
  return tx.booking.findMany({
    where: { id: { in: rows.map((r) => r.id) } },
    select: { id: true, status: true, price: true, startTime: true },
  });
}

/**
 * Settles one payment if it is still processing; a payment settled already, or unknown, is left
 * alone. Throws when the processor gave no verdict below PROCESSOR_ATTEMPTS, or could not answer
 * a refund that is owed: the caller retries.
 */
export async function settlePayment(deps: SettleDeps, p: { mode: Mode; paymentId: string }): Promise<void> {
  const { db, logger } = deps;
  const payment = await db.payment.findUnique({ where: { id: p.paymentId } });
  if (!payment || payment.status !== 'processing') return;
  let result: ChargeResult;
  if (refundOwed(p.mode, payment)) {
    // An earlier run charged, then found the booking gone, and did not finish the refund.
    result = {
      status: 'succeeded',
      failureCode: null,
      failureMessage: null,
      processorRef: payment.processorRef,
      brand: payment.brand,
      last4: payment.last4,
    };
  } else {
    try {
      result = await chargeVerdict(deps.config, p.mode, payment);
    } catch (err) {
      result = await chargeWithoutVerdict(deps, p.mode, payment, err);
    }
  }
  if (result.status === 'failed')
    logger.info({ mode: p.mode, paymentId: payment.id, failureCode: result.failureCode }, 'payment failed');
  const next = await db.$transaction(async (tx): Promise<{ next: 'settled' | 'refund'; owed: number }> => {
    // The bookings' rows first, as createPayment and expiry take them: their status holds until commit.
    const items = await lockPaidFor(tx, payment);
    const standing = items.filter((b) => paymentStandsFor(b.status));
    if (result.status === 'succeeded' && items.length > 0 && standing.length === 0) {
      // Charged, but the booking no longer holds its slot: keep the charge's facts for the
      // refund (which may need retrying) and leave the payment processing until it is done.
      await tx.payment.updateMany({
        where: { id: payment.id, status: 'processing' },
        data: {
          processorRef: result.processorRef,
          brand: result.brand ?? payment.brand,
          last4: result.last4 ?? payment.last4,
          outcome: 'succeeded',
        },
      });
      return { next: 'refund', owed: 0 };
    }
    // Conditional: a second worker settling the same payment changes nothing.
    const { count } = await tx.payment.updateMany({
      where: { id: payment.id, status: 'processing' },
      data: {
        status: result.status,
        failureCode: result.failureCode,
        failureMessage: result.failureMessage,
        processorRef: result.processorRef,
        brand: result.brand ?? payment.brand,
        last4: result.last4 ?? payment.last4,
        outcome: result.status === 'succeeded' ? 'succeeded' : result.failureCode,
      },
    });
    if (!count) return { next: 'settled', owed: 0 };
    const after = await tx.payment.findUniqueOrThrow({ where: { id: payment.id } });
    await recordEvent(tx, {
      companyId: after.companyId,
      type: result.status === 'succeeded' ? 'payment.succeeded' : 'payment.failed',
      data: paymentEventData(after),
    });
    if (result.status !== 'succeeded') return { next: 'settled', owed: 0 };
    // Each item still standing is confirmed as a booking paid alone is, in the visit's order.
    for (const b of [...standing].sort((x, y) => x.startTime.getTime() - y.startTime.getTime()))
      await confirmPendingBooking(tx, b.id);
    // A visit's items cancelled while the charge was on its way: their shares (their prices) go
    // back, the rest of the payment stands (docs/api.md, Payments: paying a visit).
    const owed = after.visitId ? after.amount - standing.reduce((sum, b) => sum + b.price, 0) : 0;
    return { next: 'settled', owed: Math.max(0, owed) };
  });
  if (next.next === 'refund') await refundUnheldBooking(deps, p.mode, payment.id);
  else if (next.owed > 0) await refundUnheldItems(deps, p.mode, payment.id, next.owed);
}
