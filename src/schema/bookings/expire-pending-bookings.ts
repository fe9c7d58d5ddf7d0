// pending → expired (docs/api.md): an unpaid pending booking gives its slot back once its hold
// (holdExpiresAt, 15 minutes after creation) has passed. The workers run this on a schedule
// for each database (live and sandbox); each booking expires in its own transaction with its
// booking.expired event, and a booking confirmed meanwhile is left alone (conditional UPDATE).
// A booking whose payment is processing keeps its hold until the payment settles (checked again
// under the booking's lock in applyTransition): a charge is never made for an expired booking.
// Left out of the query too, so a slow processor cannot fill every batch with bookings it skips.
import type { Db } from '../../db/databases.js';
import { AppError } from '../../errors.js';
import { applyTransition } from './transition-booking.js';

export async function expirePendingBookings(
  db: Db,
  opts: { now?: Date; limit?: number } = {},
): Promise<{ expired: string[] }> {
  const now = opts.now ?? new Date();
  const due = await db.booking.findMany({
    where: { status: 'pending', holdExpiresAt: { lte: now }, payments: { none: { status: 'processing' } } },
    orderBy: { holdExpiresAt: 'asc' },
    take: opts.limit ?? 500,
  });
  const expired: string[] = [];
  for (const booking of due) {
    try {
      await db.$transaction((tx) => applyTransition(tx, booking, 'expire', { now }));
      expired.push(booking.id);
    } catch (err) {
      // Confirmed or cancelled since we read it, or a payment started: nothing to expire.
      if (err instanceof AppError && err.code === 'INVALID_STATE_TRANSITION') continue;
      throw err;
    }
  }
  return { expired };
}
