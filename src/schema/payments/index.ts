// Payments: charging a booking and refunding it.
// The public face of this subject: transports import it from here, never a file inside.
// Its GraphQL type (payment.ts) is registered by src/schema/index.ts.
export * from './create-payment.js';
export * from './refund-payment.js';
export * from './update-payment.js';
export * from './list-payments.js';
export * from './settle-payment.js';
export { PROCESSOR_ATTEMPTS } from './charge-verdict.js';
export { PaymentType } from './payment.js';
