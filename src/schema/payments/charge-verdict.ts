// What the processor says of a `processing` payment's charge (docs/api.md, Payments): in the
// sandbox the simulator's judgement made at creation (no money moves, docs/sandbox.md); live,
// Stripe's answer. An attempt without a verdict (network, 5xx, 429) is counted on the row and
// retried by the caller's queue, up to PROCESSOR_ATTEMPTS, after which the charge fails
// processor_unavailable.
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db } from '../../db/databases.js';
import type { Payment } from '../../generated/prisma/client.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { chargeWithStripe, type ChargeResult } from '../../payments/stripe-processor.js';

export type { ChargeResult };

/**
 * Charge attempts without a verdict (network, 5xx, 429) before a payment fails
 * processor_unavailable. The queue's backoff and the relay's sweep space them out (about a
 * minute and a half in all); a payment that never settles would hold its booking's one live
 * payment (payments_one_live_per_booking) and be swept again forever.
 */
export const PROCESSOR_ATTEMPTS = 10;

const SANDBOX_MESSAGES: Readonly<Record<string, string>> = Object.freeze({
  card_declined: 'Your card was declined.',
  insufficient_funds: 'Your card has insufficient funds.',
});

const failed = (failureCode: string, failureMessage: string): ChargeResult => ({
  status: 'failed',
  failureCode,
  failureMessage,
  processorRef: null,
  brand: null,
  last4: null,
});

/** The processor's verdict on the charge; throws when it gave none (see chargeWithoutVerdict). */
export async function chargeVerdict(config: Config, mode: Mode, payment: Payment): Promise<ChargeResult> {
  if (mode === 'test') {
    const ok = payment.outcome === 'succeeded';
    const failureCode = ok ? null : (payment.outcome ?? 'processing_error');
    const failureMessage = failureCode
      ? (SANDBOX_MESSAGES[failureCode] ?? 'The payment could not be processed.')
      : null;
    return {
      status: ok ? 'succeeded' : 'failed',
      failureCode,
      failureMessage,
      processorRef: `sim_${payment.id}`,
      brand: payment.brand,
      last4: payment.last4,
    };
  }
  if (!payment.paymentMethod) return failed('missing_payment_method', 'The payment has no payment method');
  return chargeWithStripe(config, {
    id: payment.id,
    amount: payment.amount,
    currency: payment.currency,
    paymentMethod: payment.paymentMethod,
    bookingId: payment.bookingId,
    visitId: payment.visitId,
  });
}

/**
 * Counts an attempt that got no verdict. Below the bound the error is thrown again, so the
 * queue retries; at the bound the payment gets its verdict: failed, processor_unavailable.
 */
export async function chargeWithoutVerdict(
  deps: { db: Db; logger: Logger },
  mode: Mode,
  payment: Payment,
  err: unknown,
): Promise<ChargeResult> {
  const message = (err instanceof Error ? err.message : String(err)).slice(0, 500);
  const { count } = await deps.db.payment.updateMany({
    where: { id: payment.id, status: 'processing' },
    data: { attempts: { increment: 1 }, lastError: message },
  });
  const attempts = count ? (await deps.db.payment.findUniqueOrThrow({ where: { id: payment.id } })).attempts : 0;
  deps.logger.warn(
    { mode, paymentId: payment.id, attempts, err: { message } },
    'payment attempt got no verdict from the processor',
  );
  if (attempts < PROCESSOR_ATTEMPTS) throw err;
  return failed(
    'processor_unavailable',
    `The payment processor gave no answer after ${attempts} attempts. Try again with a new payment.`,
  );
}
