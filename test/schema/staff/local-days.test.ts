// The local days of a zone (src/schema/staff/working-hours.ts, localDays) are what Luxon says
// they are, whatever the zone and however warm the caches: the days already worked out answer
// later instants by comparison (daysByUtcDay), the quarters of an hour by their own cache, and
// both must agree with Luxon on every instant, on the days of a DST change and in zones whose
// offset is not whole hours.
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { localDays } from '../../../src/schema/staff/working-hours.js';

const ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'America/Santiago',
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
  'Pacific/Chatham',
  'Pacific/Kiritimati',
  'America/St_Johns',
];
const DAY = 86_400_000;
// Two years around the DST changes of 2027 and 2028, to the minute.
const FROM = Date.UTC(2027, 0, 1);
const TO = Date.UTC(2029, 0, 1);

/** Luxon's answer: the days from the one before `from`'s to the one after `to`'s. */
function expected(zone: string, from: number, to: number) {
  const days: Array<{ date: string; start: number; end: number }> = [];
  let day = DateTime.fromMillis(from, { zone }).startOf('day').minus({ days: 1 }).startOf('day');
  const last = DateTime.fromMillis(to, { zone }).startOf('day').plus({ days: 1 }).startOf('day');
  while (day.toMillis() <= last.toMillis()) {
    const next = day.plus({ days: 1 }).startOf('day');
    days.push({ date: day.toISODate()!, start: day.toMillis(), end: next.toMillis() });
    day = next;
  }
  return days;
}

describe('localDays', () => {
  it('agrees with Luxon on any zone and window, asked in any order (the caches warm as it goes)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.integer({ min: FROM / 60_000, max: TO / 60_000 }),
        fc.integer({ min: 0, max: 3 * 24 * 60 }),
        (zone, fromMinute, minutes) => {
          const from = fromMinute * 60_000;
          const to = from + minutes * 60_000;
          const got = localDays(zone, from, to).map((d) => ({ date: d.date, start: d.start, end: d.end }));
          expect(got).toEqual(expected(zone, from, to));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('answers the instants next to a DST change by the day they fall on', () => {
    // Berlin moves its clocks at 01:00 UTC on the last Sunday of March and of October.
    for (const change of [Date.UTC(2027, 2, 28, 1), Date.UTC(2027, 9, 31, 1)])
      for (const t of [change - 1, change, change + 1, change - DAY, change + DAY])
        expect(localDays('Europe/Berlin', t, t).map((d) => d.date)).toEqual(
          expected('Europe/Berlin', t, t).map((d) => d.date),
        );
  });
});
