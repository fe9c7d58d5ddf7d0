// GET /api/v1/request-logs and /api/v1/request-logs/:id (docs/api.md, Request logs): the
// company's requests of the last 30 days in the credential's mode. Scope: logs:read.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Id, Nullable, PageQuery, PathId, Timestamp } from '../schemas.js';

const summary = {
  _id: Id,
  createdAt: Timestamp,
  method: Type.String({ description: 'The HTTP method' }),
  route: Nullable(
    Type.String({ description: 'The route that served it, e.g. /api/v1/bookings/:id; null for /graphql' }),
  ),
  path: Type.String({ description: 'The URL path as requested, without the query string' }),
  operationName: Nullable(Type.String({ description: 'The GraphQL operation name of a /graphql request' })),
  statusCode: Type.Integer({ description: 'The HTTP status code of the answer, e.g. 200 or 404' }),
  durationMs: Type.Number({ description: 'How long the answer took, in milliseconds' }),
  requestId: Type.String({ description: 'The request id (X-Request-Id, meta.requestId)' }),
  credentialId: Id,
  credentialName: Type.String({ description: "The API key's name, or the OAuth application's for a token" }),
  credentialPrefix: Type.String({ description: 'Kind, mode and last four characters, e.g. svc_sk_test_…AbCd' }),
};

const RequestLogSummary = Type.Object(summary, { $id: 'RequestLogSummary', title: 'RequestLogSummary' });

const RequestLog = Type.Object(
  {
    ...summary,
    ip: Type.String({ description: "The client's address" }),
    idempotencyKey: Nullable(Type.String({ description: 'The Idempotency-Key sent' })),
    requestBody: Nullable(
      Type.String({
        description:
          'The request body (for /graphql: query, operation name and variables) of a 4xx or 5xx answer, redacted, at most 16 KiB',
      }),
    ),
    responseBody: Nullable(Type.String({ description: 'The response body of a 4xx or 5xx answer, redacted' })),
  },
  { $id: 'RequestLog', title: 'RequestLog' },
);

const tags = ['Request logs'];

export default async function requestLogRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/request-logs',
    operationId: 'listRequestLogs',
    summary: 'List the requests of the last 30 days, newest first (bodies in the single request)',
    tags,
    scope: 'logs:read',
    list: true,
    request: {
      querystring: Type.Object(
        {
          ...PageQuery,
          status: Type.Optional(
            Type.Union([Type.Literal('2xx'), Type.Literal('4xx'), Type.Literal('5xx')], {
              description: 'Only answers of this status class',
            }),
          ),
          path: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 500,
              description: 'Only requests of this route (/api/v1/bookings/:id) or whose path begins with this',
            }),
          ),
          credentialId: Type.Optional({ ...Id, description: 'Only requests made with this API key or access token' }),
          requestId: Type.Optional(
            Type.String({ minLength: 1, maxLength: 128, description: 'Only the request with this id' }),
          ),
          from: Type.Optional({ ...Timestamp, description: 'Only requests at or after this instant' }),
          to: Type.Optional({ ...Timestamp, description: 'Only requests before this instant' }),
        },
        { additionalProperties: false },
      ),
    },
    response: RequestLogSummary,
    query: 'requestLogs',
    variables: (req) => req.query,
  });
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/request-logs/:id',
    operationId: 'getRequestLog',
    summary: 'Get one request in full, with its bodies',
    tags,
    scope: 'logs:read',
    request: { params: Type.Object({ id: PathId }) },
    response: RequestLog,
    query: 'requestLog',
    variables: (req) => req.params,
  });
}
