// E-mails: the log of what was sent (or, in the sandbox, only logged).
// The public face of this subject: transports import it from here, never a file inside.
// Its GraphQL type (email.ts) is registered by src/schema/index.ts.
export * from './list-emails.js';
export * from './mailbox.js';
export * from './templates.js';
export { EmailType } from './email.js';
