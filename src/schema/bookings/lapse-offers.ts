// offered → expired (expiredReason offer_lapsed, booking.offer_expired; docs/api.md, Class
// waitlists): an offer not accepted by its offerExpiresAt lapses and its place passes to the
// next in line, in the same transaction (waitlist.ts). The workers run this with the payment
// holds' sweep (src/workers/expire-bookings.ts), each minute, for each database; a test clock's
// advance runs the same transition for its company (src/schema/test-clocks). "Due" is by the
// company's domain time, as for payment holds (expire-pending-bookings.ts).
import type { Db } from '../../db/databases.js';
import { AppError } from '../../errors.js';
import { retryOnDeadlock } from '../db-errors.js';
import { applyTransition } from './transition-booking.js';

export async function lapseOffers(db: Db, opts: { now?: Date; limit?: number } = {}): Promise<{ lapsed: string[] }> {
  const now = opts.now ?? new Date();
  const limit = opts.limit ?? 500;
  const due = await db.$queryRaw<Array<{ id: string; at: Date }>>`
    SELECT id, at FROM (
      (SELECT b.id, b.offer_expires_at, ${now}::timestamptz AS at
       FROM bookings b JOIN companies c ON c.id = b.company_id
       WHERE b.status = 'offered' AND b.offer_expires_at <= ${now} AND c.test_clock_id IS NULL
       ORDER BY b.offer_expires_at LIMIT ${limit})
      UNION ALL
      (SELECT b.id, b.offer_expires_at, tc.frozen_time AS at
       FROM test_clocks tc JOIN companies c ON c.test_clock_id = tc.id JOIN bookings b ON b.company_id = c.id
       WHERE b.status = 'offered' AND b.offer_expires_at <= tc.frozen_time
       ORDER BY b.offer_expires_at LIMIT ${limit})
    ) d
    ORDER BY offer_expires_at LIMIT ${limit}`;
  const lapsed: string[] = [];
  for (const { id, at } of due) {
    try {
      await retryOnDeadlock(() =>
        db.$transaction(async (tx) => {
          const booking = await tx.booking.findUniqueOrThrow({ where: { id } });
          await applyTransition(tx, booking, 'lapse', { now: at });
        }),
      );
      lapsed.push(id);
    } catch (err) {
      // Accepted or given back since we read it: nothing to lapse.
      if (err instanceof AppError && err.code === 'INVALID_STATE_TRANSITION') continue;
      throw err;
    }
  }
  return { lapsed };
}
