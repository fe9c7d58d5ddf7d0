// The published GraphQL schema (docs/graphql.md, "Schema changes and CI"): `schema.graphql` at
// the repository's root is this schema printed with its types and fields in lexicographic
// order, so a change to the code shows as a small, stable diff. `npm run schema` writes it; a
// test fails when the file and the code drift apart; `npm run schema:check` (a CI step) refuses
// a breaking change against the previous schema unless `schema-breaks.allowed` declares it.
import {
  buildSchema,
  findBreakingChanges,
  findDangerousChanges,
  lexicographicSortSchema,
  printSchema,
  type GraphQLSchema,
} from 'graphql';

export const PUBLISHED_SCHEMA_FILE = 'schema.graphql';
export const ALLOWED_BREAKS_FILE = 'schema-breaks.allowed';

/** The schema as `schema.graphql` holds it: sorted, printed, with one final newline. */
export function printPublishedSchema(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema)).trimEnd()}\n`;
}

export interface SchemaChanges {
  /** `TYPE: description` of each change that can break a client (graphql-js' findBreakingChanges). */
  breaking: string[];
  /** Changes that may change what a client sees without breaking its documents (findDangerousChanges). */
  dangerous: string[];
}

/** The changes from the schema printed as `before` to the one printed as `after`. */
export function schemaChanges(before: string, after: string): SchemaChanges {
  const old = buildSchema(before);
  const current = buildSchema(after);
  const line = (c: { type: string; description: string }) => `${c.type}: ${c.description}`;
  return {
    breaking: findBreakingChanges(old, current).map(line).sort(),
    dangerous: findDangerousChanges(old, current).map(line).sort(),
  };
}

/**
 * The declared breaks of `schema-breaks.allowed`: one change per line, exactly as
 * `npm run schema:check` prints it (`FIELD_REMOVED: Booking.customerId was removed.`); blank
 * lines and lines starting with `#` (the reason, the issue) are ignored.
 */
export function parseAllowedBreaks(text: string): Set<string> {
  return new Set(
    text
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#')),
  );
}

/** The breaking changes that no line of the allowed list declares. */
export function undeclaredBreaks(changes: SchemaChanges, allowed: Set<string>): string[] {
  return changes.breaking.filter((c) => !allowed.has(c));
}
