// Recurrence rules (RFC 5545 §3.3.10 RRULE) for class schedules and booking series
// (docs/api.md, Recurrence rules). The rule is parsed and stepped by ical.js (README,
// "Libraries"); this module adds what a booking service needs around it:
//
// - Wall-clock expansion: the rule runs on floating local date-times (DTSTART = a local date at
//   a local time), and each occurrence is placed in the IANA zone afterwards, so 18:30 stays
//   18:30 across daylight-saving changes. A local time that does not exist on a spring-forward
//   day moves forward by the gap (02:30 → 03:30); one that exists twice takes the first.
// - Hard limits against hostile rules: only DAILY, WEEKLY, MONTHLY and YEARLY (the time of day
//   is the caller's, so BYHOUR/BYMINUTE/BYSECOND are refused too), bounded INTERVAL and COUNT,
//   a bounded number of occurrences per expansion and a bounded amount of stepping, so a rule
//   that matches nothing for centuries (FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30) stops instead of
//   spinning.
// - Refusals as 400 VALIDATION_ERROR naming the field (`rrule` unless the caller says).
//
// Nothing here reads the clock or the database: callers pass the zone, the start and the window.
import ICAL from 'ical.js';
import { DateTime, IANAZone } from 'luxon';
import { AppError } from '../../errors.js';
import { deepFreeze } from '../../frozen.js';

export const RECURRENCE_LIMITS = {
  /** Characters of a rule. */
  length: 512,
  /** Largest INTERVAL. */
  interval: 1000,
  /** Largest COUNT any caller accepts (callers may set lower, e.g. 52 for a series). */
  count: 10_000,
  /** Occurrences one expansion returns at most, whatever the caller asks. */
  occurrences: 2_000,
  /**
   * Steps of the iterator per expansion (each candidate date it tries counts). Ten years of a
   * daily rule is ~7 300 steps; a rule that yields nothing uses them all (~0.1 s of CPU) and
   * ends `exhausted`.
   */
  steps: 20_000,
} as const;

export const FREQUENCIES = ['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'] as const;
export type Frequency = (typeof FREQUENCIES)[number];

const PARTS = deepFreeze(
  new Set([
    'FREQ',
    'INTERVAL',
    'COUNT',
    'UNTIL',
    'BYDAY',
    'BYMONTHDAY',
    'BYMONTH',
    'BYYEARDAY',
    'BYWEEKNO',
    'BYSETPOS',
    'WKST',
  ]),
);
const TIME_PARTS = deepFreeze(new Set(['BYHOUR', 'BYMINUTE', 'BYSECOND']));
const WEEKDAYS = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'];

/** The end of a rule's UNTIL, in the form it was given (RFC 5545 allows a date or a date-time). */
export type RecurrenceUntil =
  /** UNTIL=20261231: occurrences on that local date or before. */
  | { kind: 'date'; date: string }
  /** UNTIL=20261231T180000Z: occurrences starting at or before that instant. */
  | { kind: 'instant'; at: Date }
  /** UNTIL=20261231T180000 (floating): occurrences at or before that local wall-clock time. */
  | { kind: 'local'; dateTime: string };

export interface Recurrence {
  /** The rule as stored and shown: normalised by ical.js, without an `RRULE:` prefix. */
  readonly rrule: string;
  readonly freq: Frequency;
  readonly interval: number;
  readonly count: number | null;
  readonly until: RecurrenceUntil | null;
}

export interface ParseRecurrenceOptions {
  /** The field named in refusals; `rrule` by default. */
  field?: string;
  /** Refuse a rule with neither COUNT nor UNTIL (an open-ended rule). */
  requireEnd?: boolean;
  /** Largest COUNT accepted (at most RECURRENCE_LIMITS.count). */
  maxCount?: number;
}

const refuse = (field: string, message: string) => AppError.validation([{ path: field, message }]);

/**
 * Parses and validates an RRULE value (`FREQ=WEEKLY;BYDAY=MO,WE`, optionally prefixed
 * `RRULE:`). Throws 400 VALIDATION_ERROR naming `field` for anything it would not expand.
 */
