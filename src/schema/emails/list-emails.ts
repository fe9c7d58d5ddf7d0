import type { Db } from '../../db/databases.js';
import { isId } from '../../ids.js';

/**
 * A page of a company's e-mail log, newest first: the summary a list shows (no bodies).
 * `before` is the last id of the previous page; ids sort by creation.
 */
export async function listEmails(db: Db, opts: { companyId: string; before?: unknown; limit: number }) {
  const rows = await db.email.findMany({
    where: { companyId: opts.companyId, ...(isId(opts.before) ? { id: { lt: opts.before } } : {}) },
    orderBy: { id: 'desc' },
    take: opts.limit + 1,
    select: { id: true, to: true, subject: true, status: true, lastError: true, createdAt: true },
  });
  return { emails: rows.slice(0, opts.limit), hasMore: rows.length > opts.limit };
}
