// Visits: several services booked back to back for one customer, as one (docs/api.md, Visits).
// The public face of this subject: transports import it from here, never a file inside.
// Its GraphQL type (visit.ts) is registered by src/schema/index.ts.
export * from './create-visit.js';
export * from './manage-visit.js';
