// Declares an /api/v1 route that runs one GraphQL operation and wraps its result in the
// envelope (each route declares its request and response schema and its operation).
import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest, HTTPMethods } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import type { Scope } from '../auth/scopes.js';
import { insufficientScope } from '../schema/builder.js';
import { createContext } from '../schema/context.js';
import type { Services } from '../services.js';
import { success } from './envelope.js';
import { compileOperation } from './operation.js';
import { Envelope, errorResponses, ListEnvelope, NoBody } from './schemas.js';
import { bodySerializer } from './serialize.js';
import type { Pagination } from './envelope.js';

export interface V1Deps {
  services: Services;
  schema: GraphQLSchema;
}

export interface GraphQLRouteOptions<TData> {
  method: HTTPMethods;
  url: string;
  summary: string;
  tags: string[];
  /** The scope the operation needs, for the reference (GraphQL enforces it). */
  scope: string;
  body?: TSchema;
  querystring?: TSchema;
  params?: TSchema;
  response: TSchema;
  operation: string;
  variables?: (req: FastifyRequest) => Record<string, unknown>;
  select: (data: TData) => unknown;
  /** A list: `select` returns `{ data, pagination }` and `response` is the item schema. */
  list?: boolean;
  /** POST actions whose body may be left out entirely (treated as `{}`). */
  optionalBody?: boolean;
}

export function graphqlRoute<TData>(app: FastifyInstance, deps: V1Deps, opts: GraphQLRouteOptions<TData>): void {
  // A POST action that declares no body takes none: absent or `{}`, and any field is a 400.
  const o = opts.method === 'POST' && !opts.body ? { ...opts, body: NoBody, optionalBody: true } : opts;
  const op = compileOperation<TData>(deps.schema, o.operation);
  const write = o.method !== 'GET';
  app.route({
    method: o.method,
    url: o.url,
    // The JSON parser reads an empty body as absent here, not as a malformed one (json-body.ts).
    ...(o.optionalBody ? { config: { optionalBody: true } } : {}),
    // Bodies are written by JSON.stringify, checked against these schemas outside production.
    serializerCompiler: ({ schema, httpStatus }) => bodySerializer(schema as unknown as TSchema, { route: `${o.method} ${o.url} ${httpStatus}`, check: !deps.services.config.isProduction }),
    schema: {
      summary: o.summary,
      description: `Requires the \`${o.scope}\` scope.`,
      tags: o.tags,
      ...(o.body ? { body: o.body } : {}),
      ...(o.querystring ? { querystring: o.querystring } : {}),
      ...(o.params ? { params: o.params } : {}),
      // 409: conflicts and Idempotency-Key answers of writes; 413: bodies over the limit.
      response: { 200: o.list ? ListEnvelope(o.response) : Envelope(o.response), ...errorResponses(...(write ? [409] : []), ...(o.body ? [413] : [])) },
    },
    // The scope is checked before the body is judged (GraphQL checks it again on the field),
    // so a token without it learns nothing about the route's validation.
    preValidation: async (req) => {
      if (o.optionalBody && (req.body === undefined || req.body === null)) req.body = {};
      if (req.credential && !req.credential.scopes.has(o.scope as Scope)) throw insufficientScope(o.scope);
    },
    handler: async (req) => {
      const ctx = createContext({ credential: req.credential, services: deps.services, requestId: String(req.id) });
      const data = await op.run(ctx, o.variables?.(req));
      if (o.list) {
        const page = o.select(data) as { data: unknown[]; pagination: Pagination };
        return success(page.data, String(req.id), page.pagination);
      }
      return success(o.select(data), String(req.id));
    },
  });
}
