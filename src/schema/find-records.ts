// Lookups scoped to one company. A record of another company is simply not found (docs/api.md);
// records of the other mode are in another database and cannot be found at all.
import type { Service } from '../generated/prisma/client.js';
import { sqlOf, type Db, type Tx } from '../db/databases.js';
import { AppError } from '../errors.js';
import { isId } from '../ids.js';
import { returningAll } from './model-columns.js';
import { ServiceTable } from '../generated/rows.js';

type Client = Db | Tx;

export const employeeInclude = { services: { select: { serviceId: true }, orderBy: { serviceId: 'asc' } } } as const;
export const serviceInclude = { employees: { select: { employeeId: true }, orderBy: { employeeId: 'asc' } } } as const;

/** A record looked up by a GraphQL field, or NOT_FOUND naming what was looked for. */
export function found<T>(record: T | null, what: string): T {
  if (!record) throw AppError.notFound(what);
  return record;
}

export async function findEmployee(db: Client, companyId: string, id: unknown) {
  const e = isId(id) ? await db.employee.findFirst({ where: { id, companyId }, include: employeeInclude }) : null;
  if (!e) throw AppError.notFound('employee');
  return e;
}

export async function findService(db: Client, companyId: string, id: unknown) {
  const s = isId(id) ? await db.service.findFirst({ where: { id, companyId }, include: serviceInclude }) : null;
  if (!s) throw AppError.notFound('service');
  return s;
}

/** A service as findServiceToBook reads it: the row, its staff and its company's reminder settings. */
export type ServiceToBook = Service & {
  employees: Array<{ employeeId: string }>;
  company: { reminders: unknown };
  /** The rows of its staff in id order, as the availability rule reads them (assessEmployees' `rows`). */
  staff: Array<{ id: string; active: boolean; workingHours: unknown }>;
  /** Whether the company has the customer asked about (false when none was). */
  customerFound: boolean;
};

// Every column of a service under its Prisma field name (src/generated/rows.ts).
const SERVICE_COLUMNS = returningAll(ServiceTable, 's');

// The service, its staff's rows in id order and its company's reminders (findService's shape,
// its `employees` derived from `staff`, plus `company`).
const SERVICE_TO_BOOK = `
  SELECT ${SERVICE_COLUMNS.sql},
         jsonb_build_object('reminders', c.reminders) AS company,
         COALESCE((SELECT jsonb_agg(jsonb_build_object('id', e.id, 'active', e.active, 'workingHours', e.working_hours)
                                    ORDER BY e.id)
                     FROM employee_services es JOIN employees e ON e.id = es.employee_id AND e.company_id = s.company_id
                    WHERE es.service_id = s.id), '[]'::jsonb) AS staff,
         EXISTS (SELECT 1 FROM customers cu WHERE cu.id = $3 AND cu.company_id = s.company_id) AS "customerFound"
    FROM services s JOIN companies c ON c.id = s.company_id
   WHERE s.id = $1 AND s.company_id = $2`;

/**
 * findService with its company's reminder settings, its staff's rows and whether the customer
 * exists, read in one statement: a booking plans its reminders from the settings without reading
 * them again, chooses among its staff from their rows (freeEmployees) and answers 404 for a
 * missing customer before anything else, three statements fewer. Past Prisma (sqlOf): through
 * Prisma's model read with its relations it was a tenth of a booking's CPU.
 */
export async function findServiceToBook(
  db: Client,
  companyId: string,
  id: unknown,
  /** A customer whose existence is read in the same statement (customerFound). */
  customerId?: string | null,
): Promise<ServiceToBook> {
  const [s] = isId(id)
    ? await sqlOf(db)<Omit<ServiceToBook, 'employees'>>(SERVICE_TO_BOOK, [id, companyId, customerId ?? null])
    : [];
  if (!s) throw AppError.notFound('service');
  return { ...s, employees: s.staff.map((e) => ({ employeeId: e.id })) };
}

export async function findCustomer(db: Client, companyId: string, id: unknown) {
  const c = isId(id) ? await db.customer.findFirst({ where: { id, companyId } }) : null;
  if (!c) throw AppError.notFound('customer');
  return c;
}

export async function findClassSession(db: Client, companyId: string, id: unknown) {
  const c = isId(id) ? await db.classSession.findFirst({ where: { id, companyId } }) : null;
  if (!c) throw AppError.notFound('class session');
  return c;
}

export async function findBooking(db: Client, companyId: string, id: unknown) {
  const b = isId(id) ? await db.booking.findFirst({ where: { id, companyId } }) : null;
  if (!b) throw AppError.notFound('booking');
  return b;
}

/** A booking with what a page about it shows: its customer, service, employee, location, payments and held resources. */
export async function findBookingWithDetails(db: Client, companyId: string, id: unknown) {
  const b = isId(id)
    ? await db.booking.findFirst({
        where: { id, companyId },
        include: {
          customer: true,
          service: true,
          employee: true,
          location: true,
          payments: { orderBy: { id: 'asc' } },
          resourceHolds: { include: { resource: { select: { id: true, name: true } } } },
        },
      })
    : null;
  if (!b) throw AppError.notFound('booking');
  return b;
}

export async function findApiKey(db: Client, companyId: string, id: unknown) {
  const k = isId(id) ? await db.apiKey.findFirst({ where: { id, companyId } }) : null;
  if (!k) throw AppError.notFound('API key');
  return k;
}

export async function findEmail(db: Client, companyId: string, id: unknown) {
  const e = isId(id) ? await db.email.findFirst({ where: { id, companyId } }) : null;
  if (!e) throw AppError.notFound('e-mail');
  return e;
}

/** Every id must be a record of this company, else NOT_FOUND naming the first missing one. */
export async function requireAll(
  count: (ids: string[]) => Promise<Array<{ id: string }>>,
  ids: string[],
  what: string,
): Promise<void> {
  if (ids.length === 0) return;
  const found = new Set((await count(ids)).map((r) => r.id));
  const missing = ids.find((i) => !found.has(i));
  if (missing) throw new AppError('NOT_FOUND', `No such ${what}: ${missing}`, { details: { id: missing } });
}

/**
 * Whatever of the company has this id, for a search box that takes any id: bookings, payments,
 * customers and visits (ids are unique across tables in practice; each is looked up by its own
 * primary key, so this is four index probes). Empty for anything that is not an id.
 */
export async function findAnyById(db: Client, companyId: string, id: string) {
  if (!isId(id)) return { booking: null, payment: null, customer: null, visit: null };
  const [booking, payment, customer, visit] = await Promise.all([
    db.booking.findFirst({
      where: { id, companyId },
      include: { customer: { select: { id: true, name: true } }, service: { select: { name: true } } },
    }),
    db.payment.findFirst({ where: { id, companyId } }),
    db.customer.findFirst({ where: { id, companyId } }),
    db.visit.findFirst({ where: { id, companyId }, include: { customer: { select: { id: true, name: true } } } }),
  ]);
  return { booking, payment, customer, visit };
}
