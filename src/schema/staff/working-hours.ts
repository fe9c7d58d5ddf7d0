// Weekly working hours (docs/api.md): all seven weekday keys, each a list of
// { start: "HH:MM", end: "HH:MM" } in the company's IANA time zone. Turning them into instants
// is Luxon's job, never hand-made offset arithmetic: on a spring-forward day a local time in
// the gap does not exist (Luxon moves it forward by the shift, so an interval inside the gap
// becomes empty), and on a fall-back day an interval that spans the repeated hour is that
// much longer in real time. Everything downstream works on UTC instants (epoch ms), where
// neither day has a missing or repeated minute.
import { DateTime } from 'luxon';
import { z } from 'zod';
import { deepFreeze } from '../../frozen.js';

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export type TimeRange = {
  start: string;
  end: string;
  /** An employee's interval at one of the company's locations: its times are in that location's zone. */
  locationId?: string | null;
};
export type WorkingHours = Record<Weekday, TimeRange[]>;

/** [start, end) in epoch milliseconds. */
export type Interval = [number, number];

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;
const minutes = (t: string) => (t === '24:00' ? 1440 : Number(t.slice(0, 2)) * 60 + Number(t.slice(3)));

const timeRange = z
  .object({
    start: z.string().regex(HHMM, 'must be a local time HH:MM from 00:00 to 23:59'),
    // "24:00" closes a day that is worked until midnight.
    end: z.string().refine((s) => HHMM.test(s) || s === '24:00', 'must be a local time HH:MM from 00:01 to 24:00'),
  })
  .strict();

/** One day's intervals: sorted, non-overlapping, at most 12 (weekly hours and date overrides). */
const rangesOf = <T extends z.ZodType<TimeRange>>(range: T) =>
  z
    .array(range)
    .max(12, 'must have at most 12 intervals')
    .superRefine((ranges, ctx) => {
      ranges.forEach((r, i) => {
        if (HHMM.test(r.start) && minutes(r.start) >= minutes(r.end)) {
          ctx.addIssue({ code: 'custom', path: [i, 'end'], message: 'must be after start' });
        }
      });
      const sorted = ranges.map((r, i) => ({ ...r, i })).sort((a, b) => minutes(a.start) - minutes(b.start));
      for (let k = 1; k < sorted.length; k++) {
        if (minutes(sorted[k]!.start) < minutes(sorted[k - 1]!.end)) {
          ctx.addIssue({
            code: 'custom',
            path: [sorted[k]!.i, 'start'],
            message: 'overlaps another interval of the same day',
          });
        }
      }
    })
    // Stored sorted, so responses are predictable.
    .transform((ranges) => [...ranges].sort((a, b) => minutes(a.start) - minutes(b.start)));
export const dayRanges = rangesOf(timeRange);

const weekOf = <T extends z.ZodType>(day: T) =>
  z.object(Object.fromEntries(WEEKDAYS.map((d) => [d, day])) as Record<Weekday, T>).strict();

/** Weekly hours of a resource (its location is its own). */
export const workingHoursSchema = weekOf(dayRanges);

/**
 * An employee's weekly hours: each interval may name a location of the company (docs/api.md,
 * Locations; the use case checks the ids), whose zone its times are in.
 */
export const employeeWorkingHoursSchema = weekOf(
  rangesOf(
    z
      .object({
        start: timeRange.shape.start,
        end: timeRange.shape.end,
        locationId: z
          .string()
          .regex(/^[0-9a-f]{24}$/, 'must be an id')
          .nullish(),
      })
      .strict()
      .transform(({ locationId, ...r }) => (locationId ? { ...r, locationId } : r)),
  ),
);

/** The location ids an employee's hours name. */
export function hoursLocations(hours: WorkingHours): string[] {
  return [...new Set(WEEKDAYS.flatMap((d) => hours[d].flatMap((r) => (r.locationId ? [r.locationId] : []))))];
}

/** No hours on any day. Shared (readWorkingHours answers it for every unreadable value): frozen. */
export const EMPTY_WEEK: WorkingHours = deepFreeze(
  Object.fromEntries(WEEKDAYS.map((d) => [d, []])) as unknown as WorkingHours,
);

function localInstant(day: DateTime, time: string): number {
  if (time === '24:00') return day.plus({ days: 1 }).startOf('day').toMillis();
  return day
    .set({ hour: Number(time.slice(0, 2)), minute: Number(time.slice(3)), second: 0, millisecond: 0 })
    .toMillis();
}

const MINUTE = 60_000;
const DAY = 86_400_000;

/** One local calendar day of a zone. */
export interface LocalDay {
  weekday: Weekday;
  /** Its local date, YYYY-MM-DD (the key of a date override). */
  date: string;
  /** Its start (Luxon's startOf('day')). */
  day: DateTime;
  start: number;
  /** The next day's start. */
  end: number;
  /**
   * It starts at 00:00 and runs 24 hours on one UTC offset, so HH:MM is `start` + that many
   * minutes. Only the days of a DST change (or of a zone's offset change) are not: there each
   * time goes through Luxon, which is what the header's rules are made of. Luxon's `set` costs
   * Intl calls per time, which made this the largest cost of a month's availability.
   */
  plain: boolean;
}

