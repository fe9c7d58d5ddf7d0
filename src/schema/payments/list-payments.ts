// A company's payments for people (the admin area's Payments page; docs/admin.md): newest first,
// one keyset page at a time, filtered by status and by the day they were made, and one payment
// with what it paid for and its events. The API's own list is the GraphQL connection in
// payment.ts; this is the same rows with a date range the connection does not take.
import type { Payment, PaymentStatus } from '../../generated/prisma/client.js';
import type { Db } from '../../db/databases.js';
import { AppError } from '../../errors.js';
import { isId } from '../../ids.js';
import { EVENT_TYPES } from '../events/index.js';
import { findPayment } from '../core/index.js';

export const PAYMENT_STATUSES: PaymentStatus[] = [
  'processing',
  'succeeded',
  'failed',
  'partially_refunded',
  'refunded',
];

/** The events about a payment (each carries its paymentId), listed by type so the (company, type, id) index serves them. */
const PAYMENT_EVENT_TYPES = EVENT_TYPES.filter((t) => t.startsWith('payment.'));

export interface PaymentListOptions {
  companyId: string;
  status?: PaymentStatus | null;
  /** Made at or after this instant. */
  from?: Date | null;
  /** Made before this instant. */
  to?: Date | null;
  /** The last id of the previous page; the page holds older payments. */
  before?: string | null;
  limit: number;
}

/** One page, newest first, and whether there is a next one. Lookups of what each paid for are batched. */
export async function listPayments(db: Db, o: PaymentListOptions) {
  if (o.before != null && !isId(o.before))
    throw AppError.validation([{ path: 'before', message: 'is not a position in this list' }]);
  if (o.status != null && !PAYMENT_STATUSES.includes(o.status))
    throw AppError.validation([{ path: 'status', message: `must be one of ${PAYMENT_STATUSES.join(', ')}` }]);
  const rows = await db.payment.findMany({
    where: {
      companyId: o.companyId,
      ...(o.status ? { status: o.status } : {}),
      ...(o.from || o.to ? { createdAt: { ...(o.from ? { gte: o.from } : {}), ...(o.to ? { lt: o.to } : {}) } } : {}),
      ...(o.before ? { id: { lt: o.before } } : {}),
    },
    orderBy: { id: 'desc' },
    take: o.limit + 1,
    include: {
      booking: { select: { id: true, customer: { select: { id: true, name: true } } } },
      visit: { select: { id: true, customer: { select: { id: true, name: true } } } },
    },
  });
  return { data: rows.slice(0, o.limit), hasMore: rows.length > o.limit };
}

/** One payment of the company (404 otherwise), what it paid for, and its events oldest first. */
export async function paymentDetails(db: Db, opts: { companyId: string; id: string; eventLimit: number }) {
  const payment: Payment = await findPayment(db, opts.companyId, opts.id);
  const [booking, visit, events] = await Promise.all([
    payment.bookingId
      ? db.booking.findFirst({
          where: { id: payment.bookingId, companyId: opts.companyId },
          include: { customer: true, service: { select: { name: true } } },
        })
      : null,
    payment.visitId
      ? db.visit.findFirst({ where: { id: payment.visitId, companyId: opts.companyId }, include: { customer: true } })
      : null,
    db.event.findMany({
      where: {
        companyId: opts.companyId,
        type: { in: PAYMENT_EVENT_TYPES },
        data: { path: ['paymentId'], equals: payment.id },
      },
      orderBy: { id: 'asc' },
      take: opts.eventLimit,
    }),
  ]);
  return { payment, booking, visit, events };
}
