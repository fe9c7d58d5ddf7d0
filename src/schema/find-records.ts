// Lookups scoped to one company. A record of another company is simply not found (docs/api.md);
// records of the other mode are in another database and cannot be found at all.
import type { Prisma } from '../generated/prisma/client.js';
import { sqlOf, type Db } from '../db/databases.js';
import { AppError } from '../errors.js';
import { isId } from '../ids.js';

type Client = Db | Prisma.TransactionClient;

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

/**
 * findService with its company's reminder settings, read in the same statement: a booking plans
 * its reminders from both (planReminders) without reading them again.
 */
export async function findServiceToBook(db: Client, companyId: string, id: unknown) {
  const s = isId(id)
    ? await db.service.findFirst({
        where: { id, companyId },
        include: { ...serviceInclude, company: { select: { reminders: true } } },
      })
    : null;
  if (!s) throw AppError.notFound('service');
  return s;
}

export async function findCustomer(db: Client, companyId: string, id: unknown) {
  const c = isId(id) ? await db.customer.findFirst({ where: { id, companyId } }) : null;
  if (!c) throw AppError.notFound('customer');
  return c;
}

/**
 * findCustomer when only the customer's existence matters (a booking checks it before choosing
 * an employee, and locks the row later): one statement past Prisma (sqlOf), a quarter of the
 * CPU of a row read through it.
 */
export async function requireCustomer(db: Client, companyId: string, id: unknown): Promise<void> {
  const rows = isId(id)
    ? await sqlOf(db)<{ one: number }>('SELECT 1 AS one FROM customers WHERE id = $1 AND company_id = $2', [
        id,
        companyId,
      ])
    : [];
  if (rows.length === 0) throw AppError.notFound('customer');
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
