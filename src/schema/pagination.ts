// Cursor pagination for every list (docs/api.md): `limit` 1–100 (default 20) and an opaque
// `cursor`. Lists are ordered by id, newest first. Ids are time-ordered ObjectIds made by the
// application (src/ids.ts), so "every record with an id below the cursor" is a fixed set: rows
// inserted while a client walks the pages get larger ids and land before the cursor, never
// shifting the rest of the walk (no duplicates, no gaps).
import type { ArgBuilder, ObjectRef, SchemaTypes } from '@pothos/core';
import { z } from 'zod';
import { AppError } from '../errors.js';
import { isId } from '../ids.js';
import { builder } from './builder.js';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T extends SchemaTypes> ? T : never;

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

export interface PageArgs {
  limit?: number | null;
  cursor?: string | null;
}

export interface Page<T> {
  data: T[];
  pagination: { limit: number; hasMore: boolean; nextCursor: string | null };
}

const CURSOR_PREFIX = 'c1.';

export function encodeCursor(id: string): string {
  return Buffer.from(`${CURSOR_PREFIX}${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): string {
  const text = /^[A-Za-z0-9_-]{1,200}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : '';
  const id = text.startsWith(CURSOR_PREFIX) ? text.slice(CURSOR_PREFIX.length) : '';
  if (!isId(id)) throw AppError.validation([{ path: 'cursor', message: 'is not a cursor this API returned' }]);
  return id;
}

export const pageArgsSchema = z.object({
  limit: z
    .number()
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(MAX_LIMIT, `must be at most ${MAX_LIMIT}`)
    .nullish(),
  cursor: z.string().max(200).nullish(),
});

/**
 * Runs one page of a list. `find` receives the id bound and how many rows to take (one more
 * than asked, to know whether another page follows).
 */
export async function paginate<T extends { id: string }>(
  args: PageArgs,
  find: (q: { where: { id?: { lt: string } }; take: number; orderBy: { id: 'desc' } }) => Promise<T[]>,
): Promise<Page<T>> {
  const limit = args.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw AppError.validation([{ path: 'limit', message: `must be an integer from 1 to ${MAX_LIMIT}` }]);
  }
  const before = args.cursor ? decodeCursor(args.cursor) : undefined;
  const rows = await find({ where: before ? { id: { lt: before } } : {}, take: limit + 1, orderBy: { id: 'desc' } });
  const hasMore = rows.length > limit;
  const data = hasMore ? rows.slice(0, limit) : rows;
  return { data, pagination: { limit, hasMore, nextCursor: hasMore ? encodeCursor(data[data.length - 1]!.id) : null } };
}

export const PaginationType = builder.objectRef<Page<unknown>['pagination']>('Pagination').implement({
  description: 'Where a page of a list stands (the REST list meta.pagination)',
  fields: (t) => ({
    limit: t.exposeInt('limit', { description: 'The page size asked for (default 20)' }),
    hasMore: t.exposeBoolean('hasMore', { description: 'Whether another page follows' }),
    nextCursor: t.exposeString('nextCursor', {
      nullable: true,
      description: 'Pass as cursor for the next page; null on the last page',
    }),
  }),
});

/** The `limit` and `cursor` arguments of a list field. */
export const pageArgs = (t: ArgBuilder<Types>) => ({
  limit: t.int({ description: `Page size, 1–${MAX_LIMIT} (default ${DEFAULT_LIMIT})` }),
  cursor: t.string({ description: "A page's nextCursor, for the page after it" }),
});

/** The same arguments on a connection, deprecated there beside first/after (connections.ts). */
export const legacyPageArgs = (t: ArgBuilder<Types>) => ({
  limit: t.int({ description: `Page size, 1–${MAX_LIMIT} (default ${DEFAULT_LIMIT})`, deprecationReason: 'Use first' }),
  cursor: t.string({ description: "A page's nextCursor, for the page after it", deprecationReason: 'Use after' }),
});

/** A GraphQL page type `<Name>Page { data: [Name!]!, pagination: Pagination! }`. */
export function pageType<T>(
  name: string,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  item: ObjectRef<any, T>,
) {
  return builder.objectRef<Page<T>>(`${name}Page`).implement({
    description: `A page of ${name} records, newest first`,
    fields: (t) => ({
      data: t.field({ type: [item], description: 'The records of this page', resolve: (p) => p.data as never }),
      pagination: t.field({
        type: PaginationType,
        description: 'Where this page stands',
        resolve: (p) => p.pagination,
      }),
    }),
  });
}
