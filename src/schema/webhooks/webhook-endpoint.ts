// Webhook endpoints, their deliveries and attempts (docs/webhooks.md) in GraphQL; the REST routes of
// src/rest/v1/webhook-endpoints.ts run these operations. Scopes: webhooks:read / webhooks:write.
import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../../generated/prisma/client.js';
import { isId } from '../../ids.js';
import { AppError } from '../../errors.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { pageType, paginate } from '../pagination.js';
import { createWebhookEndpoint } from './create-webhook-endpoint.js';
import { retryWebhookDelivery } from './retry-webhook-delivery.js';
import { rotateWebhookSecret } from './rotate-webhook-secret.js';
import { sendTestWebhook } from './send-test-webhook.js';
import { deleteWebhookEndpoint, findWebhookEndpoint, updateWebhookEndpoint } from './update-webhook-endpoint.js';

const company = (ctx: Context) => ({
  companyId: ctx.credential!.companyId,
  mode: ctx.credential!.mode,
  config: ctx.config,
});

const endpointFields = (t: any) => ({
  _id: t.exposeID('id'),
  url: t.exposeString('url'),
  events: t.exposeStringList('events'),
  description: t.exposeString('description', { nullable: true }),
  enabled: t.exposeBoolean('enabled'),
  disabledReason: t.exposeString('disabledReason', { nullable: true }),
  previousSecretExpiresAt: t.expose('previousSecretExpiresAt', {
    type: 'DateTime',
    nullable: true,
    description: 'While set and in the future, deliveries are signed with the previous secret too',
  }),
  createdAt: t.expose('createdAt', { type: 'DateTime' }),
  updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
});

export const WebhookEndpointType = builder.objectRef<WebhookEndpoint>('WebhookEndpoint').implement({
  description: 'A URL that receives signed event deliveries',
  fields: (t) => endpointFields(t),
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

export const WebhookAttemptType = builder.objectRef<WebhookAttempt>('WebhookAttempt').implement({
  fields: (t) => ({
    _id: t.exposeID('id'),
    statusCode: t.exposeInt('statusCode', { nullable: true }),
    durationMs: t.exposeInt('durationMs'),
    responseExcerpt: t.exposeString('responseExcerpt', { nullable: true }),
    error: t.exposeString('error', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

type DeliveryRow = WebhookDelivery & { attempts?: WebhookAttempt[]; event?: { type: string } };

export const WebhookDeliveryType = builder.objectRef<DeliveryRow>('WebhookDelivery').implement({
  fields: (t) => ({
    _id: t.exposeID('id'),
    endpointId: t.exposeString('endpointId'),
    eventId: t.exposeString('eventId', { description: 'Sent as X-Webhook-Id, the same on every attempt' }),
    event: t.string({
      resolve: async (d, _a, ctx) =>
        d.event?.type ?? (await ctx.db.event.findUniqueOrThrow({ where: { id: d.eventId } })).type,
    }),
    status: t.exposeString('status', { description: 'pending, succeeded or failed' }),
    attemptCount: t.exposeInt('attemptCount'),
    nextAttemptAt: t.expose('nextAttemptAt', { type: 'DateTime', nullable: true }),
    lastStatusCode: t.exposeInt('lastStatusCode', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    attempts: t.field({
      type: [WebhookAttemptType],
      resolve: async (d, _a, ctx) =>
        d.attempts ?? ctx.db.webhookAttempt.findMany({ where: { deliveryId: d.id }, orderBy: { id: 'asc' } }),
    }),
  }),
});

const EndpointPage = pageType<WebhookEndpoint>('WebhookEndpoint', WebhookEndpointType);
const DeliveryPage = pageType<DeliveryRow>('WebhookDelivery', WebhookDeliveryType);

const read = { scope: 'webhooks:read' } as const;
const write = { scope: 'webhooks:write' } as const;

builder.queryFields((t) => ({
  webhookEndpoints: t.field({
    type: EndpointPage,
    authScopes: read,
    args: { limit: t.arg.int(), cursor: t.arg.string() },
    resolve: (_r, args, ctx) =>
      paginate(args, (q) =>
        ctx.db.webhookEndpoint.findMany({ ...q, where: { companyId: ctx.credential!.companyId, ...q.where } }),
      ),
  }),
  webhookEndpoint: t.field({
    type: WebhookEndpointType,
    authScopes: read,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => findWebhookEndpoint(ctx.db, ctx.credential!.companyId, String(id)),
  }),
  webhookDeliveries: t.field({
    type: DeliveryPage,
    authScopes: read,
    description: 'Deliveries to one endpoint, newest first, each with its attempts',
    args: { endpointId: t.arg.id({ required: true }), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: async (_r, args, ctx) => {
      const endpoint = await findWebhookEndpoint(ctx.db, ctx.credential!.companyId, String(args.endpointId));
      return paginate(args, (q) =>
        ctx.db.webhookDelivery.findMany({
          ...q,
          where: { endpointId: endpoint.id, ...q.where },
          include: { attempts: { orderBy: { id: 'asc' } }, event: { select: { type: true } } },
        }),
      );
    },
  }),
}));

const CreateWebhookEndpointInput = builder.inputType('CreateWebhookEndpointInput', {
  fields: (t) => ({
    url: t.string({ required: true }),
    events: t.stringList({ required: true }),
    description: t.string(),
    enabled: t.boolean(),
  }),
});

const UpdateWebhookEndpointInput = builder.inputType('UpdateWebhookEndpointInput', {
  fields: (t) => ({ url: t.string(), events: t.stringList(), description: t.string(), enabled: t.boolean() }),
});

/** GraphQL hands absent fields as undefined and explicit nulls as null: keep only what was sent. */
const sent = (input: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.field({
    type: WebhookEndpointWithSecretType,
    authScopes: write,
    args: { input: t.arg({ type: CreateWebhookEndpointInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const { endpoint, secret, token } = await createWebhookEndpoint(ctx.db, { ...company(ctx), input: sent(input) });
      return { ...endpoint, secret, token };
    },
  }),
  updateWebhookEndpoint: t.field({
    type: WebhookEndpointType,
    authScopes: write,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateWebhookEndpointInput, required: true }) },
    resolve: (_r, { id, input }, ctx) =>
      updateWebhookEndpoint(ctx.db, { ...company(ctx), id: String(id), input: sent(input) }),
  }),
  deleteWebhookEndpoint: t.field({
    type: WebhookEndpointType,
    authScopes: write,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) =>
      deleteWebhookEndpoint(ctx.db, { companyId: ctx.credential!.companyId, id: String(id) }),
  }),
  rotateWebhookEndpointSecret: t.field({
    type: WebhookEndpointWithSecretType,
    authScopes: write,
    args: { id: t.arg.id({ required: true }) },
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
    type: WebhookDeliveryType,
    authScopes: write,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => sendTestWebhook(ctx.db, { companyId: ctx.credential!.companyId, id: String(id) }),
  }),
  retryWebhookDelivery: t.field({
    type: WebhookDeliveryType,
    authScopes: write,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => {
      if (!isId(String(id))) throw AppError.notFound('webhook delivery');
      return retryWebhookDelivery(ctx.db, { companyId: ctx.credential!.companyId, id: String(id) });
    },
  }),
}));
