// One customer as the admin area's customer page shows them (docs/admin.md, Customers): the
// record, their upcoming bookings (pending or confirmed, from the company's domain time on),
// their history (every other booking, newest start first, with its state) and the payments of
// their bookings, newest first. Each list is capped; the counts say how many there are in all.
// With `employeeId` (a staff member's view, docs/admin.md, Team and roles) only that employee's
// bookings and their payments, and a customer without one is NOT_FOUND.
import type { Db } from '../../db/databases.js';
import type { Company } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { domainNow } from '../domain-time.js';
import { findCustomer } from '../find-records.js';

export const OVERVIEW_LIMIT = 50;

const bookingNames = { service: { select: { name: true } }, employee: { select: { name: true } } } as const;

export async function customerOverview(
  db: Db,
  opts: { company: Pick<Company, 'id' | 'mode'>; customerId: string; employeeId?: string | null },
) {
  const companyId = opts.company.id;
  const customer = await findCustomer(db, companyId, opts.customerId);
  const only = opts.employeeId ? { employeeId: opts.employeeId } : {};
  if (opts.employeeId && !(await db.booking.findFirst({ where: { companyId, customerId: customer.id, ...only } })))
    throw AppError.notFound('customer');
  const now = await domainNow(db, opts.company);
  const mine = { companyId, customerId: customer.id, ...only };
  const upcomingWhere = {
    ...mine,
    startTime: { gte: now },
    status: { in: ['pending' as const, 'confirmed' as const] },
  };
  const historyWhere = { ...mine, NOT: upcomingWhere };
  // One snapshot, so the counts agree with the lists; one query at a time on the transaction.
  return db.$transaction(
    async (tx) => {
      const upcoming = await tx.booking.findMany({
        where: upcomingWhere,
        include: bookingNames,
        orderBy: [{ startTime: 'asc' }, { id: 'asc' }],
        take: OVERVIEW_LIMIT,
      });
      const upcomingCount = await tx.booking.count({ where: upcomingWhere });
      const history = await tx.booking.findMany({
        where: historyWhere,
        include: bookingNames,
        orderBy: [{ startTime: 'desc' }, { id: 'desc' }],
        take: OVERVIEW_LIMIT,
      });
      const historyCount = await tx.booking.count({ where: historyWhere });
      const paymentsWhere = { companyId, booking: { customerId: customer.id, ...only } };
      const payments = await tx.payment.findMany({
        where: paymentsWhere,
        orderBy: { id: 'desc' },
        take: OVERVIEW_LIMIT,
      });
      const paymentCount = await tx.payment.count({ where: paymentsWhere });
      return { customer, now, upcoming, upcomingCount, history, historyCount, payments, paymentCount };
    },
    { isolationLevel: 'RepeatableRead' },
  );
}
