// The companies an account sees (the admin area's picker and pages, the CLI): each mode's
// companies live in that mode's database, with the account id in every query, so another
// account's company, or one of the other mode, is simply not found (docs/api.md, Authentication).
import type { Databases } from '../../db/databases.js';
import { AppError } from '../../errors.js';
import type { Company, Prisma } from '../../generated/prisma/client.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { isId } from '../../ids.js';

/** An account's companies of one mode, oldest first. */
export async function listAccountCompanies(
  dbs: Databases,
  opts: { accountId: string; mode: Mode },
): Promise<Company[]> {
  return dbs.forMode(opts.mode).company.findMany({
    where: { accountId: opts.accountId, mode: opts.mode },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
}

/** One of the account's companies of that mode, else NOT_FOUND. */
export async function findAccountCompany(
  dbs: Databases,
  opts: { accountId: string; mode: Mode; id: unknown },
): Promise<Company> {
  const company = isId(opts.id)
    ? await dbs
        .forMode(opts.mode)
        .company.findFirst({ where: { id: opts.id, accountId: opts.accountId, mode: opts.mode } })
    : null;
  if (!company) throw AppError.notFound('company');
  return company;
}

/**
 * A company by id alone, in whichever database holds it (the CLI is run by the operator, who
 * names a company without saying its mode). NOT_FOUND when neither has it.
 */
export async function findCompanyInEitherMode(dbs: Databases, id: string): Promise<Company> {
  if (isId(id)) {
    for (const db of [dbs.live.prisma, dbs.test.prisma]) {
      const company = await db.company.findUnique({ where: { id } });
      if (company) return company;
    }
  }
  throw new AppError('NOT_FOUND', `No company ${id}`);
}

export interface CompanyContents {
  bookings: number;
  customers: number;
  apiKeys: number;
  webhookEndpoints: number;
  emails: number;
}

/** What goes with each company when it is deleted: the counts a confirmation page names. */
export async function countCompanyContents(
  dbs: Databases,
  opts: { mode: Mode; companyIds: string[] },
): Promise<Map<string, CompanyContents>> {
  const { companyIds } = opts;
  const db = dbs.forMode(opts.mode);
  const where = { companyId: { in: companyIds } };
  const [bookings, customers, apiKeys, webhookEndpoints, emails] = await Promise.all([
    db.booking.groupBy({ by: ['companyId'], where, _count: { _all: true } }),
    db.customer.groupBy({ by: ['companyId'], where, _count: { _all: true } }),
    db.apiKey.groupBy({ by: ['companyId'], where, _count: { _all: true } }),
    db.webhookEndpoint.groupBy({ by: ['companyId'], where, _count: { _all: true } }),
    db.email.groupBy({ by: ['companyId'], where, _count: { _all: true } }),
  ]);
  const counted = (rows: Array<{ companyId: string; _count: { _all: number } }>, id: string) =>
    rows.find((r) => r.companyId === id)?._count._all ?? 0;
  return new Map(
    companyIds.map((id) => [
      id,
      {
        bookings: counted(bookings, id),
        customers: counted(customers, id),
        apiKeys: counted(apiKeys, id),
        webhookEndpoints: counted(webhookEndpoints, id),
        emails: counted(emails, id),
      },
    ]),
  );
}

/** A company that has begun takes bookings: it has a service or a staff member. */
const BEGUN = { OR: [{ services: { some: {} } }, { employees: { some: {} } }] } satisfies Prisma.CompanyWhereInput;

/**
 * Whether a live company has begun (BEGUN). The admin's home sends a newcomer whose one live
 * company has not begun (the demo's first login) to their sample salon.
 */
export async function companyHasBegun(dbs: Databases, companyId: string): Promise<boolean> {
  return (
    (await dbs.live.prisma.company.findFirst({ where: { id: companyId, ...BEGUN }, select: { id: true } })) !== null
  );
}

/** Whether any live company has begun (BEGUN), so its customers' e-mails go out over SMTP. */
export async function anyLiveCompanyHasBegun(dbs: Databases): Promise<boolean> {
  return (
    (await dbs.live.prisma.company.findFirst({ where: { mode: 'live', ...BEGUN }, select: { id: true } })) !== null
  );
}
