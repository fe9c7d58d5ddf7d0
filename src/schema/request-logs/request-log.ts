// Request logs (docs/api.md, Request logs): the GraphQL type and its two queries. Scope: logs:read.
import type { RequestLog } from '../../generated/prisma/client.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { connectionType, ListOrderEnum, resolveConnection } from '../connections.js';
import { legacyPageArgs } from '../pagination.js';
import { findRequestLog, requestLogWhere } from './list-request-logs.js';
import { NodeInterface } from '../node.js';

export const RequestLogType = builder.objectRef<RequestLog>('RequestLog').implement({
  interfaces: [NodeInterface],
  description:
    'One /api/v1 or /graphql request of the company, kept 30 days. Bodies only for 4xx and 5xx answers, with ' +
    'secrets, card numbers and card security codes redacted',
  fields: (t) => ({
    _id: t.exposeID('id', { description: 'The request log id' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the request arrived' }),
    method: t.exposeString('method', { description: 'The HTTP method' }),
    route: t.exposeString('route', {
      nullable: true,
      description: 'The route that served it, e.g. /api/v1/bookings/:id; null for /graphql and unknown paths',
    }),
    path: t.exposeString('path', { description: 'The URL path as requested, without the query string' }),
    operationName: t.exposeString('operationName', {
      nullable: true,
      description: 'The GraphQL operation name of a /graphql request, when it had one',
    }),
    statusCode: t.exposeInt('status', { description: 'The HTTP status code of the answer, e.g. 200 or 404' }),
    durationMs: t.exposeFloat('durationMs', { description: 'How long the answer took, in milliseconds' }),
    requestId: t.exposeID('requestId', { description: 'The request id (X-Request-Id, meta.requestId)' }),
    credentialId: t.exposeID('credentialId', { description: 'The API key or access token id' }),
    credentialName: t.exposeString('credentialName', {
      description: "The API key's name, or the OAuth application's name for an access token",
    }),
    credentialPrefix: t.exposeString('credentialPrefix', {
      description: "The credential's kind and mode and its last four characters, e.g. svc_sk_test_…AbCd",
    }),
    ip: t.exposeString('ip', { description: "The client's address" }),
    idempotencyKey: t.exposeString('idempotencyKey', { nullable: true, description: 'The Idempotency-Key sent' }),
    requestBody: t.exposeString('requestBody', {
      nullable: true,
      description:
        'The request body (for /graphql: query, operation name and variables) of a 4xx or 5xx answer, redacted, ' +
        'at most 16 KiB; null otherwise',
    }),
    responseBody: t.exposeString('responseBody', {
      nullable: true,
      description: 'The response body of a 4xx or 5xx answer, redacted, at most 16 KiB; null otherwise',
    }),
  }),
});

const RequestLogConnection = connectionType<RequestLog>('RequestLog', RequestLogType);

const company = (ctx: Context) => ctx.credential!.companyId;

builder.queryFields((t) => ({
  requestLogs: t.connection(
    {
      type: RequestLogType,
      description: "The company's requests of the last 30 days in this mode, newest first unless ordered",
      authScopes: { scope: 'logs:read' },
      args: {
        ...legacyPageArgs(t.arg),
        status: t.arg.string({ description: 'Only answers of this status class: 2xx, 4xx or 5xx' }),
        path: t.arg.string({
          description: 'Only requests of this route (/api/v1/bookings/:id) or whose path begins with this',
        }),
        credentialId: t.arg.id({ description: 'Only requests made with this API key or access token' }),
        requestId: t.arg.id({ description: 'Only the request with this request id' }),
        from: t.arg({ type: 'DateTime', description: 'Only requests at or after this instant' }),
        to: t.arg({ type: 'DateTime', description: 'Only requests before this instant' }),
        orderBy: t.arg({ type: ListOrderEnum, description: 'The order (default NEWEST_FIRST)' }),
      },
      resolve: (_r, a, ctx) => {
        const where = requestLogWhere(company(ctx), {
          status: a.status as never,
          path: a.path,
          credentialId: a.credentialId == null ? a.credentialId : String(a.credentialId),
          requestId: a.requestId == null ? a.requestId : String(a.requestId),
          from: a.from,
          to: a.to,
        });
        return resolveConnection(
          a,
          a.orderBy,
          company(ctx),
          (q) => ctx.db.requestLog.findMany({ ...q, where: { AND: [q.where, where] } }),
          () => ctx.db.requestLog.count({ where }),
        );
      },
    },
    RequestLogConnection,
  ),
  requestLog: t.field({
    type: RequestLogType,
    description: 'One request in full, bodies included',
    authScopes: { scope: 'logs:read' },
    args: { id: t.arg.id({ required: true, description: 'The request log id' }) },
    resolve: (_r, { id }, ctx) => findRequestLog(ctx.db, company(ctx), String(id)),
  }),
}));
