// When an employee can take an appointment: inside working hours (the appointment itself; a
// date override replaces that local day's weekly hours, and closures are cut out of them),
// and with its block (buffers included) clear of time off, of their outside calendars' busy
// times, of the classes they teach and of
// other pending/confirmed bookings' blocks, exactly the rule the `employee_blocks_no_overlap`
// exclusion constraint enforces (time off and outside calendars' busy times aside). Availability lists what this finds free;
// booking re-checks the same rule for one instant, and the constraint has the last word under
// concurrency.
import { sqlRows, type Queryable } from '../../db/databases.js';
import { Prisma } from '../../generated/prisma/client.js';
import {
  localDays,
  hoursLocations,
  localIntervals,
  locatedIntervals,
  mergeIntervals,
  readDayRanges,
  readWorkingHours,
  subtractIntervals,
  type Interval,
  type TimeRange,
} from '../staff/index.js';
import { dayAt, refusals, type EmployeeSchedule, type Policy, type ServiceTiming } from './refusals.js';
import { resourceRefusals, type ResourceSchedule } from '../resources/index.js';

/**
 * Slots start every 15 minutes from the start of each working interval (README, Domain): the
 * grid is anchored to the interval's local start, never to `from` or the clock, so staff
 * working 09:00-17:00 (or round the clock) are offered :00, :15, :30 and :45 in the company's
 * zone whatever instant a request names.
 */
export const SLOT_STEP_MINUTES = 15;
const MINUTE = 60_000;

type Client = Queryable;

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
    /** Bookings to leave out (the one being rescheduled, or every item of a visit being moved). */
    ignoreBookingId?: string | string[];
    /** Count this service's live bookings per employee and local day (the daily limit). */
    countServiceId?: string;
    /** Only the working intervals at this location (docs/api.md, Locations). */
    locationId?: string;
  },
): Promise<EmployeeSchedule[]> {
  const ids = opts.employees.map((e) => e.id);
  if (ids.length === 0) return [];
  const lo = new Date(opts.from - opts.margin);
  const hi = new Date(opts.to + opts.margin);
  const days = localDays(opts.zone, opts.from - 86_400_000, opts.to + 86_400_000);
  const ignored = opts.ignoreBookingId === undefined ? [] : [opts.ignoreBookingId].flat();
  // Intervals that name a location are in its zone: the company's locations, loaded only when
  // an employee's hours name one (or a location is asked for), so a company without locations
  // pays nothing.
  const located =
    opts.locationId !== undefined ||
    opts.employees.some((e) => hoursLocations(readWorkingHours(e.workingHours)).length > 0);
  const [rows, locations] = await Promise.all([
    busyRows(db, { companyId: opts.companyId, ids, lo, hi, ignored, days, countServiceId: opts.countServiceId }),
    located
      ? sqlRows<{ id: string; timeZone: string }>(
          db,
          Prisma.sql`SELECT id, time_zone AS "timeZone" FROM locations WHERE company_id = ${opts.companyId}`,
        )
      : Promise.resolve([]),
  ]);
  const bookings: Array<{ employeeId: string; startTime: Date; endTime: Date; blockStart: Date; blockEnd: Date }> = [];
  const timeOff: Array<{ employeeId: string; startTime: Date; endTime: Date }> = [];
  const external: typeof timeOff = [];
  const sessions: typeof timeOff = [];
  const closures: Array<{ employeeIds: string[]; startTime: Date; endTime: Date }> = [];
  const overrides: Array<{ employeeId: string; date: string; intervals: unknown }> = [];
  const counted: Array<{ employeeId: string; startTime: Date }> | null = opts.countServiceId ? [] : null;
  for (const r of rows) {
    const span = { employeeId: r.employee_id!, startTime: r.start_time!, endTime: r.end_time! };
    if (r.kind === 'booking') bookings.push({ ...span, blockStart: r.block_start!, blockEnd: r.block_end! });
    else if (r.kind === 'off') timeOff.push(span);
    else if (r.kind === 'external') external.push(span);
    else if (r.kind === 'class') sessions.push(span);
    else if (r.kind === 'closure')
      closures.push({ employeeIds: r.employee_ids!, startTime: r.start_time!, endTime: r.end_time! });
    else if (r.kind === 'override')
      overrides.push({ employeeId: r.employee_id!, date: r.date!, intervals: r.intervals });
    else counted?.push({ employeeId: r.employee_id!, startTime: r.start_time! });
  }
  const zones = new Map(locations.map((l) => [l.id, l.timeZone]));
  const kinds = () => ({
    booked: [] as Interval[],
    blocks: [] as Interval[],
    classes: [] as Interval[],
    off: [] as Interval[],
    external: [] as Interval[],
  });
  const busy = new Map(ids.map((id) => [id, kinds()]));
  for (const b of bookings) {
    const k = busy.get(b.employeeId)!;
    k.booked.push([b.startTime.getTime(), b.endTime.getTime()]);
    k.blocks.push([b.blockStart.getTime(), b.blockEnd.getTime()]);
  }
  for (const t of timeOff) busy.get(t.employeeId)!.off.push([t.startTime.getTime(), t.endTime.getTime()]);
  for (const t of external) busy.get(t.employeeId)!.external.push([t.startTime.getTime(), t.endTime.getTime()]);
  for (const t of sessions) busy.get(t.employeeId)!.classes.push([t.startTime.getTime(), t.endTime.getTime()]);
  const counts = new Map<string, Map<string, number>>();
  if (counted) {
    for (const id of ids) counts.set(id, new Map());
    for (const b of counted) {
      const day = dayAt(days, b.startTime.getTime());
      if (!day) continue;
      const m = counts.get(b.employeeId)!;
      m.set(day.date, (m.get(day.date) ?? 0) + 1);
    }
  }
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
    const hoursOf = readWorkingHours(e.workingHours);
    const withPlaces = located ? locatedIntervals(hoursOf, days, own, zones, opts.locationId) : null;
    const grid = withPlaces ? withPlaces.map((x): Interval => [x[0], x[1]]) : localIntervals(hoursOf, days, own);
    const closed = merge(
      closures
        .filter((c) => c.employeeIds.length === 0 || c.employeeIds.includes(e.id))
        .map((c): Interval => [c.startTime.getTime(), c.endTime.getTime()]),
    );
    const overridden = own ? days.filter((d) => own.has(d.date)).map((d): Interval => [d.start, d.end]) : [];
    const hours = mergeIntervals(grid);
    const k = busy.get(e.id)!;
    return {
      employeeId: e.id,
      working: subtractIntervals(hours, closed),
      grid,
      hours,
      busy: merge([...k.blocks, ...k.classes, ...k.off, ...k.external]),
      booked: merge(k.booked),
      bookedBlocks: merge(k.blocks),
      classes: merge(k.classes),
      timeOff: merge(k.off),
      externalBusy: merge(k.external),
      closures: closed,
      overridden,
      days,
      dailyCounts: counted ? counts.get(e.id)! : null,
      gridLocations: withPlaces ? withPlaces.map((x) => x[2]) : null,
    };
  });
}

