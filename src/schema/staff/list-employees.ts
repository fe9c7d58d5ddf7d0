import { sqlOf, type Db } from '../../db/databases.js';
import type { Employee } from '../../generated/prisma/client.js';

/** All of a company's employees, inactive ones included, by name (a schedule's rows). */
export async function listEmployeesByName(db: Db, companyId: string): Promise<Employee[]> {
  return db.employee.findMany({ where: { companyId }, orderBy: [{ name: 'asc' }, { id: 'asc' }] });
}

/**
 * The company's employees by name with what a list of them shows (id, name, active, e-mail): the
 * staff list and the calendar's picker and column headers list every one, and mapping 200 whole
 * rows (metadata, contact details, weekly hours) through Prisma was a visible part of their CPU;
 * past Prisma (sqlOf), ordered as Prisma orders `name asc, id asc` (the database's collation).
 * The calendar reads the hours of the columns it shows.
 */
export async function listEmployeeSummariesByName(
  db: Db,
  companyId: string,
): Promise<Array<{ id: string; name: string; active: boolean; email: string | null }>> {
  return sqlOf(db)(`SELECT id, name, active, email FROM employees WHERE company_id = $1 ORDER BY name, id`, [
    companyId,
  ]);
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
