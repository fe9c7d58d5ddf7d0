// Closures: times the company or some employees are closed.
// The public face of this subject: transports import it from here, never a file inside.
// Its GraphQL type (closure.ts) is registered by src/schema/index.ts.
export * from './manage-closures.js';
