// POST /payments (docs/api.md): a `processing` payment for a booking's price (or its deposit,
// then its balance), or for a whole visit's (src/schema/core/visit-charge.ts); the payments
// worker settles it through settle-payment.ts. Sandbox: a test card, judged by the
// simulator now, of which only brand and last4 are kept. Live: a processor token only.
import { z } from 'zod';
import type { Config } from '../../config.js';
import type { Db, Tx } from '../../db/databases.js';
import { AppError } from '../../errors.js';
import type { Booking, Payment } from '../../generated/prisma/client.js';
import type { Mode, PaymentKind } from '../../generated/prisma/enums.js';
import { isId, newId } from '../../ids.js';
import { simulateCard } from '../../payments/card-simulator.js';
import { isPaymentMethodToken, looksLikeCardNumber } from '../../payments/payment-method-token.js';
import { wakeWorkers } from '../events/index.js';
import { metadataInput } from '../metadata.js';
import { parseInput } from '../validation.js';
import { domainNow } from '../domain-time.js';
import { assertPayable, LIVE, createVisitPayment, refuseIfVisitPaid } from '../core/index.js';

const bookingId = z.string().refine(isId, 'must be a booking id (24 hex characters)');
const visitId = z.string().refine(isId, 'must be a visit id (24 hex characters)');
/** What is paid for: one booking, or a whole visit; exactly one of them. */
const target = { bookingId: bookingId.optional(), visitId: visitId.optional() };
const exactlyOne = (v: { bookingId?: string; visitId?: string }, ctx: z.RefinementCtx) => {
  if (v.bookingId && v.visitId)
    ctx.addIssue({ code: 'custom', path: ['visitId'], message: 'give exactly one of bookingId or visitId, not both' });
  else if (!v.bookingId && !v.visitId)
    ctx.addIssue({ code: 'custom', path: ['bookingId'], message: 'give exactly one of bookingId or visitId' });
};
const card = z
  .object({ number: z.string().max(19), expMonth: z.number(), expYear: z.number(), cvc: z.string().max(4) })
  .strict();
const sandboxInput = z
  .object({
    ...target,
    card,
    paymentMethod: z.undefined({ error: 'is for live mode; the sandbox takes a test card' }).optional(),
    metadata: metadataInput.optional(),
  })
  .strict()
  .superRefine(exactlyOne);
// A card number is judged first, so it gets the message that says why and is never kept.
const paymentMethod = z.string().superRefine((v, ctx) => {
  if (looksLikeCardNumber(v)) {
    ctx.addIssue({
      code: 'custom',
      message:
        "looks like a card number: raw card numbers are refused in live mode; send the processor's payment-method token (pm_...)",
    });
  } else if (!isPaymentMethodToken(v)) {
    ctx.addIssue({
      code: 'custom',
      message:
        "must be a payment-method token from the processor's front-end library: pm_... (or a card token, tok_...)",
    });
  }
});
const liveInput = z
  .object({ ...target, paymentMethod, metadata: metadataInput.optional() })
  .strict()
  .superRefine(exactlyOne);

const alreadyPaid = (bookingId: string) =>
  new AppError('CONFLICT', 'This booking already has a payment that is processing or succeeded', {
    details: { bookingId },
  });

/**
 * What the next payment of a booking is (docs/api.md, Payments): `full`, the price; or, for a
 * booking made with a deposit, first `deposit` (which confirms it) and, once the deposit has
 * been charged, `balance`, the rest of the price. Read under the booking's row lock, which
 * every payment of the booking takes; payments_one_live_per_booking (one standing payment per
 * booking and kind) has the last word.
 */
