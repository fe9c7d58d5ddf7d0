// Declares an /api/v1 route that runs one GraphQL operation and wraps its result in the
// envelope (each route declares its request and response schema and its operation).
// One TypeBox object per part does three jobs: it validates the request (validation.ts), types
// the handler's `req.body`, `req.query` and `req.params` (Fastify's TypeBox type provider, so a
// route needs no casts), and is what the OpenAPI document publishes. The GraphQL document is
// derived from the response schema and the GraphQL field (selection.ts).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { TSchema } from '@sinclair/typebox';
import type {
  FastifyInstance,
  FastifyRequest,
  HTTPMethods,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { GraphQLSchema } from 'graphql';
import type { Scope } from '../auth/scopes.js';
import type { ErrorCode } from '../errors.js';
import { insufficientScope } from '../schema/builder.js';
import { createContext, type Context } from '../schema/context.js';
import type { Services } from '../services.js';
import { announceDeprecation, answerFor, changesAnswerOf, type Deprecation } from './api-version.js';
import { success, successBody, type Pagination } from './envelope.js';
import type { OptionalBodyConfig } from './json-body.js';
import { compileRestOperation } from './operation.js';
import { errorCodesOf } from './error-codes.js';
import { Envelope, errorResponses, ListEnvelope, NoBody } from './schemas.js';
import { deriveOperation, type OperationKind } from './selection.js';
import { bodySerializer } from './serialize.js';

export interface V1Deps {
  services: Services;
  schema: GraphQLSchema;
}

/** The request parts a route validates; a part left out is `undefined` here. */
export interface RequestSchemas {
  body?: TSchema;
  querystring?: TSchema;
  params?: TSchema;
}

/** A request as its route's schemas validated it: body, query and params typed by them. */
export type RouteRequest<S extends RequestSchemas> = FastifyRequest<
  Reply,
  RawServerDefault,
  RawRequestDefaultExpression,
  S,
  TypeBoxTypeProvider,
  OptionalBodyConfig
>;

/**
 * Every route answers with the success envelope (errors go through the error handler): an
 * object, or its JSON bytes (`direct`).
 */
type Reply = { Reply: ReturnType<typeof success> | Buffer };

/** The GraphQL field a route runs: one of the Query type or one of the Mutation type. */
type Field = { query: string; mutation?: never } | { mutation: string; query?: never };

export type GraphQLRouteOptions<S extends RequestSchemas, TValue> = Field & {
  method: HTTPMethods;
  url: string;
  /**
   * The operation's stable name in the OpenAPI document and the SDK: camelCase verb-noun
   * (`listBookings`, `cancelBooking`), unique across /api/v1 (docs/api.md, "OpenAPI").
   */
  operationId: string;
  /** One line for the reference's list of operations. */
  summary: string;
  /** More about the operation, before the scope it needs (which is added). */
  description?: string;
  tags: string[];
  /**
   * The scope the operation needs: checked before validation (and by GraphQL on the field), and
   * published as the operation's OAuth 2 scope in the reference.
   */
  scope: Scope;
  /** The body, query string and path parameters the route accepts. */
  request?: S;
  /** The response's `data` (of a list: one item). Its properties are the GraphQL selection. */
  response: TSchema;
  /** The field's arguments by name, from the validated request. */
  variables?: (req: RouteRequest<S>) => Record<string, unknown>;
  /** What of the field's value goes into `data` (default: all of it). */
  /** Shapes the answer (each item's, for a list) after the operation, before serialization. */
  select?: (value: TValue) => unknown;
  /**
   * Fields of the response that need a further scope (reports' revenue needs payments:read): for
   * a credential without `scope` the route runs another operation, derived from `response`,
   * that leaves them out (docs/api.md, "Reports"). The declared response marks them optional.
   */
  withoutScope?: { scope: Scope; response: TSchema };
  /**
   * The error codes the route's use case can answer besides those every route shares
   * (error-codes.ts): SLOT_UNAVAILABLE, INVALID_STATE_TRANSITION, ... The reference lists them.
   */
  errors?: readonly ErrorCode[];
  /** A list: the field is a page (`data` and `pagination`) and `response` is the item schema. */
  list?: boolean;
  /** POST actions whose body may be left out entirely (treated as `{}`). */
  optionalBody?: boolean;
  /**
   * The answer without running the operation: `value` calls the field's use case itself (as the
   * resolver does) and `json` writes `data` as JSON bytes. For an answer of hundreds of objects
   * (a month of availability), where completing them field by field and JSON.stringify cost
   * most of the request's CPU, and `json` can keep what it wrote for a value it sees again
   * (see docs/performance.md, "CPU per request, issue 22 §4"). The operation is still derived
   * and validated at start-up, so the response schema and the GraphQL type stay the same
   * fields; the scope is the route's, checked before validation; outside production the bytes
   * are checked against the response schema as every other body is.
   */
  direct?: {
    value: (ctx: Context, variables: Record<string, unknown>) => Promise<TValue>;
    json: (value: TValue) => Buffer;
  };
  /**
   * The route, or (with `when`) a way of calling it, is deprecated: such a request is answered
   * with `Deprecation` and `Sunset` headers (api-version.ts), and the reference marks it.
   */
  deprecation?: Deprecation & { when?: (req: RouteRequest<S>) => boolean };
};

/** Whether a request schema has fields naming other records (`serviceId`, `employeeIds`). */
function namesRecords(schema: TSchema | undefined): boolean {
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
  return Object.keys(properties).some((name) => /Ids?$/.test(name));
}

// Before validation an absent body of a POST action that may leave it out becomes `{}`, so it
// is judged (and hashed for Idempotency-Key) like an empty object.
async function absentBodyIsEmpty(req: FastifyRequest): Promise<void> {
  if (req.body === undefined || req.body === null) req.body = {};
}

export function graphqlRoute<S extends RequestSchemas = Record<never, never>, TValue = unknown>(
  app: FastifyInstance,
  deps: V1Deps,
  opts: GraphQLRouteOptions<S, TValue>,
): void {
  // A POST action that declares no body takes none: absent or `{}`, and any field is a 400.
  const noBody = opts.method === 'POST' && !opts.request?.body;
  const optionalBody = noBody || opts.optionalBody === true;
  const [kind, field]: [OperationKind, string] =
    opts.query !== undefined ? ['query', opts.query] : ['mutation', opts.mutation];
  const compile = (response: TSchema) =>
    compileRestOperation<unknown>(
      deps.schema,
      deriveOperation(deps.schema, kind, field, response, { list: opts.list }),
      field,
    );
  const op = compile(opts.response);
  const narrowed = opts.withoutScope && { scope: opts.withoutScope.scope, op: compile(opts.withoutScope.response) };
  const route = `${opts.method} ${opts.url}`;
  // A direct answer is written once as bytes: no version change may reshape it.
  if (opts.direct && changesAnswerOf(route))
    throw new Error(`REST route ${route}: a direct answer cannot be versioned`);
  const checkDirect =
    opts.direct && !deps.services.config.isProduction
      ? bodySerializer(Envelope(opts.response), { route: `${route} 200`, check: true })
      : null;
  const errorCodes = errorCodesOf({
    method: opts.method,
    pathIds: opts.request?.params !== undefined,
    body: opts.request?.body !== undefined || noBody,
    references: [opts.request?.body, opts.request?.querystring].some(namesRecords),
    extra: opts.errors ?? [],
  });
  app.withTypeProvider<TypeBoxTypeProvider>().route<Reply, OptionalBodyConfig, S>({
    method: opts.method,
    url: opts.url,
    // The JSON parser reads an empty body as absent here, not as a malformed one (json-body.ts).
    ...(optionalBody ? { config: { optionalBody: true } } : {}),
    // Bodies are written by JSON.stringify, checked against these schemas outside production.
    serializerCompiler: ({ schema, httpStatus }) =>
      bodySerializer(schema as unknown as TSchema, {
        route: `${route} ${httpStatus}`,
        check: !deps.services.config.isProduction,
      }),
    schema: {
      // Absent, the request takes nothing: S is then its default, the empty object.
      ...(opts.request ?? ({} as S)),
      ...(noBody ? { body: NoBody } : {}),
      operationId: opts.operationId,
      summary: opts.summary,
      description:
        (opts.description ? `${opts.description}\n\n` : '') +
        `Requires the \`${opts.scope}\` scope.` +
        (opts.deprecation
          ? ` **Deprecated** since ${opts.deprecation.since}, ends ${opts.deprecation.sunset}: ${opts.deprecation.what}.`
          : ''),
      ...(opts.deprecation && !opts.deprecation.when ? { deprecated: true } : {}),
      tags: opts.tags,
      // An API key carries every scope; an OAuth token needs this one (src/http/docs.ts names both schemes).
      security: [{ bearer: [] }, { oauth2: [opts.scope] }],
      response: {
        200: opts.list ? ListEnvelope(opts.response) : Envelope(opts.response),
        ...errorResponses(Object.keys(errorCodes).map(Number)),
      },
      // For the reference (src/http/docs.ts): each error status's codes, and the headers of a
      // deprecated route's answers.
      'x-error-codes': errorCodes,
      ...(opts.deprecation ? { 'x-deprecation': true } : {}),
    },
    preValidation: [
      ...(optionalBody ? [absentBodyIsEmpty] : []),
      // The scope is checked before the body is judged (GraphQL checks it again on the field),
      // so a token without it learns nothing about the route's validation.
      async (req) => {
        if (req.credential && !req.credential.scopes.has(opts.scope)) throw insufficientScope(opts.scope);
      },
    ],
    handler: async (req, reply) => {
      const deprecation = opts.deprecation;
      if (deprecation && (!deprecation.when || deprecation.when(req))) announceDeprecation(reply, deprecation);
      const ctx = createContext({ credential: req.credential, services: deps.services, requestId: String(req.id) });
      if (opts.direct) {
        const body = successBody(
          opts.direct.json(await opts.direct.value(ctx, opts.variables?.(req) ?? {})),
          String(req.id),
        );
        checkDirect?.(JSON.parse(body.toString('utf8')));
        return reply.type('application/json; charset=utf-8').send(body);
      }
      const run = narrowed && !req.credential?.scopes.has(narrowed.scope) ? narrowed.op : op;
      const value = await run.run(ctx, opts.variables?.(req));
      if (opts.list) {
        // The connection's nodes and page info, as REST's page (live-graph.ts).
        const page = value as { data: unknown[]; pagination: Pagination };
        // A list route's `select` shapes each item.
        const items = opts.select ? page.data.map((x) => opts.select!(x as TValue)) : page.data;
        return success(answerFor(route, req.apiVersion, items), String(req.id), page.pagination);
      }
      return success(
        answerFor(route, req.apiVersion, opts.select ? opts.select(value as TValue) : value),
        String(req.id),
      );
    },
  });
}
