// Webhook endpoints, their deliveries and attempts (docs/webhooks.md) in GraphQL; the REST routes of
// src/rest/v1/webhook-endpoints.ts run these operations. Scopes: webhooks:read / webhooks:write.
import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../../generated/prisma/client.js';
import { isId } from '../../ids.js';
import { AppError } from '../../errors.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import {
  connectionType,
  ListOrderEnum,
  nodeQuery,
  orderByOf,
  resolveConnection,
  relatedQuery,
} from '../connections.js';
import { legacyPageArgs } from '../pagination.js';
import { createWebhookEndpoint } from './create-webhook-endpoint.js';
import { retryWebhookDelivery } from './retry-webhook-delivery.js';
import { rotateWebhookSecret } from './rotate-webhook-secret.js';
import { sendTestWebhook } from './send-test-webhook.js';
import { deleteWebhookEndpoint, findWebhookEndpoint, updateWebhookEndpoint } from './update-webhook-endpoint.js';
import { NodeInterface } from '../node.js';

const company = (ctx: Context) => ({
  companyId: ctx.credential!.companyId,
  mode: ctx.credential!.mode,
  config: ctx.config,
});

/** The fields both endpoint types share (the one with its secret adds `secret` and `token`). */
const endpointFields = (
  t: PothosSchemaTypes.ObjectFieldBuilder<typeof builder.$inferSchemaTypes, WebhookEndpoint>,
) => ({
  _id: t.exposeID('id', { description: 'The endpoint id' }),
  url: t.exposeString('url', { description: 'Where deliveries are POSTed' }),
  events: t.exposeStringList('events', { description: 'The event names it receives, or ["*"] for all' }),
  description: t.exposeString('description', { nullable: true, description: 'What it is for' }),
  enabled: t.exposeBoolean('enabled', { description: 'Whether deliveries are made' }),
  disabledReason: t.exposeString('disabledReason', {
    nullable: true,
    description: 'Why the service disabled it (e.g. the receiver answered 410)',
  }),
  previousSecretExpiresAt: t.expose('previousSecretExpiresAt', {
    type: 'DateTime',
    nullable: true,
    description: 'While set and in the future, deliveries are signed with the previous secret too',
  }),
  createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created' }),
  updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it last changed' }),
});

type EndpointFieldBuilder = Parameters<typeof endpointFields>[0];

export const WebhookEndpointType = builder.prismaObject('WebhookEndpoint', {
  interfaces: [NodeInterface],
  description: 'A URL that receives signed event deliveries',
  // The Prisma plugin's field builder is an object field builder with relations added.
  fields: (t) => endpointFields(t as unknown as EndpointFieldBuilder),
});

const WebhookEndpointWithSecretType = builder
  .objectRef<WebhookEndpoint & { secret: string; token: string }>('WebhookEndpointWithSecret')
  .implement({
    description: 'An endpoint with its signing secret and verification token, shown at creation and rotation',
    fields: (t) => ({
      ...endpointFields(t),
      secret: t.exposeString('secret', {
        description: 'whsec_<base64 of 32 bytes>; the HMAC key is the decoded bytes',
      }),
      token: t.exposeString('token', { description: 'Sent as X-Webhook-Token on every delivery' }),
    }),
  });

