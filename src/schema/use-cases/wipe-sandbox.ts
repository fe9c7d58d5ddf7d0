// "Wipe test data" (docs/sandbox.md; `svc sandbox wipe`): deletes
// every test company of an account and, through the foreign keys' ON DELETE CASCADE, all that
// lives under them (keys, staff, services, classes, customers, bookings, payments, webhooks,
// events, e-mails). It runs on the sandbox database only (dbs.test), which holds no live rows,
// so it cannot touch live data whatever the account's ids are.
import type { CredentialResolver } from '../../auth/credentials.js';
import type { Databases } from '../../db/databases.js';
import { AppError } from '../../errors.js';
import { isId } from '../../ids.js';
import type { Tx } from '../events.js';
import type { SampleTemplate } from '../samples.js';

/**
 * Deletes an account's test companies inside the caller's transaction on the sandbox
 * database; `templates` narrows it to the companies made from those samples. Returns their ids
 * for the caller to drop from the credential caches once the transaction has committed.
 */
export async function deleteTestCompanies(sandbox: Tx, opts: { accountId: string; templates?: SampleTemplate[] }): Promise<string[]> {
  const rows = await sandbox.company.findMany({
    where: { accountId: opts.accountId, mode: 'test', ...(opts.templates ? { template: { in: opts.templates } } : {}) },
    select: { id: true },
  });
  const ids = rows.map((r) => r.id);
  if (ids.length) await sandbox.company.deleteMany({ where: { id: { in: ids } } });
  return ids;
}

/** The deleted companies' test keys and OAuth tokens stop at once, on every instance. */
export async function forgetCompanies(credentials: Pick<CredentialResolver, 'invalidateCompany'>, companyIds: string[]): Promise<void> {
  for (const id of companyIds) await credentials.invalidateCompany(id);
}

export async function wipeSandbox(
  dbs: Databases,
  credentials: Pick<CredentialResolver, 'invalidateCompany'>,
  opts: { accountId: string },
): Promise<{ deletedCompanies: number; companyIds: string[] }> {
  if (!isId(opts.accountId)) throw AppError.notFound('Account');
  const companyIds = await dbs.test.prisma.$transaction((tx) => deleteTestCompanies(tx, opts));
  await forgetCompanies(credentials, companyIds);
  return { deletedCompanies: companyIds.length, companyIds };
}