async function nextCharge(tx: Tx, b: Booking): Promise<{ kind: PaymentKind; amount: number }> {
  if (b.depositAmount === null) return { kind: 'full', amount: b.price };
  const standing = await tx.payment.findMany({
    where: { bookingId: b.id, status: { in: LIVE } },
    select: { kind: true, status: true },
  });
  const deposit = standing.find((p) => p.kind === 'deposit');
  if (!deposit) return { kind: 'deposit', amount: b.depositAmount };
  if (deposit.status === 'processing')
    throw new AppError('CONFLICT', "This booking's deposit is processing; pay the balance once it has succeeded", {
      details: { bookingId: b.id },
    });
  const balance = b.price - b.depositAmount;
  if (balance <= 0 || standing.some((p) => p.kind === 'balance')) throw alreadyPaid(b.id);
  return { kind: 'balance', amount: balance };
}

export async function createPayment(
  db: Db,
  opts: { companyId: string; mode: Mode; config: Config; input: unknown; now?: Date },
): Promise<Payment> {
  const raw = (opts.input ?? {}) as Record<string, unknown>;
  // PCI: a raw card number must never reach a live company's API (docs/api.md); in live mode
  // a card's mere presence is refused, before anything else is judged.
  if (opts.mode === 'live' && raw.card !== undefined) {
    throw AppError.validation([
      { path: 'card', message: 'raw card numbers are refused in live mode; send a paymentMethod token' },
    ]);
  }
  const input = opts.mode === 'test' ? parseInput(sandboxInput, raw) : parseInput(liveInput, raw);
  // Without a processor a live payment could never settle: say so now rather than hold it.
  if (opts.mode === 'live' && !opts.config.STRIPE_SECRET_KEY) {
    throw new AppError('SERVICE_UNAVAILABLE', 'Live payments are not configured on this server', {
      headers: { 'retry-after': '3600' },
    });
  }
  const now = opts.now ?? (await domainNow(db, opts.companyId));
  const simulated = 'card' in input && input.card ? simulateCard(input.card, now) : null;
  const charge = {
    brand: simulated?.brand ?? null,
    last4: simulated?.last4 ?? null,
    outcome: simulated?.outcome ?? null,
    paymentMethod: 'paymentMethod' in input ? (input.paymentMethod ?? null) : null,
    metadata: input.metadata ?? {},
  };
  if (input.visitId) {
    const payment = await createVisitPayment(db, { companyId: opts.companyId, visitId: input.visitId, now, charge });
    await wakeWorkers(db);
    return payment;
  }
  const found = await db.booking.findFirst({ where: { id: input.bookingId!, companyId: opts.companyId } });
  if (!found) throw AppError.notFound('booking');
  assertPayable(found, now);
  if (found.price <= 0) throw AppError.validation([{ path: 'bookingId', message: 'the booking has nothing to pay' }]);
  try {
    const payment = await db.$transaction(async (tx) => {
      // The booking's row lock orders this payment against the expiry job, which takes the same
      // lock and leaves a booking with a processing payment alone (applyTransition): either the
      // booking is still payable here and keeps its slot until the payment settles, or it has
      // expired and is refused. Never an expired booking with a charge on its way.
      await tx.$queryRaw`SELECT id FROM bookings WHERE id = ${found.id} FOR UPDATE`;
      const booking = await tx.booking.findUniqueOrThrow({ where: { id: found.id } });
      assertPayable(booking, now);
      // An item of a visit paid as one is paid by the visit's payment (core/visit-charge.ts).
      await refuseIfVisitPaid(tx, booking);
      const next = await nextCharge(tx, booking);
      return tx.payment.create({
        data: {
          id: newId(),
          companyId: opts.companyId,
          bookingId: booking.id,
          // The price fixed on the booking when it was made, or its deposit, or the balance.
          amount: next.amount,
          kind: next.kind,
          currency: booking.currency,
          status: 'processing',
          ...charge,
        },
      });
    });
    await wakeWorkers(db);
    return payment;
  } catch (err) {
    // payments_one_live_per_booking: another payment of this kind is processing or has succeeded.
    if ((err as { code?: string }).code === 'P2002') throw alreadyPaid(found.id);
    throw err;
  }
}
