// The one lock every write that changes an employee's availability takes (docs/api.md,
// "Availability under concurrency"): booking create and reschedule, class sessions and the places
// taken in them, time off, date overrides and closures. Each locks the employees it touches (their rows, FOR NO KEY UPDATE, in id order: two
// writes that lock several employees never wait on each other in a cycle) and then checks and
// writes inside the same transaction. A booking's check therefore sees every closure, time off
// and override committed before it, and a closure's check sees every booking committed before
// it. Under READ COMMITTED each statement after the lock reads a fresh snapshot, so the waiting
// side sees what the holder committed. The `employee_blocks_no_overlap` exclusion constraint
// stays the final guarantee against overlapping bookings. FOR NO KEY UPDATE (not FOR UPDATE)
// leaves inserts that merely refer to the employee (their foreign key takes FOR KEY SHARE)
// unblocked. Embedded PGlite runs one transaction at a time: there the lock is simply granted.
import { sqlRows, type Transaction } from '../../db/databases.js';
import { Prisma } from '../../generated/prisma/client.js';

/**
 * Locks the given employees of a company (or, with `all`, every employee of the company) until
 * the transaction ends, in id order. Returns the ids locked (unknown ids are left out).
 */
export async function lockEmployees(
  tx: Transaction,
  companyId: string,
  employees: string[] | 'all',
): Promise<string[]> {
  const rows =
    employees === 'all'
      ? await sqlRows<{ id: string }>(
          tx,
          Prisma.sql`SELECT id FROM employees WHERE company_id = ${companyId} ORDER BY id FOR NO KEY UPDATE`,
        )
      : await lockEmployeesReading(tx, companyId, employees);
  return rows.map((r) => r.id);
}

/**
 * lockEmployeesReading that first locks a customer's row `FOR KEY SHARE` in the same statement
 * (the lock a new booking for them takes: src/schema/customers/manage-customers.ts, lockCustomer),
 * one round trip instead of two. The customer's lock comes first, as when the two were taken one
 * after the other. Returns the customer's row as its lock read it (undefined when there is none)
 * and the employees'.
 */
export async function lockCustomerAndEmployees(
  tx: Transaction,
  companyId: string,
  customerId: string,
  employees: string[],
): Promise<{ customer: { erasedAt: Date | null } | undefined; employees: LockedEmployee[] }> {
  // Locking clauses are not allowed in a UNION's own branches, so each lock is a WITH clause;
  // the UNION reads the customer's first.
  const rows = await sqlRows<LockedEmployee & { kind: 'customer' | 'employee'; erasedAt: Date | null }>(
    tx,
    Prisma.sql`
      WITH c AS (
        SELECT erased_at FROM customers WHERE id = ${customerId} AND company_id = ${companyId} FOR KEY SHARE
      ), e AS (${lockingRead(companyId, employees)})
      SELECT 'customer' AS kind, NULL::text AS id, NULL::boolean AS active, NULL::jsonb AS "workingHours",
             erased_at AS "erasedAt" FROM c
      UNION ALL
      SELECT 'employee', id, active, "workingHours", NULL FROM e`,
  );
  const customer = rows.find((r) => r.kind === 'customer');
  return {
    customer: customer && { erasedAt: customer.erasedAt },
    employees: rows
      .filter((r) => r.kind === 'employee')
      .map(({ id, active, workingHours }) => ({ id, active, workingHours }))
      .sort((a, b) => (a.id < b.id ? -1 : 1)),
  };
}

/** An employee's row as the lock read it (lockEmployeesReading). */
export interface LockedEmployee {
  id: string;
  active: boolean;
  workingHours: unknown;
}

/**
 * `lockEmployees` of the given employees that also returns what the lock read of each row, in id
 * order: its active flag and working hours. A locking read returns the row as last committed (after waiting
 * for a holder of the lock), so these are as fresh as a read after the lock; a booking's check
 * under the lock needs them and saves a statement.
 */
export async function lockEmployeesReading(
  tx: Transaction,
  companyId: string,
  employees: string[],
): Promise<LockedEmployee[]> {
  if (employees.length === 0) return [];
  return sqlRows<LockedEmployee>(tx, lockingRead(companyId, employees));
}

/** The employees' lock in id order, reading what a booking's check needs of each (LockedEmployee). */
const lockingRead = (companyId: string, employees: string[]) => Prisma.sql`
  SELECT id, active, working_hours AS "workingHours" FROM employees
  WHERE company_id = ${companyId} AND id = ANY(${[...new Set(employees)]}::text[])
  ORDER BY id FOR NO KEY UPDATE`;
