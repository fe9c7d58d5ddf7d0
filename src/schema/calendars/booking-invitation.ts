// The iCalendar invitation a booking's e-mails carry (docs/calendars.md; RFC 5545 for the
// format, RFC 5546 for METHOD and SEQUENCE). One UID per booking for its whole life, so a
// calendar client that took the confirmation updates that one entry on a reschedule and
// removes it on a cancellation. Written with ical-generator (README, Libraries), which does the
// escaping, line folding and CRLFs that hand-written iCalendar gets wrong.
import ical, { ICalAttendeeRole, ICalAttendeeStatus, ICalCalendarMethod, ICalEventStatus } from 'ical-generator';

export type InvitationMethod = 'REQUEST' | 'CANCEL';

export interface InvitationFacts {
  method: InvitationMethod;
  /** The host UIDs are made unique under: BASE_URL's host. */
  uidHost: string;
  company: { name: string; address: string | null };
  /** The organizer's address: the company's e-mail, else the address e-mails come from. */
  organizerEmail: string;
  customer: { name: string; email: string };
  service: { name: string };
  employee: { name: string };
  booking: { id: string; startTime: Date; endTime: Date };
  /** Where it takes place (docs/api.md, Locations): LOCATION is its name and address; else the company's address. */
  location?: { name: string; address: string } | null;
  /** The revision: the booking's calendarSequence (docs/calendars.md says what a cancel sends). */
  sequence: number;
  manageUrl?: string;
  /** DTSTAMP: when this copy of the invitation was made. */
  stamp: Date;
}

export const PRODUCT_ID = { company: 'booking-service', product: 'bookings', language: 'EN' };

/** UID of a booking's calendar entry, the same in every invitation and in every feed. */
export function bookingUid(bookingId: string, uidHost: string): string {
  return `${bookingId}@${uidHost}`;
}

/** The host part of UIDs: BASE_URL's host name (without a port, which is no part of a domain). */
export function uidHostOf(origin: string): string {
  try {
    return new URL(origin).hostname || 'localhost';
  } catch {
    return 'localhost';
  }
}

/**
 * A name fit for a CN parameter. A parameter value cannot hold a double quote at all (RFC 5545
 * §3.1: QSAFE-CHAR), and a backslash is no escape there; RFC 6868 is: ^' for ", ^n for a line
 * break, ^^ for ^. Other control characters become spaces.
 */
export function parameterText(s: string): string {
  return (
    s
      .replace(/\^/g, '^^')
      .replace(/"/g, "^'")
      .replace(/\r\n|\r|\n/g, '^n')
      // eslint-disable-next-line no-control-regex -- control characters are what this removes
      .replace(/[\u0000-\u001f\u007f]/g, ' ')
  );
}

/** LOCATION of a booking's event: its location's name and address, else the company's address. */
export function locationText(
  location: { name: string; address: string } | null | undefined,
  companyAddress: string | null,
): string | null {
  return location ? `${location.name}, ${location.address}` : companyAddress || null;
}

export function renderInvitation(f: InvitationFacts): string {
  const cancel = f.method === 'CANCEL';
  const cal = ical({
    prodId: PRODUCT_ID,
    method: cancel ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.REQUEST,
  });
  const description = [
    `${f.service.name} with ${f.employee.name} at ${f.company.name}.`,
    ...(f.manageUrl && !cancel ? ['', `To cancel or reschedule: ${f.manageUrl}`] : []),
    '',
    `Booking reference: ${f.booking.id}`,
  ].join('\n');
  cal.createEvent({
    id: bookingUid(f.booking.id, f.uidHost),
    sequence: f.sequence,
    stamp: f.stamp,
    // Instants in UTC: no VTIMEZONE to get wrong; every client shows them in its own zone.
    start: f.booking.startTime,
    end: f.booking.endTime,
    summary: `${f.service.name} at ${f.company.name}`,
    description,
    location: locationText(f.location, f.company.address),
    url: cancel ? null : (f.manageUrl ?? null),
    status: cancel ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
    organizer: { name: parameterText(f.company.name), email: f.organizerEmail },
    attendees: [
      {
        name: parameterText(f.customer.name),
        email: f.customer.email,
        role: ICalAttendeeRole.REQ,
        // The booking is made: nothing to reply to (replies would reach a no-reply address).
        rsvp: false,
        // They booked it: accepted; a cancel is the organizer's and says nothing of theirs.
        status: cancel ? null : ICalAttendeeStatus.ACCEPTED,
      },
    ],
  });
  return cal.toString();
}
