// Class sessions (docs/api.md): one session of a class service with an instructor,
// times, a capacity and the places taken (bookedCount, kept by the booking use cases in the
// same statement that takes or gives back a place; a CHECK keeps it within 0..capacity).
//
// An instructor is never in two places: a scheduled session's times are one of the
// instructor's blocks in `employee_blocks` (kept by a trigger on class_sessions), and the
// `employee_blocks_no_overlap` exclusion constraint refuses a session that overlaps another
// session they teach or one of their live appointments (buffers included), whatever the
// concurrency: 409 SLOT_UNAVAILABLE. Time off and closures are refused too, read under the
// instructor's lock (staff/employee-lock.ts) so one committed concurrently is seen. Working hours are not required: they say when
// appointments may be booked, while a class is put on the timetable on purpose by the
// business, also at times it takes no appointments (an early-morning or weekend class).
import { z } from 'zod';
import type { Db } from '../../db/databases.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import { recordBookingEvent } from '../bookings/booking-events.js';
import { cancelReminders, replanReminders } from '../notifications/plan-reminders.js';
import { constraintName, domainTransaction, isCheckViolation, isExclusionViolation } from '../db-errors.js';
import { boundedInstant, checkRange, id } from '../domain-validation.js';
import { recordEvent } from '../events/events.js';
import { parseInput, text } from '../validation.js';
import { findClassSession, findEmployee, findService } from '../find-records.js';
import { findClosureOver } from '../closures/closure-over.js';
import { lockEmployees } from '../staff/employee-lock.js';
import { domainNow } from '../domain-time.js';
import { holdResources } from '../resources/resource-holds.js';
import { needsResources } from '../resources/resource-schedule.js';
import { fillFreedPlaces, lockClassSession } from '../bookings/waitlist.js';
import { requireLocations } from '../locations/index.js';

const capacity = z.number().int('must be an integer').min(1, 'must be at least 1').max(10_000, 'must be at most 10000');
const createInput = z
  .object({
    serviceId: id,
    employeeId: id,
    startTime: boundedInstant,
    endTime: boundedInstant.optional(),
    capacity,
    /** Where it takes place (docs/api.md, Locations): a required kind is held there only. */
    locationId: id.nullish(),
  })
  .strict();
const updateInput = z
  .object({ employeeId: id, startTime: boundedInstant, endTime: boundedInstant, capacity })
  .partial()
  .strict();

const MAX_SESSION_MS = 24 * 3600_000;

async function requireInstructor(db: Db, companyId: string, employeeId: string, serviceId: string) {
  const employee = await findEmployee(db, companyId, employeeId);
  if (!employee.active) throw AppError.validation([{ path: 'employeeId', message: 'is deactivated' }]);
  if (!employee.services.some((s) => s.serviceId === serviceId)) {
    throw AppError.validation([
      { path: 'employeeId', message: 'does not perform this service; add it to the service employeeIds first' },
    ]);
  }
  return employee;
}

const instructorBusy = (employeeId: string, cause?: unknown) =>
  new AppError('SLOT_UNAVAILABLE', 'The instructor has an appointment or teaches another class at that time', {
    cause,
    details: { employeeId },
  });

/**
 * Under the instructor's lock (staff/employee-lock.ts, as every write that changes an employee's
 * availability): refuses a session over their time off or over a closure that covers them, as
 * committed now. Bookings and other sessions are the exclusion constraint's to refuse.
 */
async function requireInstructorFree(
  tx: Prisma.TransactionClient,
  companyId: string,
  employeeId: string,
  start: Date,
  end: Date,
) {
  await lockEmployees(tx, companyId, [employeeId]);
  const off = await tx.timeOff.findFirst({
    where: { companyId, employeeId, startTime: { lt: end }, endTime: { gt: start } },
    select: { id: true },
  });
  if (off)
    throw new AppError('SLOT_UNAVAILABLE', 'The instructor is off at that time', {
      details: { employeeId, timeOffId: off.id },
    });
  const closure = await findClosureOver(tx, { companyId, employeeId, start, end });
  if (closure)
    throw new AppError('SLOT_UNAVAILABLE', 'The business is closed at that time', {
      details: {
        employeeId,
        closureId: closure.id,
        reasons: [{ code: 'CLOSURE', message: 'The business is closed at that time', employeeId }],
      },
    });
}

const resourceBusy = (cause: unknown) =>
  new AppError('SLOT_UNAVAILABLE', 'A room or piece of equipment the class requires is busy at that time', {
    cause,
    details: { reasons: [{ code: 'RESOURCE_BUSY', message: 'A resource the class requires is busy at that time' }] },
  });

