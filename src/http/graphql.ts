// GraphQL for internal dashboards at /graphql (docs/graphql.md): the same credentials and scopes
// as REST. Error masking stays on: every error reaches clients with the code of the one error
// table. Depth, cost, alias and token limits refuse abusive documents before execution.
import { EnvelopArmor } from '@escape.tech/graphql-armor';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError, NoSchemaIntrospectionCustomRule, type DocumentNode, type GraphQLSchema } from 'graphql';
import { createYoga, handleStreamOrSingleExecutionResult, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { refusedCredential } from '../auth/authenticate.js';
import { AppError, isAppError, QUERY_LIMIT_CODES, toAppError } from '../errors.js';
import { createContext, type Context } from '../schema/context.js';
import { schema } from '../schema/index.js';
import { eventStreamWithIds } from './event-stream.js';
import { GRAPHIQL_OPTIONS, type GraphiQLRenderer } from './graphiql.js';
import { MAX_LIST_COST, operationCost } from './query-cost.js';
import { loadTrustedDocuments, trustedDocumentsPlugin } from './trusted-documents.js';
import type { Services } from '../services.js';
import { deepFreeze } from '../frozen.js';

type ServerContext = { req: FastifyRequest; reply: FastifyReply };
type ErrorLog = Pick<Services['logger'], 'warn' | 'error'>;

/**
 * The variable path a coercion error names. graphql-js writes `Variable "$i" got invalid value
 * <value> at "i.startTime"; <reason>`, the reason being the wrapped error's message: the
 * prefix is cut by that length rather than searched, as the value may hold `"` or `;`.
 */
function variablePath(error: GraphQLError): string | undefined {
  const variable = /^Variable "\$(\w+)" got invalid value /.exec(error.message)?.[1];
  if (!variable) return undefined;
  const reason = error.originalError?.message;
  const prefix =
    reason && error.message.endsWith(`; ${reason}`) ? error.message.slice(0, -reason.length - 2) : error.message;
  return / at "([^"]+)"$/.exec(prefix)?.[1] ?? variable;
}

/**
 * Every error of a GraphQL answer, its code decided by the one table (src/errors.ts) as REST's
 * are: an AppError keeps its code, a database outage is SERVICE_UNAVAILABLE, anything unknown
 * INTERNAL_ERROR with a message that says nothing of it. Errors of the document itself (syntax,
 * an unknown field, yoga's request checks) come from graphql-js and yoga with their own codes
 * (GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED, BAD_REQUEST) and carry no internals.
 */
export function maskError(error: unknown, log?: ErrorLog): GraphQLError {
  const graphQLError = error instanceof GraphQLError ? error : undefined;
  let original = graphQLError ? graphQLError.originalError : error;
  // Variable coercion wraps a scalar's own error (an impossible DateTime) in another GraphQLError.
  while (original instanceof GraphQLError && original.originalError) original = original.originalError;
  if (graphQLError && (!original || original instanceof GraphQLError)) return graphQLError;
  let appError = toAppError(original);
  // A scalar refusing a variable cannot know where the value sat; the coercion error can.
  const variable =
    graphQLError && appError.code === 'VALIDATION_ERROR' && appError.details === undefined
      ? variablePath(graphQLError)
      : undefined;
  if (variable !== undefined) appError = AppError.validation([{ path: variable, message: appError.message }]);
  // Logged as REST logs it: an outage as a warning, anything else of ours as an error.
  if (appError.code === 'SERVICE_UNAVAILABLE') log?.warn({ err: appError.cause ?? appError }, appError.message);
  else if (appError.status >= 500)
    log?.error({ err: appError.cause ?? appError, internal: appError.internal }, appError.message);
  return new GraphQLError(appError.message, {
    nodes: graphQLError?.nodes,
    path: graphQLError?.path,
    extensions: {
      code: appError.code,
      ...(appError.details !== undefined ? { details: appError.details } : {}),
      // A document refused by a limit never ran: the answer takes the table's status (400), as
      // yoga's own refusals of a request do. Execution errors stay in a 200 beside the data.
      ...(REFUSED_DOCUMENT.has(appError.code) ? { http: { status: appError.status } } : {}),
    },
  });
}

