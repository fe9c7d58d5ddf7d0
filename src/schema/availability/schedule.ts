// When an employee can take an appointment: inside working hours (the appointment itself; a
// date override replaces that local day's weekly hours, and closures are cut out of them),
// and with its block (buffers included) clear of time off, of the classes they teach and of
// other pending/confirmed bookings' blocks, exactly the rule the `employee_blocks_no_overlap`
// exclusion constraint enforces (time off aside). Availability lists what this finds free;
// booking re-checks the same rule for one instant, and the constraint has the last word under
// concurrency.
import type { Db } from '../../db/databases.js';
import type { Prisma } from '../../generated/prisma/client.js';
import {
  localDays,
  localIntervals,
  mergeIntervals,
  readDayRanges,
  readWorkingHours,
  subtractIntervals,
  type Interval,
  type TimeRange,
} from '../staff/working-hours.js';

/**
 * Slots start every 15 minutes from the start of each working interval (README, Domain): the
 * grid is anchored to the interval's local start, never to `from` or the clock, so staff
 * working 09:00-17:00 (or round the clock) are offered :00, :15, :30 and :45 in the company's
 * zone whatever instant a request names.
 */
export const SLOT_STEP_MINUTES = 15;
const MINUTE = 60_000;

export interface ServiceTiming {
  durationMinutes: number;
  bufferBeforeMinutes: number;
  bufferAfterMinutes: number;
}

export interface EmployeeSchedule {
  employeeId: string;
  /** Sorted and merged: when the employee works (an appointment must lie inside one). */
  working: Interval[];
  /** The local working intervals as configured, sorted, unmerged: each anchors a slot grid. */
  grid: Interval[];
  /** Sorted and merged: starts and ends both increase. */
  busy: Interval[];
  /** Sorted and merged: the closures that apply to this employee (cut out of `working`). */
  closures: Interval[];
  /** The spans of the local days whose hours a date override sets. */
  overridden: Interval[];
}

type Client = Db | Prisma.TransactionClient;

/** Working hours and busy times of some employees around [from, to). */
export async function loadSchedules(
  db: Client,
  opts: {
    companyId: string;
    zone: string;
    employees: Array<{ id: string; workingHours: unknown }>;
    from: number;
    to: number;
    /** Widen the busy window by the service's buffers. */
    margin: number;
    /** A booking to leave out (the one being rescheduled). */
    ignoreBookingId?: string;
  },
): Promise<EmployeeSchedule[]> {
  const ids = opts.employees.map((e) => e.id);
  if (ids.length === 0) return [];
  const lo = new Date(opts.from - opts.margin);
  const hi = new Date(opts.to + opts.margin);
  const overlapping = { startTime: { lt: hi }, endTime: { gt: lo } };
  const days = localDays(opts.zone, opts.from - 86_400_000, opts.to + 86_400_000);
  const [bookings, timeOff, sessions, closures, overrides] = await Promise.all([
    db.booking.findMany({
      where: {
        companyId: opts.companyId,
        employeeId: { in: ids },
        status: { in: ['pending', 'confirmed'] },
        classSessionId: null,
        blockStart: { lt: hi },
        blockEnd: { gt: lo },
        ...(opts.ignoreBookingId ? { id: { not: opts.ignoreBookingId } } : {}),
      },
      select: { employeeId: true, blockStart: true, blockEnd: true },
    }),
    db.timeOff.findMany({
      where: { companyId: opts.companyId, employeeId: { in: ids }, ...overlapping },
      select: { employeeId: true, startTime: true, endTime: true },
    }),
    db.classSession.findMany({
      where: { companyId: opts.companyId, employeeId: { in: ids }, status: 'scheduled', ...overlapping },
      select: { employeeId: true, startTime: true, endTime: true },
    }),
    db.closure.findMany({
      where: {
        companyId: opts.companyId,
        ...overlapping,
        OR: [{ employeeIds: { isEmpty: true } }, { employeeIds: { hasSome: ids } }],
      },
      select: { employeeIds: true, startTime: true, endTime: true },
    }),
    db.dateOverride.findMany({
      where: {
        companyId: opts.companyId,
        employeeId: { in: ids },
        date: { gte: days[0]!.date, lte: days[days.length - 1]!.date },
      },
      select: { employeeId: true, date: true, intervals: true },
    }),
  ]);
  const busy = new Map<string, Interval[]>(ids.map((id) => [id, []]));
  for (const b of bookings) busy.get(b.employeeId)!.push([b.blockStart.getTime(), b.blockEnd.getTime()]);
  for (const t of [...timeOff, ...sessions]) busy.get(t.employeeId)!.push([t.startTime.getTime(), t.endTime.getTime()]);
  const byEmployee = new Map<string, Map<string, TimeRange[]>>();
  for (const o of overrides) {
    let m = byEmployee.get(o.employeeId);
    if (!m) byEmployee.set(o.employeeId, (m = new Map<string, TimeRange[]>()));
    m.set(o.date, readDayRanges(o.intervals));
  }
  // The local days around the window (shared by the employees: one zone, one window). The
  // intervals are not clipped to it, so each keeps its real start, the anchor of its grid.
  return opts.employees.map((e) => {
    const own = byEmployee.get(e.id);
    const grid = localIntervals(readWorkingHours(e.workingHours), days, own);
    const closed = merge(
      closures
        .filter((c) => c.employeeIds.length === 0 || c.employeeIds.includes(e.id))
        .map((c): Interval => [c.startTime.getTime(), c.endTime.getTime()]),
    );
    const overridden = own ? days.filter((d) => own.has(d.date)).map((d): Interval => [d.start, d.end]) : [];
    return {
      employeeId: e.id,
      working: subtractIntervals(mergeIntervals(grid), closed),
      grid,
      busy: merge(busy.get(e.id)!),
      closures: closed,
      overridden,
    };
  });
}

