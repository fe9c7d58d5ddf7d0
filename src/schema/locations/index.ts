// Locations: a company's sites, each with its address and time zone.
// The public face of this subject: transports import it from here, never a file inside.
// Its GraphQL type (location.ts) is registered by src/schema/index.ts.
export * from './manage-locations.js';
