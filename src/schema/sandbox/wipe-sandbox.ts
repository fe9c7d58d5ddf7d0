// "Wipe test data" (docs/sandbox.md; `svc sandbox wipe` and the admin area's "Wipe test
// data"): deletes every test company of an account and, through the foreign keys' ON DELETE
// CASCADE, all that lives under them (keys, staff, services, classes, customers, bookings,
// payments, webhooks, events, e-mails). It runs on the sandbox database only (dbs.test), which
// holds no live rows, so it cannot touch live data whatever the account's ids are.
//
// A person confirms a wipe on a page that names the companies; `companyIds` carries those, and
// exactly they go: a test company made after the page was shown (another tab, the API) is left
// alone, as is any named id that is not (or no longer) one of the account's test companies.
import type { CredentialResolver } from '../../auth/credentials.js';
import type { Databases, Tx } from '../../db/databases.js';
import { AppError } from '../../errors.js';
import { isId } from '../../ids.js';
import type { SampleTemplate } from './samples.js';

export interface DeleteTestCompanies {
  accountId: string;
  /** Only the companies made from these sample templates. */
  templates?: SampleTemplate[];
  /** Only these companies (the ones a confirmation named); an empty list deletes nothing. */
  companyIds?: string[];
}

/**
 * Deletes an account's test companies inside the caller's transaction on the sandbox
 * database, narrowed by `templates` and `companyIds`. Returns their ids for the caller to drop
 * from the credential caches once the transaction has committed.
 */
export async function deleteTestCompanies(sandbox: Tx, opts: DeleteTestCompanies): Promise<string[]> {
  const named = opts.companyIds?.filter(isId);
  if (named && named.length === 0) return [];
  const rows = await sandbox.company.findMany({
    where: {
      accountId: opts.accountId,
      mode: 'test',
      ...(opts.templates ? { template: { in: opts.templates } } : {}),
      ...(named ? { id: { in: named } } : {}),
    },
    select: { id: true },
  });
  const ids = rows.map((r) => r.id);
  if (ids.length) {
    // Request logs have no foreign key to cascade along (prisma/schema.prisma, RequestLog).
    await sandbox.requestLog.deleteMany({ where: { companyId: { in: ids } } });
    await sandbox.company.deleteMany({ where: { id: { in: ids } } });
  }
  return ids;
}

/** The deleted companies' test keys and OAuth tokens stop at once, on every instance. */
export async function forgetCompanies(
  credentials: Pick<CredentialResolver, 'invalidateCompany'>,
  companyIds: string[],
): Promise<void> {
  for (const id of companyIds) await credentials.invalidateCompany(id);
}

export async function wipeSandbox(
  dbs: Databases,
  credentials: Pick<CredentialResolver, 'invalidateCompany'>,
  opts: { accountId: string; companyIds?: string[] },
): Promise<{ deletedCompanies: number; companyIds: string[] }> {
  if (!isId(opts.accountId)) throw AppError.notFound('Account');
  const companyIds = await dbs.test.prisma.$transaction((tx) =>
    deleteTestCompanies(tx, { accountId: opts.accountId, companyIds: opts.companyIds }),
  );
  await forgetCompanies(credentials, companyIds);
  return { deletedCompanies: companyIds.length, companyIds };
}
