// /api/v1/webhook-endpoints and /api/v1/webhook-deliveries (docs/api.md, docs/webhooks.md).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Id, Nullable, Timestamp } from '../schemas.js';

const endpointProps = {
  _id: Id,
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Nullable(Type.String()),
  enabled: Type.Boolean(),
  disabledReason: Nullable(Type.String()),
  previousSecretExpiresAt: Nullable(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};
const WebhookEndpoint = Type.Object(endpointProps, { $id: 'WebhookEndpoint', title: 'Webhook endpoint' });
const WebhookEndpointWithSecret = Type.Object(
  {
    ...endpointProps,
    secret: Type.String({ description: 'whsec_<base64 of 32 bytes>; shown at creation and rotation only' }),
    token: Type.String({ description: 'Sent as X-Webhook-Token on every delivery' }),
  },
  { title: 'Webhook endpoint with its secret' },
);
const WebhookAttempt = Type.Object({
  _id: Id,
  statusCode: Nullable(Type.Integer()),
  durationMs: Type.Integer(),
  responseExcerpt: Nullable(Type.String()),
  error: Nullable(Type.String()),
  createdAt: Timestamp,
});
const WebhookDelivery = Type.Object(
  {
    _id: Id,
    endpointId: Id,
    eventId: Id,
    event: Type.String(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
    attemptCount: Type.Integer(),
    nextAttemptAt: Nullable(Timestamp),
    lastStatusCode: Nullable(Type.Integer()),
    createdAt: Timestamp,
    attempts: Type.Array(WebhookAttempt),
  },
  { title: 'Webhook delivery' },
);

const Events = Type.Array(Type.String({ maxLength: 64 }), {
  minItems: 1,
  maxItems: 20,
  description: '["*"] or event names',
});
const CreateBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048 }),
    events: Events,
    description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, title: 'New webhook endpoint' },
);
const UpdateBody = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    events: Type.Optional(Events),
    description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, title: 'Webhook endpoint changes' },
);
const Params = Type.Object({ id: Id });
const ListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);

export default async function webhookRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  const tags = ['Webhooks'];
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/webhook-endpoints',
    operationId: 'listWebhookEndpoints',
    summary: "The company's webhook endpoints, newest first",
    tags,
    scope: 'webhooks:read',
    list: true,
    request: { querystring: ListQuery },
    response: WebhookEndpoint,
    query: 'webhookEndpoints',
    variables: (req) => req.query,
  });
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/webhook-endpoints',
    operationId: 'createWebhookEndpoint',
    summary: 'Create an endpoint; the response carries its secret and token, shown this once',
    tags,
    scope: 'webhooks:write',
    request: { body: CreateBody },
    response: WebhookEndpointWithSecret,
    mutation: 'createWebhookEndpoint',
    variables: (req) => ({ input: req.body }),
  });
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/webhook-endpoints/:id',
    operationId: 'getWebhookEndpoint',
    summary: 'One endpoint',
    tags,
    scope: 'webhooks:read',
    request: { params: Params },
    response: WebhookEndpoint,
    query: 'webhookEndpoint',
    variables: (req) => req.params,
  });
  graphqlRoute(app, deps, {
    method: 'PATCH',
    url: '/webhook-endpoints/:id',
    operationId: 'updateWebhookEndpoint',
    summary: 'Change an endpoint; enabling it again clears disabledReason',
    tags,
    scope: 'webhooks:write',
    request: { params: Params, body: UpdateBody },
    response: WebhookEndpoint,
    mutation: 'updateWebhookEndpoint',
    variables: (req) => ({ id: req.params.id, input: req.body }),
  });
  graphqlRoute(app, deps, {
    method: 'DELETE',
    url: '/webhook-endpoints/:id',
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete an endpoint and its delivery log',
    tags,
    scope: 'webhooks:write',
    request: { params: Params },
    response: WebhookEndpoint,
    mutation: 'deleteWebhookEndpoint',
    variables: (req) => req.params,
  });
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/webhook-endpoints/:id/rotate-secret',
    operationId: 'rotateWebhookEndpointSecret',
    summary: 'New signing secret; the old one keeps signing alongside for 24 h',
    tags,
    scope: 'webhooks:write',
    request: { params: Params },
    response: WebhookEndpointWithSecret,
    mutation: 'rotateWebhookEndpointSecret',
    variables: (req) => req.params,
  });
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/webhook-endpoints/:id/test',
    operationId: 'testWebhookEndpoint',
    errors: ['INVALID_STATE_TRANSITION'],
    summary: 'Send a signed `ping` event to this endpoint',
    tags,
    scope: 'webhooks:write',
    request: { params: Params },
    response: WebhookDelivery,
    mutation: 'sendTestWebhook',
    variables: (req) => req.params,
  });
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/webhook-endpoints/:id/deliveries',
    operationId: 'listWebhookDeliveries',
    summary: "An endpoint's deliveries, newest first, with every attempt",
    tags,
    scope: 'webhooks:read',
    list: true,
    request: { params: Params, querystring: ListQuery },
    response: WebhookDelivery,
    query: 'webhookDeliveries',
    variables: (req) => ({ endpointId: req.params.id, ...req.query }),
  });
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/webhook-deliveries/:id/retry',
    operationId: 'retryWebhookDelivery',
    errors: ['INVALID_STATE_TRANSITION'],
    summary: 'Deliver again now, with the same X-Webhook-Id',
    tags,
    scope: 'webhooks:write',
    request: { params: Params },
    response: WebhookDelivery,
    mutation: 'retryWebhookDelivery',
    variables: (req) => req.params,
  });
}