const headerValue = (h: string | string[] | undefined) => (Array.isArray(h) ? h[0] : h) ?? null;

const REFUSED_DOCUMENT = deepFreeze(new Set<string>(Object.values(QUERY_LIMIT_CODES)));

/**
 * graphql-armor's options for one limit: a refusal is thrown as the AppError of its code
 * (QUERY_LIMIT_CODES), so maskError answers it like any other cause. Armor calls onReject
 * before it would throw its own error.
 */
function limit<T extends object>(name: keyof typeof QUERY_LIMIT_CODES, options: T) {
  return {
    ...options,
    onReject: [
      (_ctx: unknown, err: GraphQLError) => {
        throw new AppError(QUERY_LIMIT_CODES[name], err.message.replace(/^Syntax Error: /, ''));
      },
    ],
  };
}

/**
 * A credential that was sent but is invalid (expired, revoked, malformed) is answered as REST
 * answers it, 401 with `WWW-Authenticate: Bearer error="invalid_token"`, not a 200 a client
 * might take for a missing field; the body keeps GraphQL's error shape. No credential at all
 * stays a GraphQL UNAUTHORIZED error on the fields that need one (GraphiQL loads without one).
 */
const refuseInvalidCredential: Plugin<Record<string, unknown>, ServerContext> = {
  onRequest(request) {
    const { serverContext, fetchAPI } = request;
    const refused = refusedCredential(serverContext.req);
    if (!refused) return;
    request.endResponse(
      new fetchAPI.Response(
        JSON.stringify({ errors: [{ message: refused.message, extensions: { code: refused.code } }] }),
        {
          status: refused.status,
          headers: {
            'content-type': 'application/json; charset=utf-8',
            'cache-control': 'no-store',
            ...refused.headers,
          },
        },
      ),
    );
  },
};

/**
 * A literal refused by a scalar (an impossible DateTime written into the document) fails
 * validation, which error masking never sees: its code is the scalar's, as for a variable.
 */
const scalarCodesInValidation: Plugin<Record<string, unknown>, ServerContext> = {
  onValidate:
    () =>
    ({ result }) => {
      for (const error of result as readonly GraphQLError[]) {
        const original = error instanceof GraphQLError ? error.originalError : undefined;
        if (isAppError(original)) Object.assign(error.extensions, { code: original.code });
      }
    },
};

/**
 * The list-size-aware cost limit (query-cost.ts): an operation that could return more than
 * MAX_LIST_COST fields, counting `first: 100` inside a list of 100 as 10 000, is refused with
 * QUERY_TOO_COMPLEX (HTTP 400) before it runs. Variables are known only here, after validation.
 */
const listCostLimit: Plugin<Record<string, unknown>, ServerContext> = {
  onExecute({ args, setResultAndStopExecution }) {
    const cost = operationCost(
      args.schema as GraphQLSchema,
      args.document as DocumentNode,
      (args.variableValues ?? {}) as Record<string, unknown>,
      args.operationName as string | null | undefined,
    );
    if (cost <= MAX_LIST_COST) return;
    const message = `Query cost of ${cost} (list sizes multiplied) exceeds the limit of ${MAX_LIST_COST}; ask for smaller pages`;
    setResultAndStopExecution({
      errors: [maskError(new AppError('QUERY_TOO_COMPLEX', message))],
    });
  },
};

type IncrementalPart = { errors?: readonly unknown[] };

/**
 * The errors of a deferred or streamed part (`incremental[].errors`) masked as the errors of any
 * answer are: yoga's masking sees only a payload's top-level `errors`, so without this a deferred
 * field's error would reach the client without its code, or an internal error with its message.
 */
