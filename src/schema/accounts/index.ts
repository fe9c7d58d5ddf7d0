// Accounts: the people who sign in to the admin area.
// The public face of this subject: transports import it from here, never a file inside.
export * from './create-account.js';
export * from './find-account.js';
