// The values the soak's commands are made of, as fast-check arbitraries with readable names:
// working weeks, booking rules, services, and times given relative to a company's "now" (resolved
// when the command runs, against its zone and its clock).
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { MINUTE, WEEKDAYS, type Range, type Week, type World } from './reference/rows.js';

export const hhmm = (m: number) =>
  m === 1440 ? '24:00' : `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
const minutes = (t: string) => (t === '24:00' ? 1440 : Number(t.slice(0, 2)) * 60 + Number(t.slice(3)));

/** Never a boundary in the local hour 02:00-03:00 (reference.ts says why). */
const outsideTwoAm = (m: number) => m < 120 || m >= 180;

const DAY_TEMPLATES: Range[][] = [
  [],
  [{ start: '09:00', end: '17:00' }],
  [
    { start: '08:30', end: '12:00' },
    { start: '13:00', end: '18:15' },
  ],
  [{ start: '00:00', end: '24:00' }],
  [
    { start: '06:00', end: '10:00' },
    { start: '20:00', end: '24:00' },
  ],
  [
    { start: '00:00', end: '01:45' },
    { start: '03:00', end: '11:00' },
  ],
  [{ start: '10:05', end: '14:35' }],
  [{ start: '01:00', end: '05:00' }],
];

/** One day's intervals: a template, or up to three random ones on a 5-minute grid. */
export const dayArb: fc.Arbitrary<Range[]> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...DAY_TEMPLATES) },
  {
    weight: 2,
    arbitrary: fc
      .uniqueArray(
        fc.integer({ min: 0, max: 288 }).map((i) => i * 5),
        { minLength: 2, maxLength: 6 },
      )
      .map((marks) => {
        const sorted = marks.filter(outsideTwoAm).sort((a, b) => a - b);
        const out: Range[] = [];
        for (let i = 0; i + 1 < sorted.length; i += 2)
          if (sorted[i]! < 1440) out.push({ start: hhmm(sorted[i]!), end: hhmm(sorted[i + 1]!) });
        return out;
      }),
  },
);

/** A week: every day alike (most businesses), or each its own. */
export const weekArb: fc.Arbitrary<Week> = fc.oneof(
  { weight: 2, arbitrary: dayArb.map((d) => Object.fromEntries(WEEKDAYS.map((w) => [w, d])) as Week) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(...WEEKDAYS.map(() => dayArb))
      .map((days) => Object.fromEntries(WEEKDAYS.map((w, i) => [w, days[i]!])) as Week),
  },
);

export const showDay = (d: Range[]) => (d.length === 0 ? 'off' : d.map((r) => `${r.start}-${r.end}`).join('+'));
export function showWeek(w: Week): string {
  const days = WEEKDAYS.map((d) => showDay(w[d]));
  return new Set(days).size === 1
    ? `daily ${days[0]}`
    : WEEKDAYS.map((d, i) => `${d.slice(0, 2)} ${days[i]}`).join(', ');
}

export type RulesPatch = Partial<
  Record<'minNoticeMinutes' | 'maxAdvanceDays' | 'slotIntervalMinutes' | 'dailyLimitPerEmployee', number | null>
>;

/** Booking rules (docs/api.md, "Booking rules: when a time can be booked"): some set, some reset (null). */
const sometimes = <T>(values: T[]) =>
  fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(...values) });
export const rulesArb: fc.Arbitrary<RulesPatch> = fc
  .tuple(
    sometimes([null, 0, 30, 60, 240, 1440]),
    sometimes([null, 1, 2, 7, 30]),
    sometimes([null, 5, 10, 20, 30, 45, 60]),
    sometimes([null, 1, 2, 3]),
  )
  .map(([minNoticeMinutes, maxAdvanceDays, slotIntervalMinutes, dailyLimitPerEmployee]) => {
    const r: RulesPatch = {};
    if (minNoticeMinutes !== undefined) r.minNoticeMinutes = minNoticeMinutes;
    if (maxAdvanceDays !== undefined) r.maxAdvanceDays = maxAdvanceDays;
    if (slotIntervalMinutes !== undefined) r.slotIntervalMinutes = slotIntervalMinutes;
    if (dailyLimitPerEmployee !== undefined) r.dailyLimitPerEmployee = dailyLimitPerEmployee;
    return r;
  });
export const showRules = (r: RulesPatch) =>
  Object.keys(r).length === 0
    ? '{}'
    : `{${Object.entries(r)
        .map(([k, v]) => `${k.replace(/Minutes|Days|PerEmployee/, '')}: ${v}`)
        .join(', ')}}`;

export interface ServiceSpec {
  durationMinutes: number;
  bufferBeforeMinutes: number;
  bufferAfterMinutes: number;
  bookingRules: RulesPatch;
  /** Which of the company's employees perform it (bit i: the i-th created). */
  staff: number;
}
export const serviceArb: fc.Arbitrary<ServiceSpec> = fc.record({
  durationMinutes: fc.constantFrom(15, 20, 30, 45, 60, 90, 120),
  bufferBeforeMinutes: fc.constantFrom(0, 0, 0, 5, 10, 15, 30),
  bufferAfterMinutes: fc.constantFrom(0, 0, 5, 10, 15),
  bookingRules: rulesArb,
  staff: fc.nat(31),
});
export const showService = (s: ServiceSpec) =>
  `${s.durationMinutes}m buf ${s.bufferBeforeMinutes}/${s.bufferAfterMinutes} rules ${showRules(s.bookingRules)} staff ${s.staff.toString(2)}`;

/** Picks the members of `list` a bit mask names (bit i % 5: list[i]); none named: all of them. */
export function masked<T>(list: T[], mask: number): T[] {
  const out = list.filter((_, i) => (mask >> (i % 5)) & 1);
  return out.length > 0 ? out : list;
}

/**
 * A time relative to the company's "now" (its clock, or the real time):
 * - slot: one of the starts /availability offers for the service over two days from a local day,
 * - local: a local day from today and a minute of it,
 * - booking: an existing booking's start moved by some minutes,
 * - now: now (to the minute) and some minutes.
 */
export type TimeSpec =
  | { k: 'slot'; pick: number; day: number }
  | { k: 'local'; day: number; minute: number }
  | { k: 'booking'; pick: number; offset: number }
  | { k: 'now'; offset: number };

export const timeArb: fc.Arbitrary<TimeSpec> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ k: fc.constant('slot' as const), pick: fc.nat(40), day: fc.integer({ min: 0, max: 4 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant('local' as const),
      day: fc.integer({ min: -1, max: 9 }),
      minute: fc.oneof(
        { weight: 4, arbitrary: fc.integer({ min: 0, max: 287 }).map((i) => i * 5) },
        { weight: 1, arbitrary: fc.integer({ min: 0, max: 1439 }) },
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant('booking' as const),
      pick: fc.nat(40),
      offset: fc.integer({ min: -12, max: 12 }).map((i) => i * 5),
    }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('now' as const), offset: fc.integer({ min: -60, max: 3000 }) }) },
);

export function showTime(t: TimeSpec): string {
  switch (t.k) {
    case 'slot':
      return `slot#${t.pick}@+${t.day}d`;
    case 'local':
      return `+${t.day}d ${hhmm(t.minute)}`;
    case 'booking':
      return `booking#${t.pick}${t.offset >= 0 ? '+' : ''}${t.offset}m`;
    case 'now':
      return `now${t.offset >= 0 ? '+' : ''}${t.offset}m`;
  }
}

