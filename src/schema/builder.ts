// The Pothos builder: plugins and SchemaTypes (Pothos' recommended app layout). Scopes are the
// OAuth scopes of docs/oauth.md; every field that touches company data names the scope it needs.
import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin, { AuthScopeFailureType, type AuthFailure } from '@pothos/plugin-scope-auth';
import { GraphQLScalarType, Kind, valueFromASTUntyped } from 'graphql';
import { AppError } from '../errors.js';
import { getDatamodel, type default as PrismaTypes } from '../generated/pothos-types.js';
import type { Scope } from '../auth/scopes.js';
import type { Context } from './context.js';
import type { EventPositionInput } from './event-position.js';
import { parseIsoTimestamp, toIsoTimestamp } from './iso-timestamp.js';

function requiredScope(failure: AuthFailure): string | undefined {
  switch (failure.kind) {
    case AuthScopeFailureType.AuthScope:
      return failure.scope === 'scope' ? String(failure.parameter) : undefined;
    case AuthScopeFailureType.AnyAuthScopes:
    case AuthScopeFailureType.AllAuthScopes:
      for (const f of failure.failures) {
        const s = requiredScope(f);
        if (s) return s;
      }
      return undefined;
    default:
      return undefined;
  }
}

export function insufficientScope(scope: string): AppError {
  return new AppError('INSUFFICIENT_SCOPE', `This credential lacks the ${scope} scope`, {
    details: { requiredScope: scope },
    headers: {
      'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}", error_description="The ${scope} scope is required"`,
    },
  });
}

export function unauthenticated(): AppError {
  return new AppError('UNAUTHORIZED', 'A valid API key or access token is required', {
    headers: { 'www-authenticate': 'Bearer realm="api"' },
  });
}

export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  AuthScopes: { authenticated: boolean; scope: Scope };
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
    Metadata: { Input: unknown; Output: unknown };
    EventPosition: { Input: EventPositionInput; Output: bigint };
  };
  DefaultFieldNullability: false;
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
  /** What every connection carries beside its edges (connections.ts). */
  Connection: {
    /** The number of records the list's filters match, counted only when selected. */
    totalCount?: number | (() => Promise<number>);
    /** The page size the connection was asked for (the REST view's pagination.limit). */
    pageSize?: number;
  };
}>({
  defaultFieldNullability: false,
  plugins: [ScopeAuthPlugin, PrismaPlugin, RelayPlugin],
  scopeAuth: {
    // A subscription's scopes are checked when it starts, not at each event it delivers.
    authorizeOnSubscribe: true,
    authScopes: (ctx) => ({
      authenticated: ctx.credential !== null,
      scope: (scope: Scope) => ctx.credential?.scopes.has(scope) ?? false,
    }),
    unauthorizedError: (_parent, ctx, _info, result) => {
      if (!ctx.credential) return unauthenticated();
      const scope = requiredScope(result.failure);
      return scope ? insufficientScope(scope) : new AppError('FORBIDDEN', 'This credential may not do this');
    },
  },
  prisma: {
    client: (ctx) => ctx.db,
    dmmf: getDatamodel(),
    onUnusedQuery: null,
    defaultConnectionSize: 20,
    maxConnectionSize: 100,
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    edgesFieldOptions: { nullable: false, description: 'The records of this page, each with its cursor' },
    nodeFieldOptions: { nullable: false, description: 'The record' },
    nodesOnConnection: { description: 'The records of this page (edges without their cursors)' },
    cursorFieldOptions: { description: 'Where this record stands: pass as after (or before) to page on' },
    pageInfoFieldOptions: { description: 'Where this page stands' },
    pageInfoTypeOptions: { description: 'Where a page of a connection stands' },
    hasNextPageFieldOptions: { description: 'Whether records follow this page' },
    hasPreviousPageFieldOptions: { description: 'Whether records precede this page' },
    startCursorFieldOptions: { description: 'The cursor of the first record of this page' },
    endCursorFieldOptions: { description: 'The cursor of the last record of this page' },
    firstArgOptions: { description: 'Page size going forward, 1–100 (default 20)' },
    afterArgOptions: { description: 'The records after this cursor' },
    lastArgOptions: { description: 'Page size going backward, 1–100' },
    beforeArgOptions: { description: 'The records before this cursor' },
    defaultConnectionTypeOptions: { description: 'A page of a list, with where it stands' },
    defaultEdgeTypeOptions: { description: 'A record of a page with its cursor' },
    nodeQueryOptions: false,
    nodesQueryOptions: false,
  },
});

/** A client's timestamp (parseIsoTimestamp), or a VALIDATION_ERROR saying why it is none. */
function parseTimestamp(value: unknown): Date {
  const parsed = parseIsoTimestamp(value);
  if (parsed.error !== undefined) throw new AppError('VALIDATION_ERROR', parsed.error);
  return parsed.date;
}

builder.addScalarType(
  'DateTime',
  new GraphQLScalarType({
    name: 'DateTime',
    description:
      'An instant. In: RFC 3339 with Z or a numeric offset and up to 9 fractional digits, years 1970–9999, ' +
      'e.g. 2026-03-29T11:00:00+02:00. Out: UTC with Z and milliseconds, e.g. 2026-03-29T09:00:00.000Z',
    serialize: (v) => (v instanceof Date ? toIsoTimestamp(v) : String(v)),
    parseValue: parseTimestamp,
    parseLiteral: (ast) => parseTimestamp(ast.kind === Kind.STRING ? ast.value : undefined),
  }),
);

builder.addScalarType(
  'JSON',
  new GraphQLScalarType({
    name: 'JSON',
    description: 'Any JSON value (event payloads, e-mail headers)',
    serialize: (v) => v,
    parseValue: (v) => v,
  }),
);

// Passed through as given: the use cases judge it with the one metadata rule (metadata.ts), so
// GraphQL and REST refuse the same values with the same words, naming the key.
builder.addScalarType(
  'Metadata',
  new GraphQLScalarType({
    name: 'Metadata',
    description:
      'Your own key/value pairs (docs/api.md, Metadata): a JSON object of at most 50 keys of 1–40 characters, ' +
      'each value a string of at most 500 characters (no numbers, booleans, arrays or objects). ' +
      'In an update the given keys are merged into the stored ones, and a key set to null is removed',
    serialize: (v) => v,
    parseValue: (v) => v,
    parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables),
  }),
);

builder.queryType({
  description: 'Everything a credential can read; each field names the scope it needs (docs/oauth.md)',
});
builder.mutationType({ description: 'Every change; each field names the scope it needs (docs/oauth.md)' });
builder.subscriptionType({
  description: 'Live streams over Server-Sent Events (docs/graphql.md, Live events); each names its scope',
});
