// Maintenance: retention of records that expire.
// The public face of this subject: transports import it from here, never a file inside.
export * from './purge-expired-records.js';
