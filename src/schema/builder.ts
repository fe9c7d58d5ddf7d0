// The Pothos builder: plugins and SchemaTypes (STYLE.md, Pothos app-layout). Scopes are the
// OAuth scopes of API.md §4; every field that touches company data names the scope it needs.
import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin, { AuthScopeFailureType, type AuthFailure } from '@pothos/plugin-scope-auth';
import { GraphQLScalarType, Kind } from 'graphql';
import { AppError } from '../errors.js';
import { getDatamodel, type default as PrismaTypes } from '../generated/pothos-types.js';
import type { Scope } from '../auth/scopes.js';
import type { Context } from './context.js';
import { toIsoTimestamp } from './iso-timestamp.js';

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
  };
  DefaultFieldNullability: false;
}>({
  defaultFieldNullability: false,
  plugins: [ScopeAuthPlugin, PrismaPlugin, RelayPlugin],
  scopeAuth: {
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
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
  },
});

// ISO 8601 UTC with Z, in and out (API.md §2); a time without an offset is refused.
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?Z$/;

export function parseUtcTimestamp(value: unknown): Date {
  if (typeof value !== 'string' || !ISO_UTC.test(value)) {
    throw new AppError('VALIDATION_ERROR', 'must be an ISO 8601 UTC timestamp such as 2026-03-29T09:00:00.000Z');
  }
  const d = new Date(value);
  // Date rolls impossible fields over (2026-02-31 becomes 3 March, 24:00 the next day): the
  // instant must carry exactly the date and time that were written.
  const [date, time] = value.slice(0, -1).split('T') as [string, string];
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const [hour, minute] = time.split(':').map(Number) as [number, number];
  if (
    Number.isNaN(d.getTime()) ||
    d.getUTCFullYear() !== year ||
    d.getUTCMonth() + 1 !== month ||
    d.getUTCDate() !== day ||
    d.getUTCHours() !== hour ||
    d.getUTCMinutes() !== minute
  ) {
    throw new AppError('VALIDATION_ERROR', 'is not a real date and time');
  }
  return d;
}

builder.addScalarType(
  'DateTime',
  new GraphQLScalarType({
    name: 'DateTime',
    description: 'ISO 8601 UTC timestamp with Z, e.g. 2026-03-29T09:00:00.000Z',
    serialize: (v) => (v instanceof Date ? toIsoTimestamp(v) : String(v)),
    parseValue: parseUtcTimestamp,
    parseLiteral: (ast) => parseUtcTimestamp(ast.kind === Kind.STRING ? ast.value : undefined),
  }),
);

builder.addScalarType(
  'JSON',
  new GraphQLScalarType({
    name: 'JSON',
    serialize: (v) => v,
    parseValue: (v) => v,
  }),
);

builder.queryType({});
builder.mutationType({});
