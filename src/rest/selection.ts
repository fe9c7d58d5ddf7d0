// The GraphQL document a REST route runs, derived rather than written: the selection set is
// read off the route's TypeBox response schema (the one that documents the response and checks
// it outside production), and the operation's variables off the GraphQL field's own arguments.
// So a field a resource returns is declared once on the REST side, in its response schema
// (ARCHITECTURE.md, "Adding a field"), and a response field the GraphQL type lacks fails at
// start-up when the operation is validated (operation.ts), never at request time.
import { KindGuard, type TSchema } from '@sinclair/typebox';
import { getNamedType, isObjectType, type GraphQLField, type GraphQLSchema } from 'graphql';

const PAGE = 'pagination { limit hasMore nextCursor }';

/** The object schemas a response schema is made of: itself, an array's items, a union's branches. */
function objectsOf(schema: TSchema): Array<Record<string, TSchema>> {
  if (KindGuard.IsObject(schema)) return [schema.properties];
  if (KindGuard.IsArray(schema)) return objectsOf(schema.items);
  if (KindGuard.IsUnion(schema)) return schema.anyOf.flatMap(objectsOf);
  return [];
}

/**
 * The GraphQL selection set of a response schema: every property by name, objects (also in
 * arrays, and in the branches of a union such as `T | null`) with their own selection; where
 * union branches share a property, their selections are merged. A record (`Type.Record`) has
 * no fixed properties: it is a JSON scalar in GraphQL, a leaf.
 */
export function selectionOf(...schemas: TSchema[]): string {
  const fields = new Map<string, TSchema[]>();
  for (const props of schemas.flatMap(objectsOf)) {
    for (const [name, prop] of Object.entries(props)) fields.set(name, [...(fields.get(name) ?? []), prop]);
  }
  return [...fields]
    .map(([name, props]) => {
      const inner = selectionOf(...props);
      return inner ? `${name} { ${inner} }` : name;
    })
    .join(' ');
}

export type OperationKind = 'query' | 'mutation';

/**
 * `query($a: T, ...) { field(a: $a, ...) { <selection> } }` for a field of the schema's Query
 * or Mutation type, with every argument of the field as a variable of the same name and type.
 * A list field (a page type) selects `data { ... } pagination { ... }`.
 */
export function operationFor(
  schema: GraphQLSchema,
  kind: OperationKind,
  fieldName: string,
  response: TSchema,
  opts: { list?: boolean } = {},
): string {
  const root = kind === 'query' ? schema.getQueryType() : schema.getMutationType();
  const field: GraphQLField<unknown, unknown> | undefined = root?.getFields()[fieldName];
  if (!field) throw new Error(`REST route: the GraphQL schema has no ${kind} field ${fieldName}`);
  if (!isObjectType(getNamedType(field.type)))
    throw new Error(`REST route: ${kind} field ${fieldName} does not return an object`);
  const vars = field.args.map((a) => `$${a.name}: ${String(a.type)}`).join(', ');
  const args = field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
  const selection = opts.list ? `data { ${selectionOf(response)} } ${PAGE}` : selectionOf(response);
  return `${kind}${vars ? `(${vars})` : ''} { ${fieldName}${args ? `(${args})` : ''} { ${selection} } }`;
}
