// The payments worker (docs/api.md): settles a `processing` payment to succeeded or failed and
// emits payment.succeeded / payment.failed; a succeeded payment confirms its pending booking, or
// every pending item of the visit it pays (booking.confirmed each), all in one transaction with
// the payment's change.
//
// A payment is only ever for a booking that holds its slot: a pending booking is not expired
// while its payment is processing (applyTransition), so a charge that succeeds after the hold
// time still confirms it. A booking that stopped holding its slot anyway (cancelled while the
// charge was on its way) is not confirmed: the charge is refunded at once, through the same
// processor, and the payment ends refunded with payment.refunded.
import type { BookingStatus, Payment } from '../generated/prisma/client.js';
import { chargeWithStripe, type ChargeResult } from '../payments/stripe-processor.js';
import { recordEvent, type Tx } from '../schema/events/index.js';
import { paymentEventData, refundCharge, REFUNDABLE } from '../schema/payments/index.js';
import { applyTransition } from '../schema/bookings/index.js';
import type { JobContext } from './job-types.js';
import { deepFreeze } from '../frozen.js';

/**
 * Charge attempts without a verdict (network, 5xx, 429) before a payment fails
 * processor_unavailable. The queue's backoff and the relay's sweep space them out (about a
 * minute and a half in all); a payment that never settles would hold its booking's one live
 * payment (payments_one_live_per_booking) and be swept again forever.
 */
export const PROCESSOR_ATTEMPTS = 10;

const SANDBOX_MESSAGES: Record<string, string> = {
  card_declined: 'Your card was declined.',
  insufficient_funds: 'Your card has insufficient funds.',
};

/** pending → confirmed through the booking state machine, which records booking.confirmed. */
async function confirmPendingBooking(tx: Tx, bookingId: string): Promise<void> {
  const booking = await tx.booking.findUniqueOrThrow({ where: { id: bookingId } });
  // A booking confirmed by hand, or cancelled meanwhile, stays as it is.
  if (booking.status !== 'pending') return;
  await applyTransition(tx, booking, 'confirm', { now: new Date() });
}

