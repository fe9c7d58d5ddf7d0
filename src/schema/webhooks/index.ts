// Webhook endpoints: registering, rotating, testing and retrying deliveries.
// The public face of this subject: transports import it from here, never a file inside.
// Its GraphQL type (webhook-endpoint.ts) is registered by src/schema/index.ts.
export * from './create-webhook-endpoint.js';
export * from './list-webhook-deliveries.js';
export * from './retry-webhook-delivery.js';
export * from './rotate-webhook-secret.js';
export * from './send-test-webhook.js';
export * from './update-webhook-endpoint.js';
