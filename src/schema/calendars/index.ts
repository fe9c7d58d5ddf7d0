// Calendars: the iCalendar invitations of booking e-mails (docs/calendars.md).
// The public face of this subject: transports import it from here, never a file inside.
// Its GraphQL type (calendar-feed-url.ts) is registered by src/schema/index.ts.
export * from './booking-invitation.js';
export * from './calendar-feed.js';
export * from './rotate-calendar-feed.js';
