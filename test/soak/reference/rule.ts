// The reference model's rule (docs/api.md, "Why a time is not available" and "Booking rules: when
// a time can be booked"): every reason an employee cannot take a start, and what it means for some
// employees together. Written from the docs alone; where they leave an answer open, `optional`
// and `open` say so (reference/rows.ts).
import { inside, localDate, overlaps, schedule, type Rules, type Schedule } from './hours.js';
import { DAY, MINUTE, type Emp, type Svc, type World } from './rows.js';

export interface Reason {
  code: string;
  employeeId?: string;
  details?: Record<string, unknown>;
}

/** What the model expects of a refusal's reasons: these, plus any of `optional`, or anything more when `open`. */
export interface Reasons {
  reasons: Reason[];
  optional: Reason[];
  open: boolean;
}

export interface Policy {
  now: number;
  rules: Rules;
  skipRules: boolean;
}

const iso = (t: number) => new Date(t).toISOString();

/** The reasons that concern everyone (no employeeId): a start that has passed, is too soon or too far ahead. */
export function timeReasons(start: number, p: Policy): Reason[] {
  // "MIN_NOTICE: it starts before now + minNoticeMinutes, or has passed": a passed start is
  // refused under skipRules too (POST /bookings answers it 400 before any rule).
  if (start <= p.now) return [{ code: 'MIN_NOTICE' }];
  if (p.skipRules) return [];
  const out: Reason[] = [];
  const earliest = p.now + p.rules.minNoticeMinutes * MINUTE;
  if (start < earliest)
    out.push({
      code: 'MIN_NOTICE',
      details: { minNoticeMinutes: p.rules.minNoticeMinutes, earliestStart: iso(earliest) },
    });
  const latest = p.now + p.rules.maxAdvanceDays * DAY;
  if (start > latest)
    out.push({ code: 'MAX_ADVANCE', details: { maxAdvanceDays: p.rules.maxAdvanceDays, latestStart: iso(latest) } });
  return out;
}

/** Every reason the employee of `s` cannot take `svc` at `start` (their own; the shared ones apart). */
export function employeeReasons(w: World, s: Schedule, svc: Svc, start: number, p: Policy): Reasons {
  const id = s.employeeId;
  const end = start + svc.durationMinutes * MINUTE;
  const bs = start - svc.bufferBeforeMinutes * MINUTE;
  const be = end + svc.bufferAfterMinutes * MINUTE;
  const reasons: Reason[] = [];
  const optional: Reason[] = [];
  // "The appointment itself lies inside working hours ... closures are cut out of them."
  if (!inside(s.working, start, end)) {
    if (overlaps(s.closures, start, end)) reasons.push({ code: 'CLOSURE', employeeId: id });
    // Outside the day's hours: DATE_OVERRIDE when it falls on a day a date override sets,
    // OUTSIDE_WORKING_HOURS otherwise (inside the hours, only a closure is in the way).
    if (!inside(s.hours, start, end))
      reasons.push({
        code: overlaps(s.overridden, start, end) ? 'DATE_OVERRIDE' : 'OUTSIDE_WORKING_HOURS',
        employeeId: id,
      });
  }
  // "Its block (buffers included) overlaps ... time off"; BOOKED when the appointments overlap,
  // BUFFER when only the blocks do.
  if (overlaps(s.timeOff, bs, be)) reasons.push({ code: 'TIME_OFF', employeeId: id });
  if (overlaps(s.booked, start, end)) reasons.push({ code: 'BOOKED', employeeId: id });
  else if (overlaps(s.blocks, bs, be)) reasons.push({ code: 'BUFFER', employeeId: id });
  if (!p.skipRules) {
    const rule: Reason[] = [];
    const step = p.rules.slotIntervalMinutes;
    let undecidedGrid = false;
    if (step !== null) {
      // "It is not on the slotIntervalMinutes grid of the working interval it falls in."
      const within = s.intervals.find(([a, b]) => a <= start && start < b);
      // A start in no working interval has no grid to be off: the docs do not say whether
      // OFF_INTERVAL is given then (it is refused as outside the hours either way).
      if (!within) undecidedGrid = true;
      else if ((start - within[0]) % (step * MINUTE) !== 0)
        rule.push({ code: 'OFF_INTERVAL', employeeId: id, details: { slotIntervalMinutes: step } });
    }
    const limit = p.rules.dailyLimitPerEmployee;
    if (limit !== null) {
      const date = localDate(w.zone, start);
      if ((s.perDay.get(`${svc.id} ${date}`) ?? 0) >= limit)
        rule.push({ code: 'DAILY_LIMIT', employeeId: id, details: { dailyLimitPerEmployee: limit, date } });
    }
    const grid = { code: 'OFF_INTERVAL', employeeId: id, details: { slotIntervalMinutes: step } };
    if (start > p.now) {
      reasons.push(...rule);
      if (undecidedGrid) optional.push(grid);
    } else {
      // A start that has passed is refused as passed (MIN_NOTICE): whether the slot interval
      // and the daily limit are judged of it too, the docs do not say.
      optional.push(...rule);
      if (undecidedGrid) optional.push(grid);
    }
  }
  return { reasons, optional, open: false };
}

/** The rule asked of a start for some employees (the active ones among them): who can take it, and why the others cannot. */
export function assess(
  w: World,
  svc: Svc,
  employeeIds: string[],
  start: number,
  p: Policy,
  opts: { ignore?: string } = {},
): { employeeIds: string[] } & Reasons {
  const staff = [...new Set(employeeIds)]
    .map((id) => w.employees.get(id))
    .filter((e): e is Emp => !!e && e.active)
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  // "NOT_QUALIFIED: ... no employee does": nobody to ask. Whether the reasons that concern
  // everyone (a passed or too early start) are given beside it, the docs do not say.
  if (staff.length === 0) return { employeeIds: [], reasons: [{ code: 'NOT_QUALIFIED' }], optional: [], open: true };
  const free: string[] = [];
  const reasons: Reason[] = [];
  const optional: Reason[] = [];
  const shared = timeReasons(start, p);
  for (const e of staff) {
    const s = schedule(w, e, start - DAY, start + DAY, opts);
    const own = employeeReasons(w, s, svc, start, p);
    if (shared.length === 0 && own.reasons.length === 0) free.push(e.id);
    else reasons.push(...own.reasons);
    optional.push(...own.optional);
  }
  // A reason that concerns everyone is given once.
  if (free.length < staff.length) reasons.unshift(...shared);
  return { employeeIds: free, reasons, optional, open: false };
}

// ---------------------------------------------------------------------------------------------
// Comparing an answer's reasons with the model's.

/** A reason as compared: code, employee and details (a reason's message is for people, docs/api.md Errors). */
export const reasonKey = (r: Reason) =>
  JSON.stringify([r.code, r.employeeId ?? null, r.details === undefined ? null : sortKeys(r.details)]);

function sortKeys(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** Why `got` is not what `want` allows; null when it is. */
export function reasonsDiffer(got: Reason[], want: Reasons): string | null {
  const left = got.map(reasonKey);
  const missing: string[] = [];
  for (const r of want.reasons.map(reasonKey)) {
    const i = left.indexOf(r);
    if (i < 0) missing.push(r);
    else left.splice(i, 1);
  }
  for (const r of want.optional.map(reasonKey)) {
    const i = left.indexOf(r);
    if (i >= 0) left.splice(i, 1);
  }
  if (missing.length === 0 && (left.length === 0 || want.open)) return null;
  return `missing ${JSON.stringify(missing)}, unexpected ${JSON.stringify(want.open ? [] : left)}`;
}