export const nowOf = (w: World) => w.clock ?? Date.now();

/** A local day `days` from the company's today, at local `minute` (Luxon places it in the zone). */
export function localTime(w: World, days: number, minute: number): number {
  return DateTime.fromMillis(nowOf(w), { zone: w.zone })
    .startOf('day')
    .plus({ days })
    .set({ hour: Math.floor(minute / 60), minute: minute % 60, second: 0, millisecond: 0 })
    .toMillis();
}

export function localDayStart(w: World, days: number): number {
  return DateTime.fromMillis(nowOf(w), { zone: w.zone }).startOf('day').plus({ days }).startOf('day').toMillis();
}

/** The time a spec names now, without asking the server (a `slot` is resolved by the caller). */
export function plainTime(w: World, t: Exclude<TimeSpec, { k: 'slot' }>): number {
  switch (t.k) {
    case 'local':
      return localTime(w, t.day, t.minute);
    case 'booking': {
      const list = [...w.bookings].sort((a, b) => (a.id < b.id ? -1 : 1));
      if (list.length === 0) return localTime(w, 1, 600 + t.offset);
      return list[t.pick % list.length]!.start + t.offset * MINUTE;
    }
    case 'now':
      return Math.floor(nowOf(w) / MINUTE) * MINUTE + t.offset * MINUTE;
  }
}

export const MARKUP = [
  '<script>alert("x")</script>',
  '"><img src=x onerror=alert(1)>',
  "O'Brien & Sons </textarea>",
  '{{7*7}} ${7*7}',
];

export { minutes };
