// Calendars: the iCalendar invitations of booking e-mails (docs/calendars.md).
// The public face of this subject: transports import it from here, never a file inside.
export * from './booking-invitation.js';