export function parseRecurrence(input: unknown, opts: ParseRecurrenceOptions = {}): Recurrence {
  const field = opts.field ?? 'rrule';
  const maxCount = Math.min(opts.maxCount ?? RECURRENCE_LIMITS.count, RECURRENCE_LIMITS.count);
  if (typeof input !== 'string') throw refuse(field, 'must be an RRULE string, e.g. FREQ=WEEKLY;BYDAY=MO,WE');
  if (input.length > RECURRENCE_LIMITS.length) {
    throw refuse(field, `must be at most ${RECURRENCE_LIMITS.length} characters`);
  }
  const body = input.trim().replace(/^RRULE:/i, '');
  if (!/^[A-Za-z0-9=;,+-]+$/.test(body)) {
    throw refuse(field, 'must be one RRULE value (NAME=VALUE parts separated by ";"), e.g. FREQ=WEEKLY;BYDAY=MO');
  }

  // ical.js skips parts it does not know and drops some invalid values silently (INTERVAL=-1,
  // COUNT=0), so the parts are checked here first.
  const parts = new Map<string, string>();
  for (const piece of body.split(';')) {
    const eq = piece.indexOf('=');
    const name = (eq > 0 ? piece.slice(0, eq) : piece).toUpperCase();
    const value = eq > 0 ? piece.slice(eq + 1) : '';
    if (TIME_PARTS.has(name)) {
      throw refuse(field, `${name} is not supported: the time of day is given separately`);
    }
    if (!PARTS.has(name)) throw refuse(field, `unknown or unsupported part ${JSON.stringify(name.slice(0, 20))}`);
    if (!value) throw refuse(field, `${name} needs a value`);
    if (parts.has(name)) throw refuse(field, `${name} appears more than once`);
    parts.set(name, value.toUpperCase());
  }
  const freq = parts.get('FREQ');
  if (!freq) throw refuse(field, 'FREQ is required');
  if (!(FREQUENCIES as readonly string[]).includes(freq)) {
    throw refuse(field, `FREQ must be one of ${FREQUENCIES.join(', ')}`);
  }
  const interval = positiveInt(parts.get('INTERVAL') ?? '1', RECURRENCE_LIMITS.interval);
  if (interval === null) throw refuse(field, `INTERVAL must be a whole number from 1 to ${RECURRENCE_LIMITS.interval}`);
  const countText = parts.get('COUNT');
  const count = countText === undefined ? null : positiveInt(countText, maxCount);
  if (countText !== undefined && count === null) {
    throw refuse(field, `COUNT must be a whole number from 1 to ${maxCount}`);
  }
  if (count !== null && parts.has('UNTIL')) throw refuse(field, 'COUNT and UNTIL must not both appear');
  if (opts.requireEnd && count === null && !parts.has('UNTIL')) {
    throw refuse(field, `must end: give COUNT (at most ${maxCount}) or UNTIL`);
  }

  let recur: ICAL.Recur;
  try {
    recur = ICAL.Recur.fromString(body.toUpperCase());
  } catch (e) {
    // ical.js's messages name the part and quote only the rule's own value.
    throw refuse(field, e instanceof Error ? e.message.slice(0, 200) : 'is not a valid RRULE');
  }
  let until: RecurrenceUntil | null = null;
  if (recur.until) {
    const u = recur.until;
    if (u.year < 1900 || u.year > 9999) throw refuse(field, 'UNTIL must be a date between 1900 and 9999');
    const date = `${pad(u.year, 4)}-${pad(u.month)}-${pad(u.day)}`;
    if (u.isDate) until = { kind: 'date', date };
    else {
      const local = `${date}T${pad(u.hour)}:${pad(u.minute)}:${pad(u.second)}`;
      const tzid = (u.zone as { tzid?: string } | null)?.tzid;
      until = tzid === 'UTC' ? { kind: 'instant', at: new Date(`${local}Z`) } : { kind: 'local', dateTime: local };
    }
  }
  // Validate BY-part combinations the way the iterator will (it throws on some at its start).
  try {
    recur.iterator(ICAL.Time.fromData({ year: 2026, month: 1, day: 1, hour: 0, minute: 0 }));
  } catch (e) {
    throw refuse(field, e instanceof Error ? e.message.slice(0, 200) : 'is not a valid RRULE');
  }
  return { rrule: recur.toString(), freq: freq as Frequency, interval, count, until };
}

