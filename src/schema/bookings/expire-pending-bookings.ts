// pending → expired (docs/api.md): an unpaid pending booking gives its slot back once its hold
// (holdExpiresAt, 15 minutes after creation) has passed. The workers run this on a schedule
// for each database (live and sandbox); each booking expires in its own transaction with its
// booking.expired event, and a booking confirmed meanwhile is left alone (conditional UPDATE).
// A booking whose payment (or its visit's) is processing keeps its hold until the payment settles (checked again
// under the booking's lock in applyTransition): a charge is never made for an expired booking.
// Left out of the query too, so a slow processor cannot fill every batch with bookings it skips.
//
// "Passed" is by the company's domain time (docs/sandbox.md, Test clocks): the real time, or
// for a sandbox company attached to a test clock the clock's time, so a frozen clock keeps its
// company's holds however long the wall clock runs (advancing the clock expires them, in order).
import type { Db } from '../../db/databases.js';
import { AppError } from '../../errors.js';
import { retryOnDeadlock } from '../db-errors.js';
import { applyTransition } from './transition-booking.js';

export async function expirePendingBookings(
  db: Db,
  opts: { now?: Date; limit?: number } = {},
): Promise<{ expired: string[] }> {
  const now = opts.now ?? new Date();
  const limit = opts.limit ?? 500;
  // Two halves, each on its own index: companies on the real time, and those on a test clock
  // (each judged at its clock's time).
  const due = await db.$queryRaw<Array<{ id: string; at: Date }>>`
    SELECT id, at FROM (
      (SELECT b.id, b.hold_expires_at, ${now}::timestamptz AS at
       FROM bookings b JOIN companies c ON c.id = b.company_id
       WHERE b.status = 'pending' AND b.hold_expires_at <= ${now} AND c.test_clock_id IS NULL
         AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.booking_id = b.id AND p.status = 'processing')
         AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.visit_id = b.visit_id AND p.status = 'processing')
       ORDER BY b.hold_expires_at LIMIT ${limit})
      UNION ALL
      (SELECT b.id, b.hold_expires_at, tc.frozen_time AS at
       FROM test_clocks tc JOIN companies c ON c.test_clock_id = tc.id JOIN bookings b ON b.company_id = c.id
       WHERE b.status = 'pending' AND b.hold_expires_at <= tc.frozen_time
         AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.booking_id = b.id AND p.status = 'processing')
         AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.visit_id = b.visit_id AND p.status = 'processing')
       ORDER BY b.hold_expires_at LIMIT ${limit})
    ) d
    ORDER BY hold_expires_at LIMIT ${limit}`;
  const expired: string[] = [];
  for (const { id, at } of due) {
    try {
      // A class booking's freed place goes to the waitlist in the same transaction, under the
      // session's lock (waitlist.ts); a deadlock victim among concurrent class writes runs again.
      await retryOnDeadlock(() =>
        db.$transaction(async (tx) => {
          const booking = await tx.booking.findUniqueOrThrow({ where: { id } });
          await applyTransition(tx, booking, 'expire', { now: at });
        }),
      );
      expired.push(id);
    } catch (err) {
      // Confirmed or cancelled since we read it, or a payment started: nothing to expire.
      if (err instanceof AppError && err.code === 'INVALID_STATE_TRANSITION') continue;
      throw err;
    }
  }
  return { expired };
}