const merge = (list: Interval[]): Interval[] => mergeIntervals(list.sort((a, b) => a[0] - b[0]));

export interface Slot {
  startTime: Date;
  endTime: Date;
  employeeIds: string[];
}

/**
 * Free slots starting in [from, to), each with the employees free for it: each employee's
 * grid (every `slotIntervalMinutes`, else every 15 minutes, from the start of each working
 * interval) asked of `refusals`, the one rule of src/schema/availability/refusals.ts.
 */
export function freeSlots(
  schedules: EmployeeSchedule[],
  t: ServiceTiming,
  from: number,
  to: number,
  policy: Policy,
  /** The rooms and equipment the service requires: a start is free only when they can be held. */
  resources: ResourceSchedule | null = null,
): Slot[] {
  const step = (policy.rules.slotIntervalMinutes ?? SLOT_STEP_MINUTES) * MINUTE;
  const duration = t.durationMinutes * MINUTE;
  const byStart = new Map<number, string[]>();
  // Asked once per start (employees share starts), and only of starts an employee can take.
  const held = new Map<number, boolean>();
  const resourcesFree = (start: number) => {
    if (!resources) return true;
    let ok = held.get(start);
    if (ok === undefined) held.set(start, (ok = resourceRefusals(resources, start, t).length === 0));
    return ok;
  };
  for (const s of schedules) {
    for (const [gs, ge] of s.grid) {
      if (ge <= from) continue;
      if (gs >= to) break;
      // The first start of this interval's grid at or after `from`.
      const first = gs >= from ? gs : gs + Math.ceil((from - gs) / step) * step;
      for (let start = first; start < ge && start < to; start += step) {
        if (refusals(s, start, t, policy).length > 0 || !resourcesFree(start)) continue;
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

interface BusyRow {
  kind: 'booking' | 'off' | 'external' | 'class' | 'closure' | 'override' | 'counted';
  employee_id: string | null;
  start_time: Date | null;
  end_time: Date | null;
  block_start: Date | null;
  block_end: Date | null;
  employee_ids: string[] | null;
  date: string | null;
  intervals: unknown;
}

/**
 * The employees' live bookings' blocks, time off, outside busy times and classes overlapping
 * [lo, hi), the closures that apply to them, their date overrides on `days` and (with
 * `countServiceId`) their live bookings of that service on `days`, in one statement: one round
 * trip, where inside a booking's transaction each statement is one.
 */
async function busyRows(
  db: Client,
  opts: {
    companyId: string;
    ids: string[];
    lo: Date;
    hi: Date;
    ignored: string[];
    days: Array<{ date: string; start: number; end: number }>;
    countServiceId?: string;
  },
): Promise<BusyRow[]> {
  const { ids, lo, hi, ignored, days } = opts;
  // Past Prisma (sqlRows): outside a transaction straight on the pool, where a booking's first
  // check and availability read it.
  return sqlRows<BusyRow>(
    db,
    Prisma.sql`
    SELECT 'booking' AS kind, employee_id, start_time, end_time, block_start, block_end,
           NULL::text[] AS employee_ids, NULL::text AS date, NULL::jsonb AS intervals
      FROM "bookings"
      WHERE company_id = ${opts.companyId} AND employee_id = ANY(${ids}::text[])
        AND status IN ('pending', 'confirmed') AND class_session_id IS NULL
        AND "block_start" < ${hi}::timestamptz AND "block_end" > ${lo}::timestamptz AND id <> ALL(${ignored}::text[])
    UNION ALL
    SELECT 'off', employee_id, start_time, end_time, NULL, NULL, NULL, NULL, NULL
      FROM "time_off"
      WHERE company_id = ${opts.companyId} AND employee_id = ANY(${ids}::text[])
        AND start_time < ${hi}::timestamptz AND end_time > ${lo}::timestamptz
    UNION ALL
    SELECT 'external', employee_id, start_time, end_time, NULL, NULL, NULL, NULL, NULL
      FROM "external_busy"
      WHERE company_id = ${opts.companyId} AND employee_id = ANY(${ids}::text[])
        AND start_time < ${hi}::timestamptz AND end_time > ${lo}::timestamptz
    UNION ALL
    SELECT 'class', employee_id, start_time, end_time, NULL, NULL, NULL, NULL, NULL
      FROM "class_sessions"
      WHERE company_id = ${opts.companyId} AND employee_id = ANY(${ids}::text[]) AND status = 'scheduled'
        AND start_time < ${hi}::timestamptz AND end_time > ${lo}::timestamptz
    UNION ALL
    SELECT 'closure', NULL, start_time, end_time, NULL, NULL, employee_ids, NULL, NULL
      FROM "closures"
      WHERE company_id = ${opts.companyId} AND start_time < ${hi}::timestamptz AND end_time > ${lo}::timestamptz
        AND (employee_ids = '{}' OR employee_ids && ${ids}::text[])
    UNION ALL
    SELECT 'override', employee_id, NULL, NULL, NULL, NULL, NULL, date, intervals
      FROM "date_overrides"
      WHERE company_id = ${opts.companyId} AND employee_id = ANY(${ids}::text[])
        AND date >= ${days[0]!.date} AND date <= ${days[days.length - 1]!.date}
    ${
      opts.countServiceId
        ? Prisma.sql`UNION ALL
    SELECT 'counted', employee_id, start_time, NULL, NULL, NULL, NULL, NULL, NULL
      FROM "bookings"
      WHERE company_id = ${opts.companyId} AND service_id = ${opts.countServiceId}
        AND employee_id = ANY(${ids}::text[]) AND status IN ('pending', 'confirmed')
        AND start_time >= ${new Date(days[0]!.start)}::timestamptz AND start_time < ${new Date(days[days.length - 1]!.end)}::timestamptz
        AND id <> ALL(${ignored}::text[])`
        : Prisma.empty
    }`,
  );
}
