// Several bookings cancelled as one (a visit's items, a series' remaining occurrences; docs/api.md,
// Visits and Booking series): every one of them that holds its place, in one transaction, each
// on its own terms as POST /bookings/:id/cancel computes them (cut-off and fee for a customer,
// a full refund for a business), under the rows' locks taken in id order; one past a customer's
// cut-off refuses them all. The others (already cancelled, expired, served) are left as they
// are; none to cancel is INVALID_STATE_TRANSITION. The refunds follow the commit.
import { z } from 'zod';
import type { Config } from '../../config.js';
import type { Db } from '../../db/databases.js';
import type { Booking, CancelledBy, Company, Payment } from '../../generated/prisma/client.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { assertBeforeCutoff } from '../booking-rules.js';
import { domainTransaction } from '../db-errors.js';
import { parseInput, text } from '../validation.js';
import { loadCancellationTerms } from './cancellation-terms.js';
import { refundCancelled, type CancelResult } from './cancel-booking.js';
import { applyTransition, invalidTransition } from './transition-booking.js';
import { deepFreeze } from '../../frozen.js';

const party = z.enum(['business', 'customer'], { error: 'must be business or customer' });

/** The body of a cancel of several bookings: that of POST /bookings/:id/cancel. */
export const cancelTogetherInput = z
  .object({ reason: text(500).nullish(), cancelledBy: party.nullish(), waiveFee: z.boolean().nullish() })
  .strict();

const HOLDING = deepFreeze(new Set<Booking['status']>(['pending', 'confirmed']));

export async function cancelBookingsTogether(
  db: Db,
  opts: {
    company: Company;
    mode: Mode;
    config: Config;
    bookingIds: string[];
    input: z.output<typeof cancelTogetherInput>;
    now: Date;
  },
): Promise<CancelResult['refunds']> {
  const input = parseInput(cancelTogetherInput, opts.input);
  const cancelledBy: CancelledBy = input.cancelledBy ?? 'business';
  const now = opts.now;
  const done = await domainTransaction(db, async (tx) => {
    const ids = [...opts.bookingIds].sort();
    await tx.$queryRaw`SELECT id FROM bookings WHERE id = ANY(${ids}::text[]) ORDER BY id FOR UPDATE`;
    const current = await tx.booking.findMany({ where: { id: { in: ids } }, orderBy: [{ startTime: 'asc' }] });
    const live = current.filter((b) => HOLDING.has(b.status));
    if (live.length === 0)
      throw invalidTransition(
        current[0]?.status ?? 'cancelled',
        'cancelled',
        'None of these bookings is pending or confirmed',
      );
    const owed: Array<{ payments: Payment[]; amount: number }> = [];
    for (const b of live) {
      const { terms, payments } = await loadCancellationTerms(tx, {
        company: opts.company,
        booking: b,
        cancelledBy,
        waiveFee: input.waiveFee ?? false,
        now,
      });
      if (terms.refusal === 'state') throw invalidTransition(b.status, 'cancelled');
      if (terms.refusal === 'cutoff') assertBeforeCutoff('cancel', terms.deadline!, now);
      await applyTransition(tx, b, 'cancel', {
        reason: input.reason ?? null,
        now,
        cancellation: { cancelledBy, fee: terms.fee, refundAmount: terms.refundAmount },
      });
      owed.push({ payments, amount: terms.refundAmount });
    }
    return owed;
  });
  const refunds: CancelResult['refunds'] = [];
  for (const o of done)
    refunds.push(
      ...(await refundCancelled(db, { config: opts.config, mode: opts.mode, payments: o.payments, amount: o.amount })),
    );
  return refunds;
}
