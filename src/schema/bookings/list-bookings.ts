// Bookings as a schedule shows them: those starting in a window, with the names a calendar
// cell needs, and one booking's history (its events, the same the API and webhooks carry).
import { PLANNED_WITH_VALUES, sqlRows, type Db } from '../../db/databases.js';
import { Prisma } from '../../generated/prisma/client.js';
import type { BookingStatus } from '../../generated/prisma/enums.js';
import { listEventsOfBookings } from '../events/index.js';

/** Bookings starting in [from, to) (of the given statuses, or all), in start order, with customer and service names. */
export async function listBookingsStarting(
  db: Db,
  opts: {
    companyId: string;
    from: Date;
    to: Date;
    employeeId?: string | null;
    /** Of these employees only. */
    employeeIds?: readonly string[];
    statuses?: readonly BookingStatus[];
    limit: number;
  },
) {
  return db.booking.findMany({
    where: {
      companyId: opts.companyId,
      startTime: { gte: opts.from, lt: opts.to },
      ...(opts.employeeId ? { employeeId: opts.employeeId } : {}),
      ...(opts.employeeIds ? { employeeId: { in: [...opts.employeeIds] } } : {}),
      ...(opts.statuses?.length ? { status: { in: [...opts.statuses] } } : {}),
    },
    // What a schedule line shows: not the whole row (its metadata, answers and notes), which a
    // day of a big team maps by the hundred.
    select: {
      id: true,
      status: true,
      startTime: true,
      endTime: true,
      employeeId: true,
      serviceId: true,
      customerId: true,
      customer: { select: { name: true } },
      service: { select: { name: true } },
    },
    orderBy: [{ startTime: 'asc' }, { id: 'asc' }],
    take: opts.limit,
  });
}

/** How many bookings start in [from, to) for each employee who has any (one GROUP BY on the (company_id, start_time) index). */
export async function countBookingsStartingByEmployee(
  db: Db,
  opts: { companyId: string; from: Date; to: Date },
): Promise<Map<string, number>> {
  const rows = await db.booking.groupBy({
    by: ['employeeId'],
    where: { companyId: opts.companyId, startTime: { gte: opts.from, lt: opts.to } },
    _count: { _all: true },
  });
  return new Map(rows.map((r) => [r.employeeId, r._count._all]));
}

/**
 * The ids of one page of a company's bookings ordered by id (newest or oldest first), beyond
 * the cursor's id if there is one, with the list's filters: the pages whose plain Prisma query
 * PostgreSQL may read badly at scale (see docs/performance.md, "Scenarios at scale").
 *
 * One status is written as `ORDER BY status, id` with the status as a range of one value, so
 * that only the index on (company_id, status, id) yields the order and the page is read from its
 * end. Asked for `status = … ORDER BY id`, PostgreSQL may walk the primary key backwards instead,
 * filtering on the company and status: it assumes the status is spread evenly over the ids,
 * while the newest bookings are the future ones (confirmed), so a list of completed ones first
 * read past every booking made for the future, the whole platform's (see docs/performance.md,
 * "Bookings by status"). An equality would not do: the planner drops a sort key the
 * WHERE fixes to one value, and orders by id alone again.
 *
 * A `from`/`to` window is planned with its values (PLANNED_WITH_VALUES): which index is right
 * depends on how much of the company's history the window holds. A day is read by start time;
 * two years, most of it, by id from the cursor down. A plan made once for any window guessed
 * the first and sorted two years of rows for every page.
 */
export async function bookingIdsOfPage(
  db: Db,
  o: {
    companyId: string;
    status?: BookingStatus;
    employeeId?: string;
    customerId?: string;
    serviceId?: string;
    from?: Date | null;
    to?: Date | null;
    /** The cursor's id: the page holds the ids below it (newest first) or above it (oldest first). */
    beyond?: string;
    newestFirst: boolean;
    take: number;
  },
): Promise<string[]> {
  const and = (cond: boolean, sql: Prisma.Sql) => (cond ? Prisma.sql` AND ${sql}` : Prisma.empty);
  const status = o.status !== undefined ? Prisma.sql`CAST(${o.status}::text AS "BookingStatus")` : null;
  const dir = Prisma.raw(o.newestFirst ? 'DESC' : 'ASC');
  const windowed = o.from != null || o.to != null;
  const rows = await sqlRows<{ id: string }>(
    db,
    Prisma.sql`${Prisma.raw(windowed ? PLANNED_WITH_VALUES : '')}
    SELECT id FROM bookings
     WHERE company_id = ${o.companyId}
       ${status ? Prisma.sql` AND status >= ${status} AND status <= ${status}` : Prisma.empty}
       ${and(o.employeeId !== undefined, Prisma.sql`employee_id = ${o.employeeId}`)}
       ${and(o.customerId !== undefined, Prisma.sql`customer_id = ${o.customerId}`)}
       ${and(o.serviceId !== undefined, Prisma.sql`service_id = ${o.serviceId}`)}
       ${and(o.from != null, Prisma.sql`start_time >= ${o.from}`)}
       ${and(o.to != null, Prisma.sql`start_time < ${o.to}`)}
       ${and(o.beyond !== undefined, o.newestFirst ? Prisma.sql`id < ${o.beyond}` : Prisma.sql`id > ${o.beyond}`)}
     ORDER BY ${status ? Prisma.sql`status ${dir}, ` : Prisma.empty}id ${dir}
     LIMIT ${o.take}`,
  );
  return rows.map((r) => r.id);
}

/** A booking's events, oldest first. */
export async function listBookingEvents(db: Db, opts: { companyId: string; bookingId: string; limit: number }) {
  return listEventsOfBookings(db, { companyId: opts.companyId, bookingIds: [opts.bookingId], limit: opts.limit });
}
