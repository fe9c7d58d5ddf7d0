// Reading a company's request logs (docs/api.md, Request logs): the filters every surface
// offers (REST, GraphQL, the admin area) and one request in full. Rows are in the database of
// the request's mode, so a sandbox credential never sees live requests and the reverse.
import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.js';
import type { Db } from '../../db/databases.js';
import { AppError } from '../../errors.js';
import { isId } from '../../ids.js';
import { parseInput, text } from '../validation.js';

export const STATUS_CLASSES = ['2xx', '4xx', '5xx'] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

const instant = z.coerce.date({ error: 'must be an ISO 8601 instant' });

export const requestLogFilterSchema = z.object({
  status: z.enum(STATUS_CLASSES, { error: 'must be one of 2xx, 4xx, 5xx' }).nullish(),
  path: text(500).nullish(),
  credentialId: z.string().refine(isId, 'must be a credential id').nullish(),
  requestId: text(128).nullish(),
  from: instant.nullish(),
  to: instant.nullish(),
});

export type RequestLogFilter = z.input<typeof requestLogFilterSchema>;

/**
 * The Prisma condition of a filter within one company. `path` matches a route
 * (`/api/v1/bookings/:id`) exactly, or any concrete path it begins (`/api/v1/bookings`
 * matches `/api/v1/bookings/…/cancel`). Invalid values are a VALIDATION_ERROR naming the field.
 */
export function requestLogWhere(companyId: string, filter: RequestLogFilter): Prisma.RequestLogWhereInput {
  const f = parseInput(requestLogFilterSchema, filter);
  if (f.from && f.to && f.to <= f.from) throw AppError.validation([{ path: 'to', message: 'must be after from' }]);
  const where: Prisma.RequestLogWhereInput = { companyId };
  if (f.status) {
    const low = Number(f.status[0]) * 100;
    where.status = { gte: low, lt: low + 100 };
  }
  if (f.path) where.OR = [{ route: f.path }, { path: { startsWith: f.path } }];
  if (f.credentialId) where.credentialId = f.credentialId;
  if (f.requestId) where.requestId = f.requestId;
  if (f.from || f.to) where.createdAt = { ...(f.from ? { gte: f.from } : {}), ...(f.to ? { lt: f.to } : {}) };
  return where;
}

/** What a list shows of each request: everything but the bodies. */
export const REQUEST_LOG_SUMMARY = {
  id: true,
  createdAt: true,
  method: true,
  route: true,
  path: true,
  operationName: true,
  status: true,
  durationMs: true,
  requestId: true,
  credentialId: true,
  credentialName: true,
  credentialPrefix: true,
} as const;

/**
 * A page of a company's request logs, newest first, for pages that go back with `before` (the
 * last id of the previous page; ids sort by time). The API's connection uses requestLogWhere.
 */
export async function listRequestLogs(
  db: Db,
  opts: { companyId: string; filter?: RequestLogFilter; before?: unknown; limit: number },
) {
  const where = requestLogWhere(opts.companyId, opts.filter ?? {});
  const rows = await db.requestLog.findMany({
    where: isId(opts.before) ? { AND: [where, { id: { lt: opts.before } }] } : where,
    orderBy: { id: 'desc' },
    take: opts.limit + 1,
    select: REQUEST_LOG_SUMMARY,
  });
  return { requestLogs: rows.slice(0, opts.limit), hasMore: rows.length > opts.limit };
}

/** One request in full (bodies included), or NOT_FOUND; another company's is not found. */
export async function findRequestLog(db: Db, companyId: string, id: unknown) {
  const row = isId(id) ? await db.requestLog.findFirst({ where: { id, companyId } }) : null;
  if (!row) throw AppError.notFound('request log');
  return row;
}
