// Bookings: creating, moving and ending appointments and class places.
// The public face of this subject: transports import it from here, never a file inside.
// Its GraphQL type (booking.ts) is registered by src/schema/index.ts.
export * from './cancel-booking.js';
export * from './cancel-together.js';
export * from './cancellation-terms.js';
export * from './create-booking.js';
export * from './expire-pending-bookings.js';
export * from './list-bookings.js';
export * from './reschedule-booking.js';
export * from './transition-booking.js';
export * from './update-booking.js';
export * from './accept-offer.js';
export * from './lapse-offers.js';
export * from './waitlist.js';
export { BookingActorEnum, BookingType, cancellationFields } from './booking.js';
