// Customers: the people bookings are made for.
// The public face of this subject: transports import it from here, never a file inside.
// Its GraphQL type (customer.ts) is registered by src/schema/index.ts.
export * from './manage-customers.js';
export * from './erase-customer.js';
export * from './search-customers.js';
export * from './customer-overview.js';
export { CustomerInput, CustomerType } from './customer.js';
