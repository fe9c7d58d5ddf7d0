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
//
// Where (docs/api.md, Class sessions and Locations): a session may name its location and
// `resourceIds`, resources it holds besides those its service requires, placed by the rule of a
// class schedule (class-schedules/schedule-place.ts: a resource at a site serves that site only)
// and held exactly as a schedule's sessions hold them (sessionNeeds, resources/resource-holds.ts:
// the `resource_holds_no_overlap` exclusion constraint has the last word, a lost race is 409
// SLOT_UNAVAILABLE with RESOURCE_BUSY). A PATCH of the location or the resources lets the holds go
// and takes them again in the same transaction (a required kind at the new site); a resource it
// keeps that is at another site than the new location is refused (400 naming locationId), never
// moved silently. Its times are instants, so a new site does not move them; its live bookings
// take the new location (booking.rescheduled with previousLocationId), and their e-mails its zone.
import { z } from 'zod';
import type { Db, Tx } from '../../db/databases.js';
import { AppError, isAppError } from '../../errors.js';
import { newId } from '../../ids.js';
import { recordBookingEvent, findClosureOver } from '../core/index.js';
import { cancelReminders, replanReminders } from '../notifications/index.js';
import { constraintName, domainTransaction, isCheckViolation, isExclusionViolation } from '../db-errors.js';
import { boundedInstant, checkRange, id } from '../domain-validation.js';
import { recordEvent } from '../events/index.js';
import { parseInput, text } from '../validation.js';
import { findClassSession, findEmployee, findService } from '../find-records.js';
import { lockEmployees } from '../staff/index.js';
import { domainNow } from '../domain-time.js';
import {
  holdResources,
  releaseHolds,
  needsResources,
  type ResourceNeeds,
  requiredResourceIdsInput,
} from '../resources/index.js';
import { fillFreedPlaces, lockClassSession } from '../bookings/index.js';
import { sessionNeeds, resolvePlace, type SchedulePlace } from '../class-schedules/index.js';

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
    /** Resources it holds besides those the service requires (as a class schedule's sessions). */
    resourceIds: requiredResourceIdsInput.nullish(),
  })
  .strict();
const updateInput = z
  .object({
    employeeId: id,
    startTime: boundedInstant,
    endTime: boundedInstant,
    capacity,
    /** Another location, or null: none. */
    locationId: id.nullable(),
    /** The resources it holds besides the service's, replacing the list; null or []: none. */
    resourceIds: requiredResourceIdsInput.nullable(),
  })
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
async function requireInstructorFree(tx: Tx, companyId: string, employeeId: string, start: Date, end: Date) {
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

/** Holds what a session at `place` needs, as a class schedule's session holds it (generate-sessions.ts). */
async function holdPlace(
  tx: Tx,
  o: {
    companyId: string;
    zone: string;
    service: ResourceNeeds;
    session: { id: string; startTime: Date; endTime: Date };
    place: Pick<SchedulePlace, 'locationId' | 'resourceIds'>;
  },
) {
  const needs = sessionNeeds(o.service, o.place);
  if (!needsResources(needs)) return;
  await holdResources(tx, {
    companyId: o.companyId,
    zone: o.zone,
    needs,
    owner: { classSessionId: o.session.id },
    start: o.session.startTime,
    end: o.session.endTime,
    blockStart: o.session.startTime,
    blockEnd: o.session.endTime,
    locationId: o.place.locationId,
  });
}

async function companyZone(db: Db, companyId: string): Promise<string> {
  return (await db.company.findUniqueOrThrow({ where: { id: companyId }, select: { timezone: true } })).timezone;
}

/** The session's place checked as a class schedule's is (404 naming the field, 400 `resourceIds.<i>`). */
const placeOf = (db: Db, companyId: string, zone: string, locationId: string | null, resourceIds: string[]) =>
  resolvePlace(db, { companyId, companyZone: zone, locationId, resourceIds, what: 'class', indexed: true });

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
  // Another company's location or resource is not found, as anything else of theirs.
  const zone = await companyZone(db, opts.companyId);
  const place = await placeOf(db, opts.companyId, zone, data.locationId ?? null, data.resourceIds ?? []);
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
          locationId: place.locationId,
          resourceIds: place.resourceIds,
        },
      });
      // The rooms and equipment the class service requires and those named, held for its times.
      await holdPlace(tx, { companyId: opts.companyId, zone, service, session, place });
      return session;
    });
  } catch (err) {
    if (isExclusionViolation(err) && constraintName(err) === 'resource_holds_no_overlap') throw resourceBusy(err);
    if (isExclusionViolation(err)) throw instructorBusy(data.employeeId, err);
    throw err;
  }
}

/**
 * The place a PATCH asks for. A resource the session keeps (resourceIds not in the PATCH) that is
 * at another site than the new location is refused naming locationId: the client moves it or names
 * other resources, rather than having it dropped or carried along silently.
 */
async function placeFor(
  db: Db,
  companyId: string,
  zone: string,
  locationId: string | null,
  resourceIds: string[],
  patch: { resourceIds?: string[] | null },
): Promise<SchedulePlace> {
  try {
    return await placeOf(db, companyId, zone, locationId, resourceIds);
  } catch (err) {
    if (patch.resourceIds === undefined && isAppError(err) && err.code === 'VALIDATION_ERROR')
      throw AppError.validation([
        {
          path: 'locationId',
          message: 'the class holds resources at another location; give resourceIds for the new one too',
        },
      ]);
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
  // A new location or other resources: checked as on create, and held again below.
  const locationId = patch.locationId === undefined ? session.locationId : patch.locationId;
  const resourceIds = patch.resourceIds === undefined ? session.resourceIds : (patch.resourceIds ?? []);
  const replaced =
    locationId !== session.locationId ||
    resourceIds.length !== session.resourceIds.length ||
    resourceIds.some((r) => !session.resourceIds.includes(r));
  const zone = await companyZone(db, opts.companyId);
  const place = replaced ? await placeFor(db, opts.companyId, zone, locationId, resourceIds, patch) : null;
  const service = replaced ? await findService(db, opts.companyId, session.serviceId) : null;
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
      const { locationId: _l, resourceIds: _r, ...fields } = patch;
      const updated = await tx.classSession.updateMany({
        where: { id: session.id, status: 'scheduled' },
        data: { ...fields, ...(place ? { locationId: place.locationId, resourceIds: place.resourceIds } : {}) },
      });
      if (updated.count === 0) throw new AppError('CONFLICT', 'A cancelled class session cannot be changed');
      if (place && service) {
        // Its holds let go and taken again at the new place (and times), in this transaction.
        await releaseHolds(tx, { classSessionId: session.id });
        await holdPlace(tx, {
          companyId: opts.companyId,
          zone,
          service,
          session: { id: session.id, startTime, endTime },
          place,
        });
      }
      const relocated = locationId !== session.locationId;
      if (moved || newInstructor || relocated) {
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
              // A booking of a session records where it takes place (docs/api.md, Locations).
              locationId,
              calendarSequence: { increment: 1 },
            },
          });
          await recordBookingEvent(tx, after, 'booking.rescheduled', {
            previousStartTime: b.startTime.toISOString(),
            previousEndTime: b.endTime.toISOString(),
            ...(b.employeeId !== employeeId ? { previousEmployeeId: b.employeeId } : {}),
            ...(b.locationId !== locationId ? { previousLocationId: b.locationId } : {}),
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
