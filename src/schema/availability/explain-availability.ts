// GET /availability/explain (docs/api.md, "Why a time is not available"): whether a service can
// be booked at one start, with whom, and why not. It asks the same rule (refusals.ts) as
// `/availability` and `POST /bookings`, through the same loading (`assessEmployees`, which
// booking calls too), so a refused booking's `details.reasons` equal what this answers.
import { z } from 'zod';
import { sqlOf, type Db, type Queryable } from '../../db/databases.js';
import type { Company } from '../../generated/prisma/client.js';
import { effectiveBookingRules } from '../booking-rules.js';
import { boundedInstant, id } from '../domain-validation.js';
import { findEmployee, findService } from '../find-records.js';
import { findClosureOver } from '../core/index.js';
import { parseInput } from '../validation.js';
import { assessStart, reasonFor, type Assessment, type Policy, type Reason, type ServiceTiming } from './refusals.js';
import { loadSchedules } from './schedule.js';
import { domainNow } from '../domain-time.js';
import { requireLocations } from '../locations/index.js';
import { loadResourceSchedule, type ResourceNeeds } from '../resources/index.js';

/** A service's resource needs (none when the caller's service object does not carry them). */
export const needsOf = (s: Partial<ResourceNeeds>): ResourceNeeds => ({
  requiredResourceIds: s.requiredResourceIds ?? [],
  requiredResourceKinds: s.requiredResourceKinds ?? [],
});

type Client = Queryable;

const input = z
  .object({
    serviceId: id,
    startTime: boundedInstant,
    employeeId: id.nullish(),
    /** As on /availability: only working intervals (and resources of a required kind) at this location. */
    locationId: id.nullish(),
  })
  .strict();

export interface Explanation {
  available: boolean;
  /** The employees who can take it (for a class service, the instructors of sessions with places). */
  employeeIds: string[];
  /** Why the others cannot (all of them, when it is not available). */
  reasons: Reason[];
}

/** The rules in force for a service of a company at `now`. */
export function policyFor(
  company: Pick<Company, 'bookingRules'>,
  service: { bookingRules: unknown },
  now: number,
  skipRules = false,
): Policy {
  return { now, rules: effectiveBookingRules(company.bookingRules, service.bookingRules), skipRules };
}

/**
 * The rule asked of `start` for these employees (the active ones among them, in id order), as
 * committed now: in a booking's transaction under their lock, or outside any. No active
 * employee at all: NOT_QUALIFIED.
 */
export async function assessEmployees(
  db: Client,
  opts: {
    company: Pick<Company, 'id' | 'timezone'>;
    service: ServiceTiming & { id: string } & Partial<ResourceNeeds>;
    employeeIds: string[];
    start: number;
    policy: Policy;
    ignoreBookingId?: string | string[];
    /** Only the employees' working intervals (and resources of a required kind) at this location. */
    locationId?: string;
    /** The employees' rows as already read in this transaction, in id order (by their lock: lockEmployeesReading). */
    rows?: Array<{ id: string; active: boolean; workingHours: unknown }>;
  },
): Promise<Assessment> {
  const employees = opts.rows
    ? opts.rows
        .filter((e) => e.active && opts.employeeIds.includes(e.id))
        .map((e) => ({ id: e.id, workingHours: e.workingHours }))
    : await sqlOf(db)<{ id: string; workingHours: unknown }>(
        `SELECT id, working_hours AS "workingHours" FROM employees
          WHERE company_id = $1 AND active AND id = ANY($2::text[]) ORDER BY id`,
        [opts.company.id, opts.employeeIds],
      );
  if (employees.length === 0) return { employeeIds: [], reasons: [reasonFor.notQualified()] };
  const s = opts.service;
  const counting = opts.policy.rules.dailyLimitPerEmployee !== null && !opts.policy.skipRules;
  const window = {
    from: opts.start,
    to: opts.start + s.durationMinutes * 60_000,
    margin: (s.bufferBeforeMinutes + s.bufferAfterMinutes) * 60_000,
    ignoreBookingId: opts.ignoreBookingId,
  };
  // One after the other: `db` may be a transaction's one connection (insertAppointment), where
  // two queries at once are queued by pg with a DeprecationWarning on stderr (pg 9 refuses them).
  const schedules = await loadSchedules(db, {
    companyId: opts.company.id,
    zone: opts.company.timezone,
    employees,
    ...window,
    countServiceId: counting ? s.id : undefined,
    locationId: opts.locationId,
  });
  const resources = await loadResourceSchedule(db, {
    companyId: opts.company.id,
    zone: opts.company.timezone,
    needs: needsOf(s),
    ...window,
    locationId: opts.locationId,
  });
  return assessStart(schedules, opts.start, s, opts.policy, resources);
}

