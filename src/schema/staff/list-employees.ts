import { sqlOf, type Db } from '../../db/databases.js';
import type { Employee } from '../../generated/prisma/client.js';

/** All of a company's employees, inactive ones included, by name (a schedule's rows). */
export async function listEmployeesByName(db: Db, companyId: string): Promise<Employee[]> {
  return db.employee.findMany({ where: { companyId }, orderBy: [{ name: 'asc' }, { id: 'asc' }] });
}

/**
 * The company's employees by name with what the staff list shows (id, name, active, e-mail), past
 * Prisma (sqlOf): the list of a 200-strong team mapped every whole row (hours, metadata) on
 * every load.
 */
export async function listEmployeeSummariesByName(
  db: Db,
  companyId: string,
): Promise<Array<{ id: string; name: string; active: boolean; email: string | null }>> {
  return sqlOf(db)(`SELECT id, name, active, email FROM employees WHERE company_id = $1 ORDER BY name, id`, [
    companyId,
  ]);
}

/**
 * The company's employees by name with what a calendar's picker and column headers need (id,
 * name, active): the calendar lists every one, and mapping 200 whole rows (metadata, contact
 * details, weekly hours) was a visible part of its CPU; the hours are read for the columns shown.
 */
export async function listEmployeeColumnsByName(
  db: Db,
  companyId: string,
): Promise<Array<{ id: string; name: string; active: boolean }>> {
  // Past Prisma (sqlOf): a calendar page reads these on every load. Ordered as Prisma orders
  // `name asc, id asc` (the database's collation).
  return sqlOf(db)(`SELECT id, name, active FROM employees WHERE company_id = $1 ORDER BY name, id`, [companyId]);
}

/** An employee's time off that has not ended by `from`, soonest first (at most 200): the staff page's list. */
export async function listCurrentTimeOff(db: Db, opts: { companyId: string; employeeId: string; from: Date }) {
  return db.timeOff.findMany({
    where: { companyId: opts.companyId, employeeId: opts.employeeId, endTime: { gt: opts.from } },
    orderBy: [{ startTime: 'asc' }, { id: 'asc' }],
    take: 200,
  });
}

/** An employee's date overrides on or after the local date `from`, by date (at most 200). */
export async function listDateOverridesFrom(db: Db, opts: { companyId: string; employeeId: string; from: string }) {
  return db.dateOverride.findMany({
    where: { companyId: opts.companyId, employeeId: opts.employeeId, date: { gte: opts.from } },
    orderBy: { date: 'asc' },
    take: 200,
  });
}
