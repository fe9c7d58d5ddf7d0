// The busy times in an iCalendar (RFC 5545) document (docs/api.md, External calendars), expanded
// with ical.js (README, "Libraries": the parser that follows the RFC closest on VTIMEZONE,
// RRULE/RDATE/EXDATE and RECURRENCE-ID overrides). An event is busy unless it is cancelled
// (STATUS:CANCELLED) or free (TRANSP:TRANSPARENT); an override decides for its own occurrence.
// Times with a TZID use the document's VTIMEZONE (or, when the document lacks it, the IANA zone
// of that name); floating times and all-day dates are read in the company's zone.
import ICAL from 'ical.js';
import { DateTime, IANAZone } from 'luxon';
import { mergeIntervals, type Interval } from './working-hours.js';

export interface BusyWindow {
  from: number;
  to: number;
  /** The zone of floating times and all-day events. */
  zone: string;
}

/** Bounds on one document's work: a hostile feed cannot keep a worker busy for long. */
export const ICS_LIMITS = {
  /**
   * Occurrences stepped through in the whole document (every recurring event counts from its
   * first occurrence, not from `from`). A document that needs more is refused whole: skipping
   * the rest would show the employee free when they are not.
   */
  steps: 200_000,
  /** Busy intervals kept per calendar (after merging). */
  intervals: 10_000,
  /** VEVENTs read per document. */
  events: 20_000,
};

/** The recorded error of a document that does not parse (no line of it is quoted: it is private). */
export const NOT_ICALENDAR = 'not a valid iCalendar document';

export class IcsError extends Error {
  override name = 'IcsError';
}

type Time = ICAL.Time;

function isFloating(t: Time): boolean {
  const zone = t.zone as { tzid?: string } | null | undefined;
  return !zone || zone.tzid === 'floating';
}

/** Milliseconds of an ical.js time: absolute when zoned, else read in `zone`. */
function toMs(t: Time, zone: string): number {
  if (!t.isDate && !isFloating(t)) return t.toUnixTime() * 1000;
  const local = DateTime.fromObject(
    {
      year: t.year,
      month: t.month,
      day: t.day,
      hour: t.isDate ? 0 : t.hour,
      minute: t.isDate ? 0 : t.minute,
      second: t.isDate ? 0 : t.second,
    },
    { zone },
  );
  return local.toMillis();
}

/** The zone of a property's floating value: its TZID when a real IANA zone, else the default. */
function zoneOf(prop: ICAL.Property | null, fallback: string): string {
  const tzid = prop?.getParameter('tzid');
  return typeof tzid === 'string' && IANAZone.isValidZone(tzid) ? tzid : fallback;
}

function busy(c: ICAL.Component): boolean {
  const status = String(c.getFirstPropertyValue('status') ?? '').toUpperCase();
  const transp = String(c.getFirstPropertyValue('transp') ?? '').toUpperCase();
  return status !== 'CANCELLED' && transp !== 'TRANSPARENT';
}

const merge = (list: Interval[]): Interval[] => mergeIntervals(list.sort((a, b) => a[0] - b[0]));

/**
 * The merged busy intervals of `ics` overlapping [from, to). Throws IcsError when the text is
 * not an iCalendar document or too large to expand.
 */
export function busyIntervals(ics: string, w: BusyWindow): Interval[] {
  let root: ICAL.Component;
  try {
    root = new ICAL.Component(ICAL.parse(ics) as unknown[]);
  } catch {
    // ical.js's message quotes the offending line, the calendar's private text: never recorded.
    throw new IcsError(NOT_ICALENDAR);
  }
  if (root.name !== 'vcalendar') throw new IcsError('not a valid iCalendar document (no VCALENDAR)');
  const events = root.getAllSubcomponents('vevent');
  if (events.length > ICS_LIMITS.events) throw new IcsError(`more than ${ICS_LIMITS.events} events`);

  // Masters and their RECURRENCE-ID overrides, by UID.
  const masters = new Map<string, ICAL.Component>();
  const overrides = new Map<string, ICAL.Component[]>();
  const loose: ICAL.Component[] = [];
  for (const e of events) {
    const uid = e.getFirstPropertyValue('uid');
    if (typeof uid !== 'string' || uid === '') {
      loose.push(e);
      continue;
    }
    if (e.hasProperty('recurrence-id')) {
      const list = overrides.get(uid) ?? [];
      list.push(e);
      overrides.set(uid, list);
    } else masters.set(uid, e);
  }
  // An override whose master is not in the document stands alone.
  for (const [uid, list] of overrides) if (!masters.has(uid)) loose.push(...list);

  const out: Interval[] = [];
  const tooMany = () => new IcsError(`more than ${ICS_LIMITS.intervals} busy times in the next 180 days`);
  const add = (start: Time, end: Time, zone: string) => {
    const a = toMs(start, zone);
    let b = toMs(end, zone);
    if (!Number.isFinite(a) || !Number.isFinite(b)) return;
    if (b <= a) {
      // A zero-length timed event blocks nothing; an all-day one without DTEND is one day.
      if (!start.isDate) return;
      b = DateTime.fromMillis(a, { zone }).plus({ days: 1 }).toMillis();
    }
    if (b > w.from && a < w.to) out.push([Math.max(a, w.from), Math.min(b, w.to)]);
    // Far more than can be kept even after merging: refused now, not after expanding the rest.
    if (out.length > ICS_LIMITS.intervals * 4) throw tooMany();
  };

  const single = (c: ICAL.Component) => {
    if (!busy(c)) return;
    const ev = new ICAL.Event(c, { exceptions: [] });
    const start = ev.startDate;
    if (!start) return;
    const zone = zoneOf(c.getFirstProperty('dtstart'), w.zone);
    add(start, ev.endDate ?? start, zone);
  };

  for (const c of loose) single(c);
  // One budget for the whole document: a cap hit before the window's end refuses the document
  // (the last good copy stays in force), never a silent cut that would show the employee free.
  let steps = 0;
  for (const [uid, c] of masters) {
    const ev = new ICAL.Event(c, { exceptions: overrides.get(uid) ?? [] });
    if (!ev.startDate) continue;
    if (!ev.isRecurring()) {
      single(c);
      continue;
    }
    const zone = zoneOf(c.getFirstProperty('dtstart'), w.zone);
    const it = ev.iterator();
    for (;;) {
      if (++steps > ICS_LIMITS.steps) throw new IcsError(`too many occurrences (more than ${ICS_LIMITS.steps})`);
      const next = it.next();
      if (!next) break;
      if (toMs(next, zone) >= w.to) break;
      const o = ev.getOccurrenceDetails(next);
      const item = o.item as ICAL.Event;
      if (!busy(item.component)) continue;
      const itemZone = item === ev ? zone : zoneOf(item.component.getFirstProperty('dtstart'), w.zone);
      add(o.startDate as Time, o.endDate as Time, itemZone);
    }
    // An override moved into the window from an occurrence outside it is still busy.
    for (const x of overrides.get(uid) ?? []) {
      const rid = x.getFirstPropertyValue('recurrence-id') as Time | null;
      if (!rid || toMs(rid, zone) < w.to) continue;
      single(x);
    }
  }
  const merged = merge(out);
  if (merged.length > ICS_LIMITS.intervals) throw tooMany();
  return merged;
}
