// The one rule of availability (docs/api.md, "Why a time is not available"): whether an
// employee can take an appointment starting at an instant, and if not, every reason why.
// `/availability` lists the starts it accepts, `/availability/explain` reports what it says,
// and `POST /bookings` and reschedule refuse with its reasons (again under the employee's lock,
// inside the booking's transaction). Nothing else decides, so the three can never disagree.
//
// An appointment fits when it lies inside working hours (a date override replaces that day's
// weekly hours; closures are cut out of them), its block (buffers included) is clear of time
// off and of the busy times of the employee's outside calendars, of the classes the employee
// teaches and of other live bookings' blocks, and the booking
// rules in force allow it (minimum notice, maximum advance, the slot interval, the daily limit),
// unless a business books with `skipRules`, which waives those four and nothing else. The
// rooms and equipment the service requires must be free too (src/schema/resources/resource-schedule.ts):
// the same for every employee, so they are asked once per start.
import type { BookingRules } from '../booking-rules.js';
import type { Interval, LocalDay } from '../staff/index.js';
import { resourceRefusals, type ResourceSchedule } from '../resources/index.js';

export interface ServiceTiming {
  durationMinutes: number;
  bufferBeforeMinutes: number;
  bufferAfterMinutes: number;
}

/** One employee's schedule around a window (loaded by schedule.ts). */
export interface EmployeeSchedule {
  employeeId: string;
  /** Sorted and merged: when the employee works (an appointment must lie inside one). */
  working: Interval[];
  /** The local working intervals as configured, sorted, unmerged: each anchors a slot grid. */
  grid: Interval[];
  /** `grid` merged: the hours before closures are cut out. */
  hours: Interval[];
  /** Sorted and merged: every busy time (the kinds below together), the fast check. */
  busy: Interval[];
  /** Sorted and merged, each kind apart (to tell BOOKED, BUFFER and TIME_OFF apart): */
  /** other live bookings' appointments, */
  booked: Interval[];
  /** their blocks, buffers included, */
  bookedBlocks: Interval[];
  /** the class sessions the employee teaches, */
  classes: Interval[];
  /** their time off, */
  timeOff: Interval[];
  /** and the busy times of their outside calendars (EXTERNAL_BUSY). */
  externalBusy: Interval[];
  /** Sorted and merged: the closures that apply to this employee (cut out of `working`). */
  closures: Interval[];
  /** The spans of the local days whose hours a date override sets. */
  overridden: Interval[];
  /** The local days around the window (shared by the employees of one load). */
  days: LocalDay[];
  /** Live bookings of the service per local date, when a daily limit is in force. */
  dailyCounts: Map<string, number> | null;
  /** The location of each `grid` interval (null: none named); null when no interval names one. */
  gridLocations?: Array<string | null> | null;
}

/** The location of the working interval `start` falls in (null: none named, or no locations). */
export function locationAt(s: EmployeeSchedule, start: number): string | null {
  if (!s.gridLocations) return null;
  const i = lastStartingBy(s.grid, start);
  return i >= 0 && start < s.grid[i]![1] ? (s.gridLocations[i] ?? null) : null;
}

/** The reason codes (an open list: clients must accept codes they do not know). */
export type ReasonCode =
  | 'OUTSIDE_WORKING_HOURS'
  | 'TIME_OFF'
  | 'DATE_OVERRIDE'
  | 'CLOSURE'
  | 'BOOKED'
  | 'BUFFER'
  | 'MIN_NOTICE'
  | 'MAX_ADVANCE'
  | 'OFF_INTERVAL'
  | 'DAILY_LIMIT'
  | 'NOT_QUALIFIED'
  | 'SERVICE_INACTIVE'
  | 'CLASS_FULL'
  | 'NO_SESSION'
  | 'EXTERNAL_BUSY'
  | 'RESOURCE_BUSY';

/** Why a start is not available: for one employee (`employeeId`), or for everyone (none). */
export interface Reason {
  code: ReasonCode;
  message: string;
  employeeId?: string;
  /** The room or piece of equipment it concerns (RESOURCE_BUSY). */
  resourceId?: string;
  details?: Record<string, unknown>;
}

/** What the rules are checked against: the rules in force, the instant that is "now", and skipRules. */
export interface Policy {
  now: number;
  rules: BookingRules;
  /** A business's walk-in: minimum notice, maximum advance, slot interval and daily limit waived. */
  skipRules?: boolean;
}

const MINUTE = 60_000;
const DAY = 86_400_000;
/**
 * The answer "no reason": one frozen array shared by every caller (it is returned for each free
 * start of a month's grid, so it is not made anew each time). Frozen, so a caller that tried to
 * add to it would throw at once instead of changing every later answer of the process
 * (ARCHITECTURE.md, Process state).
 */