/**
 * The local days of `zone` around [from, to): from the day before the one `from` falls on to
 * the day after the one `to` falls on (a local day can start before `from` in UTC and still
 * reach it). The same for every employee of a company: availability computes it once.
 */
export function localDays(zone: string, from: number, to: number): LocalDay[] {
  const days: LocalDay[] = [];
  // The day before: the one its first instant's previous millisecond falls on.
  let day = dayStartOf(zone, dayStartOf(zone, from).toMillis() - 1);
  const last = dayStartingAt(zone, dayStartOf(zone, to)).next.toMillis();
  while (day.toMillis() <= last) {
    const d = dayStartingAt(zone, day);
    days.push(d.local);
    day = d.next;
  }
  return days;
}

// A zone's calendar does not change while the process runs (tzdata is loaded once), and
// availability asks for the same month again and again: each local day is worked out once.
// eslint-disable-next-line no-restricted-syntax -- process state: local days
const dayCache = new Map<string, { local: LocalDay; next: DateTime<boolean> }>();

// Which local day an instant falls on, by its quarter of an hour: every offset and every offset
// change of the zones in use falls on a quarter hour (Nepal's +05:45, Chatham's +12:45), so all
// the instants of one quarter are on the same local day. A booking asks for its own start and
// end, each a Luxon conversion with several Intl calls, on every check (see docs/performance.md,
// "Local days").
const QUARTER = 15 * 60_000;
// eslint-disable-next-line no-restricted-syntax -- process state: local days
const dayOfQuarter = new Map<string, DateTime<boolean>>();

// The local days already worked out (dayStartingAt), by the UTC days they overlap: an instant
// on one of them finds its day by comparison, without Luxon. Bookings a few hours apart ask for
// the same few days, each at quarters of its own.
// eslint-disable-next-line no-restricted-syntax -- process state: local days
const daysByUtcDay = new Map<string, LocalDay[]>();

/** The start of the local day of `zone` that instant `t` falls on (Luxon's startOf('day')). */
function dayStartOf(zone: string, t: number): DateTime<boolean> {
  const known = daysByUtcDay.get(`${zone} ${Math.floor(t / DAY)}`);
  if (known) for (const d of known) if (d.start <= t && t < d.end) return d.day;
  const key = `${zone} ${Math.floor(t / QUARTER)}`;
  const hit = dayOfQuarter.get(key);
  if (hit) return hit;
  const day = DateTime.fromMillis(t, { zone }).startOf('day');
  if (dayOfQuarter.size >= 50_000) dayOfQuarter.clear(); // bounded: 96 entries per zone and day asked for
  dayOfQuarter.set(key, day);
  return day;
}

function dayStartingAt(zone: string, day: DateTime<boolean>): { local: LocalDay; next: DateTime<boolean> } {
  const key = `${zone} ${day.toMillis()}`;
  const hit = dayCache.get(key);
  if (hit) return hit;
  // 24 hours on: the next midnight when the offset has not changed in between (one Intl call
  // instead of Luxon's calendar arithmetic); otherwise Luxon finds it.
  const guess = DateTime.fromMillis(day.toMillis() + DAY, { zone });
  const sameOffset = guess.offset === day.offset && guess.hour === 0 && guess.minute === 0;
  const next = sameOffset ? guess : day.plus({ days: 1 }).startOf('day');
  // Shared by every request that asks for this day (of any company in the zone): frozen. Its
  // `day` is a Luxon DateTime, immutable by Luxon's own API.
  const local: LocalDay = Object.freeze({
    weekday: WEEKDAYS[day.weekday - 1]!,
    date: day.toISODate()!,
    day,
    start: day.toMillis(),
    end: next.toMillis(),
    plain: sameOffset && day.hour === 0 && day.minute === 0,
  });
  if (dayCache.size >= 20_000) {
    // bounded: ~35 entries per zone and month asked for
    dayCache.clear();
    daysByUtcDay.clear();
  }
  dayCache.set(key, { local, next });
  for (let u = Math.floor(local.start / DAY); u <= Math.floor((local.end - 1) / DAY); u++) {
    const k = `${zone} ${u}`;
    const list = daysByUtcDay.get(k);
    if (list) list.push(local);
    else daysByUtcDay.set(k, [local]);
  }
  return { local, next };
}

function instantOn(d: LocalDay, time: string): number {
  if (time === '24:00') return d.end;
  return d.plain ? d.start + minutes(time) * MINUTE : localInstant(d.day, time);
}

/**
 * The local working intervals of `days` as instants (epoch ms), one per configured interval,
 * sorted, neither clipped nor merged: each keeps its real local start, the anchor of its
 * 15-minute slot grid (src/schema/availability/schedule.ts). Intervals never overlap (validated per day,
 * and each lies inside its own local day).
 */
