// POST /payments/:id/refund { amount? } (docs/api.md, Refunds): succeeded → partially_refunded
// → refunded, through refundCharge (src/schema/core/refund-charge.ts), the one place a charge is
// refunded.
import type { Config } from '../../config.js';
import type { Db } from '../../db/databases.js';
import { AppError, isAppError } from '../../errors.js';
import type { Payment } from '../../generated/prisma/client.js';
import type { Mode, PaymentStatus } from '../../generated/prisma/enums.js';
import { z } from 'zod';
import { findPayment, REFUNDABLE, refundCharge } from '../core/index.js';
import { parseInput } from '../validation.js';

const refundInput = z
  .object({
    amount: z
      .number()
      .int('must be an integer in minor units')
      .min(1, 'must be at least 1')
      .max(100_000_000, 'must be at most 100000000')
      .optional(),
  })
  .strict();

const notRefundable = (status: PaymentStatus) =>
  new AppError('INVALID_STATE_TRANSITION', `A ${status} payment cannot be refunded`, {
    details: { from: status, to: 'refunded' },
  });

/**
 * POST /payments/:id/refund { amount? } and GraphQL refundPayment: all that is left of a
 * succeeded or partially refunded payment, or `amount` of it.
 */
export async function refundPayment(
  db: Db,
  opts: { companyId: string; mode: Mode; config: Config; id: string; input?: unknown },
): Promise<Payment> {
  const payment = await findPayment(db, opts.companyId, opts.id);
  const { amount } = parseInput(refundInput, opts.input ?? {});
  if (amount !== undefined && amount > payment.amount)
    throw AppError.validation([
      { path: 'amount', message: `must be at most the payment's amount (${payment.amount})` },
    ]);
  if (!REFUNDABLE.includes(payment.status)) throw notRefundable(payment.status);
  const result = await refundCharge(db, { config: opts.config, mode: opts.mode, payment, from: REFUNDABLE, amount });
  switch (result.outcome) {
    case 'refunded':
      return result.payment;
    case 'moved': {
      const now = result.payment;
      if (!REFUNDABLE.includes(now.status)) throw notRefundable(now.status);
      const left = now.amount - now.amountRefunded;
      throw new AppError('CONFLICT', `Only ${left} of this payment is left to refund`, {
        details: { amount: now.amount, amountRefunded: now.amountRefunded, refundable: left },
      });
    }
    default:
      // Live payments not configured is its own SERVICE_UNAVAILABLE (with its Retry-After).
      if (isAppError(result.error)) throw result.error;
      throw new AppError('SERVICE_UNAVAILABLE', 'The payment processor did not answer; retry the refund', {
        cause: result.error,
        headers: { 'retry-after': '5' },
      });
  }
}
