import type { Db } from '../../db/databases.js';
import type { Employee } from '../../generated/prisma/client.js';

/** All of a company's employees, inactive ones included, by name (a schedule's rows). */
export async function listEmployeesByName(db: Db, companyId: string): Promise<Employee[]> {
  return db.employee.findMany({ where: { companyId }, orderBy: [{ name: 'asc' }, { id: 'asc' }] });
}
