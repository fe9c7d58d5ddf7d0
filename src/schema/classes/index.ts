// Class sessions: the timetable a class service is booked on.
// The public face of this subject: transports import it from here, never a file inside.
// Its GraphQL type (class-session.ts) is registered by src/schema/index.ts.
export * from './manage-class-sessions.js';
export * from './class-timetable.js';
