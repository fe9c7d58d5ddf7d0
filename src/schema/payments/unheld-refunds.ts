// The refund rule of settlement (docs/api.md, Payments): a payment is only ever for a booking
// that holds its slot. A booking that stopped holding it while its charge was on its way
// (cancelled meanwhile) is not confirmed: the charge is refunded at once, through the same
// processor, and the payment ends refunded with payment.refunded. For a visit, the shares of
// the items that stopped holding theirs go back and the rest of the payment stands.
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db } from '../../db/databases.js';
import type { BookingStatus, Payment } from '../../generated/prisma/client.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { deepFreeze } from '../../frozen.js';
import { recordEvent } from '../events/index.js';
import { paymentEventData, REFUNDABLE, refundCharge } from '../core/index.js';

export interface SettleDeps {
  db: Db;
  config: Config;
  logger: Logger;
}

// Statuses in which a booking still holds its slot, or was served: a payment for it stands.
const PAYABLE: ReadonlySet<BookingStatus> = deepFreeze(
  new Set<BookingStatus>(['pending', 'confirmed', 'completed', 'no_show']),
);

/** Whether a payment for a booking in this status stands (else its charge is owed back). */
export const paymentStandsFor = (status: BookingStatus): boolean => PAYABLE.has(status);

/** A live charge already made for a booking that no longer holds its slot: only its refund is owed. */
export const refundOwed = (mode: Mode, p: Payment): boolean =>
  mode === 'live' && p.outcome === 'succeeded' && p.processorRef !== null;

/**
 * Refunds a charge whose booking stopped holding its slot while it was processing, through
 * refundCharge (the refund endpoint's own core): at the processor, or in the sandbox only on
 * the row, where no money moved. A processor that cannot answer is thrown to the caller, whose
 * queue retries (the money is owed, so there is no bound); one that refuses for good leaves the
 * payment succeeded, for a person to refund, and says so in the log.
 */
export async function refundUnheldBooking(deps: SettleDeps, mode: Mode, paymentId: string): Promise<void> {
  const { db } = deps;
  const payment = await db.payment.findUniqueOrThrow({ where: { id: paymentId } });
  if (payment.status !== 'processing') return;
  const result = await refundCharge(db, { config: deps.config, mode, payment, from: ['processing'] });
  if (result.outcome === 'unanswered') throw result.error;
  if (result.outcome !== 'refused') return;
  deps.logger.error(
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

/**
 * Gives back the shares of a visit's items cancelled while its payment was processing, once the
 * payment has succeeded for the others. Tried once, as a cancel's refunds are: a processor that
 * does not answer leaves the payment succeeded, to be refunded with POST /payments/:id/refund,
 * and says so in the log. When earlier refunds left less of the payment than the shares add up
 * to, what is left is refunded (capped, never more than was paid), and the log says how much
 * of the shares that was.
 */
export async function refundUnheldItems(deps: SettleDeps, mode: Mode, paymentId: string, amount: number) {
  const { db, logger } = deps;
  const payment = await db.payment.findUniqueOrThrow({ where: { id: paymentId } });
  const result = await refundCharge(db, { config: deps.config, mode, payment, from: REFUNDABLE, amount, capped: true });
  if (result.outcome === 'refunded') {
    if (result.amount < amount)
      logger.warn(
        { mode, paymentId, owed: amount, refunded: result.amount },
        "earlier refunds left less of the visit's payment than its cancelled items' shares; what was left is refunded",
      );
    return;
  }
  // Refunded in full already: nothing is left to give back.
  if (result.outcome === 'moved' && result.payment.status === 'refunded') return;
  logger.error(
    { mode, paymentId, amount, outcome: result.outcome },
    "the share of a visit's cancelled items was not refunded; refund it by hand",
  );
}
