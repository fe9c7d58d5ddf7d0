// Lists as Relay connections (docs/graphql.md, Lists): `first`/`after` forward, `last`/`before`
// backward, an `orderBy`, `totalCount` counted only when selected, and the REST view of a page
// (`limit`/`cursor` in, `data`/`pagination` out; deprecated in GraphQL) kept on every connection
// so the REST routes run on the same fields (src/rest/selection.ts).
//
// Cursors are pagination.ts's opaque `c1.<id>`. Ordered by id (newest or oldest first) a page is
// "every record with an id beyond the cursor", stable under inserts as REST promises; in another
// order (start time, name) the cursor record's place in that order is used (Prisma's cursor),
// with the id breaking ties so the order is total.
//
// A cursor is only meaningful in the company (and so the mode) that issued it. Prisma looks a
// cursor's record up by what the cursor names and nothing else, not by the list's filters, so
// every cursor handed to Prisma names the caller's company beside the id (`cursorWhere`): a
// record of another company is then no record, and its page is the page of an unknown cursor,
// without a statement more. Root lists get it from pageQueryOf, relatedConnections (whose
// cursors are @pothos/plugin-prisma's) from relatedQuery.
//
// A root list runs one findMany whose selection is planned from the document
// (@pothos/plugin-prisma's queryFromInfo over `nodes`, `edges.node` and `data`), so the
// relations selected under it are loaded with it, not per row.
import type { ObjectRef } from '@pothos/core';
import { parsePrismaCursor, queryFromInfo } from '@pothos/plugin-prisma';
import type { GraphQLResolveInfo } from 'graphql';
import { AppError } from '../errors.js';
import { builder } from './builder.js';
import type { Context } from './context.js';
import { decodeCursor, DEFAULT_LIMIT, encodeCursor, MAX_LIMIT, PaginationType } from './pagination.js';

export type Order = 'NEWEST_FIRST' | 'OLDEST_FIRST' | 'NAME' | 'START_TIME' | 'START_TIME_DESC';

const orderValues = {
  NEWEST_FIRST: { description: 'Newest record first (by id, which is time-ordered): the default' },
  OLDEST_FIRST: { description: 'Oldest record first' },
  NAME: { description: 'By name, A to Z' },
  START_TIME: { description: 'By start time, earliest first (an agenda)' },
  START_TIME_DESC: { description: 'By start time, latest first' },
} as const;

export const ListOrderEnum = builder.enumType('ListOrder', {
  description: 'The order of a list',
  values: { NEWEST_FIRST: orderValues.NEWEST_FIRST, OLDEST_FIRST: orderValues.OLDEST_FIRST },
});
export const NamedListOrderEnum = builder.enumType('NamedListOrder', {
  description: 'The order of a list of named records',
  values: { NEWEST_FIRST: orderValues.NEWEST_FIRST, OLDEST_FIRST: orderValues.OLDEST_FIRST, NAME: orderValues.NAME },
});
export const ScheduleOrderEnum = builder.enumType('ScheduleOrder', {
  description: 'The order of a list of things that start at a time',
  values: {
    NEWEST_FIRST: orderValues.NEWEST_FIRST,
    OLDEST_FIRST: orderValues.OLDEST_FIRST,
    START_TIME: orderValues.START_TIME,
    START_TIME_DESC: orderValues.START_TIME_DESC,
  },
});

type Direction = 'asc' | 'desc';
type OrderBy = Array<{ [field: string]: Direction }>;

/** Prisma's orderBy for an order, always ending with the id so the order is total. */
export function orderByOf(order: Order | null | undefined): OrderBy {
  switch (order ?? 'NEWEST_FIRST') {
    case 'OLDEST_FIRST':
      return [{ id: 'asc' }];
    case 'NAME':
      return [{ name: 'asc' }, { id: 'asc' }];
    case 'START_TIME':
      return [{ startTime: 'asc' }, { id: 'asc' }];
    case 'START_TIME_DESC':
      return [{ startTime: 'desc' }, { id: 'desc' }];
    default:
      return [{ id: 'desc' }];
  }
}

const flip = (orderBy: OrderBy): OrderBy =>
  orderBy.map((o) => Object.fromEntries(Object.entries(o).map(([k, d]) => [k, d === 'asc' ? 'desc' : 'asc'])));

export interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
  /** Deprecated REST-style page size (= first). */
  limit?: number | null;
  /** Deprecated REST-style cursor (= after). */
  cursor?: string | null;
}

/** Where Prisma finds a cursor's record: by its id, in the caller's company only. */
export interface CursorWhere {
  id: string;
  companyId: string;
}

/** The cursor Prisma is handed for a record id, looked up within the company. */
const cursorWhere = (id: string, companyId: string): CursorWhere => ({ id, companyId });

/** What one page asks of the database. */
export interface PageQuery {
  where: { id?: { lt: string } | { gt: string } };
  orderBy: OrderBy;
  take: number;
  cursor?: CursorWhere;
  skip?: number;
}

const invalid = (path: string, message: string) => AppError.validation([{ path, message }]);

function pageSize(value: number | null | undefined, path: string): number | undefined {
  if (value == null) return undefined;
  if (!Number.isInteger(value) || value < 1 || value > MAX_LIMIT)
    throw invalid(path, `must be an integer from 1 to ${MAX_LIMIT}`);
  return value;
}

/**
 * The page a connection's arguments ask for in the caller's company, or a VALIDATION_ERROR
 * naming the argument.
 */
