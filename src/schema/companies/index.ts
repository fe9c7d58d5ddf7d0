// Companies: the tenant every record belongs to, in live and test mode.
// The public face of this subject: transports import it from here, never a file inside.
// Its GraphQL type (company.ts) is registered by src/schema/index.ts.
export * from './create-company.js';
export * from './list-companies.js';
export * from './update-company.js';
export * from './api-versions.js';
export * from './restore-sample-companies.js';
