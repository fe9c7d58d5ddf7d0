// /api/v1/webhook-endpoints and /api/v1/webhook-deliveries (docs/api.md, docs/webhooks.md).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Pagination } from '../envelope.js';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Id, Timestamp } from '../schemas.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

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
export const WebhookEndpoint = Type.Object(endpointProps, { $id: 'WebhookEndpoint', title: 'Webhook endpoint' });
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
export const WebhookDelivery = Type.Object(
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

const Events = Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 20, description: '["*"] or event names' });
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
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })), cursor: Type.Optional(Type.String({ maxLength: 200 })) },
  { additionalProperties: false },
);

const E = '_id url events description enabled disabledReason previousSecretExpiresAt createdAt updatedAt';
const D = `_id endpointId eventId event status attemptCount nextAttemptAt lastStatusCode createdAt attempts { _id statusCode durationMs responseExcerpt error createdAt }`;
const PAGE = 'pagination { limit hasMore nextCursor }';

type PageOf = { data: unknown[]; pagination: Pagination };

export default async function webhookRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  const tags = ['Webhooks'];
  const id = (req: { params: unknown }) => (req.params as { id: string }).id;
  graphqlRoute<{ webhookEndpoints: PageOf }>(app, deps, {
    method: 'GET', url: '/webhook-endpoints', summary: "The company's webhook endpoints, newest first", tags, scope: 'webhooks:read', list: true,
    querystring: ListQuery, response: WebhookEndpoint,
    operation: `query($limit: Int, $cursor: String) { webhookEndpoints(limit: $limit, cursor: $cursor) { data { ${E} } ${PAGE} } }`,
    variables: (req) => req.query as Record<string, unknown>,
    select: (d) => d.webhookEndpoints,
  });
  graphqlRoute<{ createWebhookEndpoint: unknown }>(app, deps, {
    method: 'POST', url: '/webhook-endpoints', summary: 'Create an endpoint; the response carries its secret and token, shown this once', tags, scope: 'webhooks:write',
    body: CreateBody, response: WebhookEndpointWithSecret,
    operation: `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { ${E} secret token } }`,
    variables: (req) => ({ input: req.body }),
    select: (d) => d.createWebhookEndpoint,
  });
  graphqlRoute<{ webhookEndpoint: unknown }>(app, deps, {
    method: 'GET', url: '/webhook-endpoints/:id', summary: 'One endpoint', tags, scope: 'webhooks:read',
    params: Params, response: WebhookEndpoint,
    operation: `query($id: ID!) { webhookEndpoint(id: $id) { ${E} } }`,
    variables: (req) => ({ id: id(req) }),
    select: (d) => d.webhookEndpoint,
  });
  graphqlRoute<{ updateWebhookEndpoint: unknown }>(app, deps, {
    method: 'PATCH', url: '/webhook-endpoints/:id', summary: 'Change an endpoint; enabling it again clears disabledReason', tags, scope: 'webhooks:write',
    params: Params, body: UpdateBody, response: WebhookEndpoint,
    operation: `mutation($id: ID!, $input: UpdateWebhookEndpointInput!) { updateWebhookEndpoint(id: $id, input: $input) { ${E} } }`,
    variables: (req) => ({ id: id(req), input: req.body }),
    select: (d) => d.updateWebhookEndpoint,
  });
  graphqlRoute<{ deleteWebhookEndpoint: unknown }>(app, deps, {
    method: 'DELETE', url: '/webhook-endpoints/:id', summary: 'Delete an endpoint and its delivery log', tags, scope: 'webhooks:write',
    params: Params, response: WebhookEndpoint,
    operation: `mutation($id: ID!) { deleteWebhookEndpoint(id: $id) { ${E} } }`,
    variables: (req) => ({ id: id(req) }),
    select: (d) => d.deleteWebhookEndpoint,
  });
  graphqlRoute<{ rotateWebhookEndpointSecret: unknown }>(app, deps, {
    method: 'POST', url: '/webhook-endpoints/:id/rotate-secret', summary: 'New signing secret; the old one keeps signing alongside for 24 h', tags, scope: 'webhooks:write',
    params: Params, response: WebhookEndpointWithSecret,
    operation: `mutation($id: ID!) { rotateWebhookEndpointSecret(id: $id) { ${E} secret token } }`,
    variables: (req) => ({ id: id(req) }),
    select: (d) => d.rotateWebhookEndpointSecret,
  });
  graphqlRoute<{ sendTestWebhook: unknown }>(app, deps, {
    method: 'POST', url: '/webhook-endpoints/:id/test', summary: 'Send a signed `ping` event to this endpoint', tags, scope: 'webhooks:write',
    params: Params, response: WebhookDelivery,
    operation: `mutation($id: ID!) { sendTestWebhook(id: $id) { ${D} } }`,
    variables: (req) => ({ id: id(req) }),
    select: (d) => d.sendTestWebhook,
  });
  graphqlRoute<{ webhookDeliveries: PageOf }>(app, deps, {
    method: 'GET', url: '/webhook-endpoints/:id/deliveries', summary: "An endpoint's deliveries, newest first, with every attempt", tags, scope: 'webhooks:read', list: true,
    params: Params, querystring: ListQuery, response: WebhookDelivery,
    operation: `query($id: ID!, $limit: Int, $cursor: String) { webhookDeliveries(endpointId: $id, limit: $limit, cursor: $cursor) { data { ${D} } ${PAGE} } }`,
    variables: (req) => ({ id: id(req), ...(req.query as object) }),
    select: (d) => d.webhookDeliveries,
  });
  graphqlRoute<{ retryWebhookDelivery: unknown }>(app, deps, {
    method: 'POST', url: '/webhook-deliveries/:id/retry', summary: 'Deliver again now, with the same X-Webhook-Id', tags, scope: 'webhooks:write',
    params: Params, response: WebhookDelivery,
    operation: `mutation($id: ID!) { retryWebhookDelivery(id: $id) { ${D} } }`,
    variables: (req) => ({ id: id(req) }),
    select: (d) => d.retryWebhookDelivery,
  });
}
