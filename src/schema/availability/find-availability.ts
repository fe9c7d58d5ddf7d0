// GET /availability (docs/api.md): for an appointment service, the free slots between `from`
// and `to` with the employees free for each; for a class service, its scheduled sessions with
// the places left. Never in the past; at most 31 days per call. Which starts are free: the one rule of
// src/schema/availability/refusals.ts, with the service's booking rules.
import { z } from 'zod';
import type { Db } from '../../db/databases.js';
import type { Company } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { boundedInstant, checkRange, id } from '../domain-validation.js';
import { freeSlots, loadSchedules, type Slot } from './schedule.js';
import { parseInput } from '../validation.js';
import { findService } from '../find-records.js';
import { policyFor } from './explain-availability.js';
import { domainNow } from '../domain-time.js';
import { findVisitAvailability } from './visit-availability.js';
import { loadResourceSchedule, needsResources } from '../resources/index.js';
import { requireLocations } from '../locations/index.js';
import {
  availabilityCacheEnabled,
  cachedSlots,
  cutEntry,
  keepSlots,
  readVersions,
  withoutClock,
} from './availability-cache.js';

export const MAX_AVAILABILITY_DAYS = 31;

const input = z
  .object({
    serviceId: id.nullish(),
    /** A multi-service visit's services in order (docs/api.md, Visits): starts where all fit back to back. */
    serviceIds: z.array(id).min(1, 'must name at least one service').nullish(),
    from: boundedInstant,
    to: boundedInstant,
    employeeId: id.nullish(),
    /** Only working intervals (and resources of a required kind) at this location (docs/api.md, Locations). */
    locationId: id.nullish(),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (!v.serviceId === !v.serviceIds)
      ctx.addIssue({ code: 'custom', path: ['serviceId'], message: 'give exactly one of serviceId or serviceIds' });
  });

export interface SessionAvailability {
  classId: string;
  startTime: Date;
  endTime: Date;
  employeeId: string;
  capacity: number;
  spotsLeft: number;
}

export type Availability =
  { kind: 'appointment'; slots: readonly Slot[] } | { kind: 'class'; sessions: SessionAvailability[] };

