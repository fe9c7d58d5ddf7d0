import type { Db } from '../../db/databases.js';
import { EVENT_RECORD_SELECT, type EventRecord } from './live-events.js';

/**
 * A company's dispatched events in position order (docs/api.md, Events), for a reader that follows
 * them (`svc events tail`): with `after`, those after that position, oldest first; without
 * it, the latest `limit`, oldest first. Events not dispatched yet have no position and come later.
 */
export async function listEventsByPosition(
  db: Db,
  opts: { companyId: string; after?: bigint | null; limit: number; types?: readonly string[] },
): Promise<EventRecord[]> {
  const where = {
    companyId: opts.companyId,
    ...(opts.types?.length ? { type: { in: [...opts.types] } } : {}),
  };
  if (opts.after != null) {
    return db.event.findMany({
      where: { ...where, position: { gt: opts.after } },
      orderBy: { position: 'asc' },
      take: opts.limit,
      select: EVENT_RECORD_SELECT,
    });
  }
  const latest = await db.event.findMany({
    where: { ...where, position: { not: null } },
    orderBy: { position: 'desc' },
    take: opts.limit,
    select: EVENT_RECORD_SELECT,
  });
  return latest.reverse();
}

/**
 * The events of some bookings (booking events carry `data.bookingId`: core/booking-events.ts),
 * oldest first. Found through the expression index on (company_id, data->>'bookingId'), so a
 * booking's history costs the same in a company of a hundred events as in one of millions.
 */
export async function listEventsOfBookings(
  db: Db,
  opts: { companyId: string; bookingIds: readonly string[]; limit: number },
): Promise<EventRecord[]> {
  if (opts.bookingIds.length === 0) return [];
  // One statement, with the columns of EVENT_RECORD_SELECT under their record names.
  return db.$queryRaw<EventRecord[]>`
    SELECT id, company_id AS "companyId", type, data, created_at AS "createdAt", position
    FROM events
    WHERE company_id = ${opts.companyId} AND data->>'bookingId' = ANY(${[...opts.bookingIds]}::text[])
    ORDER BY id LIMIT ${opts.limit}`;
}
