// Request logs: every /api/v1 and /graphql request of a company, written in batches and read back.
// The public face of this subject: transports import it from here, never a file inside.
// Its GraphQL type (request-log.ts) is registered by src/schema/index.ts.
export * from './list-request-logs.js';
export * from './redact-body.js';
export * from './request-log-writer.js';
export * from './scrub-customer-request-logs.js';