const NONE: readonly Reason[] = Object.freeze([]);

/** The local day `at` falls on (binary search; days are sorted and adjoin). */
export function dayAt(days: LocalDay[], at: number): LocalDay | undefined {
  let lo = 0;
  let hi = days.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const d = days[mid]!;
    if (at < d.start) hi = mid - 1;
    else if (at >= d.end) lo = mid + 1;
    else return d;
  }
  return undefined;
}

/** Index of the last interval starting at or before `at` (-1 when none); `list` sorted by start. */
function lastStartingBy(list: Interval[], at: number): number {
  let lo = 0;
  let hi = list.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]![0] <= at) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** Whether [a, b) lies inside one of the sorted, merged intervals. */
function inside(list: Interval[], a: number, b: number): boolean {
  const i = lastStartingBy(list, a);
  return i >= 0 && b <= list[i]![1];
}

/** Whether [a, b) overlaps one of the sorted, merged (so also end-sorted) intervals. */
function overlaps(list: Interval[], a: number, b: number): boolean {
  // The last interval starting before b is the only candidate: an earlier one ends before it starts.
  const i = lastStartingBy(list, b - 1);
  return i >= 0 && list[i]![1] > a;
}

/** Whether `start` is on the grid of the (unmerged) working interval it falls in. */
function onGrid(grid: Interval[], start: number, step: number): boolean {
  const i = lastStartingBy(grid, start);
  if (i < 0) return false;
  const [gs, ge] = grid[i]!;
  return start < ge && (start - gs) % step === 0;
}

/**
 * The service-wide reasons (no employee): the start has passed, is too soon or too far ahead.
 * Always a new array: `refusals` adds the employee's reasons to it.
 */
function timeReasons(start: number, p: Policy): Reason[] {
  if (start <= p.now) return [reasonFor.passed()];
  const out: Reason[] = [];
  if (p.skipRules) return out;
  const earliest = p.now + p.rules.minNoticeMinutes * MINUTE;
  if (start < earliest)
    out.push({
      code: 'MIN_NOTICE',
      message: `Bookings need ${p.rules.minNoticeMinutes} minutes' notice`,
      details: { minNoticeMinutes: p.rules.minNoticeMinutes, earliestStart: new Date(earliest).toISOString() },
    });
  const latest = p.now + p.rules.maxAdvanceDays * DAY;
  if (start > latest)
    out.push({
      code: 'MAX_ADVANCE',
      message: `Bookings open at most ${p.rules.maxAdvanceDays} days ahead`,
      details: { maxAdvanceDays: p.rules.maxAdvanceDays, latestStart: new Date(latest).toISOString() },
    });
  return out;
}

/**
 * THE rule: every reason the employee of schedule `s` cannot take an appointment of timing `t`
 * starting at `start` under `p`; empty when they can. Service-wide reasons (MIN_NOTICE,
 * MAX_ADVANCE) carry no employeeId. Fast when the answer is yes (a few binary searches), as
 * `/availability` asks it for every start of a month's grid.
 */
