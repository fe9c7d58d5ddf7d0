// POST /bookings/:id/cancel { reason?, cancelledBy?, waiveFee? } and
// GET /bookings/:id/cancellation-quote?cancelledBy= (docs/api.md, Cancellation and deposits).
// Both ask cancellationTerms (cancellation-terms.ts); the quote changes nothing, the cancel
// applies the terms: pending|confirmed (or, leaving a class waitlist, waitlisted|offered) → cancelled with cancelledBy and cancellationFee on the
// booking and in booking.cancelled, then refunds of what was paid minus the fee.
import { z } from 'zod';
import type { Config } from '../../config.js';
import type { Db } from '../../db/databases.js';
import type { Booking, CancelledBy, Company, Payment } from '../../generated/prisma/client.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { AppError } from '../../errors.js';
import { assertBeforeCutoff } from '../booking-rules.js';
import { domainTransaction } from '../db-errors.js';
import { findBooking } from '../find-records.js';
import { REFUNDABLE, refundCharge, type RefundOutcome } from '../core/index.js';
import { parseInput, text } from '../validation.js';
import { loadCancellationTerms, type CancellationTerms } from './cancellation-terms.js';
import { applyTransition, invalidTransition } from './transition-booking.js';
import { domainNow } from '../domain-time.js';
import { lockClassSession } from './waitlist.js';

const party = z.enum(['business', 'customer'], { error: 'must be business or customer' });

const cancelInput = z
  .object({ reason: text(500).nullish(), cancelledBy: party.nullish(), waiveFee: z.boolean().nullish() })
  .strict();
const quoteInput = z.object({ cancelledBy: party.nullish() }).strict();

export interface CancellationQuote {
  fee: number;
  refundAmount: number;
  freeUntil: Date | null;
  allowed: boolean;
  deadline: Date | null;
}

const quoteOf = (t: CancellationTerms): CancellationQuote => ({
  fee: t.fee,
  refundAmount: t.refundAmount,
  freeUntil: t.freeUntil,
  allowed: t.allowed,
  deadline: t.deadline,
});

/** GET /bookings/:id/cancellation-quote: what a cancel by `cancelledBy` would cost now. */
export async function quoteCancellation(
  db: Db,
  opts: { company: Company; bookingId: string; input?: unknown; now?: Date },
): Promise<CancellationQuote> {
  const { cancelledBy } = parseInput(quoteInput, opts.input ?? {});
  const booking = await findBooking(db, opts.company.id, opts.bookingId);
  const { terms } = await loadCancellationTerms(db, {
    company: opts.company,
    booking,
    cancelledBy: cancelledBy ?? 'business',
    now: opts.now ?? (await domainNow(db, opts.company)),
  });
  return quoteOf(terms);
}

export interface CancelResult {
  booking: Booking;
  /** Each refund the cancel made or tried, in order. */
  refunds: Array<{ paymentId: string; amount: number; outcome: RefundOutcome['outcome'] }>;
}

/**
 * Cancels a booking as the business (the default: full refund, no cut-off) or the customer
 * (the cut-off and the service's cancellation policy apply). The booking's row is locked while
 * the terms are computed and applied, as every new payment of the booking locks it
 * (createPayment), so the payments the terms count are the ones there are. The refunds follow
 * the commit, through refundCharge, the balance before the deposit: a processor that does not
 * answer leaves that payment as it is, to be refunded with POST /payments/:id/refund.
 */
export async function cancelBooking(
  db: Db,
  opts: {
    company: Company;
    mode: Mode;
    config: Config;
    bookingId: string;
    input?: unknown;
    now?: Date;
    /**
     * The most the caller agreed to be charged (a customer who was shown a quote): a fee above it
     * refuses the cancel with CONFLICT (details.fee), decided under the booking's lock, so the
     * free period ending between the quote and the cancel never charges a fee nobody saw.
     */
    acceptedFee?: number;
  },
): Promise<CancelResult> {
  const input = parseInput(cancelInput, opts.input ?? {});
  const cancelledBy: CancelledBy = input.cancelledBy ?? 'business';
  const now = opts.now ?? (await domainNow(db, opts.company));
  const found = await findBooking(db, opts.company.id, opts.bookingId);
  const { booking, terms, payments } = await domainTransaction(db, async (tx) => {
    // A class booking: the session's lock first, the order every class write takes (waitlist.ts).
    if (found.classSessionId) await lockClassSession(tx, found.classSessionId);
    await tx.$queryRaw`SELECT id FROM bookings WHERE id = ${found.id} FOR UPDATE`;
    const current = await tx.booking.findUniqueOrThrow({ where: { id: found.id } });
    const loaded = await loadCancellationTerms(tx, {
      company: opts.company,
      booking: current,
      cancelledBy,
      waiveFee: input.waiveFee ?? false,
      now,
    });
    if (loaded.terms.refusal === 'state') throw invalidTransition(current.status, 'cancelled');
    if (loaded.terms.refusal === 'cutoff') assertBeforeCutoff('cancel', loaded.terms.deadline!, now);
    if (opts.acceptedFee !== undefined && loaded.terms.fee > opts.acceptedFee)
      throw new AppError(
        'CONFLICT',
        `Cancelling now costs ${loaded.terms.fee}, more than the ${opts.acceptedFee} agreed; quote again`,
        { details: { fee: loaded.terms.fee, acceptedFee: opts.acceptedFee } },
      );
    const after = await applyTransition(tx, current, 'cancel', {
      reason: input.reason ?? null,
      now,
      cancellation: { cancelledBy, fee: loaded.terms.fee, refundAmount: loaded.terms.refundAmount },
    });
    return { booking: after, ...loaded };
  });
  const refunds = await refundCancelled(db, {
    config: opts.config,
    mode: opts.mode,
    payments,
    amount: terms.refundAmount,
  });
  return { booking, refunds };
}

/**
 * Gives back `amount` of a cancelled booking's payments, after the cancel committed, through
 * refundCharge (every cancel's refunds: this use case's and a closure's). A processor that does
 * not answer leaves that payment as it is, to be refunded with POST /payments/:id/refund.
 */
export async function refundCancelled(
  db: Db,
  opts: { config: Config; mode: Mode; payments: Payment[]; amount: number },
): Promise<CancelResult['refunds']> {
  const refunds: CancelResult['refunds'] = [];
  let left = opts.amount;
  for (const payment of refundOrder(opts.payments)) {
    const amount = Math.min(left, payment.amount - payment.amountRefunded);
    if (amount <= 0) continue;
    const result = await refundCharge(db, { config: opts.config, mode: opts.mode, payment, from: REFUNDABLE, amount });
    refunds.push({ paymentId: payment.id, amount, outcome: result.outcome });
    if (result.outcome === 'refunded') left -= amount;
  }
  return refunds;
}

/** The balance is given back before the deposit, so a fee is kept from the deposit. */
function refundOrder(payments: Payment[]): Payment[] {
  const rank = { balance: 0, full: 1, deposit: 2 } as const;
  return [...payments].sort((a, b) => rank[a.kind] - rank[b.kind]);
}
