// REST routes run GraphQL operations in-process: parsed, validated and compiled once at
// start-up with graphql-jit, then run as the compiled function (no HTTP hop, no per-request
// parsing; faster than going through yoga, and the compiled query faster again than execute():
// see docs/performance.md, "REST operations").
// Errors come back as AppErrors, mapped by the one table of src/errors.ts (a missing record
// is a 404, a database outage a 503).
import { parse, validate, type DocumentNode, type GraphQLError, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { AppError, isAppError, toAppError as fromCause } from '../errors.js';
import type { Context } from '../schema/context.js';
import { liveVariablesOf, restErrorOf, restValueOf } from './live-graph.js';
import type { DerivedOperation } from './selection.js';

export interface Operation<TData> {
  run(ctx: Context, variables?: Record<string, unknown>): Promise<TData>;
}

function toAppError(err: GraphQLError): AppError {
  const original = err.originalError;
  if (isAppError(original)) return original;
  // Variable coercion errors (a scalar's parseValue refusing a value, e.g. a time that is not
  // UTC): the REST schema should have caught them; say which field. graphql-js wraps the
  // scalar's own error in another GraphQLError, so `original` may be set here.
  if (/^Variable "\$/.test(err.message) && !isAppError(original)) {
    const at = /" at "([^"]+)"/.exec(err.message)?.[1];
    const variable = /^Variable "\$(\w+)"/.exec(err.message)?.[1] ?? '';
    const path = at ? at.replace(/^input\./, '') : variable;
    const inner = (original as { originalError?: Error } | undefined)?.originalError ?? original;
    const message = inner?.message ?? err.message.replace(/^Variable "\$\w+" got invalid value .*?; /, '');
    return AppError.validation([{ path, message }]);
  }
  // Anything a resolver threw (Prisma, the driver, a bug) goes through the same table as every
  // other error; a GraphQL execution error of its own (no original) ends as INTERNAL_ERROR.
  return fromCause(original ?? err);
}

// One compiled operation per schema and source, whatever the number of apps a process builds
// (tests and the CLI's bridge build several over the one schema).
// eslint-disable-next-line no-restricted-syntax -- process state: compiled operations
const compiledOperations = new WeakMap<GraphQLSchema, Map<string, Operation<unknown>>>();

export function compileOperation<TData>(schema: GraphQLSchema, source: string): Operation<TData> {
  let forSchema = compiledOperations.get(schema);
  if (forSchema === undefined) compiledOperations.set(schema, (forSchema = new Map<string, Operation<unknown>>()));
  let operation = forSchema.get(source);
  if (operation === undefined) forSchema.set(source, (operation = compileNew(schema, source)));
  return operation as Operation<TData>;
}

/** The sources compiled for a schema (test/rest/live-graph.test.ts validates every one). */
export function compiledSources(schema: GraphQLSchema): string[] {
  return [...(compiledOperations.get(schema)?.keys() ?? [])];
}

/**
 * A REST route's operation (selection.ts): runs the document and answers the field's value in
 * the REST shape (live-graph.ts), errors naming REST's own arguments.
 */
export function compileRestOperation<TValue>(
  schema: GraphQLSchema,
  derived: DerivedOperation,
  fieldName: string,
): Operation<TValue> {
  const op = compileOperation<Record<string, unknown>>(schema, derived.source);
  return {
    async run(ctx, restVariables) {
      for (const name of derived.leftOut) {
        // A programming error, caught by the route's tests: the value would be dropped.
        if (restVariables?.[name] !== undefined)
          throw new Error(`REST operation ${fieldName}: ${name} is a deprecated argument; pass its live one`);
      }
      const variables = liveVariablesOf(restVariables, { folded: derived.folded, fieldName });
      let data: Record<string, unknown>;
      try {
        data = await op.run(ctx, variables);
      } catch (err) {
        throw restErrorOf(err, derived.renamedArgs, variables);
      }
      return restValueOf(data[fieldName], derived, variables) as TValue;
    },
  };
}

function compileNew(schema: GraphQLSchema, source: string): Operation<unknown> {
  const document: DocumentNode = parse(source);
  const errors = validate(schema, document);
  if (errors.length) throw new Error(`Invalid REST operation: ${errors.map((e) => e.message).join('; ')}`);
  // Parsed and validated here, so a wrong operation stops the start; compiled on its first run
  // (compiling every route's operation was a fifth of a start, and most routes of a short-lived
  // process, `svc` or a test's app, never run).
  let compiled: CompiledQuery | undefined;
  const compile = (): CompiledQuery => {
    const result = compileQuery(schema, document);
    if (!isCompiledQuery(result))
      throw new Error(`Invalid REST operation: ${result.errors?.map((e) => e.message).join('; ')}`);
    return result;
  };
  return {
    async run(ctx, variables) {
      compiled ??= compile();
      const result = await compiled.query(undefined, ctx, variables);
      if (result.errors?.length) throw toAppError(result.errors[0]!);
      return result.data;
    },
  };
}