export const WebhookAttemptType = builder.prismaObject('WebhookAttempt', {
  interfaces: [NodeInterface],
  description: 'One HTTP attempt of a delivery',
  fields: (t) => ({
    _id: t.exposeID('id', { description: 'The attempt id' }),
    statusCode: t.exposeInt('statusCode', {
      nullable: true,
      description: "The receiver's HTTP status, if it answered",
    }),
    durationMs: t.exposeInt('durationMs', { description: 'How long the attempt took' }),
    responseExcerpt: t.exposeString('responseExcerpt', {
      nullable: true,
      description: "The start of the receiver's answer",
    }),
    error: t.exposeString('error', { nullable: true, description: 'Why no answer came (timeout, refused, ...)' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was made' }),
  }),
});

export const DeliveryStatusEnum = builder.enumType('DeliveryStatus', {
  description: "A webhook delivery's state",
  values: {
    pending: { description: 'Not delivered yet; nextAttemptAt says when it is tried again' },
    succeeded: { description: 'The receiver answered 2xx' },
    failed: { description: 'Every retry failed, or the endpoint was disabled' },
  },
});

export const WebhookDeliveryType = builder.prismaObject('WebhookDelivery', {
  interfaces: [NodeInterface],
  description: 'One event sent to one endpoint, with its attempts',
  fields: (t) => ({
    _id: t.exposeID('id', { description: 'The delivery id' }),
    endpointId: t.exposeID('endpointId', { description: 'The id of the endpoint' }),
    eventId: t.exposeID('eventId', { description: 'Sent as X-Webhook-Id, the same on every attempt' }),
    event: t.string({
      description: 'The event name',
      select: { event: { select: { type: true } } },
      resolve: (d) => d.event.type,
    }),
    status: t.field({
      type: DeliveryStatusEnum,
      description: 'The delivery state',
      resolve: (d) => d.status as 'pending' | 'succeeded' | 'failed',
    }),
    attemptCount: t.exposeInt('attemptCount', { description: 'How many attempts were made' }),
    nextAttemptAt: t.expose('nextAttemptAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it is tried next, while pending',
    }),
    lastStatusCode: t.exposeInt('lastStatusCode', {
      nullable: true,
      description: "The receiver's status on the latest attempt",
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the event was queued for it' }),
    attempts: t.relation('attempts', {
      description:
        'Every attempt, oldest first: a short list (at most nine per delivery), so a plain list; attemptsConnection pages the same records',
      query: { orderBy: { id: 'asc' } },
    }),
  }),
});

const AttemptConnection = connectionType<WebhookAttempt>('WebhookAttempt', WebhookAttemptType);

builder.prismaObjectFields('WebhookDelivery', (t) => ({
  attemptsConnection: t.relatedConnection(
    'attempts',
    {
      description: 'Its attempts as a connection, oldest first unless ordered (the records of attempts)',
      cursor: 'id',
      totalCount: true,
      args: { orderBy: t.arg({ type: ListOrderEnum, description: 'The order (default OLDEST_FIRST)' }) },
      query: (a, ctx) =>
        relatedQuery(a, ctx.credential!.companyId, { orderBy: orderByOf(a.orderBy ?? 'OLDEST_FIRST') }),
    },
    AttemptConnection,
  ),
}));

const read = { scope: 'webhooks:read' } as const;
const write = { scope: 'webhooks:write' } as const;

const EndpointConnection = connectionType<WebhookEndpoint>('WebhookEndpoint', WebhookEndpointType);
const DeliveryConnection = connectionType<WebhookDelivery>('WebhookDelivery', WebhookDeliveryType);

const deliveryArgs = (t: ArgBuilder) => ({
  status: t({ type: DeliveryStatusEnum, description: 'Only deliveries in this state' }),
  orderBy: t({ type: ListOrderEnum, description: 'The order (default NEWEST_FIRST)' }),
});
type ArgBuilder = Parameters<Parameters<typeof builder.queryField>[1]>[0]['arg'];

builder.queryFields((t) => ({
  webhookEndpoints: t.connection(
    {
      type: WebhookEndpointType,
      description: 'Webhook endpoints, newest first unless ordered',
      authScopes: read,
      args: {
        ...legacyPageArgs(t.arg),
        orderBy: t.arg({ type: ListOrderEnum, description: 'The order (default NEWEST_FIRST)' }),
      },
      resolve: (_r, a, ctx, info) => {
        const where = { companyId: ctx.credential!.companyId };
        const query = nodeQuery(ctx, info, 'WebhookEndpoint');
        return resolveConnection(
          a,
          a.orderBy,
          ctx.credential!.companyId,
          (q) => ctx.db.webhookEndpoint.findMany({ ...query, ...q, where: { ...q.where, ...where } }),
          () => ctx.db.webhookEndpoint.count({ where }),
        );
      },
    },
    EndpointConnection,
  ),
  webhookEndpoint: t.field({
    type: WebhookEndpointType,
    description: 'One endpoint by id',
    authScopes: read,
    args: { id: t.arg.id({ required: true, description: 'The endpoint id' }) },
    resolve: (_r, { id }, ctx) => findWebhookEndpoint(ctx.db, ctx.credential!.companyId, String(id)),
  }),
  webhookDeliveries: t.connection(
    {
      type: WebhookDeliveryType,
      authScopes: read,
      description: 'Deliveries to one endpoint, newest first unless ordered, each with its attempts',
      args: {
        endpointId: t.arg.id({ required: true, description: 'The endpoint id' }),
        ...legacyPageArgs(t.arg),
        ...deliveryArgs(t.arg),
      },
      resolve: async (_r, a, ctx, info) => {
        const endpoint = await findWebhookEndpoint(ctx.db, ctx.credential!.companyId, String(a.endpointId));
        const where = { endpointId: endpoint.id, ...(a.status ? { status: a.status } : {}) };
        const query = nodeQuery(ctx, info, 'WebhookDelivery');
        return resolveConnection(
          a,
          a.orderBy,
          ctx.credential!.companyId,
          (q) => ctx.db.webhookDelivery.findMany({ ...query, ...q, where: { ...q.where, ...where } }),
          () => ctx.db.webhookDelivery.count({ where }),
        );
      },
    },
    DeliveryConnection,
  ),
}));

builder.prismaObjectFields('WebhookEndpoint', (t) => ({
  deliveries: t.relatedConnection(
    'deliveries',
    {
      description: 'Its deliveries, newest first unless ordered',
      cursor: 'id',
      totalCount: true,
      args: deliveryArgs(t.arg),
      query: (a, ctx) =>
        relatedQuery(a, ctx.credential!.companyId, {
          where: a.status ? { status: a.status } : {},
          orderBy: orderByOf(a.orderBy),
        }),
    },
    DeliveryConnection,
  ),
}));

builder.prismaObjectFields('Company', (t) => ({
  webhookEndpoints: t.relatedConnection(
    'webhookEndpoints',
    {
      description: "The company's webhook endpoints (needs webhooks:read)",
      nullable: true,
      cursor: 'id',
      totalCount: true,
      authScopes: read,
      args: { orderBy: t.arg({ type: ListOrderEnum, description: 'The order (default NEWEST_FIRST)' }) },
      query: (a, ctx) => relatedQuery(a, ctx.credential!.companyId, { orderBy: orderByOf(a.orderBy) }),
    },
    EndpointConnection,
  ),
}));

const CreateWebhookEndpointInput = builder.inputType('CreateWebhookEndpointInput', {
  description: 'A new endpoint',
  fields: (t) => ({
    url: t.string({ required: true, description: 'https (live) URL to POST deliveries to' }),
    events: t.stringList({ required: true, description: 'Event names, or ["*"] for all' }),
    description: t.string({ description: 'What it is for' }),
    enabled: t.boolean({ description: 'Default true' }),
  }),
});

const UpdateWebhookEndpointInput = builder.inputType('UpdateWebhookEndpointInput', {
  description: 'The fields to change; the rest stay',
  fields: (t) => ({
    url: t.string({ description: 'A new URL' }),
    events: t.stringList({ description: 'Event names, or ["*"] for all' }),
    description: t.string({ description: 'What it is for' }),
    enabled: t.boolean({ description: 'Whether deliveries are made' }),
  }),
});

/** GraphQL hands absent fields as undefined and explicit nulls as null: keep only what was sent. */
const sent = (input: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.field({
    description: 'Creates an endpoint; the answer shows its secret and token',
    type: WebhookEndpointWithSecretType,
    authScopes: write,
    args: { input: t.arg({ type: CreateWebhookEndpointInput, required: true, description: 'The endpoint' }) },
    resolve: async (_r, { input }, ctx) => {
      const { endpoint, secret, token } = await createWebhookEndpoint(ctx.db, { ...company(ctx), input: sent(input) });
      return { ...endpoint, secret, token };
    },
  }),
  updateWebhookEndpoint: t.field({
    description: 'Changes the given fields of an endpoint',
    type: WebhookEndpointType,
    authScopes: write,
    args: {
      id: t.arg.id({ required: true, description: 'The endpoint id' }),
      input: t.arg({ type: UpdateWebhookEndpointInput, required: true, description: 'The fields to change' }),
    },
    resolve: (_r, { id, input }, ctx) =>
      updateWebhookEndpoint(ctx.db, { ...company(ctx), id: String(id), input: sent(input) }),
  }),
  deleteWebhookEndpoint: t.field({
    description: 'Deletes an endpoint; returns what was deleted',
    type: WebhookEndpointType,
    authScopes: write,
    args: { id: t.arg.id({ required: true, description: 'The id' }) },
    resolve: (_r, { id }, ctx) =>
      deleteWebhookEndpoint(ctx.db, { companyId: ctx.credential!.companyId, id: String(id) }),
  }),
  rotateWebhookEndpointSecret: t.field({
    description: 'A new signing secret; the previous one also signs until previousSecretExpiresAt',
    type: WebhookEndpointWithSecretType,
    authScopes: write,
    args: { id: t.arg.id({ required: true, description: 'The id' }) },
    resolve: async (_r, { id }, ctx) => {
      const { endpoint, secret, token } = await rotateWebhookSecret(ctx.db, {
        companyId: ctx.credential!.companyId,
        config: ctx.config,
        id: String(id),
      });
      return { ...endpoint, secret, token };
    },
  }),
  sendTestWebhook: t.field({
    description: 'Sends a ping event to the endpoint',
    type: WebhookDeliveryType,
    authScopes: write,
    args: { id: t.arg.id({ required: true, description: 'The id' }) },
    resolve: (_r, { id }, ctx) => sendTestWebhook(ctx.db, { companyId: ctx.credential!.companyId, id: String(id) }),
  }),
  retryWebhookDelivery: t.field({
    description: 'Tries a delivery again now',
    type: WebhookDeliveryType,
    authScopes: write,
    args: { id: t.arg.id({ required: true, description: 'The id' }) },
    resolve: (_r, { id }, ctx) => {
      if (!isId(String(id))) throw AppError.notFound('webhook delivery');
      return retryWebhookDelivery(ctx.db, { companyId: ctx.credential!.companyId, id: String(id) });
    },
  }),
}));
