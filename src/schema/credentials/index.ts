// Credentials: API keys and OAuth clients.
// The public face of this subject: transports import it from here, never a file inside.
export * from './authorized-apps.js';
export * from './create-api-key.js';
export * from './create-oauth-client.js';
export * from './delete-api-key.js';
export * from './delete-oauth-client.js';
export * from './list-api-keys.js';
export * from './list-oauth-clients.js';
export * from './revoke-api-key.js';
export * from './roll-api-key.js';
