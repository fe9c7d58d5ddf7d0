// Customer exports: everything the company holds about one customer, in one answer (docs/api.md,
// Customers: erase and export). Above the subjects whose records it lists (bookings, payments,
// notifications, e-mails, events), so that customers, which bookings build on, imports none of them.
// The public face of this subject: transports import it from here, never a file inside.
// Its GraphQL type (customer-export.ts) is registered by src/schema/index.ts.
export * from './export-customer.js';
