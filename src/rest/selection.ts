// The GraphQL document a REST route runs, derived rather than written: the selection set is
// read off the route's TypeBox response schema (the one that documents the response and checks
// it outside production), and the operation's variables off the GraphQL field's own arguments.
// So a field a resource returns is declared once on the REST side, in its response schema
// (ARCHITECTURE.md, "Adding a field"), and a response field the GraphQL type lacks fails at
// start-up when the operation is validated (operation.ts), never at request time.
//
// REST runs on the live graph only: where a REST name is a field or argument the schema
// deprecates, the document selects the live one in its place (live-graph.ts says which) and
// the answer is mapped back to the REST shape there, so REST answers stay what they were while
// every deprecation in schema.graphql can be removed on its date (docs/changelog.md).
import { KindGuard, type TSchema } from '@sinclair/typebox';
import {
  getNamedType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
} from 'graphql';
import { LIST_SELECTION, liveArgOf, liveFieldOf, type LiveValue } from './live-graph.js';

/** The object schemas a response schema is made of: itself, an array's items, a union's branches. */
function objectsOf(schema: TSchema): Array<Record<string, TSchema>> {
  if (KindGuard.IsObject(schema)) return [schema.properties];
  if (KindGuard.IsArray(schema)) return objectsOf(schema.items);
  if (KindGuard.IsUnion(schema)) return schema.anyOf.flatMap(objectsOf);
  return [];
}

function fieldOf(type: GraphQLNamedType | undefined, name: string): GraphQLField<unknown, unknown> | undefined {
  return type && (isObjectType(type) || isInterfaceType(type)) ? type.getFields()[name] : undefined;
}

function selectionAt(
  type: GraphQLNamedType | undefined,
  schemas: TSchema[],
  path: string[],
  live: LiveValue[],
): string {
  const fields = new Map<string, TSchema[]>();
  for (const props of schemas.flatMap(objectsOf)) {
    for (const [name, prop] of Object.entries(props)) fields.set(name, [...(fields.get(name) ?? []), prop]);
  }
  return [...fields]
    .map(([name, props]) => {
      const field = fieldOf(type, name);
      // A deprecated field with a live stand-in is selected under the REST name (an alias),
      // so the answer keeps its keys in their order; its value is taken out afterwards.
      const stand = field?.deprecationReason != null && type ? liveFieldOf(type.name, name) : undefined;
      if (stand?.key) {
        live.push({ path: [...path, name], key: stand.key });
        return `${name}: ${stand.field} { ${stand.key} }`;
      }
      if (stand) return `${name}: ${stand.field}`;
      const inner = selectionAt(field ? getNamedType(field.type) : undefined, props, [...path, name], live);
      return inner ? `${name} { ${inner} }` : name;
    })
    .join(' ');
}

/**
 * The GraphQL selection set of a response schema on a GraphQL type: every property by name,
 * objects (also in arrays, and in the branches of a union such as `T | null`) with their own
 * selection; where union branches share a property, their selections are merged. A record
 * (`Type.Record`) has no fixed properties: it is a JSON scalar in GraphQL, a leaf. A property
 * the type deprecates is selected through its live field (live-graph.ts), named in `live`.
 */
export function selectionOf(type: GraphQLNamedType | undefined, ...schemas: TSchema[]): string {
  return selectionAt(type, schemas, [], []);
}

export type OperationKind = 'query' | 'mutation';

/** A REST route's operation: its document, and what turns its answer into the REST shape. */
export interface DerivedOperation {
  source: string;
  /** A list: the field is a connection, selected as `nodes` and `pageInfo`. */
  list: boolean;
  /** Where the answer holds a live field standing for a deprecated REST one. */
  live: LiveValue[];
  /** The REST variable each live argument takes its value from (`first` ← `limit`). */
  renamedArgs: Array<{ arg: string; variable: string }>;
  /** The field's deprecated arguments the document leaves out (REST must not pass them). */
  leftOut: string[];
  /** Deprecated arguments whose value REST may pass as before: it goes into `input` (live-graph.ts). */
  folded: string[];
}

/**
 * `query($a: T, ...) { field(a: $a, ...) { <selection> } }` for a field of the schema's Query
 * or Mutation type, with every live argument of the field as a variable of the same name and
 * type, except where REST names it otherwise (`first: $limit`, `after: $cursor`). A list field
 * (a connection) selects `nodes { ... } pageInfo { ... }`.
 */
export function deriveOperation(
  schema: GraphQLSchema,
  kind: OperationKind,
  fieldName: string,
  response: TSchema,
  opts: { list?: boolean } = {},
): DerivedOperation {
  const root = kind === 'query' ? schema.getQueryType() : schema.getMutationType();
  const field: GraphQLField<unknown, unknown> | undefined = root?.getFields()[fieldName];
  if (!field) throw new Error(`REST route: the GraphQL schema has no ${kind} field ${fieldName}`);
  const type = getNamedType(field.type);
  if (!isObjectType(type)) throw new Error(`REST route: ${kind} field ${fieldName} does not return an object`);
  // A deprecated argument with a live twin keeps its REST name as the twin's variable.
  const variableOf = new Map<string, string>();
  for (const a of field.args) {
    const live = a.deprecationReason != null ? liveArgOf(a.name) : undefined;
    if (live && field.args.some((b) => b.name === live && b.deprecationReason == null)) variableOf.set(live, a.name);
  }
  const used = field.args.filter((a) => a.deprecationReason == null);
  const vars = used.map((a) => `$${variableOf.get(a.name) ?? a.name}: ${String(a.type)}`).join(', ');
  const args = used.map((a) => `${a.name}: $${variableOf.get(a.name) ?? a.name}`).join(', ');
  const live: LiveValue[] = [];
  const selection = opts.list
    ? `nodes { ${selectionAt(getNamedType(fieldOf(type, 'nodes')?.type ?? type), [response], ['nodes'], live)} } ${LIST_SELECTION}`
    : selectionAt(type, [response], [], live);
  const renamed = new Set(variableOf.values());
  const input = field.args.find((a) => a.name === 'input' && a.deprecationReason == null);
  const inputType = input && getNamedType(input.type);
  const inputFields = inputType && isInputObjectType(inputType) ? inputType.getFields() : {};
  const deprecated = field.args.filter((a) => a.deprecationReason != null && !renamed.has(a.name)).map((a) => a.name);
  return {
    source: `${kind}${vars ? `(${vars})` : ''} { ${fieldName}${args ? `(${args})` : ''} { ${selection} } }`,
    list: opts.list === true,
    live,
    renamedArgs: [...variableOf].map(([arg, variable]) => ({ arg, variable })),
    leftOut: deprecated.filter((name) => !Object.hasOwn(inputFields, name)),
    folded: deprecated.filter((name) => Object.hasOwn(inputFields, name)),
  };
}

/** The document alone (tests, and a reader who wants to see what a route runs). */
export function operationFor(
  schema: GraphQLSchema,
  kind: OperationKind,
  fieldName: string,
  response: TSchema,
  opts: { list?: boolean } = {},
): string {
  return deriveOperation(schema, kind, fieldName, response, opts).source;
}
