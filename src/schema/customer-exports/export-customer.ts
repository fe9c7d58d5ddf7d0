// GET /customers/:id/export (docs/api.md, Customers: erase and export): everything the company
// holds about one customer, in one answer: the customer, their bookings (answers and notes
// included), visits' and series' ids on them, the payments of those bookings (refunds are the
// payments' amountRefunded and refundedAt, and their payment.refunded events), the planned and
// sent reminders, the e-mails to them or about their bookings, and the events about them.
// Each list holds at most EXPORT_LIMIT items, newest first; `truncated` says a list was cut.
import type { Db } from '../../db/databases.js';
import type { Booking, Customer, Email, Notification, Payment } from '../../generated/prisma/client.js';
import { EVENT_RECORD_SELECT, type EventRecord } from '../events/index.js';
import { findCustomer } from '../find-records.js';

export const EXPORT_LIMIT = 1000;

export interface CustomerExport {
  exportedAt: Date;
  customer: Customer;
  bookings: Booking[];
  payments: Payment[];
  notifications: Notification[];
  emails: Email[];
  events: EventRecord[];
  truncated: boolean;
}

export async function exportCustomer(db: Db, opts: { companyId: string; customerId: string }): Promise<CustomerExport> {
  const { companyId } = opts;
  const customer = await findCustomer(db, companyId, opts.customerId);
  const take = EXPORT_LIMIT + 1;
  const newest = { id: 'desc' } as const;
  // One snapshot: the lists agree with each other even while the customer books or pays.
  return db.$transaction(
    async (tx) => {
      const bookings = await tx.booking.findMany({
        where: { companyId, customerId: customer.id },
        orderBy: newest,
        take,
      });
      const ids = (
        await tx.booking.findMany({ where: { companyId, customerId: customer.id }, select: { id: true } })
      ).map((b) => b.id);
      // Their bookings' payments and their visits' (a visit paid as one).
      const theirs = { companyId, OR: [{ bookingId: { in: ids } }, { visit: { customerId: customer.id } }] };
      const payments = await tx.payment.findMany({
        where: theirs,
        orderBy: newest,
        take,
      });
      const paymentIds = (await tx.payment.findMany({ where: theirs, select: { id: true } })).map((p) => p.id);
      const notifications = await tx.notification.findMany({
        where: { companyId, bookingId: { in: ids } },
        orderBy: newest,
        take,
      });
      const eventIds = (
        await tx.$queryRaw<Array<{ id: string }>>`
          SELECT id FROM events
          WHERE company_id = ${companyId}
            AND (data->>'customerId' = ${customer.id} OR data->>'bookingId' = ANY(${ids}::text[])
                 OR data->>'paymentId' = ANY(${paymentIds}::text[]))
          ORDER BY id DESC LIMIT ${take}`
      ).map((e) => e.id);
      const events = await tx.event.findMany({
        where: { id: { in: eventIds } },
        orderBy: newest,
        select: EVENT_RECORD_SELECT,
      });
      const emails = await tx.email.findMany({
        where: {
          companyId,
          OR: [
            { to: customer.email },
            { eventId: { in: eventIds } },
            { notificationId: { in: notifications.map((n) => n.id) } },
          ],
        },
        orderBy: newest,
        take,
      });
      const lists = [bookings, payments, notifications, events, emails];
      const truncated = lists.some((l) => l.length > EXPORT_LIMIT);
      const cut = <T>(l: T[]) => l.slice(0, EXPORT_LIMIT);
      return {
        exportedAt: new Date(),
        customer,
        bookings: cut(bookings),
        payments: cut(payments),
        notifications: cut(notifications),
        emails: cut(emails),
        events: cut(events),
        truncated,
      };
    },
    { isolationLevel: 'RepeatableRead' },
  );
}
