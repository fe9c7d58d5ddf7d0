// Generating a class schedule's sessions (docs/api.md, Class schedules): the occurrences of its
// rule at its local start time in its zone (recurrence/), each a class session linked
// to the schedule, up to a horizon (HORIZON_DAYS of domain time ahead).
//
// Runs inside the caller's transaction with the schedule's row locked (FOR UPDATE) and then the
// instructor's lock (staff/employee-lock.ts, as every write that puts an employee to work), so
// two workers, or a worker and a test-clock advance, extend one schedule one after the other,
// the second finding the horizon already reached. Under the instructor's lock the instructor's
// blocks, time off and closures are read as committed; an occurrence over one of them gets no
// session and is reported in the schedule's skippedOccurrences with the reason code of
// /availability/explain (BOOKED, TIME_OFF, CLOSURE, ...). The unique index on
// (schedule_id, start_time) is the database's guarantee that one occurrence never gets two
// sessions, and an occurrence that has a session in any state (one the business cancelled
// included) is not generated again.
//
// A schedule at a location expands in the location's zone (docs/api.md, Locations), and its
// sessions record the location. The resources a session holds (those its service requires and
// the schedule's resourceIds; a required kind at the schedule's location) are taken as a booking
// takes them (resources/resource-holds.ts, the `resource_holds_no_overlap` exclusion constraint
// having the last word), each occurrence in a savepoint: a busy or closed resource rolls that
// occurrence back and reports it with reason RESOURCE_BUSY, and the others go on.
import { inSavepoint, type Tx } from '../../db/databases.js';
import { DateTime } from 'luxon';
import type { ClassSchedule, Prisma } from '../../generated/prisma/client.js';
import { isAppError } from '../../errors.js';
import { newId } from '../../ids.js';
import { isExclusionViolation, isUniqueViolation } from '../db-errors.js';
import { expandRecurrence, parseRecurrence } from '../recurrence/index.js';
import { holdResources, needsResources, type ResourceNeeds } from '../resources/index.js';
import { lockEmployees } from '../staff/index.js';

/** How far ahead of domain time sessions exist (12 weeks). */
export const HORIZON_DAYS = 84;
const DAY = 86_400_000;
/** Skipped occurrences kept on a schedule (the latest). */
const MAX_SKIPPED = 200;

export const horizonOf = (now: Date) => new Date(now.getTime() + HORIZON_DAYS * DAY);

export type SkipReason = 'BOOKED' | 'TIME_OFF' | 'CLOSURE' | 'NOT_QUALIFIED' | 'SERVICE_INACTIVE' | 'RESOURCE_BUSY';

export interface SkippedOccurrence {
  startTime: string;
  reason: SkipReason;
  message: string;
}

const MESSAGES: Record<SkipReason, string> = {
  BOOKED: 'The instructor has an appointment or teaches another class at that time',
  TIME_OFF: 'The instructor is off at that time',
  CLOSURE: 'The business is closed at that time',
  NOT_QUALIFIED: 'The instructor is deactivated or no longer performs the service',
  SERVICE_INACTIVE: 'The class service is deactivated',
  RESOURCE_BUSY: 'A room or piece of equipment the class needs is busy or closed at that time',
};

/** What each session of a schedule holds: its service's requirements and the schedule's resources. */
export function sessionNeeds(service: ResourceNeeds, schedule: Pick<ClassSchedule, 'resourceIds'>): ResourceNeeds {
  return {
    requiredResourceIds: [...new Set([...service.requiredResourceIds, ...schedule.resourceIds])],
    requiredResourceKinds: service.requiredResourceKinds,
  };
}

export async function lockSchedule(tx: Tx, id: string): Promise<ClassSchedule | null> {
  await tx.$queryRaw`SELECT id FROM class_schedules WHERE id = ${id} FOR UPDATE`;
  return tx.classSchedule.findUnique({ where: { id } });
}

/** Where each occurrence of the schedule in [from, to) falls, in its zone (the location's or the company's). */
export function occurrencesOf(schedule: ClassSchedule, zone: string, from: Date, to: Date): Date[] {
  const rule = parseRecurrence(schedule.rrule);
  let end = to;
  if (schedule.endsOn) {
    // endsOn is inclusive: nothing from the start of the next local day.
    const dayAfter = DateTime.fromISO(schedule.endsOn, { zone }).plus({ days: 1 }).startOf('day').toJSDate();
    if (dayAfter < end) end = dayAfter;
  }
  if (end <= from) return [];
  return expandRecurrence(rule, {
    zone,
    start: { date: schedule.startsOn, time: schedule.localStartTime },
    from,
    to: end,
  }).occurrences.map((o) => o.startTime);
}

/**
 * Creates the sessions of `schedule` (locked by the caller) for its occurrences after `now` in
 * [from, until) that have none yet, and moves its horizon to `until` when `advance`. Returns the
 * sessions created and the occurrences skipped (also appended to the schedule's record).
 */