export function localIntervals(
  hours: WorkingHours,
  days: LocalDay[],
  /** Date overrides by local date: each replaces that day's weekly intervals. */
  overrides?: ReadonlyMap<string, TimeRange[]>,
): Interval[] {
  const out: Interval[] = [];
  for (const d of days) {
    for (const r of overrides?.get(d.date) ?? hours[d.weekday] ?? []) {
      const s = instantOn(d, r.start);
      const e = instantOn(d, r.end);
      if (s < e) out.push([s, e]);
    }
  }
  return out.sort((a, b) => a[0] - b[0]);
}

/** A working interval with the location it is at (null: none named). */
export type LocatedInterval = [number, number, string | null];

/**
 * localIntervals for hours whose intervals may name a location: such an interval's times are
 * local to the location's zone (`zones`, by location id) on the same date and weekday, as Luxon
 * reads them there (docs/api.md, Locations); the others are in the company's zone of `days`.
 * With `only`, just the intervals at that location.
 */
export function locatedIntervals(
  hours: WorkingHours,
  days: LocalDay[],
  overrides: ReadonlyMap<string, TimeRange[]> | undefined,
  zones: ReadonlyMap<string, string>,
  only?: string,
): LocatedInterval[] {
  const out: LocatedInterval[] = [];
  for (const d of days) {
    for (const r of overrides?.get(d.date) ?? hours[d.weekday] ?? []) {
      const loc = r.locationId ?? null;
      if (only !== undefined && loc !== only) continue;
      const zone = loc ? zones.get(loc) : undefined;
      let s: number;
      let e: number;
      if (zone && zone !== d.day.zoneName) {
        const day = DateTime.fromISO(d.date, { zone }).startOf('day');
        s = localInstant(day, r.start);
        e = localInstant(day, r.end);
      } else {
        s = instantOn(d, r.start);
        e = instantOn(d, r.end);
      }
      if (s < e) out.push([s, e, loc]);
    }
  }
  return out.sort((a, b) => a[0] - b[0]);
}

/** Sorted intervals merged where they touch or overlap (a new list; the input is kept). */
export function mergeIntervals(sorted: Interval[]): Interval[] {
  const merged: Interval[] = [];
  for (const iv of sorted) {
    const prev = merged[merged.length - 1];
    if (prev && iv[0] <= prev[1]) prev[1] = Math.max(prev[1], iv[1]);
    else merged.push([iv[0], iv[1]]);
  }
  return merged;
}

/**
 * The instants an employee works between `from` and `to` (epoch ms), as sorted, merged
 * [start, end) intervals clipped to the window. `days` defaults to localDays(zone, from, to).
 */
export function workingIntervals(
  hours: WorkingHours,
  zone: string,
  from: number,
  to: number,
  days: LocalDay[] = localDays(zone, from, to),
): Interval[] {
  const clipped: Interval[] = [];
  for (const [s, e] of localIntervals(hours, days)) {
    const a = Math.max(s, from);
    const b = Math.min(e, to);
    if (a < b) clipped.push([a, b]);
  }
  return mergeIntervals(clipped);
}

/** Sorted intervals minus the (sorted, merged) `cut` ones: a new list. */
export function subtractIntervals(sorted: Interval[], cut: Interval[]): Interval[] {
  if (cut.length === 0) return sorted;
  const out: Interval[] = [];
  for (const [s, e] of sorted) {
    let a = s;
    for (const [cs, ce] of cut) {
      if (ce <= a || cs >= e) continue;
      if (cs > a) out.push([a, cs]);
      a = Math.max(a, ce);
      if (a >= e) break;
    }
    if (a < e) out.push([a, e]);
  }
  return out;
}

/** The span [start, end) of one local date in a zone (YYYY-MM-DD), or null if there is no such date. */
export function localDateSpan(zone: string, date: string): Interval | null {
  const day = DateTime.fromISO(date, { zone });
  if (!day.isValid || day.toISODate() !== date) return null;
  const start = day.startOf('day');
  return [start.toMillis(), start.plus({ days: 1 }).startOf('day').toMillis()];
}

// A company's staff share a handful of weekly patterns, and reports, calendars and the staff
// pages read every employee's on each request: each distinct stored value is validated once
// (validating was most of a 200-employee report's working-time cost). The values handed out
// are shared, so they are frozen.
// eslint-disable-next-line no-restricted-syntax -- process state: parsed working hours
const readHours = new Map<string, WorkingHours>();
const READ_HOURS_MAX = 2_000;

/** Reads stored working hours defensively (rows written before validation existed). */
export function readWorkingHours(value: unknown): WorkingHours {
  const key = JSON.stringify(value) ?? '';
  const hit = readHours.get(key);
  if (hit) return hit;
  const r = employeeWorkingHoursSchema.safeParse(value);
  const read = r.success ? deepFreeze(r.data) : EMPTY_WEEK;
  if (readHours.size >= READ_HOURS_MAX) readHours.delete(readHours.keys().next().value!);
  readHours.set(key, read);
  return read;
}

/** Reads a stored date override's intervals defensively (unreadable: off that day). */
export function readDayRanges(value: unknown): TimeRange[] {
  const r = dayRanges.safeParse(value);
  return r.success ? r.data : [];
}