function positiveInt(text: string, max: number): number | null {
  if (!/^\d{1,6}$/.test(text)) return null;
  const n = Number(text);
  return n >= 1 && n <= max ? n : null;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

// ---------------------------------------------------------------------------------------------
// Expansion

export interface LocalStart {
  /** The first local date the rule may fall on (DTSTART's date), `YYYY-MM-DD`. */
  date: string;
  /** The wall-clock time of every occurrence, `HH:mm`. */
  time: string;
}

export interface ExpandOptions {
  /** IANA zone the wall-clock times are in. */
  zone: string;
  start: LocalStart;
  /** Only occurrences starting at or after this instant. */
  from?: Date;
  /** Only occurrences starting before this instant (a horizon). */
  to?: Date;
  /** At most this many occurrences (capped at RECURRENCE_LIMITS.occurrences). */
  limit?: number;
  /** Iterator steps allowed (capped at RECURRENCE_LIMITS.steps). */
  maxSteps?: number;
}

export interface Occurrence {
  /** Position in the whole recurrence set, from 0 (the first occurrence on or after `start.date`). */
  index: number;
  startTime: Date;
  /** Local date and wall-clock time in the zone (the time differs from `start.time` only in a DST gap). */
  localDate: string;
  localTime: string;
}

export interface Expansion {
  occurrences: Occurrence[];
  /** The rule has no occurrence after the last one returned (COUNT or UNTIL reached). */
  ended: boolean;
  /** The step budget ran out first: the rule yields too rarely (or never) to expand further. */
  exhausted: boolean;
}

/** Parses `HH:mm` (00:00–23:59); null when it is not one. */
export function parseLocalTime(text: string): { hour: number; minute: number } | null {
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text);
  return m ? { hour: Number(m[1]), minute: Number(m[2]) } : null;
}

/** The local start (date and `HH:mm`) of an instant in a zone: how a series' startTime becomes DTSTART. */
export function localStartOf(instant: Date, zone: string): LocalStart {
  const t = DateTime.fromJSDate(instant, { zone });
  return { date: t.toISODate()!, time: t.toFormat('HH:mm') };
}

/**
 * The occurrences of `rule` from `start` in `zone`, within [from, to), in order, at most `limit`.
 * Bounded work: stops when the window, the limit, the rule's end or the step budget is reached.
 */
