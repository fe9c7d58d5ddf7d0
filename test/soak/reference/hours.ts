// The reference model's hours (docs/api.md, Times "Local time", Employees, Slots, Closures): an
// employee's working intervals around a window as instants, day by day in the company's zone
// (Luxon places each local HH:MM), with what closures, time off and other bookings take out.
import { DateTime } from 'luxon';
import { WEEKDAYS, type Emp, type Range, type Svc, type Weekday, type World } from './rows.js';

/** [start, end) in epoch milliseconds. */
export type Iv = [number, number];

// ---------------------------------------------------------------------------------------------
// The booking rules in force (docs/api.md, "Booking rules: when a time can be booked"): the
// company's, a service's non-null rule over it, the default where neither sets one.

export interface Rules {
  minNoticeMinutes: number;
  maxAdvanceDays: number;
  slotIntervalMinutes: number | null;
  dailyLimitPerEmployee: number | null;
}

export function rulesOf(w: World, svc: Svc): Rules {
  const r: Rules = { minNoticeMinutes: 0, maxAdvanceDays: 365, slotIntervalMinutes: null, dailyLimitPerEmployee: null };
  for (const source of [w.companyRules, svc.rules])
    for (const k of Object.keys(r) as Array<keyof Rules>) {
      const v = source[k];
      if (typeof v === 'number') r[k] = v;
    }
  return r;
}

// ---------------------------------------------------------------------------------------------
// Intervals of instants.

const byStart = (a: Iv, b: Iv) => a[0] - b[0];

function merge(list: Iv[]): Iv[] {
  const out: Iv[] = [];
  for (const [a, b] of [...list].sort(byStart)) {
    const last = out[out.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

function subtract(list: Iv[], cut: Iv[]): Iv[] {
  let out = list;
  for (const [c0, c1] of cut) {
    const next: Iv[] = [];
    for (const [a, b] of out) {
      if (c1 <= a || b <= c0) next.push([a, b]);
      else {
        if (a < c0) next.push([a, c0]);
        if (c1 < b) next.push([c1, b]);
      }
    }
    out = next;
  }
  return out;
}

/** [a, b) lies inside one interval of a merged list. */
export const inside = (list: Iv[], a: number, b: number) => list.some(([x, y]) => x <= a && b <= y);
/** [a, b) overlaps one of the intervals. */
export const overlaps = (list: Iv[], a: number, b: number) => list.some(([x, y]) => x < b && a < y);

// ---------------------------------------------------------------------------------------------
// Local days and working hours (docs/api.md, Times "Local time", Employees, Slots): the weekly
// hours of each local day in the company's zone, a date override replacing that day's, each
// HH:MM turned into an instant by Luxon on that day ("24:00": the next day's start).

interface LocalDay {
  date: string;
  weekday: Weekday;
  day: DateTime;
  start: number;
  end: number;
}

function localDays(zone: string, from: number, to: number): LocalDay[] {
  const out: LocalDay[] = [];
  let d = DateTime.fromMillis(from, { zone }).startOf('day').minus({ days: 1 }).startOf('day');
  const last = DateTime.fromMillis(to, { zone }).startOf('day').plus({ days: 1 }).startOf('day');
  while (d.toMillis() <= last.toMillis()) {
    const next = d.plus({ days: 1 }).startOf('day');
    out.push({
      date: d.toISODate()!,
      weekday: WEEKDAYS[d.weekday - 1]!,
      day: d,
      start: d.toMillis(),
      end: next.toMillis(),
    });
    d = next;
  }
  return out;
}

export const localDate = (zone: string, at: number) => DateTime.fromMillis(at, { zone }).toISODate()!;

function at(d: LocalDay, hhmm: string): number {
  if (hhmm === '24:00') return d.end;
  return d.day
    .set({ hour: Number(hhmm.slice(0, 2)), minute: Number(hhmm.slice(3, 5)), second: 0, millisecond: 0 })
    .toMillis();
}

/** One employee around a window: the configured intervals, the hours, what is cut out of them, and busy times. */
export interface Schedule {
  employeeId: string;
  /** Each configured interval of each day, unmerged: each anchors a grid of starts. */
  intervals: Iv[];
  /** The hours (intervals merged), before closures. */
  hours: Iv[];
  closures: Iv[];
  /** The hours less the closures. */
  working: Iv[];
  /** The spans of the local days whose hours a date override sets. */
  overridden: Iv[];
  timeOff: Iv[];
  /** Other live bookings: their appointments and their blocks (buffers included). */
  booked: Iv[];
  blocks: Iv[];
  /** Live bookings of each service by local date (the daily limit), the ignored one left out. */
  perDay: Map<string, number>;
}

export function schedule(
  w: World,
  emp: Emp,
  from: number,
  to: number,
  opts: { ignore?: string; override?: { date: string; intervals: Range[] | null } } = {},
): Schedule {
  const days = localDays(w.zone, from, to);
  const own = new Map(w.overrides.get(emp.id) ?? []);
  if (opts.override) {
    if (opts.override.intervals === null) own.delete(opts.override.date);
    else own.set(opts.override.date, opts.override.intervals);
  }
  const intervals: Iv[] = [];
  for (const d of days)
    for (const r of own.get(d.date) ?? emp.week[d.weekday] ?? []) {
      const s = at(d, r.start);
      const e = at(d, r.end);
      if (s < e) intervals.push([s, e]);
    }
  intervals.sort(byStart);
  const hours = merge(intervals);
  const closures = merge(
    w.closures
      .filter((c) => c.employeeIds.length === 0 || c.employeeIds.includes(emp.id))
      .map((c): Iv => [c.start, c.end]),
  );
  const live = w.bookings.filter(
    (b) => b.employeeId === emp.id && (b.status === 'pending' || b.status === 'confirmed') && b.id !== opts.ignore,
  );
  const perDay = new Map<string, number>();
  for (const b of live) {
    const k = `${b.serviceId} ${localDate(w.zone, b.start)}`;
    perDay.set(k, (perDay.get(k) ?? 0) + 1);
  }
  return {
    employeeId: emp.id,
    intervals,
    hours,
    closures,
    working: subtract(hours, closures),
    overridden: days.filter((d) => own.has(d.date)).map((d): Iv => [d.start, d.end]),
    timeOff: w.timeOff.filter((t) => t.employeeId === emp.id).map((t): Iv => [t.start, t.end]),
    booked: live.map((b): Iv => [b.start, b.end]),
    blocks: live.map((b): Iv => [b.blockStart, b.blockEnd]),
    perDay,
  };
}
