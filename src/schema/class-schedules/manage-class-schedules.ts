// Class schedules (docs/api.md, Class schedules): create, change from now on, and stop a
// recurring timetable. Every input is checked before anything is written; each write is one
// transaction that takes the schedule's row and then the instructors' locks (the order the
// generator takes them), so it never interleaves with a worker or a test-clock advance
// extending the same schedule.
import { DateTime } from 'luxon';
import { z } from 'zod';
import type { Db, Tx } from '../../db/databases.js';
import type { ClassSchedule, Prisma } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { isId, newId } from '../../ids.js';
import { domainNow } from '../domain-time.js';
import { id } from '../domain-validation.js';
import { recordEvent } from '../events/index.js';
import { findEmployee, findService } from '../find-records.js';
import { firstOccurrence, parseLocalTime, parseRecurrence } from '../recurrence/index.js';
import { lockEmployees } from '../staff/index.js';
import { parseInput } from '../validation.js';
import { requiredResourceIdsInput } from '../resources/index.js';
import { generateSessions, horizonOf, lockSchedule, occurrencesOf } from './generate-sessions.js';
import { resolvePlace } from './schedule-place.js';

const capacity = z.number().int('must be an integer').min(1, 'must be at least 1').max(10_000, 'must be at most 10000');
const localTime = z.string().refine((s) => parseLocalTime(s) !== null, 'must be a local time HH:MM, e.g. 18:30');
const localDate = z
  .string()
  .refine(
    (s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && DateTime.fromISO(s).isValid && s >= '2000-01-01' && s <= '2099-12-31',
    'must be a local date YYYY-MM-DD between 2000-01-01 and 2099-12-31',
  );
const rrule = z.string().max(512, 'must be at most 512 characters');

const createInput = z
  .object({
    serviceId: id,
    employeeId: id,
    localStartTime: localTime,
    rrule,
    capacity,
    startsOn: localDate,
    endsOn: localDate.nullish(),
    /** Where the sessions take place (docs/api.md, Locations): its zone is then the schedule's. */
    locationId: id.nullish(),
    /** Resources every session holds, besides those the service requires. */
    resourceIds: requiredResourceIdsInput.nullish(),
  })
  .strict();
const updateInput = z
  .object({
    applyTo: z.literal('future', { error: 'must be "future": a change applies to the sessions still to come' }),
    employeeId: id.optional(),
    localStartTime: localTime.optional(),
    rrule: rrule.optional(),
    capacity: capacity.optional(),
    endsOn: localDate.nullish(),
    locationId: id.nullish(),
    resourceIds: requiredResourceIdsInput.nullish(),
  })
  .strict();

export interface UnchangedSession {
  classId: string;
  startTime: string;
  reason: 'HAS_BOOKINGS';
}

async function requireInstructor(db: Db, companyId: string, employeeId: string, serviceId: string) {
  const employee = await findEmployee(db, companyId, employeeId);
  if (!employee.active) throw AppError.validation([{ path: 'employeeId', message: 'is deactivated' }]);
  if (!employee.services.some((s) => s.serviceId === serviceId)) {
    throw AppError.validation([
      { path: 'employeeId', message: 'does not perform this service; add it to the service employeeIds first' },
    ]);
  }
}

/** Refuses a rule that yields nothing between startsOn and endsOn (400 naming rrule). */
function checkRule(
  zone: string,
  s: { rrule: string; localStartTime: string; startsOn: string; endsOn?: string | null },
) {
  const rule = parseRecurrence(s.rrule);
  const first = firstOccurrence(rule, { zone, start: { date: s.startsOn, time: s.localStartTime } });
  if (s.endsOn && first.localDate > s.endsOn) {
    throw AppError.validation([{ path: 'rrule', message: `yields no occurrence from startsOn to endsOn` }]);
  }
  return rule.rrule;
}

async function companyZone(db: Db | Tx, companyId: string): Promise<string> {
  const c = await db.company.findUniqueOrThrow({ where: { id: companyId }, select: { timezone: true } });
  return c.timezone;
}

export async function findClassSchedule(db: Db | Tx, companyId: string, scheduleId: unknown) {
  const s = isId(scheduleId) ? await db.classSchedule.findFirst({ where: { id: scheduleId, companyId } }) : null;
  if (!s) throw AppError.notFound('class schedule');
  return s;
}

/**
 * Creates a schedule and its sessions up to the horizon, in one transaction. Occurrences the
 * instructor cannot teach are reported in skippedOccurrences, not refused.
 */
export async function createClassSchedule(
  db: Db,
  opts: { companyId: string; input: unknown; now?: Date },
): Promise<ClassSchedule> {
  const data = parseInput(createInput, opts.input);
  const service = await findService(db, opts.companyId, data.serviceId);
  if (service.kind !== 'class') throw AppError.validation([{ path: 'serviceId', message: 'is not a class service' }]);
  if (!service.active) throw AppError.validation([{ path: 'serviceId', message: 'is deactivated' }]);
  await requireInstructor(db, opts.companyId, data.employeeId, service.id);
  if (data.endsOn && data.endsOn < data.startsOn) {
    throw AppError.validation([{ path: 'endsOn', message: 'must not be before startsOn' }]);
  }
  const place = await resolvePlace(db, {
    companyId: opts.companyId,
    companyZone: await companyZone(db, opts.companyId),
    locationId: data.locationId ?? null,
    resourceIds: data.resourceIds ?? [],
  });
  // A schedule at a location has its local times in the location's zone (docs/api.md, Locations).
  const zone = place.zone;
  const normalised = checkRule(zone, data);
  const now = opts.now ?? (await domainNow(db, opts.companyId));
  return db.$transaction(
    async (tx) => {
      const schedule = await tx.classSchedule.create({
        data: {
          id: newId(),
          companyId: opts.companyId,
          serviceId: service.id,
          employeeId: data.employeeId,
          locationId: place.locationId,
          resourceIds: place.resourceIds,
          localStartTime: data.localStartTime,
          rrule: normalised,
          capacity: data.capacity,
          startsOn: data.startsOn,
          endsOn: data.endsOn ?? null,
          generatedUntil: now,
        },
      });
      await lockSchedule(tx, schedule.id);
      await generateSessions(tx, schedule, { zone, now, from: now, until: horizonOf(now), advance: true });
      return tx.classSchedule.findUniqueOrThrow({ where: { id: schedule.id } });
    },
    { maxWait: 5_000, timeout: 30_000 },
  );
}

/** Future scheduled sessions of a schedule, each with whether it has bookings (any not cancelled or expired). */
async function futureSessions(tx: Tx, scheduleId: string, now: Date) {
  const sessions = await tx.classSession.findMany({
    where: { scheduleId, status: 'scheduled', startTime: { gt: now } },
    orderBy: { startTime: 'asc' },
  });
  const ids = sessions.map((s) => s.id);
  const booked = ids.length
    ? await tx.$queryRaw<Array<{ class_session_id: string }>>`
        SELECT DISTINCT class_session_id FROM bookings
        WHERE class_session_id = ANY(${ids}::text[]) AND status::text NOT IN ('cancelled', 'expired')`
    : [];
  const withBookings = new Set(booked.map((b) => b.class_session_id));
  return sessions.map((s) => ({ session: s, hasBookings: withBookings.has(s.id) }));
}

/** Cancels an empty session (class.cancelled); `detach` takes it out of the schedule. */
async function cancelEmptySession(tx: Tx, session: { id: string }, reason: string, detach: boolean) {
  const cancelled = await tx.classSession.update({
    where: { id: session.id },
    data: { status: 'cancelled', bookedCount: 0, ...(detach ? { scheduleId: null } : {}) },
  });
  await recordEvent(tx, {
    companyId: cancelled.companyId,
    type: 'class.cancelled',
    data: {
      classId: cancelled.id,
      serviceId: cancelled.serviceId,
      employeeId: cancelled.employeeId,
      startTime: cancelled.startTime.toISOString(),
      endTime: cancelled.endTime.toISOString(),
      capacity: cancelled.capacity,
      ...(cancelled.locationId ? { locationId: cancelled.locationId } : {}),
      reason,
      cancelledBookingIds: [],
    },
  });
}

const unchanged = (s: { id: string; startTime: Date }): UnchangedSession => ({
  classId: s.id,
  startTime: s.startTime.toISOString(),
  reason: 'HAS_BOOKINGS',
});

/**
 * Changes a schedule from now on (`applyTo: "future"`). Future sessions without bookings follow
 * the change: those still on an occurrence are updated in place (instructor, capacity), the
 * others cancelled and taken out of the schedule, and occurrences without a session generated
 * up to the horizon already reached. Sessions with bookings are left as they are and listed in
 * unchangedSessions.
 */
export async function updateClassSchedule(
  db: Db,
  opts: { companyId: string; scheduleId: string; input: unknown; now?: Date },
): Promise<ClassSchedule> {
  const current = await findClassSchedule(db, opts.companyId, opts.scheduleId);
  const patch = parseInput(updateInput, opts.input);
  if (patch.employeeId) await requireInstructor(db, opts.companyId, patch.employeeId, current.serviceId);
  const place = await resolvePlace(db, {
    companyId: opts.companyId,
    companyZone: await companyZone(db, opts.companyId),
    locationId: patch.locationId === undefined ? current.locationId : patch.locationId,
    resourceIds: patch.resourceIds === undefined ? current.resourceIds : (patch.resourceIds ?? []),
  });
  const zone = place.zone;
  // Sessions at another place (a new location or other resources) are made again below.
  const moved =
    place.locationId !== current.locationId ||
    place.resourceIds.length !== current.resourceIds.length ||
    place.resourceIds.some((r) => !current.resourceIds.includes(r));
  const next = {
    employeeId: patch.employeeId ?? current.employeeId,
    locationId: place.locationId,
    resourceIds: place.resourceIds,
    localStartTime: patch.localStartTime ?? current.localStartTime,
    rrule: patch.rrule ?? current.rrule,
    capacity: patch.capacity ?? current.capacity,
    startsOn: current.startsOn,
    endsOn: patch.endsOn === undefined ? current.endsOn : patch.endsOn,
  };
  if (next.endsOn && next.endsOn < next.startsOn) {
    throw AppError.validation([{ path: 'endsOn', message: 'must not be before startsOn' }]);
  }
  next.rrule = checkRule(zone, next);
  const now = opts.now ?? (await domainNow(db, opts.companyId));
  return db.$transaction(
    async (tx) => {
      const locked = (await lockSchedule(tx, current.id))!;
      if (locked.status !== 'active') throw new AppError('CONFLICT', 'A stopped class schedule cannot be changed');
      await lockEmployees(tx, opts.companyId, [locked.employeeId, next.employeeId]);
      const schedule = await tx.classSchedule.update({
        where: { id: locked.id },
        data: { ...next, skippedOccurrences: [], unchangedSessions: [] },
      });
      const wanted = new Set(occurrencesOf(schedule, zone, now, schedule.generatedUntil).map((d) => d.getTime()));
      const kept: UnchangedSession[] = [];
      for (const { session, hasBookings } of await futureSessions(tx, schedule.id, now)) {
        if (hasBookings) {
          kept.push(unchanged(session));
          continue;
        }
        if (!wanted.has(session.startTime.getTime())) {
          await cancelEmptySession(tx, session, 'schedule_changed', true);
          continue;
        }
        if (session.employeeId !== schedule.employeeId || moved) {
          // Another instructor, location or resources: the session is made again by the generator
          // below, which reports the occurrence if the instructor cannot teach it or a resource
          // is busy then.
          await cancelEmptySession(tx, session, 'schedule_changed', true);
          continue;
        }
        if (session.capacity !== schedule.capacity) {
          await tx.classSession.update({ where: { id: session.id }, data: { capacity: schedule.capacity } });
        }
      }
      await generateSessions(tx, schedule, {
        zone,
        now,
        from: now,
        until: schedule.generatedUntil,
        advance: false,
      });
      return tx.classSchedule.update({
        where: { id: schedule.id },
        data: { unchangedSessions: kept as unknown as Prisma.InputJsonValue },
      });
    },
    { maxWait: 5_000, timeout: 30_000 },
  );
}

/**
 * Stops a schedule: no more sessions are generated, and its future sessions without bookings
 * are cancelled (class.cancelled). Sessions with bookings stay, listed in unchangedSessions.
 */
export async function deleteClassSchedule(
  db: Db,
  opts: { companyId: string; scheduleId: string; now?: Date },
): Promise<ClassSchedule> {
  const current = await findClassSchedule(db, opts.companyId, opts.scheduleId);
  const now = opts.now ?? (await domainNow(db, opts.companyId));
  return db.$transaction(
    async (tx) => {
      const locked = (await lockSchedule(tx, current.id))!;
      if (locked.status !== 'active') {
        throw new AppError('INVALID_STATE_TRANSITION', 'This class schedule is already stopped', {
          details: { from: 'stopped', to: 'stopped' },
        });
      }
      await lockEmployees(tx, opts.companyId, [locked.employeeId]);
      const kept: UnchangedSession[] = [];
      for (const { session, hasBookings } of await futureSessions(tx, locked.id, now)) {
        if (hasBookings) kept.push(unchanged(session));
        else await cancelEmptySession(tx, session, 'schedule_stopped', false);
      }
      return tx.classSchedule.update({
        where: { id: locked.id },
        data: { status: 'stopped', unchangedSessions: kept as unknown as Prisma.InputJsonValue },
      });
    },
    { maxWait: 5_000, timeout: 30_000 },
  );
}