function merge(list: Interval[]): Interval[] {
  list.sort((a, b) => a[0] - b[0]);
  const out: Interval[] = [];
  for (const [a, b] of list) {
    const prev = out[out.length - 1];
    if (prev && a <= prev[1]) prev[1] = Math.max(prev[1], b);
    else out.push([a, b]);
  }
  return out;
}

function blockOf(start: number, t: ServiceTiming): Interval {
  return [start - t.bufferBeforeMinutes * MINUTE, start + (t.durationMinutes + t.bufferAfterMinutes) * MINUTE];
}

/** Whether the appointment starting at `start` fits this employee's schedule. */
export function fits(s: EmployeeSchedule, start: number, t: ServiceTiming): boolean {
  const end = start + t.durationMinutes * MINUTE;
  if (!s.working.some(([a, b]) => a <= start && end <= b)) return false;
  const [bs, be] = blockOf(start, t);
  return !s.busy.some(([a, b]) => a < be && bs < b);
}

/** Why an employee's schedule refuses `start` for closures and date overrides (docs/api.md, reasons). */
export interface Reason {
  code: 'CLOSURE' | 'DATE_OVERRIDE';
  message: string;
  employeeId: string;
}

/**
 * The closure and date-override reasons for a refused start (empty when neither is the cause):
 * CLOSURE when the appointment overlaps a closure of the employee; DATE_OVERRIDE when it falls
 * on a day whose hours an override sets and it lies outside them.
 */
export function scheduleReasons(s: EmployeeSchedule, start: number, t: ServiceTiming): Reason[] {
  const end = start + t.durationMinutes * MINUTE;
  const reasons: Reason[] = [];
  if (s.closures.some(([a, b]) => a < end && start < b))
    reasons.push({ code: 'CLOSURE', message: 'The business is closed at that time', employeeId: s.employeeId });
  const onOverride = s.overridden.some(([a, b]) => a < end && start < b);
  const inGrid = mergeIntervals([...s.grid]).some(([a, b]) => a <= start && end <= b);
  if (onOverride && !inGrid)
    reasons.push({
      code: 'DATE_OVERRIDE',
      message: "That time is outside the employee's hours for that day (a date override)",
      employeeId: s.employeeId,
    });
  return reasons;
}

export interface Slot {
  startTime: Date;
  endTime: Date;
  employeeIds: string[];
}

/** Free slots starting in [from, to), each with the employees free for it. */
export function freeSlots(schedules: EmployeeSchedule[], t: ServiceTiming, from: number, to: number): Slot[] {
  const step = SLOT_STEP_MINUTES * MINUTE;
  const duration = t.durationMinutes * MINUTE;
  const byStart = new Map<number, string[]>();
  for (const s of schedules) {
    // Candidate starts increase from one grid interval to the next, so the busy intervals and
    // the merged working intervals (both sorted) are walked alongside them.
    let k = 0;
    let w = 0;
    for (const [gs, ge] of s.grid) {
      if (ge <= from) continue;
      if (gs >= to) break;
      // The first start of this interval's grid at or after `from`.
      const first = gs >= from ? gs : gs + Math.ceil((from - gs) / step) * step;
      for (let start = first; start < ge && start < to; start += step) {
        while (w < s.working.length && s.working[w]![1] <= start) w++;
        if (w === s.working.length) break;
        // Inside a closure cut out of the interval, or running into one: a later start of the
        // same interval may still fit. (The appointment may run on into an adjoining
        // interval, a night shift past midnight: the working intervals are merged.)
        if (start < s.working[w]![0] || start + duration > s.working[w]![1]) continue;
        const [bs, be] = blockOf(start, t);
        while (k < s.busy.length && s.busy[k]![1] <= bs) k++;
        if (k < s.busy.length && s.busy[k]![0] < be) continue;
        const list = byStart.get(start);
        if (list) list.push(s.employeeId);
        else byStart.set(start, [s.employeeId]);
      }
    }
  }
  return [...byStart.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([start, ids]) => ({ startTime: new Date(start), endTime: new Date(start + duration), employeeIds: ids }));
}
