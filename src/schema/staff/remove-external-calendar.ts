// Removing one external calendar (the admin staff page's "Remove"): deleted by id under the
// employee's lock, not by replacing the list read before it (which would drop a calendar added
// at the same time).
import type { Db } from '../../db/databases.js';
import { lockEmployees } from './employee-lock.js';

/**
 * Removes one of the employee's calendars and its busy times, under the employee's lock.
 * Returns false when the employee has no such calendar.
 */
export async function removeExternalCalendar(
  db: Db,
  opts: { companyId: string; employeeId: string; calendarId: string },
): Promise<boolean> {
  return db.$transaction(async (tx) => {
    await lockEmployees(tx, opts.companyId, [opts.employeeId]);
    // Its busy times go with it (ON DELETE CASCADE).
    const n = await tx.externalCalendar.deleteMany({
      where: { id: opts.calendarId, companyId: opts.companyId, employeeId: opts.employeeId },
    });
    return n.count > 0;
  });
}