async function verdict(ctx: JobContext, mode: 'live' | 'test', payment: Payment): Promise<ChargeResult> {
  if (mode === 'test') {
    // The simulator judged the test card at creation; no money moves (docs/sandbox.md).
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
  if (!payment.paymentMethod)
    return {
      status: 'failed',
      failureCode: 'missing_payment_method',
      failureMessage: 'The payment has no payment method',
      processorRef: null,
      brand: null,
      last4: null,
    };
  return chargeWithStripe(ctx.services.config, {
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
async function attemptFailed(
  ctx: JobContext,
  mode: 'live' | 'test',
  payment: Payment,
  err: unknown,
): Promise<ChargeResult> {
  const db = ctx.services.dbs.forMode(mode);
  const message = (err instanceof Error ? err.message : String(err)).slice(0, 500);
  const { count } = await db.payment.updateMany({
    where: { id: payment.id, status: 'processing' },
    data: { attempts: { increment: 1 }, lastError: message },
  });
  const attempts = count ? (await db.payment.findUniqueOrThrow({ where: { id: payment.id } })).attempts : 0;
  ctx.services.logger.warn(
    { mode, paymentId: payment.id, attempts, err: { message } },
    'payment attempt got no verdict from the processor',
  );
  if (attempts < PROCESSOR_ATTEMPTS) throw err;
  return {
    status: 'failed',
    failureCode: 'processor_unavailable',
    failureMessage: `The payment processor gave no answer after ${attempts} attempts. Try again with a new payment.`,
    processorRef: null,
    brand: null,
    last4: null,
  };
}

// Statuses in which a booking still holds its slot, or was served: a payment for it stands.
const PAYABLE: ReadonlySet<BookingStatus> = deepFreeze(
  new Set<BookingStatus>(['pending', 'confirmed', 'completed', 'no_show']),
);

/** A live charge already made for a booking that no longer holds its slot: only its refund is owed. */
const refundOwed = (mode: 'live' | 'test', p: Payment) =>
  mode === 'live' && p.outcome === 'succeeded' && p.processorRef !== null;

export async function settlePayment(
  ctx: JobContext,
  p: { mode: 'live' | 'test'; paymentId: string; sweep?: number },
): Promise<void> {
  const db = ctx.services.dbs.forMode(p.mode);
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
      result = await verdict(ctx, p.mode, payment);
    } catch (err) {
      result = await attemptFailed(ctx, p.mode, payment, err);
    }
  }
  if (result.status === 'failed')
    ctx.services.logger.info(
      { mode: p.mode, paymentId: payment.id, failureCode: result.failureCode },
      'payment failed',
    );
  const next = await db.$transaction(async (tx): Promise<{ next: 'settled' | 'refund'; owed: number }> => {
    // The bookings' rows first, as createPayment and expiry take them: their status holds until commit.
    const items = await lockPaidFor(tx, payment);
    const standing = items.filter((b) => PAYABLE.has(b.status));
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
  if (next.next === 'refund') await refundUnheldBooking(ctx, p.mode, payment.id);
  else if (next.owed > 0) await refundUnheldItems(ctx, p.mode, payment.id, next.owed);
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
 * Gives back the shares of a visit's items cancelled while its payment was processing, once the
 * payment has succeeded for the others. Tried once, as a cancel's refunds are: a processor that
 * does not answer leaves the payment succeeded, to be refunded with POST /payments/:id/refund,
 * and says so in the log. When earlier refunds left less of the payment than the shares add up
 * to, what is left is refunded (capped, never more than was paid), and the log says how much
 * of the shares that was.
 */
async function refundUnheldItems(ctx: JobContext, mode: 'live' | 'test', paymentId: string, amount: number) {
  const db = ctx.services.dbs.forMode(mode);
  const payment = await db.payment.findUniqueOrThrow({ where: { id: paymentId } });
  const result = await refundCharge(db, {
    config: ctx.services.config,
    mode,
    payment,
    from: REFUNDABLE,
    amount,
    capped: true,
  });
  if (result.outcome === 'refunded') {
    if (result.amount < amount)
      ctx.services.logger.warn(
        { mode, paymentId, owed: amount, refunded: result.amount },
        "earlier refunds left less of the visit's payment than its cancelled items' shares; what was left is refunded",
      );
    return;
  }
  // Refunded in full already: nothing is left to give back.
  if (result.outcome === 'moved' && result.payment.status === 'refunded') return;
  ctx.services.logger.error(
    { mode, paymentId, amount, outcome: result.outcome },
    "the share of a visit's cancelled items was not refunded; refund it by hand",
  );
}

/**
 * Refunds a charge whose booking stopped holding its slot while it was processing, through
 * refundCharge (the refund endpoint's own core): at the processor, or in the sandbox only on
 * the row, where no money moved. A processor that cannot answer is retried by the queue (the
 * money is owed, so there is no bound); one that refuses for good leaves the payment
 * succeeded, for a person to refund, and says so in the log.
 */
async function refundUnheldBooking(ctx: JobContext, mode: 'live' | 'test', paymentId: string): Promise<void> {
  const db = ctx.services.dbs.forMode(mode);
  const payment = await db.payment.findUniqueOrThrow({ where: { id: paymentId } });
  if (payment.status !== 'processing') return;
  const result = await refundCharge(db, { config: ctx.services.config, mode, payment, from: ['processing'] });
  if (result.outcome === 'unanswered') throw result.error;
  if (result.outcome !== 'refused') return;
  ctx.services.logger.error(
    { mode, paymentId, err: { message: result.error instanceof Error ? result.error.message : String(result.error) } },
    'automatic refund refused by the processor; refund this payment by hand',
  );
  await db.$transaction(async (tx) => {
    const { count } = await tx.payment.updateMany({
      where: { id: payment.id, status: 'processing' },
      data: { status: 'succeeded' },
    });
    if (!count) return;
    const after = await tx.payment.findUniqueOrThrow({ where: { id: payment.id } });
    await recordEvent(tx, { companyId: after.companyId, type: 'payment.succeeded', data: paymentEventData(after) });
  });
}
