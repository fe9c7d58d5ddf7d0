// The cost of a GraphQL operation counted with its list sizes (docs/graphql.md, Limits): a field
// costs 1 plus what it selects, and what a list selects counts once per record it may return:
// `first`/`last` (or the deprecated `limit`) of a connection, its default page (20) when none is
// given, the number of ids of `nodes(ids:)`, and 10 for another plain list. So `first: 100` on a
// list inside a list of 100 costs 100 × 100, and a document that could make the database work that
// hard is refused before it runs. It is the one cost limit (src/http/graphql.ts says why).
import {
  getNamedType,
  getNullableType,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  OperationTypeNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLInterfaceType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';

export const MAX_LIST_COST = 25_000;
const DEFAULT_PAGE = 20;
const PLAIN_LIST = 10;

function intOf(value: ValueNode | undefined, variables: Record<string, unknown>): number | undefined {
  if (!value) return undefined;
  if (value.kind === Kind.INT) return Number(value.value);
  if (value.kind === Kind.VARIABLE) {
    const v = variables[value.name.value];
    return typeof v === 'number' ? v : undefined;
  }
  return undefined;
}

function listLength(value: ValueNode | undefined, variables: Record<string, unknown>): number | undefined {
  if (value?.kind === Kind.LIST) return value.values.length;
  if (value?.kind === Kind.VARIABLE) {
    const v = variables[value.name.value];
    return Array.isArray(v) ? v.length : undefined;
  }
  return undefined;
}

/** The list-size-aware cost of the operation the request runs (the first one when unnamed). */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> = {},
  operationName?: string | null,
): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const operation = document.definitions.find(
    (d) => d.kind === Kind.OPERATION_DEFINITION && (!operationName || d.name?.value === operationName),
  );
  if (!operation || operation.kind !== Kind.OPERATION_DEFINITION) return 0;
  const root =
    operation.operation === OperationTypeNode.MUTATION
      ? schema.getMutationType()
      : operation.operation === OperationTypeNode.SUBSCRIPTION
        ? schema.getSubscriptionType()
        : schema.getQueryType();
  if (!root) return 0;
  // A variable the request leaves out takes its default (`$first: Int = 100`).
  const given = variables;
  variables = { ...given };
  for (const v of operation.variableDefinitions ?? []) {
    const d = v.defaultValue;
    if (given[v.variable.name.value] === undefined && d?.kind === Kind.INT)
      variables[v.variable.name.value] = Number(d.value);
  }

  const seen = new Set<string>(); // a fragment spread inside itself is invalid; never loop on one
  // A selection on an interface (Node) counts its fields and each fragment on a type beside them.
  const cost = (type: GraphQLObjectType | GraphQLInterfaceType, set: SelectionSetNode): number => {
    let total = 0;
    for (const s of set.selections) {
      if (s.kind === Kind.INLINE_FRAGMENT) {
        const on = s.typeCondition ? schema.getType(s.typeCondition.name.value) : type;
        total += cost(isObjectType(on) || isInterfaceType(on) ? on : type, s.selectionSet);
      } else if (s.kind === Kind.FRAGMENT_SPREAD) {
        const f = fragments.get(s.name.value);
        if (!f || seen.has(f.name.value)) continue;
        seen.add(f.name.value);
        const on = schema.getType(f.typeCondition.name.value);
        total += cost(isObjectType(on) || isInterfaceType(on) ? on : type, f.selectionSet);
        seen.delete(f.name.value);
      } else {
        const field = type.getFields()[s.name.value];
        if (!field) continue; // __typename and introspection
        const named = getNamedType(field.type);
        if (!s.selectionSet || !(isObjectType(named) || isInterfaceType(named))) {
          total += 1;
          continue;
        }
        const arg = (name: string) => intOf(s.arguments?.find((a) => a.name.value === name)?.value, variables);
        const isConnection = field.args.some((a) => a.name === 'first');
        // A connection's `edges`, `nodes` and `data` are its records: the multiplier sits on the
        // connection, so the lists inside it count once.
        const recordsOfConnection = type.name.endsWith('Connection') && ['edges', 'nodes', 'data'].includes(field.name);
        // A list of records by id (`nodes(ids:)`) returns one per id given.
        const ids = field.args.some((a) => a.name === 'ids')
          ? listLength(s.arguments?.find((a) => a.name.value === 'ids')?.value, variables)
          : undefined;
        const times = recordsOfConnection
          ? 1
          : isConnection
            ? (arg('first') ?? arg('last') ?? arg('limit') ?? DEFAULT_PAGE)
            : isListType(getNullableType(field.type))
              ? (ids ?? PLAIN_LIST)
              : 1;
        const inner = cost(named, s.selectionSet);
        total += 1 + Math.max(times, 0) * inner;
      }
    }
    return total;
  };
  return cost(root, operation.selectionSet);
}