export function expandRecurrence(rule: Recurrence, opts: ExpandOptions): Expansion {
  if (!IANAZone.isValidZone(opts.zone)) throw new Error(`not an IANA zone: ${opts.zone}`);
  const time = parseLocalTime(opts.start.time);
  const date = DateTime.fromISO(opts.start.date, { zone: 'UTC' });
  if (!time || !date.isValid || !/^\d{4}-\d{2}-\d{2}$/.test(opts.start.date)) {
    throw new Error(`not a local start: ${opts.start.date} ${opts.start.time}`);
  }
  const limit = Math.min(opts.limit ?? RECURRENCE_LIMITS.occurrences, RECURRENCE_LIMITS.occurrences);
  const maxSteps = Math.min(opts.maxSteps ?? RECURRENCE_LIMITS.steps, RECURRENCE_LIMITS.steps);
  const from = opts.from?.getTime() ?? -Infinity;
  const to = opts.to?.getTime() ?? Infinity;

  // UNTIL is applied here, on the placed occurrences, because its meaning depends on its form
  // (a local date, an instant, a floating time) and the iterator only sees floating times.
  const recur = ICAL.Recur.fromString(rule.rrule);
  recur.until = null;
  recur.count = null;
  const dtstart = ICAL.Time.fromData({
    year: date.year,
    month: date.month,
    day: date.day,
    hour: time.hour,
    minute: time.minute,
    second: 0,
    isDate: false,
  });
  const iterator = recur.iterator(dtstart);
  // The budget: every candidate the iterator tries passes through check_contracting_rules (the
  // loop condition of its next()), so counting those calls bounds its work even inside one
  // next() call that would otherwise search forever.
  let steps = 0;
  const check = iterator.check_contracting_rules.bind(iterator);
  iterator.check_contracting_rules = () => {
    if (++steps > maxSteps) throw new StepBudgetSpent();
    return check();
  };

  const occurrences: Occurrence[] = [];
  let index = 0;
  let ended = false;
  let exhausted = false;
  try {
    while (occurrences.length < limit) {
      const next = iterator.next();
      if (!next) {
        ended = true;
        break;
      }
      if (++steps > maxSteps) throw new StepBudgetSpent();
      // ical.js gives DTSTART itself as the first occurrence even when it does not match the
      // rule (RFC 5545 leaves that undefined), and can land a leap-day rule on 1 March: every
      // candidate must pass the rule's own date filters.
      if (!matchesFilters(next, recur)) continue;
      const local = DateTime.fromObject(
        { year: next.year, month: next.month, day: next.day, hour: next.hour, minute: next.minute },
        { zone: opts.zone },
      );
      if (pastUntil(rule.until, next, local)) {
        ended = true;
        break;
      }
      const at = local.toMillis();
      if (at >= to) break;
      const occurrenceIndex = index++;
      if (rule.count !== null && occurrenceIndex >= rule.count) {
        ended = true;
        break;
      }
      if (at < from) continue;
      occurrences.push({
        index: occurrenceIndex,
        startTime: new Date(at),
        localDate: local.toISODate()!,
        localTime: local.toFormat('HH:mm'),
      });
    }
    if (!ended && rule.count !== null && index >= rule.count) ended = true;
  } catch (e) {
    if (!(e instanceof StepBudgetSpent)) throw e;
    exhausted = true;
  }
  return { occurrences, ended, exhausted };
}

/**
 * Refuses (400 naming `field`) a rule that yields no occurrence from `start`, or yields its first
 * only after more stepping than the budget allows. Returns the first occurrence.
 */
export function firstOccurrence(rule: Recurrence, opts: ExpandOptions & { field?: string }): Occurrence {
  const { occurrences } = expandRecurrence(rule, { ...opts, from: undefined, to: undefined, limit: 1 });
  const first = occurrences[0];
  if (!first) throw refuse(opts.field ?? 'rrule', 'yields no occurrence from the start date');
  return first;
}

class StepBudgetSpent extends Error {}

// COUNT is counted above over the occurrences that pass these filters, so the iterator is not
// trusted with it either (it would count a non-matching DTSTART).
function matchesFilters(t: ICAL.Time, recur: ICAL.Recur): boolean {
  const parts = recur.parts as Record<string, Array<number | string> | undefined>;
  const months = parts.BYMONTH;
  if (months?.length && !months.map(Number).includes(t.month)) return false;
  const monthDays = parts.BYMONTHDAY;
  if (monthDays?.length) {
    const dim = ICAL.Time.daysInMonth(t.month, t.year);
    if (!monthDays.map(Number).some((d) => (d > 0 ? d === t.day : dim + d + 1 === t.day))) return false;
  }
  const yearDays = parts.BYYEARDAY;
  if (yearDays?.length) {
    const diy = ICAL.Time.isLeapYear(t.year) ? 366 : 365;
    const doy = t.dayOfYear();
    if (!yearDays.map(Number).some((d) => (d > 0 ? d === doy : diy + d + 1 === doy))) return false;
  }
  const days = parts.BYDAY;
  if (days?.length) {
    const weekday = WEEKDAYS[t.dayOfWeek() - 1];
    if (!days.some((d) => String(d).slice(-2) === weekday)) return false;
  }
  return true;
}

function pastUntil(until: RecurrenceUntil | null, t: ICAL.Time, local: DateTime): boolean {
  if (!until) return false;
  if (until.kind === 'instant') return local.toMillis() > until.at.getTime();
  const date = `${pad(t.year, 4)}-${pad(t.month)}-${pad(t.day)}`;
  if (until.kind === 'date') return date > until.date;
  return `${date}T${pad(t.hour)}:${pad(t.minute)}:${pad(t.second)}` > until.dateTime;
}
