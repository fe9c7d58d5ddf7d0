// Refunds (docs/api.md): POST /payments/:id/refund (succeeded → refunded), and the payments
// worker's refund of a charge whose booking stopped holding its slot while it was processing.
// Both run refundCharge, the one place a charge is refunded: at the processor first (live
// charges; idempotent on the payment id), then the payment's row and payment.refunded in one
// transaction.
import type { Config } from '../../config.js';
import type { Db } from '../../db/databases.js';
import { AppError, isAppError } from '../../errors.js';
import type { Payment } from '../../generated/prisma/client.js';
import type { Mode, PaymentStatus } from '../../generated/prisma/enums.js';
import { isId } from '../../ids.js';
import { isAlreadyRefunded, isPermanentProcessorError, refundWithStripe } from '../../payments/stripe-processor.js';
import { recordEvent } from '../events/events.js';

export function paymentEventData(p: Payment) {
  return {
    paymentId: p.id,
    bookingId: p.bookingId,
    amount: p.amount,
    currency: p.currency,
    status: p.status,
    ...(p.failureCode ? { failureCode: p.failureCode } : {}),
  };
}

export async function findPayment(db: Db, companyId: string, id: string): Promise<Payment> {
  const payment = isId(id) ? await db.payment.findFirst({ where: { id, companyId } }) : null;
  if (!payment) throw AppError.notFound('payment');
  return payment;
}

export type RefundOutcome =
  /** Refunded, with payment.refunded recorded. */
  | { outcome: 'refunded'; payment: Payment }
  /** The payment was no longer `from` when its row was updated (another refund or settlement won): nothing recorded. */
  | { outcome: 'moved'; payment: Payment }
  /** The processor said no for good (repeating the request gets the same answer): nothing changed. */
  | { outcome: 'refused'; error: unknown }
  /** The processor gave no answer (network, 5xx, 429, not configured): nothing changed; try again later. */
  | { outcome: 'unanswered'; error: unknown };

/**
 * Refunds a charge and records it. A live charge is refunded at the processor under the
 * idempotency key `refund-<payment id>`, so a retry never refunds twice; a charge the processor
 * reports refunded already (by an earlier try, or in its dashboard) counts as refunded. A
 * sandbox charge moved no money: only the row changes. The row changes only if the payment is
 * still `from`: `succeeded` for a refund by request, `processing` for the worker's refund of a
 * charge made for a booking that no longer holds its slot.
 */
export async function refundCharge(
  db: Db,
  opts: { config: Config; mode: Mode; payment: Payment; from: PaymentStatus },
): Promise<RefundOutcome> {
  const { payment } = opts;
  if (opts.mode === 'live' && payment.processorRef) {
    try {
      await refundWithStripe(opts.config, { id: payment.id, processorRef: payment.processorRef });
    } catch (err) {
      if (!isAlreadyRefunded(err))
        return isPermanentProcessorError(err)
          ? { outcome: 'refused', error: err }
          : { outcome: 'unanswered', error: err };
    }
  }
  return db.$transaction(async (tx) => {
    const { count } = await tx.payment.updateMany({
      where: { id: payment.id, status: opts.from },
      data: { status: 'refunded', refundedAt: new Date() },
    });
    const after = await tx.payment.findUniqueOrThrow({ where: { id: payment.id } });
    if (!count) return { outcome: 'moved', payment: after };
    await recordEvent(tx, { companyId: after.companyId, type: 'payment.refunded', data: paymentEventData(after) });
    return { outcome: 'refunded', payment: after };
  });
}

const notRefundable = (status: PaymentStatus) =>
  new AppError('INVALID_STATE_TRANSITION', `A ${status} payment cannot be refunded`, {
    details: { from: status, to: 'refunded' },
  });

/** POST /payments/:id/refund and GraphQL refundPayment: a succeeded payment, refunded once. */
export async function refundPayment(
  db: Db,
  opts: { companyId: string; mode: Mode; config: Config; id: string },
): Promise<Payment> {
  const payment = await findPayment(db, opts.companyId, opts.id);
  if (payment.status !== 'succeeded') throw notRefundable(payment.status);
  const result = await refundCharge(db, { config: opts.config, mode: opts.mode, payment, from: 'succeeded' });
  switch (result.outcome) {
    case 'refunded':
      return result.payment;
    case 'moved':
      throw notRefundable(result.payment.status);
    default:
      // Live payments not configured is its own SERVICE_UNAVAILABLE (with its Retry-After).
      if (isAppError(result.error)) throw result.error;
      throw new AppError('SERVICE_UNAVAILABLE', 'The payment processor did not answer; retry the refund', {
        cause: result.error,
        headers: { 'retry-after': '5' },
      });
  }
}
