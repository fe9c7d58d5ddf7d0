// The payments worker (API.md §5): settles a `processing` payment to succeeded or failed and
// emits payment.succeeded / payment.failed; a succeeded payment confirms its pending booking
// (booking.confirmed), all in one transaction with the payment's change.
import type { Payment } from '../generated/prisma/client.js';
import { chargeWithStripe, type ChargeResult } from '../payments/stripe-processor.js';
import { recordEvent, type Tx } from '../schema/events.js';
import { paymentEventData } from '../schema/use-cases/refund-payment.js';
import { applyTransition } from '../schema/use-cases/transition-booking.js';
import type { JobContext } from './job-catalog.js';

/** pending → confirmed through the booking state machine, which records booking.confirmed. */
async function confirmPendingBooking(tx: Tx, bookingId: string): Promise<void> {
  const booking = await tx.booking.findUniqueOrThrow({ where: { id: bookingId } });
  // A booking confirmed by hand, or cancelled meanwhile, stays as it is.
  if (booking.status !== 'pending') return;
  await applyTransition(tx, booking, 'confirm', { now: new Date() });
}

async function verdict(ctx: JobContext, mode: 'live' | 'test', payment: Payment): Promise<ChargeResult> {
  if (mode === 'test') {
    // The simulator judged the test card at creation; no money moves (spec: sandbox).
    const ok = payment.outcome === 'succeeded';
    return { status: ok ? 'succeeded' : 'failed', failureCode: ok ? null : (payment.outcome ?? 'processing_error'), processorRef: `sim_${payment.id}`, brand: payment.brand, last4: payment.last4 };
  }
  if (!payment.paymentMethod) return { status: 'failed', failureCode: 'missing_payment_method', processorRef: null, brand: null, last4: null };
  return chargeWithStripe(ctx.services.config, { id: payment.id, amount: payment.amount, currency: payment.currency, paymentMethod: payment.paymentMethod, bookingId: payment.bookingId });
}

export async function settlePayment(ctx: JobContext, p: { mode: 'live' | 'test'; paymentId: string; sweep?: number }): Promise<void> {
  const db = ctx.services.dbs.forMode(p.mode);
  const payment = await db.payment.findUnique({ where: { id: p.paymentId } });
  if (!payment || payment.status !== 'processing') return;
  const result = await verdict(ctx, p.mode, payment);
  await db.$transaction(async (tx) => {
    // Conditional: a second worker settling the same payment changes nothing.
    const { count } = await tx.payment.updateMany({
      where: { id: payment.id, status: 'processing' },
      data: {
        status: result.status,
        failureCode: result.failureCode,
        processorRef: result.processorRef,
        brand: result.brand ?? payment.brand,
        last4: result.last4 ?? payment.last4,
        outcome: result.status === 'succeeded' ? 'succeeded' : result.failureCode,
      },
    });
    if (!count) return;
    const after = await tx.payment.findUniqueOrThrow({ where: { id: payment.id } });
    await recordEvent(tx, { companyId: after.companyId, type: result.status === 'succeeded' ? 'payment.succeeded' : 'payment.failed', data: paymentEventData(after) });
    if (result.status === 'succeeded') await confirmPendingBooking(tx, after.bookingId);
  });
}
