// The busy times read from an iCalendar document (src/schema/staff/ics-busy.ts), without the
// network: autumn's fall-back in New York with a TZID the document defines no VTIMEZONE for (the
// IANA zone of that name is used), floating times and all-day events in the company's zone, an
// override without its master, UNTIL, and hostile documents (not iCalendar, an endless minutely
// rule) that end as an IcsError in bounded time, never a hang.
import { describe, expect, it } from 'vitest';
import { busyIntervals, IcsError } from '../../../src/schema/staff/ics-busy.js';

const cal = (body: string) =>
  `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//T//T//EN\r\n${body.replace(/\r?\n/g, '\r\n')}\r\nEND:VCALENDAR\r\n`;
const iso = (list: Array<[number, number]>) =>
  list.map(([a, b]) => [new Date(a).toISOString(), new Date(b).toISOString()]);
const window = {
  from: Date.parse('2026-10-01T00:00:00Z'),
  to: Date.parse('2027-06-01T00:00:00Z'),
  zone: 'Europe/Berlin',
};

describe('busy times of an ICS document', () => {
  it('a daily 09:00 New York event across the fall-back (TZID without VTIMEZONE) stays 09:00 local', () => {
    const doc = cal(`BEGIN:VEVENT
UID:ny@test
DTSTAMP:20261001T000000Z
DTSTART;TZID=America/New_York:20261030T090000
DTEND;TZID=America/New_York:20261030T093000
RRULE:FREQ=DAILY;UNTIL=20261102T235959Z
END:VEVENT`);
    expect(iso(busyIntervals(doc, window))).toEqual([
      ['2026-10-30T13:00:00.000Z', '2026-10-30T13:30:00.000Z'], // EDT
      ['2026-10-31T13:00:00.000Z', '2026-10-31T13:30:00.000Z'],
      ['2026-11-01T14:00:00.000Z', '2026-11-01T14:30:00.000Z'], // EST from 1 November
      ['2026-11-02T14:00:00.000Z', '2026-11-02T14:30:00.000Z'],
    ]);
  });

  it('floating times and all-day events are read in the company zone; an override without master stands alone', () => {
    const doc = cal(`BEGIN:VEVENT
UID:float@test
DTSTAMP:20261001T000000Z
DTSTART:20261110T120000
DTEND:20261110T130000
END:VEVENT
BEGIN:VEVENT
UID:allday@test
DTSTAMP:20261001T000000Z
DTSTART;VALUE=DATE:20261201
DTEND;VALUE=DATE:20261203
END:VEVENT
BEGIN:VEVENT
UID:orphan@test
DTSTAMP:20261001T000000Z
RECURRENCE-ID:20261215T100000Z
DTSTART:20261215T110000Z
DTEND:20261215T120000Z
END:VEVENT`);
    expect(iso(busyIntervals(doc, window))).toEqual([
      ['2026-11-10T11:00:00.000Z', '2026-11-10T12:00:00.000Z'],
      ['2026-11-30T23:00:00.000Z', '2026-12-02T23:00:00.000Z'],
      ['2026-12-15T11:00:00.000Z', '2026-12-15T12:00:00.000Z'],
    ]);
  });

  it('an override can cancel one occurrence; overlapping events merge; times outside the window are cut', () => {
    const doc = cal(`BEGIN:VEVENT
UID:w@test
DTSTAMP:20261001T000000Z
DTSTART:20260928T080000Z
DTEND:20260928T090000Z
RRULE:FREQ=WEEKLY;COUNT=3
END:VEVENT
BEGIN:VEVENT
UID:w@test
DTSTAMP:20261001T000000Z
RECURRENCE-ID:20261005T080000Z
DTSTART:20261005T080000Z
DTEND:20261005T090000Z
STATUS:CANCELLED
END:VEVENT
BEGIN:VEVENT
UID:o@test
DTSTAMP:20261001T000000Z
DTSTART:20261012T083000Z
DTEND:20261012T100000Z
END:VEVENT`);
    expect(iso(busyIntervals(doc, window))).toEqual([['2026-10-12T08:00:00.000Z', '2026-10-12T10:00:00.000Z']]);
  });

  it('hostile documents: not iCalendar is an IcsError; an endless minutely rule is refused in bounded time', () => {
    expect(() => busyIntervals('<html>hello</html>', window)).toThrow(IcsError);
    expect(() => busyIntervals('BEGIN:VCALENDAR\r\nBROKEN', window)).toThrow(IcsError);
    const minutely = cal(`BEGIN:VEVENT
UID:m@test
DTSTAMP:20261001T000000Z
DTSTART:20261001T000000Z
DTEND:20261001T000030Z
RRULE:FREQ=MINUTELY
END:VEVENT`);
    // Too many busy times to keep: a recorded fetch error, reached in bounded steps.
    const started = Date.now();
    expect(() => busyIntervals(minutely, window)).toThrow(/more than 10000 busy times/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('many fast rules share one step budget: refused whole as an IcsError, never cut short to look free', () => {
    // Ten minutely/secondly events that began years before the window: each needs far more
    // steps to reach it than the budget allows. Cut per event, the employee looked free.
    const events = Array.from(
      { length: 10 },
      (_, i) => `BEGIN:VEVENT
UID:fast${i}@test
DTSTAMP:20261001T000000Z
DTSTART:2020010${(i % 9) + 1}T000000Z
DTEND:2020010${(i % 9) + 1}T000030Z
RRULE:FREQ=${i % 2 ? 'SECONDLY' : 'MINUTELY'}
END:VEVENT`,
    ).join('\n');
    let caught: unknown;
    try {
      busyIntervals(cal(events), window);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(IcsError);
    expect((caught as Error).message).toMatch(/too many occurrences/);
  });

  it('a document that does not parse is recorded as a fixed message, never a line of its private text', () => {
    const secret = 'SECRET-MEETING-with-acquisition-target-7f3a';
    const doc = `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\n${secret}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`;
    let caught: unknown;
    try {
      busyIntervals(doc, window);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(IcsError);
    expect((caught as Error).message).toBe('not a valid iCalendar document');
    expect((caught as Error).message).not.toContain('SECRET');
  });
});
