// Teams: who besides the owning account may use its companies, with which role; invitations by
// e-mail; and the audit log of what people did in the admin area (docs/admin.md, Team and roles).
// The public face of this subject: transports import it from here, never a file inside.
export * from './access.js';
export * from './audit.js';
export * from './members.js';
export * from './invitation-email.js';
