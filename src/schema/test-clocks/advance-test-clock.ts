// Advancing a test clock (docs/sandbox.md, Test clocks): forward only, at most 90 days a call.
// Every time-based transition of the attached company that falls due between the clock's time
// and `to` runs here, in the order it falls due, each at the clock time it fell due: pending
// bookings whose hold passes expire (booking.expired), waitlist offers whose offerExpiresAt
// passes lapse (booking.offer_expired, the place offered to the next in line), reminders whose
// due time passes are sent (their e-mail in the sandbox log, or booking.reminder_due), and class
// schedules generate their sessions up to the horizon of the new time. All of it and the clock's new
// time commit together, so the call returns once they have run and a failure leaves the clock
// where it was. The events keep the real time as their createdAt (only domain time moves), and
// the outbox relay delivers them as it delivers every event.
//
// The clock's row is locked for the whole advance: two advances of one clock run one after the
// other, the second judged against the time the first left (so it is refused if that is past
// its `to`). The workers' sweeps judge the company by the clock's committed time, so they do not
// race an advance to the same transitions, and the transitions' own conditional updates keep
// each one to a single run whatever happens.
import { z } from 'zod';
import type { Config } from '../../config.js';
import type { Db, Tx } from '../../db/databases.js';
import type { TestClock } from '../../generated/prisma/client.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { AppError } from '../../errors.js';
import { applyTransition } from '../bookings/index.js';
import { extendCompanyClassSchedules } from '../class-schedules/index.js';
import { boundedInstant } from '../domain-validation.js';
import { toIsoTimestamp } from '../iso-timestamp.js';
import { sendDueReminder } from '../notifications/index.js';
import { parseInput } from '../validation.js';
import { findTestClock, requireSandbox } from './manage-test-clocks.js';

export const MAX_ADVANCE_DAYS = 90;
const MAX_ADVANCE_MS = MAX_ADVANCE_DAYS * 86_400_000;
/** An advance runs in one transaction; a sandbox's transitions of 90 days fit well within this. */
const ADVANCE_TIMEOUT_MS = 120_000;

const advanceInput = z.object({ to: boundedInstant }).strict();

export async function advanceTestClock(
  db: Db,
  opts: { companyId: string; mode: Mode; config: Config; clockId: string; input: unknown },
): Promise<TestClock> {
  requireSandbox(opts.mode);
  const { to } = parseInput(advanceInput, opts.input);
  const found = await findTestClock(db, opts);
  return db.$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT id FROM test_clocks WHERE id = ${found.id} FOR UPDATE`;
      const clock = await tx.testClock.findUniqueOrThrow({ where: { id: found.id } });
      const from = clock.frozenTime;
      if (to.getTime() < from.getTime())
        throw AppError.validation([
          {
            path: 'to',
            message: `must not be before the clock's time (${toIsoTimestamp(from)}); clocks move forward only`,
          },
        ]);
      if (to.getTime() - from.getTime() > MAX_ADVANCE_MS)
        throw AppError.validation([
          {
            path: 'to',
            message: `must be at most ${MAX_ADVANCE_DAYS} days after the clock's time (${toIsoTimestamp(from)})`,
          },
        ]);
      const attached = await tx.company.count({ where: { id: opts.companyId, testClockId: clock.id } });
      if (attached) {
        await runDueTransitions(tx, { companyId: opts.companyId, mode: opts.mode, config: opts.config, from, to });
        // Class schedules keep their sessions HORIZON_DAYS ahead of the clock's new time.
        await extendCompanyClassSchedules(tx, { companyId: opts.companyId, now: to });
      }
      return tx.testClock.update({ where: { id: clock.id }, data: { frozenTime: to } });
    },
    { timeout: ADVANCE_TIMEOUT_MS, maxWait: 10_000 },
  );
}

/**
 * Runs the company's transitions due by `to`, earliest first: each round takes the next instant
 * something falls due and runs everything due by then at that instant (expiries first, then
 * offers' lapses, then reminders, so a reminder of a booking that just expired is withdrawn, not sent).
 */
async function runDueTransitions(
  tx: Tx,
  o: { companyId: string; mode: Mode; config: Config; from: Date; to: Date },
): Promise<number> {
  let ran = 0;
  let at = o.from;
  for (;;) {
    const [next] = await tx.$queryRaw<Array<{ at: Date | null }>>`
      SELECT LEAST(
        (SELECT min(b.hold_expires_at) FROM bookings b
         WHERE b.company_id = ${o.companyId} AND b.status = 'pending' AND b.hold_expires_at <= ${o.to}
           AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.booking_id = b.id AND p.status = 'processing')
           AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.visit_id = b.visit_id AND p.status = 'processing')),
        (SELECT min(n.due_at) FROM notifications n
         WHERE n.company_id = ${o.companyId} AND n.status = 'scheduled' AND n.due_at <= ${o.to}),
        (SELECT min(b.offer_expires_at) FROM bookings b
         WHERE b.company_id = ${o.companyId} AND b.status = 'offered' AND b.offer_expires_at <= ${o.to})
      ) AS at`;
    if (!next?.at) return ran;
    // Something already overdue by the clock (the sweep had not reached it) runs at its time now.
    if (next.at.getTime() > at.getTime()) at = next.at;
    const before = ran;
    const expiring = await tx.booking.findMany({
      where: {
        companyId: o.companyId,
        status: 'pending',
        holdExpiresAt: { lte: at },
        payments: { none: { status: 'processing' } },
      },
      orderBy: [{ holdExpiresAt: 'asc' }, { id: 'asc' }],
    });
    for (const booking of expiring) {
      await applyTransition(tx, booking, 'expire', { now: at });
      ran++;
    }
    // Offers not accepted in time lapse; each place passes to the next in line at this instant
    // (whose new offer, if it ends by `to`, lapses in a later round).
    const lapsing = await tx.booking.findMany({
      where: { companyId: o.companyId, status: 'offered', offerExpiresAt: { lte: at } },
      orderBy: [{ offerExpiresAt: 'asc' }, { id: 'asc' }],
    });
    for (const booking of lapsing) {
      await applyTransition(tx, booking, 'lapse', { now: at });
      ran++;
    }
    const reminders = await tx.notification.findMany({
      where: { companyId: o.companyId, status: 'scheduled', dueAt: { lte: at } },
      orderBy: [{ dueAt: 'asc' }, { id: 'asc' }],
      select: { id: true, version: true },
    });
    for (const r of reminders) {
      await sendDueReminder(tx, { notificationId: r.id, version: r.version, mode: o.mode, config: o.config, now: at });
      ran++;
    }
    // Every round ends what it found; one that found nothing would find it again.
    if (ran === before) return ran;
  }
}
