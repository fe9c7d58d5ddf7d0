// Events: the record of every change, and the outbox the workers relay.
// The public face of this subject: transports import it from here, never a file inside.
// Its GraphQL type (event.ts) is registered by src/schema/index.ts.
export * from './events.js';
export * from './outbox.js';
export * from './positions.js';
export * from './live-events.js';
export { EventObject, lastDeliveredPosition } from './event.js';
export * from './list-events.js';
