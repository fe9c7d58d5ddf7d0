// Test clocks: a sandbox company's own "now", moved forward on request (docs/sandbox.md).
// The public face of this subject: transports import it from here, never a file inside.
// Its GraphQL type (test-clock.ts) is registered by src/schema/index.ts.
export * from './manage-test-clocks.js';
export * from './advance-test-clock.js';
