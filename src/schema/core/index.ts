// Core: the rules several subjects share, below them all, so that no two subjects need each
// other: a booking's events (the bookings' outbox writer), its manage link, the closure over a
// time, and a booking's charge and refund (what may be paid, a visit's share, refundCharge).
// Subjects import it from here, never a file inside; it imports no subject but events.
export * from './booking-events.js';
export * from './closure-over.js';
export * from './manage-link.js';
export * from './payable.js';
export * from './refund-charge.js';
export * from './visit-charge.js';
