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

/**
 * The e-mails about one booking, oldest first: those composed from its events (eventId) and its
 * reminders (notificationId). The summary a list shows (no bodies).
 */
export async function listBookingEmails(
  db: Db,
  opts: { companyId: string; eventIds: string[]; notificationIds: string[]; limit: number },
) {
  if (opts.eventIds.length === 0 && opts.notificationIds.length === 0) return [];
  return db.email.findMany({
    where: {
      companyId: opts.companyId,
      OR: [{ eventId: { in: opts.eventIds } }, { notificationId: { in: opts.notificationIds } }],
    },
    orderBy: { id: 'asc' },
    take: opts.limit,
    select: { id: true, to: true, subject: true, kind: true, status: true, createdAt: true },
  });
}