export async function createClassSession(db: Db, opts: { companyId: string; input: unknown; now?: Date }) {
  const data = parseInput(createInput, opts.input);
  const service = await findService(db, opts.companyId, data.serviceId);
  if (service.kind !== 'class') throw AppError.validation([{ path: 'serviceId', message: 'is not a class service' }]);
  if (!service.active) throw AppError.validation([{ path: 'serviceId', message: 'is deactivated' }]);
  await requireInstructor(db, opts.companyId, data.employeeId, service.id);
  const endTime = data.endTime ?? new Date(data.startTime.getTime() + service.durationMinutes * 60_000);
  checkRange(data.startTime, endTime, { fromPath: 'startTime', toPath: 'endTime' });
  if (endTime.getTime() - data.startTime.getTime() > MAX_SESSION_MS)
    throw AppError.validation([{ path: 'endTime', message: 'must be at most 24 hours after startTime' }]);
  if (data.startTime.getTime() <= (opts.now ?? (await domainNow(db, opts.companyId))).getTime())
    throw AppError.validation([{ path: 'startTime', message: 'must be in the future' }]);
  // Another company's location is not found, as anything else of theirs.
  if (data.locationId) await requireLocations(db, opts.companyId, [data.locationId], 'locationId');
  try {
    return await domainTransaction(db, async (tx) => {
      await requireInstructorFree(tx, opts.companyId, data.employeeId, data.startTime, endTime);
      const session = await tx.classSession.create({
        data: {
          id: newId(),
          companyId: opts.companyId,
          serviceId: service.id,
          employeeId: data.employeeId,
          startTime: data.startTime,
          endTime,
          capacity: data.capacity,
          locationId: data.locationId ?? null,
        },
      });
      // The rooms and equipment the class service requires, held for the session's times.
      if (needsResources(service)) {
        const { timezone } = await tx.company.findUniqueOrThrow({ where: { id: opts.companyId } });
        await holdResources(tx, {
          companyId: opts.companyId,
          zone: timezone,
          needs: service,
          owner: { classSessionId: session.id },
          start: session.startTime,
          end: session.endTime,
          blockStart: session.startTime,
          blockEnd: session.endTime,
          locationId: session.locationId,
        });
      }
      return session;
    });
  } catch (err) {
    if (isExclusionViolation(err) && constraintName(err) === 'resource_holds_no_overlap') throw resourceBusy(err);
    if (isExclusionViolation(err)) throw instructorBusy(data.employeeId, err);
    throw err;
  }
}

/**
 * Changes a scheduled session. New times or a new instructor move its live bookings with it,
 * each with a booking.rescheduled event (previousStartTime/previousEndTime, and
 * previousEmployeeId when the instructor changed) in the same transaction; a capacity below
 * the places taken is refused by the CHECK. A session cannot be moved into the past.
 */
