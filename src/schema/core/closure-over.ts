// Whether a closure covers an employee at a time: read by the writes that put an employee to
// work at a chosen time outside the slot rules of availability/schedule.ts (a class session, a
// place in one), under the employee's lock (staff/employee-lock.ts).
import type { Tx } from '../../db/databases.js';

/**
 * The first closure that covers an employee (the whole company's, or one naming them) and
 * overlaps [start, end), or null. Read under the employee's lock by writes that put the employee
 * to work at a time (a class session, a place in one), so a closure committed first is seen.
 */
export function findClosureOver(tx: Tx, opts: { companyId: string; employeeId: string; start: Date; end: Date }) {
  return tx.closure.findFirst({
    where: {
      companyId: opts.companyId,
      startTime: { lt: opts.end },
      endTime: { gt: opts.start },
      OR: [{ employeeIds: { isEmpty: true } }, { employeeIds: { has: opts.employeeId } }],
    },
    select: { id: true },
  });
}