export async function generateSessions(
  tx: Tx,
  schedule: ClassSchedule,
  opts: { zone: string; now: Date; from: Date; until: Date; advance: boolean },
): Promise<{ created: number; skipped: SkippedOccurrence[] }> {
  const from = new Date(Math.max(opts.from.getTime(), opts.now.getTime() + 1));
  const starts = schedule.status === 'active' ? occurrencesOf(schedule, opts.zone, from, opts.until) : [];
  const skipped: SkippedOccurrence[] = [];
  let created = 0;
  if (starts.length > 0) {
    await lockEmployees(tx, schedule.companyId, [schedule.employeeId]);
    const [service, employee] = await Promise.all([
      tx.service.findUniqueOrThrow({ where: { id: schedule.serviceId } }),
      tx.employee.findUniqueOrThrow({
        where: { id: schedule.employeeId },
        include: { services: { where: { serviceId: schedule.serviceId }, select: { serviceId: true } } },
      }),
    ]);
    const duration = service.durationMinutes * 60_000;
    const first = starts[0]!;
    const last = new Date(starts[starts.length - 1]!.getTime() + duration);
    const [existing, blocks, timeOff, closures] = await Promise.all([
      tx.classSession.findMany({
        where: { scheduleId: schedule.id, startTime: { gte: first, lte: starts[starts.length - 1]! } },
        select: { startTime: true },
      }),
      tx.employeeBlock.findMany({
        where: { employeeId: schedule.employeeId, startTime: { lt: last }, endTime: { gt: first } },
        select: { startTime: true, endTime: true },
      }),
      tx.timeOff.findMany({
        where: { employeeId: schedule.employeeId, startTime: { lt: last }, endTime: { gt: first } },
        select: { startTime: true, endTime: true },
      }),
      tx.closure.findMany({
        where: {
          companyId: schedule.companyId,
          startTime: { lt: last },
          endTime: { gt: first },
          OR: [{ employeeIds: { isEmpty: true } }, { employeeIds: { has: schedule.employeeId } }],
        },
        select: { startTime: true, endTime: true },
      }),
    ]);
    const have = new Set(existing.map((s) => s.startTime.getTime()));
    const over = (list: Array<{ startTime: Date; endTime: Date }>, s: number, e: number) =>
      list.some((x) => x.startTime.getTime() < e && s < x.endTime.getTime());
    const rows: Prisma.ClassSessionCreateManyInput[] = [];
    for (const start of starts) {
      const s = start.getTime();
      const e = s + duration;
      if (have.has(s)) continue;
      const reason: SkipReason | null = !service.active
        ? 'SERVICE_INACTIVE'
        : !employee.active || employee.services.length === 0
          ? 'NOT_QUALIFIED'
          : over(closures, s, e)
            ? 'CLOSURE'
            : over(timeOff, s, e)
              ? 'TIME_OFF'
              : over(blocks, s, e)
                ? 'BOOKED'
                : null;
      if (reason) {
        skipped.push({ startTime: start.toISOString(), reason, message: MESSAGES[reason] });
        continue;
      }
      rows.push({
        id: newId(),
        companyId: schedule.companyId,
        serviceId: schedule.serviceId,
        employeeId: schedule.employeeId,
        scheduleId: schedule.id,
        locationId: schedule.locationId,
        resourceIds: schedule.resourceIds,
        startTime: start,
        endTime: new Date(e),
        capacity: schedule.capacity,
      });
    }
    const needs = sessionNeeds(service, schedule);
    if (!needsResources(needs)) {
      // Checked under the instructor's lock above; the exclusion constraint on employee_blocks and
      // the unique (schedule_id, start_time) index stay the last word.
      if (rows.length) created = (await tx.classSession.createMany({ data: rows, skipDuplicates: true })).count;
    } else {
      for (const row of rows) {
        const refused = await holdingSession(tx, row, { needs, zone: opts.zone });
        if (refused) skipped.push({ startTime: (row.startTime as Date).toISOString(), ...refused });
        else created++;
      }
      skipped.sort((a, b) => a.startTime.localeCompare(b.startTime));
    }
  }
  const data: Prisma.ClassScheduleUpdateInput = {};
  if (opts.advance && opts.until > schedule.generatedUntil) data.generatedUntil = opts.until;
  if (skipped.length) {
    const before = (schedule.skippedOccurrences as unknown as SkippedOccurrence[]) ?? [];
    const merged = new Map([...before, ...skipped].map((o) => [o.startTime, o] as const));
    data.skippedOccurrences = [...merged.values()]
      .sort((a, b) => a.startTime.localeCompare(b.startTime))
      .slice(-MAX_SKIPPED) as unknown as Prisma.InputJsonValue;
  }
  if (Object.keys(data).length) await tx.classSchedule.update({ where: { id: schedule.id }, data });
  return { created, skipped };
}

/**
 * One session and the holds on its resources, in a savepoint: null when made, else why not (the
 * resource refusal, or the instructor's block taken meanwhile), with nothing of it left behind.
 */
async function holdingSession(
  tx: Tx,
  row: Prisma.ClassSessionCreateManyInput,
  opts: { needs: ResourceNeeds; zone: string },
): Promise<{ reason: SkipReason; message: string } | null> {
  try {
    await inSavepoint(tx, async () => {
      const session = await tx.classSession.create({ data: row });
      await holdResources(tx, {
        companyId: session.companyId,
        zone: opts.zone,
        needs: opts.needs,
        owner: { classSessionId: session.id },
        start: session.startTime,
        end: session.endTime,
        blockStart: session.startTime,
        blockEnd: session.endTime,
        locationId: session.locationId,
      });
    });
    return null;
  } catch (err) {
    if (isAppError(err) && err.code === 'SLOT_UNAVAILABLE') {
      const reasons = (err.details as { reasons?: Array<{ message?: string }> } | undefined)?.reasons ?? [];
      return { reason: 'RESOURCE_BUSY', message: reasons[0]?.message ?? MESSAGES.RESOURCE_BUSY };
    }
    if (isExclusionViolation(err)) return { reason: 'BOOKED', message: MESSAGES.BOOKED };
    // Another session already on this occurrence (the unique index): nothing to add.
    if (isUniqueViolation(err)) return null;
    throw err;
  }
}