export async function updateClassSession(
  db: Db,
  opts: { companyId: string; classId: string; input: unknown; now?: Date },
) {
  const session = await findClassSession(db, opts.companyId, opts.classId);
  const patch = parseInput(updateInput, opts.input);
  if (session.status === 'cancelled') throw new AppError('CONFLICT', 'A cancelled class session cannot be changed');
  if (patch.employeeId) await requireInstructor(db, opts.companyId, patch.employeeId, session.serviceId);
  const startTime = patch.startTime ?? session.startTime;
  const endTime = patch.endTime ?? session.endTime;
  checkRange(startTime, endTime, { fromPath: 'startTime', toPath: 'endTime' });
  if (endTime.getTime() - startTime.getTime() > MAX_SESSION_MS)
    throw AppError.validation([{ path: 'endTime', message: 'must be at most 24 hours after startTime' }]);
  const moved = startTime.getTime() !== session.startTime.getTime() || endTime.getTime() !== session.endTime.getTime();
  const employeeId = patch.employeeId ?? session.employeeId;
  const newInstructor = employeeId !== session.employeeId;
  const now = opts.now ?? (await domainNow(db, opts.companyId));
  if (moved && startTime.getTime() <= now.getTime()) {
    throw AppError.validation([
      { path: patch.startTime ? 'startTime' : 'endTime', message: 'must leave the session starting in the future' },
    ]);
  }
  try {
    return await domainTransaction(db, async (tx) => {
      // The instructor's lock first (the order every availability write takes), then the row.
      if (moved || newInstructor) await requireInstructorFree(tx, opts.companyId, employeeId, startTime, endTime);
      // The session row's lock (waitlist.ts) before its bookings'.
      await lockClassSession(tx, session.id);
      const updated = await tx.classSession.updateMany({ where: { id: session.id, status: 'scheduled' }, data: patch });
      if (updated.count === 0) throw new AppError('CONFLICT', 'A cancelled class session cannot be changed');
      if (moved || newInstructor) {
        // Its waitlist moves with it: waiting and offered bookings are of the same session.
        const live = await tx.booking.findMany({
          where: { classSessionId: session.id, status: { in: ['pending', 'confirmed', 'waitlisted', 'offered'] } },
          orderBy: { id: 'asc' },
        });
        for (const b of live) {
          const after = await tx.booking.update({
            where: { id: b.id },
            // A moved session is a new revision of each booking's invitation (docs/calendars.md).
            data: {
              startTime,
              endTime,
              blockStart: startTime,
              blockEnd: endTime,
              employeeId,
              calendarSequence: { increment: 1 },
            },
          });
          await recordBookingEvent(tx, after, 'booking.rescheduled', {
            previousStartTime: b.startTime.toISOString(),
            previousEndTime: b.endTime.toISOString(),
            ...(b.employeeId !== employeeId ? { previousEmployeeId: b.employeeId } : {}),
            calendarSequence: after.calendarSequence,
          });
          if (after.startTime.getTime() !== b.startTime.getTime()) await replanReminders(tx, after, { now });
        }
      }
      // More places (or a move that leaves the waitlist's cut-off ahead): the line gets them now.
      await fillFreedPlaces(tx, session.id, now);
      return tx.classSession.findUniqueOrThrow({ where: { id: session.id } });
    });
  } catch (err) {
    if (isCheckViolation(err))
      throw AppError.validation([
        { path: 'capacity', message: 'must not be below the places already booked or offered' },
      ]);
    // The session's rooms and equipment move with it (a trigger): taken at the new time, refused.
    if (isExclusionViolation(err) && constraintName(err) === 'resource_holds_no_overlap') throw resourceBusy(err);
    if (isExclusionViolation(err)) throw instructorBusy(employeeId, err);
    throw err;
  }
}

const cancelInput = z.object({ reason: text(500).nullish() }).strict();

/**
 * Cancels a session and every live booking in it, in one transaction: class.cancelled for the
 * session and booking.cancelled for each booking. The session row is updated first, so a
 * concurrent booking (which must take a place on the same row) waits and then finds it
 * cancelled.
 */
export async function cancelClassSession(db: Db, opts: { companyId: string; classId: string; input?: unknown }) {
  const session = await findClassSession(db, opts.companyId, opts.classId);
  const { reason } = parseInput(cancelInput, opts.input ?? {});
  return db.$transaction(async (tx) => {
    const updated = await tx.classSession.updateMany({
      where: { id: session.id, status: 'scheduled' },
      data: { status: 'cancelled', bookedCount: 0, offeredCount: 0, waitlistCount: 0 },
    });
    if (updated.count === 0) {
      throw new AppError('INVALID_STATE_TRANSITION', 'This class session is already cancelled', {
        details: { from: 'cancelled', to: 'cancelled' },
      });
    }
    // Its waitlist goes with it: waiting and offered bookings are cancelled too.
    const live = await tx.booking.findMany({
      where: { classSessionId: session.id, status: { in: ['pending', 'confirmed', 'waitlisted', 'offered'] } },
      orderBy: { id: 'asc' },
    });
    const why = reason ?? 'class_cancelled';
    for (const b of live) {
      const after = await tx.booking.update({
        where: { id: b.id },
        data: {
          status: 'cancelled',
          cancelReason: why,
          holdExpiresAt: null,
          waitlistPosition: null,
          offerExpiresAt: null,
        },
      });
      await recordBookingEvent(tx, after, 'booking.cancelled', { reason: why, previousStatus: b.status });
      await cancelReminders(tx, b.id, 'booking_cancelled');
    }
    const cancelled = await tx.classSession.findUniqueOrThrow({ where: { id: session.id } });
    await recordEvent(tx, {
      companyId: opts.companyId,
      type: 'class.cancelled',
      data: {
        classId: cancelled.id,
        serviceId: cancelled.serviceId,
        employeeId: cancelled.employeeId,
        startTime: cancelled.startTime.toISOString(),
        endTime: cancelled.endTime.toISOString(),
        capacity: cancelled.capacity,
        ...(cancelled.locationId ? { locationId: cancelled.locationId } : {}),
        reason: reason ?? null,
        cancelledBookingIds: live.map((b) => b.id),
      },
    });
    return cancelled;
  });
}
