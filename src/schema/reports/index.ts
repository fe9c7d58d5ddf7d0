// Reports: statistics of the bookings for dashboards.
// The public face of this subject: transports import it from here, never a file inside.
// Its GraphQL type (booking-stats.ts) is registered by src/schema/index.ts.
export * from './compute-booking-stats.js';
export * from './export-rows.js';
export * from './overview-figures.js';
export * from './report-versions.js';
