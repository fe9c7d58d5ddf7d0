// Class waitlists (docs/api.md, Class waitlists). A booking holds a place while pending or
// confirmed and reserves one while offered; the class session's counters say how many
// (bookedCount, offeredCount) and the `class_sessions_capacity` CHECK keeps
// bookedCount + offeredCount <= capacity whatever the concurrency. A waitlisted booking holds
// nothing; its waitlistPosition (1 = next) runs 1..waitlistCount without gaps.
//
// Fairness: every change to a session's places or line (a place taken, freed, offered or
// claimed; a name added to or leaving the line) first takes the session row's lock
// (lockClassSession), and a freed place is given to the line (fillFreedPlaces) in the same
// transaction that frees it. So the line moves one change at a time, and the first in line is
// always the one promoted or offered. Locks are taken in one order everywhere: an employee's
// lock (staff/employee-lock.ts), then the session row, then booking rows.
import type { Tx } from '../../db/databases.js';
import type { Booking, ClassSession } from '../../generated/prisma/client.js';
import { recordBookingEvent } from '../core/index.js';
import { planReminders } from '../notifications/index.js';
import { storedWaitlist, WAITLIST_DEFAULTS, type WaitlistConfig } from '../services/index.js';

/** How long an unpaid pending booking holds its slot (docs/api.md: expired after 15 minutes). */
export const HOLD_MINUTES = 15;

/** Takes the class session row's lock for the rest of the transaction and reads it as committed. */
export async function lockClassSession(tx: Tx, classSessionId: string): Promise<ClassSession> {
  await tx.$queryRaw`SELECT id FROM class_sessions WHERE id = ${classSessionId} FOR NO KEY UPDATE`;
  return tx.classSession.findUniqueOrThrow({ where: { id: classSessionId } });
}

/** Places neither held nor reserved. */
export const spotsLeft = (s: Pick<ClassSession, 'capacity' | 'bookedCount' | 'offeredCount'>) =>
  Math.max(0, s.capacity - s.bookedCount - s.offeredCount);

/** When promotions and offers stop: cutoffMinutes before the class starts. */
export const waitlistCutoff = (s: Pick<ClassSession, 'startTime'>, w: Pick<WaitlistConfig, 'cutoffMinutes'>) =>
  new Date(s.startTime.getTime() - w.cutoffMinutes * 60_000);

/**
 * A class booking stopped holding, reserving or waiting for a place (`from` was its state):
 * the session's counter goes down and, for a waitlisted one, everyone behind it moves up one.
 * Then, unless `refill` is false, a freed place goes to the line. The caller holds the session's
 * lock and has already changed the booking's own row.
 */
export async function releaseClassPlace(
  tx: Tx,
  b: Pick<Booking, 'classSessionId'>,
  from: Booking['status'],
  waitlistPosition: number | null,
  opts: { now: Date; refill?: boolean },
): Promise<void> {
  const sessionId = b.classSessionId;
  if (!sessionId) return;
  if (from === 'pending' || from === 'confirmed') {
    await tx.classSession.updateMany({
      where: { id: sessionId, status: 'scheduled', bookedCount: { gt: 0 } },
      data: { bookedCount: { decrement: 1 } },
    });
  } else if (from === 'offered') {
    await tx.classSession.updateMany({
      where: { id: sessionId, status: 'scheduled', offeredCount: { gt: 0 } },
      data: { offeredCount: { decrement: 1 } },
    });
  } else if (from === 'waitlisted' && waitlistPosition !== null) {
    await leaveLine(tx, sessionId, waitlistPosition);
    return; // nobody's place was freed
  } else return;
  if (opts.refill !== false) await fillFreedPlaces(tx, sessionId, opts.now);
}

