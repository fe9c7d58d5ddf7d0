// Closures (docs/api.md): GET/POST /closures, DELETE /closures/:id. A closure is a time the
// whole company (no employeeIds; employees added later included) or some employees cannot be
// booked: /availability leaves it out and a booking inside it is SLOT_UNAVAILABLE with the
// reason CLOSURE. Creating one over active (pending or confirmed) bookings is 409 CONFLICT with
// details.bookingIds, unless cancelBookings is true: then those bookings are cancelled with the
// closure's reason in the same transaction, through the booking state machine's own cancel
// (booking.cancelled events, and so the customer e-mails, as for any cancellation).
//
// Concurrency: the closure is written under the locks of the employees it covers (all of the
// company's, in id order, for a company-wide one; src/schema/staff/employee-lock.ts), and the
// bookings are looked for after the locks are taken: a booking checks the closures under the
// same lock, so one of the two always sees the other.
//
// No closure.* events: the event catalogue carries what happens to bookings, payments,
// customers and classes, not configuration (services, employees, hours and time off emit
// none); what a closure does to bookings is told by their booking.cancelled events.
import { z } from 'zod';
import type { Config } from '../../config.js';
import type { Db } from '../../db/databases.js';
import type { Company, Payment, Prisma } from '../../generated/prisma/client.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { AppError } from '../../errors.js';
import { isId, newId } from '../../ids.js';
import { domainTransaction } from '../db-errors.js';
import { boundedInstant, checkRange, id } from '../domain-validation.js';
import { parseInput, requiredText } from '../validation.js';
import { lockEmployees } from '../staff/index.js';
import { applyTransition, paidFor, refundCancelled } from '../bookings/index.js';
import { domainNow } from '../domain-time.js';

/** A closure is at most this long (as a time off is). */
export const MAX_CLOSURE_DAYS = 366;

const createInput = z
  .object({
    startTime: boundedInstant,
    endTime: boundedInstant,
    reason: requiredText(500),
    employeeIds: z.array(id).min(1, 'must name at least one employee, or be left out').max(200).nullish(),
    cancelBookings: z.boolean().nullish(),
  })
  .strict();

const listInput = z.object({ from: boundedInstant.nullish(), to: boundedInstant.nullish() }).strict();

export async function createClosure(
  db: Db,
  opts: { company: Company; mode: Mode; config: Config; input: unknown; now?: Date },
) {
  const data = parseInput(createInput, opts.input);
  checkRange(data.startTime, data.endTime, { fromPath: 'startTime', toPath: 'endTime', maxDays: MAX_CLOSURE_DAYS });
  const companyId = opts.company.id;
  const now = opts.now ?? (await domainNow(db, opts.company));
  const named = data.employeeIds ? [...new Set(data.employeeIds)].sort() : null;
  if (named) {
    const found = await db.employee.count({ where: { companyId, id: { in: named } } });
    if (found !== named.length) throw AppError.notFound('employee');
  }
  const { closure, paid } = await domainTransaction(db, async (tx) => {
    await lockEmployees(tx, companyId, named ?? 'all');
    const closure = await tx.closure.create({
      data: {
        id: newId(),
        companyId,
        startTime: data.startTime,
        endTime: data.endTime,
        reason: data.reason,
        employeeIds: named ?? [],
      },
    });
    const active = await tx.booking.findMany({
      where: {
        companyId,
        status: { in: ['pending', 'confirmed'] },
        startTime: { lt: data.endTime },
        endTime: { gt: data.startTime },
        ...(named ? { employeeId: { in: named } } : {}),
      },
      orderBy: [{ startTime: 'asc' }, { id: 'asc' }],
    });
    if (active.length > 0 && !data.cancelBookings) {
      throw new AppError(
        'CONFLICT',
        'Active bookings fall inside the closure; pass cancelBookings: true to cancel them, or move them first',
        { details: { bookingIds: active.map((b) => b.id) } },
      );
    }
    // A closure is the business cancelling: no cut-off, no fee, what was paid goes back in full
    // (docs/api.md, Cancellation and deposits), after the commit, as cancelBooking does.
    const paid: Array<{ payments: Payment[]; amount: number }> = [];
    for (const b of active) {
      // Its own payments, or its share of its visit's payment.
      const { payments, paid: refundAmount } = await paidFor(tx, b);
      await applyTransition(tx, b, 'cancel', {
        reason: data.reason,
        now,
        cancellation: { cancelledBy: 'business', fee: 0, refundAmount },
        // A class place freed by a closure is not offered to the waitlist: the business is closed.
        refill: false,
      });
      paid.push({ payments, amount: refundAmount });
    }
    return { closure, paid };
  });
  for (const o of paid) await refundCancelled(db, { config: opts.config, mode: opts.mode, ...o });
  return closure;
}

/** The filter of GET /closures: a company's closures, overlapping [from, to) when given. */
export function closureFilter(companyId: string, input: unknown): Prisma.ClosureWhereInput {
  const { from, to } = parseInput(listInput, input);
  if (from && to) checkRange(from, to, { fromPath: 'from', toPath: 'to' });
  return { companyId, ...(to ? { startTime: { lt: to } } : {}), ...(from ? { endTime: { gt: from } } : {}) };
}

export async function findClosure(db: Db, companyId: string, closureId: string) {
  const row = isId(closureId) ? await db.closure.findFirst({ where: { id: closureId, companyId } }) : null;
  if (!row) throw AppError.notFound('closure');
  return row;
}

export async function deleteClosure(db: Db, opts: { companyId: string; closureId: string }) {
  const row = await findClosure(db, opts.companyId, opts.closureId);
  const gone = await db.closure.deleteMany({ where: { id: row.id } });
  if (gone.count === 0) throw AppError.notFound('closure'); // deleted concurrently
  return row;
}
