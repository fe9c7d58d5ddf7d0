// POST /payments/:id/refund (docs/api.md): succeeded → refunded, with payment.refunded. Live
// payments are refunded at the processor first (idempotent on the payment id).
import type { Config } from '../../config.js';
import type { Db } from '../../db/databases.js';
import { AppError } from '../../errors.js';
import type { Payment } from '../../generated/prisma/client.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { isId } from '../../ids.js';
import { refundWithStripe } from '../../payments/stripe-processor.js';
import { recordEvent } from '../events.js';

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

export async function refundPayment(db: Db, opts: { companyId: string; mode: Mode; config: Config; id: string }): Promise<Payment> {
  const payment = await findPayment(db, opts.companyId, opts.id);
  if (payment.status !== 'succeeded') {
    throw new AppError('INVALID_STATE_TRANSITION', `A ${payment.status} payment cannot be refunded`, { details: { from: payment.status, to: 'refunded' } });
  }
  if (opts.mode === 'live' && payment.processorRef) {
    try {
      await refundWithStripe(opts.config, { id: payment.id, processorRef: payment.processorRef });
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw new AppError('SERVICE_UNAVAILABLE', 'The payment processor did not answer; retry the refund', { cause: err, headers: { 'retry-after': '5' } });
    }
  }
  return db.$transaction(async (tx) => {
    const { count } = await tx.payment.updateMany({ where: { id: payment.id, status: 'succeeded' }, data: { status: 'refunded', refundedAt: new Date() } });
    const after = await tx.payment.findUniqueOrThrow({ where: { id: payment.id } });
    if (!count) throw new AppError('INVALID_STATE_TRANSITION', `A ${after.status} payment cannot be refunded`, { details: { from: after.status, to: 'refunded' } });
    await recordEvent(tx, { companyId: after.companyId, type: 'payment.refunded', data: paymentEventData(after) });
    return after;
  });
}