const maskIncrementalErrors = (mask: (error: unknown) => GraphQLError): Plugin<Record<string, unknown>> => ({
  onExecute: () => ({
    onExecuteDone: (payload) =>
      handleStreamOrSingleExecutionResult(payload, ({ result, setResult }) => {
        const incremental = (result as { incremental?: readonly IncrementalPart[] }).incremental;
        if (!incremental?.some((part) => part.errors?.length)) return;
        setResult({
          ...result,
          incremental: incremental.map((part) =>
            part.errors?.length ? { ...part, errors: part.errors.map((e) => mask(e)) } : part,
          ),
        } as typeof result);
      }),
  }),
});

/** `renderGraphiQL`: GraphiQL's page (src/http/graphiql.ts); without it there is no GraphiQL. */
export function createGraphQLServer(
  services: Services,
  opts: { renderGraphiQL?: GraphiQLRenderer } = {},
): YogaServerInstance<ServerContext, Context> {
  // Calibrated on the canonical dashboard queries of docs/graphql.md (Limits): a Relay-style
  // history needs 9 levels. One cost limit suffices, the list-size one (listCostLimit): armor's
  // shape cost multiplied only literal page sizes (a variable passed it) and grew with depth
  // rather than with the records a document can return, refusing the first query a dashboard writes.
  const armor = new EnvelopArmor({
    maxDepth: limit('maxDepth', { n: 10 }),
    costLimit: { enabled: false },
    maxAliases: limit('maxAliases', { n: 15 }),
    maxTokens: limit('maxTokens', { n: 2000 }),
    maxDirectives: limit('maxDirectives', { n: 20 }),
    blockFieldSuggestion: { enabled: services.config.isProduction },
  });
  const trusted = services.config.GRAPHQL_TRUSTED_DOCUMENTS;
  return createYoga<ServerContext, Context>({
    schema,
    // `documentId` names a trusted document (GraphQL over HTTP); yoga refuses unknown parameters.
    ...(trusted ? { extraParamNames: ['documentId'] } : {}),
    graphqlEndpoint: '/graphql',
    graphiql: opts.renderGraphiQL ? GRAPHIQL_OPTIONS : false,
    renderGraphiQL: opts.renderGraphiQL,
    landingPage: false,
    cors: false,
    logging: false,
    maskedErrors: { maskError: (error) => maskError(error, services.logger) },
    plugins: [
      ...(trusted
        ? [
            trustedDocumentsPlugin(loadTrustedDocuments(trusted, schema), {
              only: services.config.GRAPHQL_TRUSTED_DOCUMENTS_ONLY,
            }),
          ]
        : []),
      refuseInvalidCredential,
      // `@defer` and `@stream` answered incrementally (multipart/mixed, or an event stream where
      // accepted); the limits below validate and cost the whole document, deferred parts included.
      useDeferStream(),
      maskIncrementalErrors((error) => maskError(error, services.logger)),
      scalarCodesInValidation,
      eventStreamWithIds((error) => maskError(error, services.logger)),
      ...armor.protect().plugins,
      listCostLimit,
      // Introspection: on outside production (GraphiQL, codegen). In production it is refused:
      // graphql-armor's depth and cost limits skip introspection fields, so nested
      // `fields { type { fields ... } }` cycles would be the one unbounded document shape.
      ...(services.config.isProduction
        ? [
            {
              onValidate: ({
                addValidationRule,
              }: {
                addValidationRule: (rule: typeof NoSchemaIntrospectionCustomRule) => void;
              }) => addValidationRule(NoSchemaIntrospectionCustomRule),
            },
          ]
        : []),
    ],
    context: ({ req }) =>
      createContext({
        credential: req.credential,
        services,
        requestId: String(req.id),
        lastEventId: headerValue(req.headers['last-event-id']),
      }),
  });
}
