// Booking series: one service for one customer at the times of a recurrence rule (docs/api.md,
// Booking series). The public face of this subject: transports import it from here, never a
// file inside. Its GraphQL type (booking-series.ts) is registered by src/schema/index.ts.
export * from './create-booking-series.js';
export * from './manage-booking-series.js';
