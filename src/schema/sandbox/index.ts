// The sandbox: sample companies, wipe and restore.
// The public face of this subject: transports import it from here, never a file inside.
export * from './sample-bookings.js';
export * from './sample-builder.js';
export * from './samples.js';
export * from './seed-sample-company.js';
export * from './top-up-sample-classes.js';
export * from './wipe-sandbox.js';
