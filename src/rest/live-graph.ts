// REST on the live graph (docs/changelog.md, "GraphQL deprecations and their removal"): the REST
// names that the GraphQL schema keeps only as deprecated fields and arguments, the live ones
// REST's operations select instead, and the one place their answers are mapped back to the REST
// shapes, so no REST answer changes (docs/api.md, Compatibility) and no REST operation holds a
// deprecation back from its removal. test/rest/live-graph.test.ts runs every REST operation
// through graphql's NoDeprecatedCustomRule.
import { AppError, isAppError, type FieldError } from '../errors.js';
import { DEFAULT_LIMIT } from '../schema/pagination.js';
import type { Pagination } from './envelope.js';

/**
 * The live field that stands for a deprecated REST one: the same value under another name, or
 * (with `key`) one part of a Money field.
 */
export interface LiveField {
  field: string;
  key?: 'amount' | 'currency';
}

// By GraphQL type, the REST field names whose GraphQL fields are deprecated and what to
// select in their place. A new deprecation of a field REST answers gets its row here; a row
// is used only while its field is deprecated.
const LIVE_FIELDS: Readonly<Record<string, Readonly<Record<string, LiveField>>>> = {
  Booking: { price: { field: 'priceMoney', key: 'amount' }, currency: { field: 'priceMoney', key: 'currency' } },
  Service: { price: { field: 'priceMoney', key: 'amount' } },
  Payment: { amount: { field: 'amountMoney', key: 'amount' }, currency: { field: 'amountMoney', key: 'currency' } },
  // Deprecated by issue 43 §4 (the same strings as an enum; the fixed fee as Money).
  Email: { kind: { field: 'emailKind' } },
  LateFee: { amount: { field: 'amountMoney', key: 'amount' } },
};

export function liveFieldOf(typeName: string, fieldName: string): LiveField | undefined {
  return Object.hasOwn(LIVE_FIELDS, typeName) ? LIVE_FIELDS[typeName]![fieldName] : undefined;
}

// REST's page arguments and the connection arguments that take them. A domain error names the
// argument the operation passed (`after: is not a cursor this API returned`); REST names its
// own. `after` is renamed only for a cursor's errors: GET /events has an `after` of its own (the
// position it resumes from, GraphQL's afterPosition), whose errors already say `after`.
const LIVE_ARGS: Readonly<Record<string, { arg: string; errors?: RegExp }>> = {
  limit: { arg: 'first' },
  cursor: { arg: 'after', errors: /\bcursor\b/ },
};

export function liveArgOf(restName: string): string | undefined {
  return Object.hasOwn(LIVE_ARGS, restName) ? LIVE_ARGS[restName]!.arg : undefined;
}

/** What a REST list selects of a connection besides its nodes. */
export const LIST_SELECTION = 'pageInfo { hasNextPage endCursor }';

/** A live Money field in an answer: where (response keys; arrays are crossed), and which part is the REST value. */
export interface LiveValue {
  path: string[];
  key: 'amount' | 'currency';
}

type Json = Record<string, unknown>;

function takePart(value: unknown, path: string[], at: number, key: string): void {
  if (value == null) return;
  if (Array.isArray(value)) {
    for (const item of value) takePart(item, path, at, key);
    return;
  }
  const object = value as Json;
  const name = path[at]!;
  if (at < path.length - 1) return takePart(object[name], path, at + 1, key);
  const money = object[name] as Json | null | undefined;
  // Assigned in place: the key keeps its place, so the JSON is the REST answer byte for byte.
  if (money != null) object[name] = money[key];
}

/** The REST value of a field's answer: live Money parts in place, a connection as its page. */
export function restValueOf(
  value: unknown,
  op: { list: boolean; live: readonly LiveValue[] },
  variables: Record<string, unknown> | undefined,
): unknown {
  for (const l of op.live) takePart(value, l.path, 0, l.key);
  if (!op.list || value == null) return value;
  const { nodes, pageInfo } = value as {
    nodes: unknown[];
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
  // What the deprecated Connection.pagination answered (connections.ts): the page size asked
  // for, and the last record's cursor only when another page follows.
  const pagination: Pagination = {
    limit: (variables?.limit as number | null | undefined) ?? DEFAULT_LIMIT,
    hasMore: pageInfo.hasNextPage,
    nextCursor: pageInfo.hasNextPage ? (pageInfo.endCursor ?? null) : null,
  };
  return { data: nodes, pagination };
}

/** A validation error naming a live argument REST passed under its own name names that one. */
/**
 * REST's variables for the live arguments: a value REST passes under the name of a deprecated
 * argument whose value moved into the field's `input` (`reason` → `input: { reason }`) goes
 * there, unless REST passes `input` itself.
 */
export function liveVariablesOf(
  variables: Record<string, unknown> | undefined,
  op: { folded: readonly string[]; fieldName: string },
): Record<string, unknown> | undefined {
  if (!variables || !op.folded.some((name) => variables[name] !== undefined)) return variables;
  if (variables.input != null)
    throw new Error(`REST operation ${op.fieldName}: pass ${op.folded.join(', ')} in input, or input alone`);
  const live: Record<string, unknown> = {};
  const input: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(variables)) {
    if (op.folded.includes(name)) input[name] = value;
    else live[name] = value;
  }
  return { ...live, input };
}

export function restErrorOf(
  err: unknown,
  renamedArgs: ReadonlyArray<{ arg: string; variable: string }>,
  variables: Record<string, unknown> | undefined,
): unknown {
  if (!renamedArgs.length || !isAppError(err) || err.code !== 'VALIDATION_ERROR' || !Array.isArray(err.details))
    return err;
  let renamed = false;
  const details = (err.details as FieldError[]).map((d) => {
    const r = renamedArgs.find((x) => x.arg === d.path && variables?.[x.variable] != null);
    const only = r && LIVE_ARGS[r.variable]?.errors;
    if (!r || (only && !only.test(d.message))) return d;
    renamed = true;
    return { ...d, path: r.variable };
  });
  return renamed ? AppError.validation(details) : err;
}
