// Reads iCalendar back with ical.js (Mozilla's parser), a library independent of the
// ical-generator that writes it, so a test compares what a calendar client would see.
import ICAL from 'ical.js';

export interface ParsedPerson {
  email: string;
  name: string | null;
}

export interface ParsedEvent {
  uid: string;
  sequence: number | null;
  start: string;
  end: string;
  summary: string;
  description: string | null;
  location: string | null;
  url: string | null;
  status: string | null;
  organizer: ParsedPerson | null;
  attendees: ParsedPerson[];
}

export interface ParsedCalendar {
  method: string | null;
  version: string;
  prodId: string;
  name: string | null;
  events: ParsedEvent[];
}

const str = (v: unknown): string | null =>
  typeof v === 'string' || typeof v === 'number' ? String(v) : v === null || v === undefined ? null : JSON.stringify(v);

function person(p: ICAL.Property | null): ParsedPerson | null {
  if (!p) return null;
  const value = String(p.getFirstValue());
  return {
    email: value.replace(/^mailto:/i, ''),
    name: str(p.getParameter('cn')),
  };
}

export function parseCalendar(text: string): ParsedCalendar {
  const cal = new ICAL.Component(ICAL.parse(text));
  return {
    method: str(cal.getFirstPropertyValue('method')),
    version: String(cal.getFirstPropertyValue('version')),
    prodId: String(cal.getFirstPropertyValue('prodid')),
    name: str(cal.getFirstPropertyValue('x-wr-calname')),
    events: cal.getAllSubcomponents('vevent').map((v) => {
      const e = new ICAL.Event(v);
      const seq = v.getFirstPropertyValue('sequence');
      return {
        uid: e.uid,
        sequence: seq === null ? null : Number(seq),
        start: e.startDate.toJSDate().toISOString(),
        end: e.endDate.toJSDate().toISOString(),
        summary: e.summary,
        description: str(v.getFirstPropertyValue('description')),
        location: str(v.getFirstPropertyValue('location')),
        url: str(v.getFirstPropertyValue('url')),
        status: str(v.getFirstPropertyValue('status')),
        organizer: person(v.getFirstProperty('organizer')),
        attendees: v.getAllProperties('attendee').map((p) => person(p)!),
      };
    }),
  };
}
