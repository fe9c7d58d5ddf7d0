// A booking's reminders as the admin booking page shows them (docs/admin.md): every planned
// notification, in the order they fall due.
import type { Db } from '../../db/databases.js';

export async function listBookingNotifications(db: Db, opts: { companyId: string; bookingId: string; limit: number }) {
  return db.notification.findMany({
    where: { companyId: opts.companyId, bookingId: opts.bookingId },
    orderBy: [{ dueAt: 'asc' }, { id: 'asc' }],
    take: opts.limit,
  });
}
