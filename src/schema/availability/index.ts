// Availability: the free times a service can be booked at.
// The public face of this subject: transports import it from here, never a file inside.
// Its GraphQL type (availability.ts) is registered by src/schema/index.ts.
export * from './find-availability.js';
export * from './schedule.js';
export * from './refusals.js';
export * from './explain-availability.js';
export * from './calendar.js';
export { setAvailabilityCache } from './availability-cache.js';
export * from './visit-availability.js';
export * from './visit-sequence.js';
export { ReasonType } from './availability.js';
