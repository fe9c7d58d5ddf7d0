// Refunding a charge (docs/api.md, Refunds): refundCharge, the one place a charge is refunded,
// for POST /payments/:id/refund (src/schema/payments/refund-payment.ts), the refunds of a
// cancellation (src/schema/bookings/cancel-booking.ts), and the payments worker's refund of a
// charge whose booking stopped holding its slot while it was processing: at the processor first
// (live charges; idempotent on the payment id), then the payment's row and payment.refunded in
// one transaction.
import type { Config } from '../../config.js';
import type { Db } from '../../db/databases.js';
import { AppError } from '../../errors.js';
import { Prisma, type Payment } from '../../generated/prisma/client.js';
import type { Mode, PaymentStatus } from '../../generated/prisma/enums.js';
import { isId } from '../../ids.js';
import { isAlreadyRefunded, isPermanentProcessorError, refundWithStripe } from '../../payments/stripe-processor.js';
import { DOMAIN_TRANSACTION } from '../db-errors.js';
import { recordEvent } from '../events/index.js';

/**
 * A payment event's data: bookingId for a booking's payment, visitId for a visit's, each left
 * out when it is null (as booking events leave out visitId; docs/webhooks.md).
 */
export function paymentEventData(p: Payment) {
  return {
    paymentId: p.id,
    ...(p.bookingId ? { bookingId: p.bookingId } : {}),
    ...(p.visitId ? { visitId: p.visitId } : {}),
    amount: p.amount,
    currency: p.currency,
    status: p.status,
    kind: p.kind,
    amountRefunded: p.amountRefunded,
    ...(p.failureCode ? { failureCode: p.failureCode } : {}),
    metadata: p.metadata,
  };
}

export async function findPayment(db: Db, companyId: string, id: string): Promise<Payment> {
  const payment = isId(id) ? await db.payment.findFirst({ where: { id, companyId } }) : null;
  if (!payment) throw AppError.notFound('payment');
  return payment;
}

export type RefundOutcome =
  /** Refunded (in part or in full), `amount` of it, with payment.refunded recorded. */
  | { outcome: 'refunded'; payment: Payment; amount: number }
  /** The payment was no longer in a refundable state, or has less left than asked: nothing recorded. */
  | { outcome: 'moved'; payment: Payment }
  /** The processor said no for good (repeating the request gets the same answer): nothing changed. */
  | { outcome: 'refused'; error: unknown }
  /** The processor gave no answer (network, 5xx, 429, not configured): nothing changed; try again later. */
  | { outcome: 'unanswered'; error: unknown };

/** Statuses a refund by request starts from: charged, and not yet refunded in full. */
export const REFUNDABLE: PaymentStatus[] = ['succeeded', 'partially_refunded'];

/**
 * Refunds `amount` of a charge (by default all that is left) and records it. The payment's
 * row is locked for the whole refund, so refunds of one payment happen one at a time: the
 * amount left is read under the lock, a live charge is refunded at the processor under the
 * idempotency key of the total it brings the payment to (a retry of the same refund never
 * refunds twice), and amount_refunded grows in one conditional UPDATE that the
 * payments_refund_within_amount CHECK backs: never more refunded than was paid, whatever the
 * concurrency. A charge the processor reports refunded already (by an earlier try, or in its
 * dashboard) counts as refunded when the rest of it was to be refunded. A sandbox charge moved
 * no money: only the row changes. The row changes only if the payment is in one of `from`:
 * REFUNDABLE for a refund by request, `processing` for the worker's refund of a charge made
 * for a booking that no longer holds its slot. With `capped`, an `amount` larger than what is
 * left (earlier refunds took part of it) refunds what is left instead of nothing.
 */
export async function refundCharge(
  db: Db,
  opts: { config: Config; mode: Mode; payment: Payment; from: PaymentStatus[]; amount?: number; capped?: boolean },
): Promise<RefundOutcome> {
  const { payment } = opts;
  // A live refund waits for the processor while it holds the row: a transaction long enough
  // for the client's timeout and retries (src/payments/stripe-processor.ts).
  const live = opts.mode === 'live' && payment.processorRef !== null;
  const outcome = await db.$transaction(
    async (tx): Promise<RefundOutcome> => {
      await tx.$queryRaw`SELECT id FROM payments WHERE id = ${payment.id} FOR UPDATE`;
      const current = await tx.payment.findUniqueOrThrow({ where: { id: payment.id } });
      const left = current.amount - current.amountRefunded;
      const amount = opts.capped ? Math.min(opts.amount ?? left, left) : (opts.amount ?? left);
      if (!opts.from.includes(current.status) || amount <= 0 || amount > left)
        return { outcome: 'moved', payment: current };
      const total = current.amountRefunded + amount;
      if (live) {
        try {
          await refundWithStripe(opts.config, {
            processorRef: current.processorRef!,
            amount,
            // The key of the refund of a whole charge is the one every version has used.
            idempotencyKey:
              current.amountRefunded === 0 && total === current.amount
                ? `refund-${current.id}`
                : `refund-${current.id}-${total}`,
          });
        } catch (err) {
          if (!(isAlreadyRefunded(err) && total === current.amount))
            return isPermanentProcessorError(err)
              ? { outcome: 'refused', error: err }
              : { outcome: 'unanswered', error: err };
        }
      }
      const [row] = await tx.$queryRaw<{ id: string }[]>`
        UPDATE payments
           SET amount_refunded = amount_refunded + ${amount},
               status = (CASE WHEN amount_refunded + ${amount} = amount THEN 'refunded' ELSE 'partially_refunded' END)::"PaymentStatus",
               refunded_at = now(),
               updated_at = now()
         WHERE id = ${current.id}
           AND status::text IN (${Prisma.join(opts.from)})
           AND amount_refunded + ${amount} <= amount
     RETURNING id`;
      const after = await tx.payment.findUniqueOrThrow({ where: { id: current.id } });
      if (!row) return { outcome: 'moved', payment: after };
      await recordEvent(tx, {
        companyId: after.companyId,
        type: 'payment.refunded',
        data: { ...paymentEventData(after), amount, amountRefunded: after.amountRefunded, paymentAmount: after.amount },
      });
      return { outcome: 'refunded', payment: after, amount };
    },
    live ? { maxWait: 5_000, timeout: 90_000 } : DOMAIN_TRANSACTION,
  );
  return outcome;
}