export function refusals(s: EmployeeSchedule, start: number, t: ServiceTiming, p: Policy): readonly Reason[] {
  const end = start + t.durationMinutes * MINUTE;
  const bs = start - t.bufferBeforeMinutes * MINUTE;
  const be = end + t.bufferAfterMinutes * MINUTE;
  const step = p.rules.slotIntervalMinutes;
  const limit = p.rules.dailyLimitPerEmployee;
  if (limit !== null && !p.skipRules && !s.dailyCounts) throw new Error('refusals: daily counts were not loaded');
  const day = limit !== null && !p.skipRules ? dayAt(s.days, start) : undefined;
  const count = day ? (s.dailyCounts!.get(day.date) ?? 0) : 0;
  const fine =
    start > p.now &&
    (p.skipRules ||
      (start >= p.now + p.rules.minNoticeMinutes * MINUTE &&
        start <= p.now + p.rules.maxAdvanceDays * DAY &&
        (step === null || onGrid(s.grid, start, step * MINUTE)) &&
        (limit === null || count < limit))) &&
    inside(s.working, start, end) &&
    !overlaps(s.busy, bs, be);
  if (fine) return NONE;

  const id = s.employeeId;
  const out = timeReasons(start, p);
  if (!inside(s.working, start, end)) {
    const before = out.length;
    if (overlaps(s.closures, start, end))
      out.push({ code: 'CLOSURE', message: 'The business is closed at that time', employeeId: id });
    const inHours = inside(s.hours, start, end);
    if (!inHours && overlaps(s.overridden, start, end))
      out.push({
        code: 'DATE_OVERRIDE',
        message: "That time is outside the employee's hours for that day (a date override)",
        employeeId: id,
      });
    else if (!inHours || out.length === before)
      out.push({
        code: 'OUTSIDE_WORKING_HOURS',
        message: "That time is outside the employee's working hours",
        employeeId: id,
      });
  }
  if (overlaps(s.busy, bs, be)) {
    const before = out.length;
    if (overlaps(s.timeOff, bs, be))
      out.push({ code: 'TIME_OFF', message: 'The employee is off at that time', employeeId: id });
    if (overlaps(s.externalBusy, bs, be))
      out.push({
        code: 'EXTERNAL_BUSY',
        message: 'The employee is busy in one of their external calendars at that time',
        employeeId: id,
      });
    if (overlaps(s.booked, start, end) || overlaps(s.classes, start, end))
      out.push({ code: 'BOOKED', message: 'The employee is booked at that time', employeeId: id });
    else if (overlaps(s.bookedBlocks, bs, be) || overlaps(s.classes, bs, be))
      out.push({
        code: 'BUFFER',
        message: 'The buffer time around this or another appointment overlaps',
        employeeId: id,
      });
    if (out.length === before)
      out.push({ code: 'BOOKED', message: 'The employee is booked at that time', employeeId: id });
  }
  if (!p.skipRules && start > p.now) {
    if (step !== null && !onGrid(s.grid, start, step * MINUTE))
      out.push({
        code: 'OFF_INTERVAL',
        message: `Appointments start every ${step} minutes from the start of working hours`,
        employeeId: id,
        details: { slotIntervalMinutes: step },
      });
    if (limit !== null && count >= limit)
      out.push({
        code: 'DAILY_LIMIT',
        message: `The employee has reached the daily limit of ${limit} bookings of this service`,
        employeeId: id,
        details: { dailyLimitPerEmployee: limit, date: day?.date ?? null },
      });
  }
  return out;
}

/** What the rule says of `start` for some employees: who can take it, and every reason the others cannot. */
export interface Assessment {
  employeeIds: string[];
  reasons: Reason[];
  /** Where each free employee would take it (docs/api.md, Locations): null for none named. */
  locations?: Map<string, string | null>;
}

/**
 * `refusals` for each schedule (in the order given): the free employees, and the others'
 * reasons, a service-wide reason (no employeeId) once.
 */
export function assessStart(
  schedules: EmployeeSchedule[],
  start: number,
  t: ServiceTiming,
  p: Policy,
  resources: ResourceSchedule | null = null,
): Assessment {
  const employeeIds: string[] = [];
  const reasons: Reason[] = [];
  // The resources the service requires are the same whoever performs it: when they cannot be
  // held, nobody is free, and the reasons say which resource (RESOURCE_BUSY, resourceId).
  const busy = resources ? resourceRefusals(resources, start, t) : [];
  const shared = new Set<string>();
  for (const s of schedules) {
    const why = refusals(s, start, t, p);
    if (why.length === 0) employeeIds.push(s.employeeId);
    for (const r of why) {
      if (r.employeeId === undefined) {
        if (shared.has(r.code)) continue;
        shared.add(r.code);
      }
      reasons.push(r);
    }
  }
  if (busy.length > 0) return { employeeIds: [], reasons: [...reasons, ...busy] };
  const locations = new Map<string, string | null>();
  for (const sch of schedules)
    if (employeeIds.includes(sch.employeeId)) locations.set(sch.employeeId, locationAt(sch, start));
  return { employeeIds, reasons, locations };
}

/** The reasons given outside the schedule rule, built in one place so every caller words them alike. */
export const reasonFor = {
  passed: (): Reason => ({ code: 'MIN_NOTICE', message: 'That time has passed' }),
  serviceInactive: (): Reason => ({ code: 'SERVICE_INACTIVE', message: 'The service is deactivated' }),
  notQualified: (employeeId?: string, why = 'does not perform this service'): Reason =>
    employeeId === undefined
      ? { code: 'NOT_QUALIFIED', message: 'No active employee performs this service' }
      : { code: 'NOT_QUALIFIED', message: `The employee ${why}`, employeeId },
  noSession: (): Reason => ({
    code: 'NO_SESSION',
    message: 'No scheduled session of this class service starts at that time',
  }),
  classFull: (session: { id: string; capacity: number; employeeId: string }): Reason => ({
    code: 'CLASS_FULL',
    message: 'No places left in this class session',
    employeeId: session.employeeId,
    details: { classId: session.id, capacity: session.capacity },
  }),
};
