// Recurrence rules (docs/api.md, Recurrence rules): wall-clock expansion across DST in two
// zones, the rule's own date filters, COUNT/UNTIL, and the limits against hostile rules.
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import {
  expandRecurrence,
  firstOccurrence,
  localStartOf,
  parseRecurrence,
  RECURRENCE_LIMITS,
  type Recurrence,
} from '../../../src/schema/recurrence/index.js';

function refusal(fn: () => unknown): { code: string; details: unknown } {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return { code: e.code, details: e.details };
    throw e;
  }
  throw new Error('not refused');
}

const utc = (d: Date) => d.toISOString();

describe('wall-clock expansion across DST', () => {
  // Each zone's 2026 changes: Berlin 29 March and 25 October, New York 8 March and 1 November.
  const table = [
    {
      zone: 'Europe/Berlin',
      start: '2026-03-23',
      expected: ['2026-03-23T17:30:00.000Z', '2026-03-30T16:30:00.000Z', '2026-04-06T16:30:00.000Z'],
    },
    {
      zone: 'Europe/Berlin',
      start: '2026-10-19',
      expected: ['2026-10-19T16:30:00.000Z', '2026-10-26T17:30:00.000Z', '2026-11-02T17:30:00.000Z'],
    },
    {
      zone: 'America/New_York',
      start: '2026-03-02',
      expected: ['2026-03-02T23:30:00.000Z', '2026-03-09T22:30:00.000Z', '2026-03-16T22:30:00.000Z'],
    },
    {
      zone: 'America/New_York',
      start: '2026-10-26',
      expected: ['2026-10-26T22:30:00.000Z', '2026-11-02T23:30:00.000Z', '2026-11-09T23:30:00.000Z'],
    },
  ];
  it.each(table)('$zone from $start: 18:30 stays 18:30', ({ zone, start, expected }) => {
    const rule = parseRecurrence('FREQ=WEEKLY;BYDAY=MO;COUNT=3');
    const { occurrences, ended, exhausted } = expandRecurrence(rule, { zone, start: { date: start, time: '18:30' } });
    expect(occurrences.map((o) => utc(o.startTime))).toEqual(expected);
    expect(occurrences.map((o) => o.localTime)).toEqual(['18:30', '18:30', '18:30']);
    expect(occurrences.map((o) => o.index)).toEqual([0, 1, 2]);
    expect({ ended, exhausted }).toEqual({ ended: true, exhausted: false });
  });

  it('a local time missing on the spring-forward day moves forward by the gap, and back the day after', () => {
    const rule = parseRecurrence('FREQ=DAILY;COUNT=3');
    const { occurrences } = expandRecurrence(rule, {
      zone: 'Europe/Berlin',
      start: { date: '2026-03-28', time: '02:30' },
    });
    expect(occurrences.map((o) => [o.localDate, o.localTime])).toEqual([
      ['2026-03-28', '02:30'],
      ['2026-03-29', '03:30'],
      ['2026-03-30', '02:30'],
    ]);
  });

  it('property: every occurrence is at the wall-clock time, in order, inside the window, within COUNT', () => {
    const zones = ['Europe/Berlin', 'America/New_York'];
    const days = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.constantFrom('DAILY', 'WEEKLY', 'MONTHLY'),
        fc.integer({ min: 1, max: 3 }),
        fc.subarray(days, { minLength: 1 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 364 }),
        fc.integer({ min: 6, max: 22 }),
        (zone, freq, interval, byday, count, dayOffset, hour) => {
          const rule = parseRecurrence(`FREQ=${freq};INTERVAL=${interval};BYDAY=${byday.join(',')};COUNT=${count}`);
          const date = DateTime.fromISO('2026-01-01').plus({ days: dayOffset }).toISODate()!;
          const time = `${String(hour).padStart(2, '0')}:30`;
          const from = new Date(Date.UTC(2026, 2, 1));
          const to = new Date(Date.UTC(2026, 11, 1));
          const { occurrences, exhausted } = expandRecurrence(rule, { zone, start: { date, time }, from, to });
          expect(exhausted).toBe(false);
          expect(occurrences.length).toBeLessThanOrEqual(count);
          let previous = -Infinity;
          for (const o of occurrences) {
            const local = DateTime.fromJSDate(o.startTime, { zone });
            expect(local.toFormat('HH:mm')).toBe(time);
            expect(o.localTime).toBe(time);
            expect(o.localDate >= date).toBe(true);
            expect(byday).toContain(local.toFormat('ccc').slice(0, 2).toUpperCase());
            expect(o.startTime.getTime()).toBeGreaterThan(previous);
            expect(o.startTime.getTime()).toBeGreaterThanOrEqual(from.getTime());
            expect(o.startTime.getTime()).toBeLessThan(to.getTime());
            expect(o.index).toBeLessThan(count);
            previous = o.startTime.getTime();
          }
          // Indices are contiguous inside the window.
          occurrences.forEach((o, i) => expect(o.index).toBe(occurrences[0]!.index + i));
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('the rule decides the dates', () => {
  const berlin = (rule: Recurrence, date: string, limit = 4) =>
    expandRecurrence(rule, { zone: 'Europe/Berlin', start: { date, time: '18:30' }, limit }).occurrences.map(
      (o) => o.localDate,
    );

  it('a start date that does not match the rule is not an occurrence (and not counted)', () => {
    // 2026-03-04 is a Wednesday.
    expect(berlin(parseRecurrence('FREQ=WEEKLY;BYDAY=MO,FR'), '2026-03-04')).toEqual([
      '2026-03-06',
      '2026-03-09',
      '2026-03-13',
      '2026-03-16',
    ]);
    expect(berlin(parseRecurrence('FREQ=DAILY;BYDAY=MO;COUNT=2'), '2026-03-04')).toEqual(['2026-03-09', '2026-03-16']);
    expect(berlin(parseRecurrence('FREQ=WEEKLY;INTERVAL=2;BYDAY=MO'), '2026-03-04', 2)).toEqual([
      '2026-03-16',
      '2026-03-30',
    ]);
    expect(berlin(parseRecurrence('FREQ=MONTHLY;BYDAY=MO;BYSETPOS=-1'), '2026-03-04', 2)).toEqual([
      '2026-03-30',
      '2026-04-27',
    ]);
  });

  it('a leap-day rule falls only on 29 February', () => {
    expect(berlin(parseRecurrence('FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29'), '2026-03-04', 2)).toEqual([
      '2028-02-29',
      '2032-02-29',
    ]);
  });

  it('UNTIL as a date includes that local date; as a UTC time it is an instant', () => {
    expect(berlin(parseRecurrence('FREQ=DAILY;UNTIL=20260306'), '2026-03-04', 10)).toEqual([
      '2026-03-04',
      '2026-03-05',
      '2026-03-06',
    ]);
    // 17:30Z is 18:30 in Berlin in March: the 6th is included, 17:29Z would exclude it.
    expect(berlin(parseRecurrence('FREQ=DAILY;UNTIL=20260306T173000Z'), '2026-03-04', 10)).toHaveLength(3);
    expect(berlin(parseRecurrence('FREQ=DAILY;UNTIL=20260306T172900Z'), '2026-03-04', 10)).toHaveLength(2);
    expect(parseRecurrence('RRULE:FREQ=DAILY;UNTIL=20260306').until).toEqual({ kind: 'date', date: '2026-03-06' });
  });

  it('the window and the limit bound an open-ended rule', () => {
    const rule = parseRecurrence('FREQ=DAILY');
    const from = new Date('2026-03-10T00:00:00Z');
    const to = new Date('2026-03-13T00:00:00Z');
    const x = expandRecurrence(rule, { zone: 'Europe/Berlin', start: { date: '2026-03-01', time: '18:30' }, from, to });
    expect(x.occurrences.map((o) => [o.index, o.localDate])).toEqual([
      [9, '2026-03-10'],
      [10, '2026-03-11'],
      [11, '2026-03-12'],
    ]);
    expect(x.ended).toBe(false);
    const capped = expandRecurrence(rule, {
      zone: 'Europe/Berlin',
      start: { date: '2026-03-01', time: '18:30' },
      limit: 1_000_000,
    });
    expect(capped.occurrences).toHaveLength(RECURRENCE_LIMITS.occurrences);
  });

  it('localStartOf gives the zone-local date and time of an instant', () => {
    expect(localStartOf(new Date('2026-03-30T16:30:00Z'), 'Europe/Berlin')).toEqual({
      date: '2026-03-30',
      time: '18:30',
    });
  });
});

describe('hostile and malformed rules are refused, naming the field', () => {
  const refused = [
    ['FREQ=SECONDLY', /FREQ must be one of/],
    ['FREQ=MINUTELY;COUNT=5', /FREQ must be one of/],
    ['FREQ=HOURLY', /FREQ must be one of/],
    ['FREQ=DAILY;BYHOUR=1,2,3', /BYHOUR is not supported/],
    ['FREQ=DAILY;BYMINUTE=0,1,2', /BYMINUTE is not supported/],
    ['FREQ=DAILY;COUNT=100000000', /COUNT must be a whole number from 1 to 10000/],
    ['FREQ=DAILY;COUNT=0', /COUNT must be/],
    ['FREQ=DAILY;INTERVAL=0', /INTERVAL must be/],
    ['FREQ=DAILY;INTERVAL=-1', /INTERVAL must be/],
    ['FREQ=DAILY;INTERVAL=99999999', /INTERVAL must be/],
    ['FREQ=DAILY;COUNT=3;UNTIL=20270101', /COUNT and UNTIL/],
    ['FREQ=DAILY;FREQ=WEEKLY', /more than once/],
    ['FREQ=DAILY;X-FOO=1', /unknown or unsupported part/],
    ['BYDAY=MO', /FREQ is required/],
    ['', /must be one RRULE value/],
    ['FREQ=WEEKLY\r\nDTSTART:20260101T000000Z', /must be one RRULE value/],
    ['FREQ=WEEKLY;BYDAY=XX', /BYDAY/],
    ['FREQ=MONTHLY;BYMONTHDAY=40', /BYMONTHDAY/],
    ['FREQ=WEEKLY;BYYEARDAY=5', /BYYEARDAY/],
    ['FREQ=DAILY;UNTIL=nonsense', /.+/],
    ['FREQ=DAILY;UNTIL=00010101', /UNTIL must be a date between/],
    [`FREQ=DAILY;${'BYDAY=MO;'.repeat(80)}`, /at most 512 characters/],
  ] as const;
  it.each(refused)('%s', (rrule, message) => {
    const r = refusal(() => parseRecurrence(rrule));
    expect(r.code).toBe('VALIDATION_ERROR');
    expect(r.details).toEqual([{ path: 'rrule', message: expect.stringMatching(message) }]);
  });

  it('a non-string is refused, and the caller may name the field', () => {
    expect(refusal(() => parseRecurrence(42, { field: 'series.rrule' })).details).toEqual([
      { path: 'series.rrule', message: expect.stringMatching(/must be an RRULE string/) },
    ]);
  });

  it('the caller can require an end and bound COUNT (a series: COUNT ≤ 52 or UNTIL)', () => {
    const series = { requireEnd: true, maxCount: 52 };
    expect(parseRecurrence('FREQ=WEEKLY;COUNT=52', series).count).toBe(52);
    expect(parseRecurrence('FREQ=WEEKLY;UNTIL=20271231', series).until).toEqual({ kind: 'date', date: '2027-12-31' });
    expect(refusal(() => parseRecurrence('FREQ=WEEKLY;COUNT=53', series)).details).toEqual([
      { path: 'rrule', message: 'COUNT must be a whole number from 1 to 52' },
    ]);
    expect(refusal(() => parseRecurrence('FREQ=WEEKLY', series)).details).toEqual([
      { path: 'rrule', message: 'must end: give COUNT (at most 52) or UNTIL' },
    ]);
  });

  it.each([
    'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30',
    'FREQ=YEARLY;BYMONTH=4;BYMONTHDAY=31',
    'FREQ=MONTHLY;BYMONTH=2;BYMONTHDAY=30,31',
    'FREQ=MONTHLY;BYMONTHDAY=31;BYMONTH=6',
  ])('a rule that never yields stops within its step budget: %s', (rrule) => {
    const rule = parseRecurrence(rrule);
    const start = { date: '2026-01-01', time: '18:30' };
    const x = expandRecurrence(rule, { zone: 'America/New_York', start });
    expect(x.occurrences).toEqual([]);
    expect(x.ended || x.exhausted).toBe(true);
    expect(refusal(() => firstOccurrence(rule, { zone: 'America/New_York', start })).details).toEqual([
      { path: 'rrule', message: 'yields no occurrence from the start date' },
    ]);
  });
});