const answer = (a: Assessment): Explanation => ({
  available: a.employeeIds.length > 0,
  employeeIds: a.employeeIds,
  reasons: a.reasons,
});

export async function explainAvailability(
  db: Db,
  opts: { company: Company; input: unknown; now?: Date },
): Promise<Explanation> {
  const data = parseInput(input, opts.input);
  const companyId = opts.company.id;
  const now = (opts.now ?? (await domainNow(db, opts.company))).getTime();
  const start = data.startTime.getTime();
  const service = await findService(db, companyId, data.serviceId);
  // An employee of another company is not found, as on /availability.
  const employee = data.employeeId ? await findEmployee(db, companyId, data.employeeId) : null;
  // Another company's location is not found, as on /availability (404 naming locationId).
  if (data.locationId) await requireLocations(db, companyId, [data.locationId], 'locationId');
  const locationId = data.locationId ?? undefined;
  if (!service.active) return answer({ employeeIds: [], reasons: [reasonFor.serviceInactive()] });

  if (service.kind === 'class') {
    // A class is booked by its session: one of this service starting exactly then (taught by
    // the employee, when one is named; at the location, when one is named). Booking rules apply
    // to appointment services only.
    const sessions = await db.classSession.findMany({
      where: {
        companyId,
        serviceId: service.id,
        status: 'scheduled',
        startTime: new Date(start),
        ...(employee ? { employeeId: employee.id } : {}),
        ...(locationId ? { locationId } : {}),
      },
      orderBy: { id: 'asc' },
    });
    if (sessions.length === 0) return answer({ employeeIds: [], reasons: [reasonFor.noSession()] });
    if (start <= now) return answer({ employeeIds: [], reasons: [reasonFor.passed()] });
    // A session inside a closure of its instructor takes no place (create-booking.ts), then a full one.
    const employeeIds = new Set<string>();
    const reasons: Reason[] = [];
    for (const x of sessions) {
      const closed = await findClosureOver(db, {
        companyId,
        employeeId: x.employeeId,
        start: x.startTime,
        end: x.endTime,
      });
      if (closed)
        reasons.push({ code: 'CLOSURE', message: 'The business is closed at that time', employeeId: x.employeeId });
      else if (x.bookedCount + x.offeredCount >= x.capacity) reasons.push(reasonFor.classFull(x));
      else employeeIds.add(x.employeeId);
    }
    return answer({ employeeIds: [...employeeIds], reasons });
  }

  const qualified = service.employees.map((e) => e.employeeId);
  if (employee && !qualified.includes(employee.id))
    return answer({ employeeIds: [], reasons: [reasonFor.notQualified(employee.id)] });
  if (employee && !employee.active)
    return answer({ employeeIds: [], reasons: [reasonFor.notQualified(employee.id, 'is deactivated')] });
  return answer(
    await assessEmployees(db, {
      company: opts.company,
      service,
      employeeIds: employee ? [employee.id] : qualified,
      start,
      policy: policyFor(opts.company, service, now),
      // An employee working at another site then is outside their hours here (OUTSIDE_WORKING_HOURS).
      locationId,
    }),
  );
}
