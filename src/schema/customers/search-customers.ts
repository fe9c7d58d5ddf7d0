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

/** The query the use case runs: ids of one page (one more than asked), newest first. */
export function customerSearchSql(opts: { companyId: string; q: string; before?: string | null; take: number }) {
  const prefix = `${likeLiteral(opts.q.toLowerCase())}%`;
  const phone = phoneDigits(opts.q);
  // Each branch names its indexed expression exactly, so each is an index range scan and the
  // OR a BitmapOr of the three.
  const matches = [
    Prisma.sql`lower(name) LIKE ${prefix}`,
    Prisma.sql`lower(email) LIKE ${prefix}`,
    ...(phone ? [Prisma.sql`ltrim(phone, '+') LIKE ${`${phone}%`}`] : []),
  ];
  return Prisma.sql`
    SELECT id FROM customers
    WHERE company_id = ${opts.companyId}
      ${opts.before ? Prisma.sql`AND id < ${opts.before}` : Prisma.empty}
      AND (${Prisma.join(matches, ' OR ')})
    ORDER BY id DESC
    LIMIT ${opts.take}`;
}

/**
 * A page of the company's customers, newest first; with `q`, only those whose name, e-mail or
 * phone starts with it (case-insensitive). A blank `q` lists them all.
 */
export async function searchCustomers(
  db: Db,
  opts: { companyId: string; q?: string | null; limit?: number | null; cursor?: string | null },
): Promise<Page<Customer>> {
  const q = (opts.q ?? '').trim();
  if (q.length > SEARCH_MAX_LENGTH)
    throw AppError.validation([{ path: 'q', message: `must be at most ${SEARCH_MAX_LENGTH} characters` }]);
  const limit = opts.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw AppError.validation([{ path: 'limit', message: `must be an integer from 1 to ${MAX_LIMIT}` }]);
  const before = opts.cursor ? decodeCursor(opts.cursor) : null;
  let rows: Customer[];
  if (!q) {
    rows = await db.customer.findMany({
      where: { companyId: opts.companyId, ...(before ? { id: { lt: before } } : {}) },
      orderBy: { id: 'desc' },
      take: limit + 1,
    });
  } else {
    const ids = (
      await db.$queryRaw<Array<{ id: string }>>(
        customerSearchSql({ companyId: opts.companyId, q, before, take: limit + 1 }),
      )
    ).map((r) => r.id);
    rows = await db.customer.findMany({ where: { id: { in: ids } }, orderBy: { id: 'desc' } });
  }
  const hasMore = rows.length > limit;
  const data = hasMore ? rows.slice(0, limit) : rows;
  return { data, pagination: { limit, hasMore, nextCursor: hasMore ? encodeCursor(data[data.length - 1]!.id) : null } };
}
