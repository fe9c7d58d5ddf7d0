// Finding customers by what an operator types (docs/admin.md, Customers; docs/api.md, Customers):
// a case-insensitive prefix of the name, the e-mail or the phone number, one keyset page at a
// time (newest first, the API's cursors). Each of the three is served by its own btree index
// (migration 20261124192318_customer_search: lower(name), lower(email) and the phone's digits
// with text_pattern_ops, each after company_id), so a search stays a few index probes on a company
// of 100 000 customers (test/schema/customer-search.test.ts checks the plan).
import { Prisma, type Customer } from '../../generated/prisma/client.js';
import type { Db } from '../../db/databases.js';
import { AppError } from '../../errors.js';
import { decodeCursor, DEFAULT_LIMIT, encodeCursor, MAX_LIMIT, type Page } from '../pagination.js';

export const SEARCH_MAX_LENGTH = 200;

/** `%`, `_` and `\` typed by a person are matched as themselves, not as LIKE wildcards. */
const likeLiteral = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The digits of a query that reads as a phone number ("+49 176 12", "(415) 555"); null for
 * anything else. A phone is stored in E.164 and searched by its digits, without the "+".
 */
function phoneDigits(q: string): string | null {
  if (!/^\+?[\d\s().-]+$/.test(q)) return null;
  const digits = q.replace(/\D/g, '');
  return digits || null;
}

/** The condition a search adds: the start of the name, the e-mail or the phone's digits. */
function matchSql(q: string) {
  const prefix = `${likeLiteral(q.toLowerCase())}%`;
  const phone = phoneDigits(q);
  // Each branch names its indexed expression exactly, so each is an index range scan and the
  // OR a BitmapOr of the three.
  const matches = [
    Prisma.sql`lower(name) LIKE ${prefix}`,
    Prisma.sql`lower(email) LIKE ${prefix}`,
    ...(phone ? [Prisma.sql`ltrim(phone, '+') LIKE ${`${phone}%`}`] : []),
  ];
  return Prisma.sql`(${Prisma.join(matches, ' OR ')})`;
}

interface SearchWhere {
  companyId: string;
  q: string;
  /** Only the customer with this e-mail (the list's `email` filter), lower-cased like the stored one. */
  email?: string | null;
  /** Only customers with a booking with this employee (a staff member's view in the admin area). */
  employeeId?: string | null;
}

const employeeSql = (employeeId: string | null | undefined) =>
  employeeId
    ? Prisma.sql`AND EXISTS (SELECT 1 FROM bookings b WHERE b.customer_id = customers.id AND b.employee_id = ${employeeId})`
    : Prisma.empty;

const whereSql = (o: SearchWhere) =>
  Prisma.sql`company_id = ${o.companyId} AND ${matchSql(o.q)}
    ${o.email ? Prisma.sql`AND email = ${o.email.toLowerCase()}` : Prisma.empty} ${employeeSql(o.employeeId)}`;

/** The query the use case runs: ids of one page (one more than asked), newest first. */
export function customerSearchSql(opts: SearchWhere & { before?: string | null; take: number }) {
  return Prisma.sql`
    SELECT id FROM customers
    WHERE ${whereSql(opts)} ${opts.before ? Prisma.sql`AND id < ${opts.before}` : Prisma.empty}
    ORDER BY id DESC
    LIMIT ${opts.take}`;
}

/** The ids of one page of a search, newest first (GET /customers?q= and the admin list). */
export async function searchCustomerIds(
  db: Pick<Db, '$queryRaw'>,
  opts: SearchWhere & { before?: string | null; take: number },
): Promise<string[]> {
  return (await db.$queryRaw<Array<{ id: string }>>(customerSearchSql(opts))).map((r) => r.id);
}

/** How many customers a search matches (the list's totalCount). */
export async function countCustomerSearch(db: Pick<Db, '$queryRaw'>, opts: SearchWhere): Promise<number> {
  const [row] = await db.$queryRaw<Array<{ n: bigint }>>(
    Prisma.sql`SELECT count(*) AS n FROM customers WHERE ${whereSql(opts)}`,
  );
  return Number(row!.n);
}

/** A search as typed: trimmed, empty as none, at most SEARCH_MAX_LENGTH characters (else names `path`). */
export function searchText(value: string | null | undefined, path: string): string | null {
  const q = (value ?? '').trim();
  if (q.length > SEARCH_MAX_LENGTH)
    throw AppError.validation([{ path, message: `must be at most ${SEARCH_MAX_LENGTH} characters` }]);
  return q || null;
}

/**
 * A page of the company's customers, newest first; with `q`, only those whose name, e-mail or
 * phone starts with it (case-insensitive). A blank `q` lists them all.
 */
export async function searchCustomers(
  db: Db,
  opts: {
    companyId: string;
    q?: string | null;
    limit?: number | null;
    cursor?: string | null;
    /** Only customers with a booking with this employee (a staff member's view). */
    employeeId?: string | null;
  },
): Promise<Page<Customer>> {
  const q = searchText(opts.q, 'q');
  const limit = opts.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw AppError.validation([{ path: 'limit', message: `must be an integer from 1 to ${MAX_LIMIT}` }]);
  const before = opts.cursor ? decodeCursor(opts.cursor) : null;
  let rows: Customer[];
  if (!q) {
    rows = await db.customer.findMany({
      where: {
        companyId: opts.companyId,
        ...(before ? { id: { lt: before } } : {}),
        ...(opts.employeeId ? { bookings: { some: { employeeId: opts.employeeId } } } : {}),
      },
      orderBy: { id: 'desc' },
      take: limit + 1,
    });
  } else {
    const ids = await searchCustomerIds(db, {
      companyId: opts.companyId,
      q,
      before,
      take: limit + 1,
      employeeId: opts.employeeId,
    });
    rows = await db.customer.findMany({ where: { id: { in: ids } }, orderBy: { id: 'desc' } });
  }
  const hasMore = rows.length > limit;
  const data = hasMore ? rows.slice(0, limit) : rows;
  return { data, pagination: { limit, hasMore, nextCursor: hasMore ? encodeCursor(data[data.length - 1]!.id) : null } };
}
