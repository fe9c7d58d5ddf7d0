// A company's records for a spreadsheet (the admin area's CSV export; docs/admin.md, Overview):
// the bookings that start, the customers created and the payments made in [from, to), read in
// keyset batches so an export of a year of a large company holds one batch in memory at a time.
// Each batch is one indexed range read: bookings by (company_id, start_time), customers and
// payments by (company_id, id) with their created_at in the window.
import type { Db } from '../../db/databases.js';
import type { Customer, Prisma } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { checkRange } from '../domain-validation.js';
import { MAX_REPORT_DAYS } from './compute-booking-stats.js';

export const EXPORT_KINDS = ['bookings', 'customers', 'payments'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];
const BATCH = 1000;

const bookingInclude = {
  service: { select: { name: true } },
  employee: { select: { name: true } },
  customer: { select: { name: true, email: true, phone: true } },
} as const;
const paymentInclude = {
  booking: { select: { customer: { select: { id: true, name: true } } } },
  visit: { select: { customer: { select: { id: true, name: true } } } },
} as const;
type ExportBooking = Prisma.BookingGetPayload<{ include: typeof bookingInclude }>;
type ExportPayment = Prisma.PaymentGetPayload<{ include: typeof paymentInclude }>;

export interface ExportWindow {
  companyId: string;
  from: Date;
  to: Date;
}

/** The window's rule: `to` after `from`, at most the reports' 366 days (VALIDATION_ERROR naming the field). */
export function checkExportWindow(w: ExportWindow): void {
  checkRange(w.from, w.to, { fromPath: 'from', toPath: 'to', maxDays: MAX_REPORT_DAYS });
}

/** The bookings that start in the window, by start, with their service, employee and customer. */
export async function* bookingsForExport(db: Db, w: ExportWindow) {
  checkExportWindow(w);
  let after: { startTime: Date; id: string } | null = null;
  for (;;) {
    const a: { startTime: Date; id: string } | null = after;
    const rows: ExportBooking[] = await db.booking.findMany({
      where: {
        companyId: w.companyId,
        startTime: { gte: w.from, lt: w.to },
        ...(a ? { OR: [{ startTime: { gt: a.startTime } }, { startTime: a.startTime, id: { gt: a.id } }] } : {}),
      },
      orderBy: [{ startTime: 'asc' }, { id: 'asc' }],
      take: BATCH,
      include: bookingInclude,
    });
    if (rows.length) yield rows;
    if (rows.length < BATCH) return;
    after = { startTime: rows.at(-1)!.startTime, id: rows.at(-1)!.id };
  }
}

/** The customers created in the window, oldest first. */
export async function* customersForExport(db: Db, w: ExportWindow) {
  checkExportWindow(w);
  let after: string | null = null;
  for (;;) {
    const rows: Customer[] = await db.customer.findMany({
      where: { companyId: w.companyId, createdAt: { gte: w.from, lt: w.to }, ...(after ? { id: { gt: after } } : {}) },
      orderBy: { id: 'asc' },
      take: BATCH,
    });
    if (rows.length) yield rows;
    if (rows.length < BATCH) return;
    after = rows.at(-1)!.id;
  }
}

/** The payments made in the window, oldest first, with the customer they came from. */
export async function* paymentsForExport(db: Db, w: ExportWindow) {
  checkExportWindow(w);
  let after: string | null = null;
  for (;;) {
    const rows: ExportPayment[] = await db.payment.findMany({
      where: { companyId: w.companyId, createdAt: { gte: w.from, lt: w.to }, ...(after ? { id: { gt: after } } : {}) },
      orderBy: { id: 'asc' },
      take: BATCH,
      include: paymentInclude,
    });
    if (rows.length) yield rows;
    if (rows.length < BATCH) return;
    after = rows.at(-1)!.id;
  }
}

export function exportKind(value: unknown): ExportKind {
  if (typeof value === 'string' && (EXPORT_KINDS as readonly string[]).includes(value)) return value as ExportKind;
  throw AppError.validation([{ path: 'kind', message: `must be one of ${EXPORT_KINDS.join(', ')}` }]);
}