export function pageQueryOf(args: ConnectionArgs, order: Order | null | undefined, companyId: string) {
  if (args.limit != null && (args.first != null || args.last != null))
    throw invalid('limit', 'cannot be combined with first or last');
  if (args.cursor != null && (args.after != null || args.before != null))
    throw invalid('cursor', 'cannot be combined with after or before');
  if (args.first != null && args.last != null) throw invalid('last', 'cannot be combined with first');
  if (args.after != null && args.before != null) throw invalid('before', 'cannot be combined with after');
  const backward = args.last != null || args.before != null;
  const size =
    pageSize(args.first, 'first') ?? pageSize(args.last, 'last') ?? pageSize(args.limit, 'limit') ?? DEFAULT_LIMIT;
  const rawCursor = args.after ?? args.before ?? args.cursor;
  const cursorPath = args.after != null ? 'after' : args.before != null ? 'before' : 'cursor';
  let cursorId: string | undefined;
  try {
    cursorId = rawCursor != null ? decodeCursor(rawCursor) : undefined;
  } catch {
    throw invalid(cursorPath, 'is not a cursor this API returned');
  }
  const base = orderByOf(order);
  const orderBy = backward ? flip(base) : base;
  const query: PageQuery = { where: {}, orderBy, take: size + 1 };
  if (cursorId !== undefined) {
    // Ordered by id alone: every record beyond the cursor's id, whether or not it still exists.
    if (orderBy.length === 1) query.where = { id: orderBy[0]!.id === 'desc' ? { lt: cursorId } : { gt: cursorId } };
    else Object.assign(query, { cursor: cursorWhere(cursorId, companyId), skip: 1 });
  }
  return { query, size, backward, hasCursor: cursorId !== undefined };
}

/**
 * A connection's value in the caller's company: its edges and page info, the page size, and a
 * count run on demand.
 */
export async function resolveConnection<T extends { id: string }>(
  args: ConnectionArgs,
  order: Order | null | undefined,
  companyId: string,
  find: (q: PageQuery) => Promise<T[]>,
  count: () => Promise<number>,
) {
  const { query, size, backward, hasCursor } = pageQueryOf(args, order, companyId);
  const rows = await find(query);
  const more = rows.length > size;
  const page = more ? rows.slice(0, size) : rows;
  if (backward) page.reverse();
  const edges = page.map((node) => ({ cursor: encodeCursor(node.id), node }));
  return {
    edges,
    pageInfo: {
      hasNextPage: backward ? hasCursor : more,
      hasPreviousPage: backward ? more : hasCursor,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
    },
    pageSize: size,
    totalCount: count,
  };
}

/**
 * A relatedConnection's `query`: the list's own filters and order, and its cursor looked up
 * within the caller's company like a root list's. The plugin hands Prisma the cursor it decoded
 * as `{ id }` (and has refused a malformed one by then); the field's own cursor wins over it.
 */
export function relatedQuery<Q extends object>(
  args: object,
  companyId: string,
  query: Q,
): Q & { cursor?: CursorWhere } {
  // The plugin calls `query` with all the field's arguments, the connection's among them, though
  // its type names only the field's own.
  const { after, before } = args as Pick<ConnectionArgs, 'after' | 'before'>;
  const cursor = after ?? before;
  const id = cursor != null ? parsePrismaCursor(cursor) : undefined;
  return typeof id === 'string' ? { ...query, cursor: cursorWhere(id, companyId) } : query;
}

/**
 * The Prisma selection (include/select) the document asks of the records of a connection
 * field: whatever is selected under `nodes`, `edges.node` or `data`, relations included.
 */
export function nodeQuery(ctx: Context, info: GraphQLResolveInfo, typeName: string): Record<string, unknown> {
  return queryFromInfo({
    context: ctx,
    info,
    typeName,
    paths: [['nodes'], ['edges', 'node'], ['data']],
  });
}

/**
 * `<Name>Connection`: edges, nodes and pageInfo (the Relay plugin), totalCount, and the
 * deprecated REST view `data` and `pagination`.
 */
export function connectionType<T>(
  name: string,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  item: ObjectRef<any, T>,
) {
  return builder.connectionObject(
    {
      type: item,
      name: `${name}Connection`,
      description: `A page of ${name} records, with where it stands`,
      fields: (t) => ({
        totalCount: t.int({
          description: "How many records the list's filters match (counted only when selected)",
          resolve: async (c) => (typeof c.totalCount === 'function' ? c.totalCount() : (c.totalCount ?? 0)),
        }),
        data: t.field({
          type: [item],
          description: 'The records of this page',
          deprecationReason: 'Use nodes (or edges)',
          resolve: async (c) => ((await c.edges) as unknown as Array<{ node: T }>).map((e) => e.node) as never,
        }),
        pagination: t.field({
          type: PaginationType,
          description: 'Where this page stands',
          deprecationReason: 'Use pageInfo',
          resolve: async (c) => {
            const info = await c.pageInfo;
            return {
              limit: c.pageSize ?? (c as { args?: { first?: number | null } }).args?.first ?? DEFAULT_LIMIT,
              hasMore: info.hasNextPage,
              nextCursor: info.hasNextPage ? (info.endCursor ?? null) : null,
            };
          },
        }),
      }),
    },
    { name: `${name}Edge`, description: `A ${name} record of a page, with its cursor` },
  );
}
