// Turns a weekly class timetable into dated sessions for the coming weeks. Times are wall
// times in the company's zone: each session is built from its local date and "HH:MM" with
// Luxon and only then converted to UTC, so a 07:00 class stays at 07:00 local on both sides
// of a daylight-saving change (its UTC instant moves by the hour instead).
import { DateTime } from 'luxon';
import { WEEKDAYS, type SampleClassSlot } from './types.js';

export interface DatedSession {
  slot: SampleClassSlot;
  startTime: Date;
  endTime: Date;
}

/** How far ahead the samples schedule classes (docs/sandbox.md: "scheduled sessions for the coming weeks"). */
export const SAMPLE_SCHEDULE_DAYS = 28;

export function datedSessions(opts: {
  timetable: SampleClassSlot[];
  durationMinutes: (service: string) => number;
  zone: string;
  now: Date;
  days?: number;
}): DatedSession[] {
  const { timetable, zone, now } = opts;
  const days = opts.days ?? SAMPLE_SCHEDULE_DAYS;
  const today = DateTime.fromJSDate(now, { zone }).startOf('day');
  const out: DatedSession[] = [];
  for (let i = 0; i < days; i++) {
    const date = today.plus({ days: i });
    const weekday = WEEKDAYS[date.weekday - 1];
    for (const slot of timetable) {
      if (slot.weekday !== weekday) continue;
      const [hour, minute] = slot.start.split(':').map(Number) as [number, number];
      const start = DateTime.fromObject({ year: date.year, month: date.month, day: date.day, hour, minute }, { zone });
      // A wall time inside a spring-forward gap does not exist that day: Luxon would move it
      // an hour on, so skip the session rather than schedule it at a time nobody chose.
      if (!start.isValid || start.hour !== hour || start.minute !== minute) continue;
      // Minutes are elapsed time in Luxon, so the end is exact even across a change.
      const end = start.plus({ minutes: opts.durationMinutes(slot.service) });
      if (start.toMillis() <= now.getTime()) continue;
      out.push({ slot, startTime: start.toJSDate(), endTime: end.toJSDate() });
    }
  }
  return out;
}
