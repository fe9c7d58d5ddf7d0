// GraphQL for internal dashboards at /graphql (docs/graphql.md): the same credentials and scopes as
// REST. Error masking stays on: only AppErrors reach clients, with their code. Depth, cost,
// alias and token limits refuse abusive documents before execution.
import { EnvelopArmor } from '@escape.tech/graphql-armor';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError, NoSchemaIntrospectionCustomRule } from 'graphql';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { refusedCredential } from '../auth/authenticate.js';
import { AppError, isAppError } from '../errors.js';
import { createContext, type Context } from '../schema/context.js';
import { schema } from '../schema/index.js';
import type { Services } from '../services.js';

type ServerContext = { req: FastifyRequest; reply: FastifyReply };

/**
 * The variable path a coercion error names. graphql-js writes `Variable "$i" got invalid value
 * <value> at "i.startTime"; <reason>`, the reason being the wrapped error's message: the
 * prefix is cut by that length rather than searched, as the value may hold `"` or `;`.
 */
function variablePath(error: GraphQLError): string | undefined {
  const variable = /^Variable "\$(\w+)" got invalid value /.exec(error.message)?.[1];
  if (!variable) return undefined;
  const reason = error.originalError?.message;
  const prefix = reason && error.message.endsWith(`; ${reason}`) ? error.message.slice(0, -reason.length - 2) : error.message;
  return / at "([^"]+)"$/.exec(prefix)?.[1] ?? variable;
}

export function maskError(error: unknown, message: string): GraphQLError {
  let original = error instanceof GraphQLError ? error.originalError : error;
  // Variable coercion wraps a scalar's own error (an impossible DateTime) in another GraphQLError.
  while (original instanceof GraphQLError && original.originalError) original = original.originalError;
  if (isAppError(original)) {
    // A scalar refusing a variable cannot know where the value sat; the coercion error can.
    const path = error instanceof GraphQLError && original.code === 'VALIDATION_ERROR' && original.details === undefined ? variablePath(error) : undefined;
    const appError = path === undefined ? original : AppError.validation([{ path, message: original.message }]);
    return new GraphQLError(appError.message, {
      nodes: error instanceof GraphQLError ? error.nodes : undefined,
      path: error instanceof GraphQLError ? error.path : undefined,
      extensions: { code: appError.code, ...(appError.details !== undefined ? { details: appError.details } : {}) },
    });
  }
  // Syntax and validation errors are the client's and carry no internals.
  if (error instanceof GraphQLError && (!original || original instanceof GraphQLError)) return error;
  return new GraphQLError(message, { extensions: { code: 'INTERNAL_ERROR' } });
}

/**
 * A credential that was sent but is invalid (expired, revoked, malformed) is answered as REST
 * answers it, 401 with `WWW-Authenticate: Bearer error="invalid_token"`, not a 200 a client
 * might take for a missing field; the body keeps GraphQL's error shape. No credential at all
 * stays a GraphQL UNAUTHORIZED error on the fields that need one (GraphiQL loads without one).
 */
const refuseInvalidCredential: Plugin<Record<string, unknown>, ServerContext> = {
  onRequest({ serverContext, endResponse, fetchAPI }) {
    const refused = refusedCredential(serverContext.req);
    if (!refused) return;
    endResponse(
      new fetchAPI.Response(JSON.stringify({ errors: [{ message: refused.message, extensions: { code: refused.code } }] }), {
        status: refused.status,
        headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...refused.headers },
      }),
    );
  },
};

/**
 * A literal refused by a scalar (an impossible DateTime written into the document) fails
 * validation, which error masking never sees: its code is the scalar's, as for a variable.
 */
const scalarCodesInValidation: Plugin<Record<string, unknown>, ServerContext> = {
  onValidate: () => ({ result }) => {
    for (const error of result) {
      const original = error instanceof GraphQLError ? error.originalError : undefined;
      if (isAppError(original)) Object.assign(error.extensions, { code: original.code });
    }
  },
};

export function createGraphQLServer(services: Services): YogaServerInstance<ServerContext, Context> {
  const armor = new EnvelopArmor({
    maxDepth: { n: 8 },
    costLimit: { maxCost: 5000 },
    maxAliases: { n: 15 },
    maxTokens: { n: 2000 },
    maxDirectives: { n: 20 },
    blockFieldSuggestion: { enabled: services.config.isProduction },
  });
  return createYoga<ServerContext, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    // docs/graphql.md: GraphiQL in development only.
    graphiql: services.config.NODE_ENV === 'development',
    landingPage: false,
    cors: false,
    logging: false,
    maskedErrors: { maskError: (error, message) => maskError(error, message) },
    plugins: [
      refuseInvalidCredential,
      scalarCodesInValidation,
      ...armor.protect().plugins,
      // Introspection: on outside production (GraphiQL, codegen). In production it is refused:
      // graphql-armor's depth and cost limits skip introspection fields, so nested
      // `fields { type { fields ... } }` cycles would be the one unbounded document shape.
      ...(services.config.isProduction
        ? [{ onValidate: ({ addValidationRule }: { addValidationRule: (rule: typeof NoSchemaIntrospectionCustomRule) => void }) => addValidationRule(NoSchemaIntrospectionCustomRule) }]
        : []),
    ],
    context: ({ req }) =>
      createContext({ credential: req.credential, services, requestId: String(req.id) }),
  });
}