/** The line closes the gap a booking at `position` left. */
async function leaveLine(tx: Tx, sessionId: string, position: number): Promise<void> {
  await tx.$executeRaw`
    UPDATE bookings SET waitlist_position = waitlist_position - 1, updated_at = now()
    WHERE class_session_id = ${sessionId} AND status = 'waitlisted' AND waitlist_position > ${position}`;
  await tx.classSession.updateMany({
    where: { id: sessionId, waitlistCount: { gt: 0 } },
    data: { waitlistCount: { decrement: 1 } },
  });
}

/**
 * Gives the session's free places to its line, first in line first, while places are free,
 * someone waits, the session is scheduled and the waitlist's cut-off has not passed: `auto`
 * makes each one confirmed (pending with a payment hold when the service is paid for up front)
 * with booking.created { fromWaitlist: true }; `offer` reserves the place for them until
 * offerExpiresAt with booking.offered. The caller holds the session's lock. Returns the bookings
 * promoted or offered, in order.
 */
export async function fillFreedPlaces(tx: Tx, sessionId: string, now: Date): Promise<Booking[]> {
  const session = await tx.classSession.findUniqueOrThrow({
    where: { id: sessionId },
    include: { service: { select: { waitlist: true, requiresPayment: true } } },
  });
  if (session.status !== 'scheduled' || session.waitlistCount === 0) return [];
  // A waitlist switched off (or removed) after people joined it still serves them.
  const w = storedWaitlist(session.service.waitlist) ?? { ...WAITLIST_DEFAULTS, enabled: false };
  if (now.getTime() >= waitlistCutoff(session, w).getTime()) return [];
  const promoted: Booking[] = [];
  let free = spotsLeft(session);
  while (free > 0) {
    const next = await tx.booking.findFirst({
      where: { classSessionId: sessionId, status: 'waitlisted' },
      orderBy: { waitlistPosition: 'asc' },
    });
    if (!next) break;
    promoted.push(await promote(tx, next, { mode: w.offerMode, offerMinutes: w.offerMinutes, session, now }));
    await leaveLine(tx, sessionId, next.waitlistPosition!);
    free--;
  }
  return promoted;
}

async function promote(
  tx: Tx,
  b: Booking,
  o: {
    mode: WaitlistConfig['offerMode'];
    offerMinutes: number;
    session: ClassSession & { service: { requiresPayment: boolean } };
    now: Date;
  },
): Promise<Booking> {
  if (o.mode === 'offer') {
    // An offer lasts offerMinutes, never past the class's start.
    const until = Math.min(o.now.getTime() + o.offerMinutes * 60_000, o.session.startTime.getTime());
    const after = await tx.booking.update({
      where: { id: b.id },
      data: { status: 'offered', waitlistPosition: null, offerExpiresAt: new Date(until) },
    });
    await tx.classSession.update({ where: { id: o.session.id }, data: { offeredCount: { increment: 1 } } });
    await recordBookingEvent(tx, after, 'booking.offered', { offerExpiresAt: after.offerExpiresAt!.toISOString() });
    return after;
  }
  const after = await tx.booking.update({
    where: { id: b.id },
    data: { waitlistPosition: null, ...placeHeld(o.session.service.requiresPayment, o.now) },
  });
  await tx.classSession.update({ where: { id: o.session.id }, data: { bookedCount: { increment: 1 } } });
  await firstHoldsPlace(tx, after, o.now);
  return after;
}

/** The state a booking that now holds a place takes: pending with a hold when paid up front. */
export function placeHeld(requiresPayment: boolean, now: Date) {
  return requiresPayment
    ? ({ status: 'pending', holdExpiresAt: new Date(now.getTime() + HOLD_MINUTES * 60_000) } as const)
    : ({ status: 'confirmed', holdExpiresAt: null } as const);
}

/** A waitlisted or offered booking first holds a place: booking.created { fromWaitlist } and its reminders. */
export async function firstHoldsPlace(tx: Tx, after: Booking, now: Date): Promise<void> {
  await recordBookingEvent(tx, after, 'booking.created', { fromWaitlist: true });
  await planReminders(tx, after, { now });
}
