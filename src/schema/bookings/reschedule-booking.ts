// confirmed → confirmed by POST /bookings/:id/reschedule { startTime, employeeId?, rescheduledBy? } (docs/api.md):
// the same booking at new times. Without employeeId the current employee is kept when free,
// else another free qualified employee is picked. The new employee's schedule is checked again
// under their lock inside the transaction, and the exclusion constraint guards the new times
// exactly as it guards a new booking. The rooms and equipment the service requires move with it
// (released and held again at the new time in the same transaction; RESOURCE_BUSY if they cannot).
// A single booking records where the employee works at the new time (its location may change);
// an occurrence of a booking series stays at the series' location (docs/api.md, Booking series):
// only the employees' intervals there count, as when the series was booked, and a time when
// nobody works there is 409 SLOT_UNAVAILABLE with the reasons of /availability/explain?locationId=.
import { z } from 'zod';
import type { Db } from '../../db/databases.js';
import type { Booking, Company } from '../../generated/prisma/client.js';
import { AppError, isAppError } from '../../errors.js';
import { recordBookingEvent } from '../core/index.js';
import { replanReminders } from '../notifications/index.js';
import { domainTransaction, isExclusionViolation } from '../db-errors.js';
import { assertBeforeCutoff, cutoffDeadline, effectiveBookingRules } from '../booking-rules.js';
import { boundedInstant, id } from '../domain-validation.js';
import { parseInput } from '../validation.js';
import { checkEmployeeLocked, freeEmployees, refusalMessage, slotUnavailable } from './create-booking.js';
import { holdResources, releaseHolds } from '../resources/index.js';
import { type Reason, policyFor } from '../availability/index.js';
import { findBooking, findService } from '../find-records.js';
import { invalidTransition } from './transition-booking.js';
import { domainNow } from '../domain-time.js';

const input = z
  .object({
    startTime: boundedInstant,
    employeeId: id.nullish(),
    rescheduledBy: z.enum(['business', 'customer'], { error: 'must be business or customer' }).nullish(),
    /** A business's move: minimum notice, maximum advance, slot interval and daily limit waived. */
    skipRules: z.boolean({ error: 'must be true or false' }).nullish(),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.skipRules && v.rescheduledBy === 'customer')
      ctx.addIssue({
        code: 'custom',
        path: ['skipRules'],
        message: 'is for a business, not with rescheduledBy customer',
      });
  });

export async function rescheduleBooking(
  db: Db,
  opts: { company: Company; bookingId: string; input: unknown; now?: Date },
): Promise<Booking> {
  const booking = await findBooking(db, opts.company.id, opts.bookingId);
  const data = parseInput(input, opts.input);
  if (booking.status !== 'confirmed')
    throw invalidTransition(
      booking.status,
      'confirmed',
      `Only a confirmed booking can be rescheduled; this one is ${booking.status}`,
    );
  if (booking.classSessionId) {
    throw new AppError('VALIDATION_ERROR', 'A class booking follows its session; cancel it and book another session', {
      details: [{ path: 'startTime', message: 'cannot be changed for a class booking' }],
    });
  }
  const now = opts.now ?? (await domainNow(db, opts.company));
  const rescheduledBy = data.rescheduledBy ?? 'business';
  const service = await findService(db, opts.company.id, booking.serviceId);
  // A customer moves a booking only until the reschedule cut-off before its current start
  // (docs/api.md, Booking rules); a business is not bound by it.
  if (rescheduledBy === 'customer') {
    const rules = effectiveBookingRules(opts.company.bookingRules, service.bookingRules);
    assertBeforeCutoff('reschedule', cutoffDeadline(booking.startTime, rules.rescheduleCutoffMinutes), now);
  }
  const start = data.startTime.getTime();
  if (start <= now.getTime()) throw AppError.validation([{ path: 'startTime', message: 'must be in the future' }]);
  const end = start + service.durationMinutes * 60_000;
  // The booking rules apply to the new time as to a new booking (its own booking left out of
  // the daily count); a business may waive them with skipRules.
  const policy = policyFor(opts.company, service, now.getTime(), data.skipRules ?? false);
  // An occurrence of a series is held to the series' location (none: anywhere, as before).
  const locationId = booking.seriesId ? await seriesLocation(db, booking.seriesId) : undefined;
  const candidates = await freeEmployees(db, {
    company: opts.company,
    service,
    employeeId: data.employeeId ?? undefined,
    start,
    policy,
    ignoreBookingId: booking.id,
    prefer: booking.employeeId,
    locationId,
  });
  const reasons: Reason[] = [];
  for (const employeeId of candidates) {
    try {
      return await domainTransaction(db, async (tx) => {
        // Under the new employee's lock, against their schedule as committed now (at the
        // series' location, for an occurrence of one).
        const at = await checkEmployeeLocked(tx, {
          company: opts.company,
          service,
          employeeId,
          start,
          policy,
          ignoreBookingId: booking.id,
          locationId,
        });
        // The booking's rooms and equipment are let go and taken again at the new time below
        // (for a required kind, possibly another resource of it).
        await releaseHolds(tx, { bookingId: booking.id });
        const changed = await tx.booking.updateMany({
          where: { id: booking.id, status: 'confirmed' },
          data: {
            employeeId,
            startTime: new Date(start),
            endTime: new Date(end),
            blockStart: new Date(start - service.bufferBeforeMinutes * 60_000),
            blockEnd: new Date(end + service.bufferAfterMinutes * 60_000),
            // The invitation's SEQUENCE (RFC 5546 §2.1.4): a moved event is a new revision.
            calendarSequence: { increment: 1 },
            // Where the employee works at the new time (docs/api.md, Locations).
            locationId: at,
          },
        });
        if (changed.count === 0) {
          const current = await tx.booking.findUniqueOrThrow({ where: { id: booking.id } });
          throw invalidTransition(current.status, 'confirmed');
        }
        const after = await tx.booking.findUniqueOrThrow({ where: { id: booking.id } });
        await holdResources(tx, {
          companyId: opts.company.id,
          zone: opts.company.timezone,
          needs: service,
          owner: { bookingId: booking.id },
          start: after.startTime,
          end: after.endTime,
          blockStart: after.blockStart,
          blockEnd: after.blockEnd,
          locationId: at,
        });
        await recordBookingEvent(tx, after, 'booking.rescheduled', {
          previousStartTime: booking.startTime.toISOString(),
          previousEndTime: booking.endTime.toISOString(),
          ...(booking.employeeId !== employeeId ? { previousEmployeeId: booking.employeeId } : {}),
          rescheduledBy,
          // The revision this move's invitation carries, kept with the event: its e-mail is
          // composed later and the booking may have moved again by then.
          calendarSequence: after.calendarSequence,
        });
        // The reminders of the old time withdrawn, those of the new one planned, in this transaction.
        await replanReminders(tx, after, { now });
        return after;
      });
    } catch (err) {
      if (isExclusionViolation(err)) continue;
      if (isAppError(err) && err.code === 'SLOT_UNAVAILABLE') {
        const why = (err.details as { reasons?: Reason[] } | undefined)?.reasons ?? [];
        reasons.push(...why);
        if (why.some((r) => r.code === 'RESOURCE_BUSY')) break;
        continue;
      }
      throw err;
    }
  }
  throw slotUnavailable(refusalMessage(reasons, true), reasons);
}

/** The location a series' occurrences are held to; undefined when it names none. */
async function seriesLocation(db: Db, seriesId: string): Promise<string | undefined> {
  const series = await db.bookingSeries.findUnique({ where: { id: seriesId }, select: { locationId: true } });
  return series?.locationId ?? undefined;
}
