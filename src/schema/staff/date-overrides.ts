// Date overrides (docs/api.md): GET /employees/:id/date-overrides?from=&to=,
// PUT /employees/:id/date-overrides/:date { intervals }, DELETE /employees/:id/date-overrides/:date.
// An override sets one local day's working hours (a local date YYYY-MM-DD in the company's zone,
// local HH:MM intervals validated as weekly hours are; [] is a day off) in place of the weekly
// ones. A change that would leave an active (pending or confirmed) booking outside that day's
// hours is refused 409 CONFLICT with details.bookingIds: it is written under the employee's lock
// (employee-lock.ts), after which the bookings are checked against the hours as changed.
import { z } from 'zod';
import type { Db, Tx } from '../../db/databases.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import { domainTransaction } from '../db-errors.js';
import { parseInput } from '../validation.js';
import { findEmployee } from '../find-records.js';
import { lockEmployees } from './employee-lock.js';
import {
  dayRanges,
  localDateSpan,
  localDays,
  localIntervals,
  mergeIntervals,
  readDayRanges,
  readWorkingHours,
} from './working-hours.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** A local calendar date YYYY-MM-DD, years 2000–2099 (as instants are bounded). */
export const localDate = z
  .string()
  .regex(DATE, 'must be a local date YYYY-MM-DD')
  .refine((s) => s >= '2000-01-01' && s < '2100-01-01', 'must be between the years 2000 and 2099')
  .refine((s) => localDateSpan('UTC', s) !== null, 'is not a real calendar date');

const putInput = z.object({ intervals: dayRanges }).strict();
const listInput = z.object({ from: localDate.nullish(), to: localDate.nullish() }).strict();

function parseDate(value: unknown, path = 'date'): string {
  const r = localDate.safeParse(value);
  if (!r.success) throw AppError.validation([{ path, message: r.error.issues[0]?.message ?? 'is not a date' }]);
  return r.data;
}

/**
 * The active bookings of `employeeId` on the local day `date` that lie outside that day's
 * working hours as the transaction sees them now (the override just written or removed).
 */
async function bookingsOutsideHours(
  tx: Tx,
  opts: { companyId: string; zone: string; employeeId: string; date: string },
): Promise<string[]> {
  const span = localDateSpan(opts.zone, opts.date)!;
  const bookings = await tx.booking.findMany({
    where: {
      companyId: opts.companyId,
      employeeId: opts.employeeId,
      status: { in: ['pending', 'confirmed'] },
      classSessionId: null,
      startTime: { lt: new Date(span[1]) },
      endTime: { gt: new Date(span[0]) },
    },
    select: { id: true, startTime: true, endTime: true },
    orderBy: { startTime: 'asc' },
  });
  if (bookings.length === 0) return [];
  const employee = await tx.employee.findUniqueOrThrow({ where: { id: opts.employeeId } });
  const days = localDays(opts.zone, span[0], span[1]);
  const overrides = await tx.dateOverride.findMany({
    where: { employeeId: opts.employeeId, date: { gte: days[0]!.date, lte: days[days.length - 1]!.date } },
  });
  const byDate = new Map(overrides.map((o) => [o.date, readDayRanges(o.intervals)]));
  const working = mergeIntervals(localIntervals(readWorkingHours(employee.workingHours), days, byDate));
  return bookings
    .filter((b) => !working.some(([a, e]) => a <= b.startTime.getTime() && b.endTime.getTime() <= e))
    .map((b) => b.id);
}

function conflict(bookingIds: string[]): AppError {
  return new AppError(
    'CONFLICT',
    'Active bookings would fall outside the hours of that day; cancel or move them first',
    { details: { bookingIds } },
  );
}

async function inLockedEmployee<T>(
  db: Db,
  opts: { companyId: string; employeeId: string },
  fn: (tx: Tx, ctx: { zone: string; employeeId: string }) => Promise<T>,
): Promise<T> {
  const employee = await findEmployee(db, opts.companyId, opts.employeeId);
  const company = await db.company.findUniqueOrThrow({ where: { id: opts.companyId }, select: { timezone: true } });
  return domainTransaction(db, async (tx) => {
    await lockEmployees(tx, opts.companyId, [employee.id]);
    return fn(tx, { zone: company.timezone, employeeId: employee.id });
  });
}

export async function putDateOverride(
  db: Db,
  opts: { companyId: string; employeeId: string; date: unknown; input: unknown },
) {
  await findEmployee(db, opts.companyId, opts.employeeId);
  const date = parseDate(opts.date);
  const data = parseInput(putInput, opts.input);
  return inLockedEmployee(db, opts, async (tx, { zone, employeeId }) => {
    const row = await tx.dateOverride.upsert({
      where: { employeeId_date: { employeeId, date } },
      create: { id: newId(), companyId: opts.companyId, employeeId, date, intervals: data.intervals },
      update: { intervals: data.intervals },
    });
    const outside = await bookingsOutsideHours(tx, { companyId: opts.companyId, zone, employeeId, date });
    if (outside.length > 0) throw conflict(outside);
    return row;
  });
}

export async function deleteDateOverride(db: Db, opts: { companyId: string; employeeId: string; date: unknown }) {
  await findEmployee(db, opts.companyId, opts.employeeId);
  const date = parseDate(opts.date);
  return inLockedEmployee(db, opts, async (tx, { zone, employeeId }) => {
    const row = await tx.dateOverride.findUnique({ where: { employeeId_date: { employeeId, date } } });
    if (!row || row.companyId !== opts.companyId) throw AppError.notFound('date override');
    await tx.dateOverride.delete({ where: { id: row.id } });
    const outside = await bookingsOutsideHours(tx, { companyId: opts.companyId, zone, employeeId, date });
    if (outside.length > 0) throw conflict(outside);
    return row;
  });
}

/** The filter of an employee's date overrides (404 for an employee not of the company), dates in [from, to]. */
export async function dateOverrideFilter(
  db: Db,
  opts: { companyId: string; employeeId: string; input: unknown },
): Promise<Prisma.DateOverrideWhereInput> {
  const employee = await findEmployee(db, opts.companyId, opts.employeeId);
  return { companyId: opts.companyId, employeeId: employee.id, ...dateRange(opts.input) };
}

/** The `date` filter of from/to (local dates, inclusive), validated. */
export function dateRange(input: unknown): Prisma.DateOverrideWhereInput {
  const { from, to } = parseInput(listInput, input);
  if (from && to && to < from) throw AppError.validation([{ path: 'to', message: 'must not be before from' }]);
  return from || to ? { date: { ...(from ? { gte: from } : {}), ...(to ? { lte: to } : {}) } } : {};
}