export async function findAvailability(
  db: Db,
  opts: { company: Company; input: unknown; now?: Date },
): Promise<Availability> {
  const data = parseInput(input, opts.input);
  checkRange(data.from, data.to, { fromPath: 'from', toPath: 'to', maxDays: MAX_AVAILABILITY_DAYS });
  const companyId = opts.company.id;
  const now = (opts.now ?? (await domainNow(db, opts.company))).getTime();
  const from = Math.max(data.from.getTime(), now);
  const to = data.to.getTime();
  // Another company's location is not found, as anything else of theirs (404 naming locationId).
  if (data.locationId) await requireLocations(db, companyId, [data.locationId], 'locationId');
  const locationId = data.locationId ?? undefined;
  if (data.serviceIds) {
    const slots = await findVisitAvailability(db, {
      company: opts.company,
      serviceIds: data.serviceIds,
      employeeId: data.employeeId,
      from,
      to,
      now,
    });
    return { kind: 'appointment', slots };
  }
  // A month asked again unchanged is answered from the process's cache (availability-cache.ts):
  // the key holds everything of the request and of the company the answer depends on.
  const cacheKey = JSON.stringify([
    companyId,
    opts.company.timezone,
    opts.company.bookingRules,
    data.serviceId,
    data.employeeId ?? null,
    locationId ?? null,
    data.from.getTime(),
    to,
  ]);
  const cached = await cachedSlots(db, cacheKey);
  if (cached) return { kind: 'appointment', slots: cutEntry(cached, { now, rules: cached.rules }, from) };
  // Read before the service: an answer is kept only when neither changed until its version was read.
  const before = availabilityCacheEnabled(db) ? await readVersions(db, [companyId, data.serviceId!], 2) : null;
  const service = await findService(db, companyId, data.serviceId);
  const qualified = service.employees.map((e) => e.employeeId);
  if (data.employeeId && !qualified.includes(data.employeeId)) {
    // An employee of another company is not found; one of ours who does not do it, a 400.
    const mine = await db.employee.count({ where: { id: data.employeeId, companyId } });
    if (!mine) throw AppError.notFound('employee');
    throw AppError.validation([{ path: 'employeeId', message: 'does not perform this service' }]);
  }
  if (service.kind === 'class') {
    if (from >= to || !service.active) return { kind: 'class', sessions: [] };
    const sessions = await db.classSession.findMany({
      where: {
        companyId,
        serviceId: service.id,
        status: 'scheduled',
        startTime: { gt: new Date(from), lt: new Date(to) },
        ...(data.employeeId ? { employeeId: data.employeeId } : {}),
        // Sessions at that location only (docs/api.md, Locations).
        ...(locationId ? { locationId } : {}),
      },
      orderBy: [{ startTime: 'asc' }, { id: 'asc' }],
    });
    // A session inside a closure of its instructor takes no bookings (create-booking.ts).
    const closures = sessions.length
      ? await db.closure.findMany({
          where: {
            companyId,
            startTime: { lt: sessions[sessions.length - 1]!.endTime },
            endTime: { gt: sessions[0]!.startTime },
          },
          select: { startTime: true, endTime: true, employeeIds: true },
        })
      : [];
    const closed = (s: (typeof sessions)[number]) =>
      closures.some(
        (c) =>
          c.startTime < s.endTime &&
          s.startTime < c.endTime &&
          (c.employeeIds.length === 0 || c.employeeIds.includes(s.employeeId)),
      );
    return {
      kind: 'class',
      sessions: sessions
        .filter((s) => !closed(s))
        .map((s) => ({
          classId: s.id,
          startTime: s.startTime,
          endTime: s.endTime,
          employeeId: s.employeeId,
          capacity: s.capacity,
          spotsLeft: Math.max(0, s.capacity - s.bookedCount - s.offeredCount),
        })),
    };
  }
  if (from >= to || !service.active) return { kind: 'appointment', slots: [] };
  const asked = data.employeeId ? [data.employeeId] : qualified;
  // Services that need rooms or equipment depend on other employees' holds: never kept.
  const keep = before !== null && !needsResources(service);
  const scopes = [companyId, service.id, ...asked];
  const version = keep ? await readVersions(db, scopes, 2) : null;
  const employees = await db.employee.findMany({
    where: { companyId, active: true, id: { in: asked } },
    select: { id: true, workingHours: true },
    orderBy: { id: 'asc' },
  });
  const timing = service;
  const margin = (timing.bufferBeforeMinutes + timing.bufferAfterMinutes + timing.durationMinutes) * 60_000;
  const policy = policyFor(opts.company, service, now);
  const [schedules, resources] = await Promise.all([
    loadSchedules(db, {
      companyId,
      zone: opts.company.timezone,
      employees,
      from,
      to,
      margin,
      countServiceId: policy.rules.dailyLimitPerEmployee !== null ? service.id : undefined,
      locationId,
    }),
    // The rooms and equipment it requires, with all their holds in the window: two queries.
    loadResourceSchedule(db, {
      companyId,
      zone: opts.company.timezone,
      needs: service,
      from,
      to,
      margin,
      locationId,
    }),
  ]);
  if (!version) return { kind: 'appointment', slots: freeSlots(schedules, timing, from, to, policy, resources) };
  // Computed without the clock from the asked `from`, kept, then cut to now (availability-cache.ts).
  const slots = freeSlots(schedules, timing, data.from.getTime(), to, withoutClock(policy), resources);
  const entry = { version: version.total, scopes, slots, rules: policy.rules };
  if (version.head === before!.total) keepSlots(db, cacheKey, entry);
  return { kind: 'appointment', slots: cutEntry(entry, policy, from) };
}
