// Bookings as a schedule shows them: those starting in a window, with the names a calendar
// cell needs, and one booking's history (its events, the same the API and webhooks carry).
import type { Db } from '../../db/databases.js';
import type { BookingStatus } from '../../generated/prisma/enums.js';
import { listEventsOfBookings } from '../events/list-events.js';

/** Bookings starting in [from, to) (of the given statuses, or all), in start order, with customer and service names. */
export async function listBookingsStarting(
  db: Db,
  opts: {
    companyId: string;
    from: Date;
    to: Date;
    employeeId?: string | null;
    statuses?: readonly BookingStatus[];
    limit: number;
  },
) {
  return db.booking.findMany({
    where: {
      companyId: opts.companyId,
      startTime: { gte: opts.from, lt: opts.to },
      ...(opts.employeeId ? { employeeId: opts.employeeId } : {}),
      ...(opts.statuses?.length ? { status: { in: [...opts.statuses] } } : {}),
    },
    include: { customer: { select: { name: true } }, service: { select: { name: true } } },
    orderBy: [{ startTime: 'asc' }, { id: 'asc' }],
    take: opts.limit,
  });
}

/** A booking's events, oldest first. */
export async function listBookingEvents(db: Db, opts: { companyId: string; bookingId: string; limit: number }) {
  return listEventsOfBookings(db, { companyId: opts.companyId, bookingIds: [opts.bookingId], limit: opts.limit });
}
