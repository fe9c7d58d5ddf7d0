// "Restore the samples" (docs/sandbox.md; `svc sandbox restore`). A test company counts as an
// account's sample when it was made from a sample template (Company.template).
// - By default the restore is gentle: it recreates only the templates the account has no
//   company of (after a wipe, or after deleting one), and leaves existing samples, their keys
//   and any bookings made against them alone.
// - With `reset`, it first deletes the account's companies made from the templates (keys
//   included, as a wipe would) and creates all three afresh: back to the starting data, with
//   class sessions for the coming weeks again. Test companies made blank are never touched.
//   A reset a person confirmed on a page naming the samples passes their ids (`companyIds`):
//   exactly those go, so a sample made after the page was shown stays, as the wipe does.
// Deleting and recreating are one transaction (the CLI and the admin area alike): a failure
// half-way leaves the samples as they were, never deleted and not recreated. The recreated
// companies' sample bookings, and with `week` their week around today, are made once it has
// committed (sample-builder.ts: the booking use cases run transactions of their own).
// It answers the account's samples in template order (the oldest company of each template).
import type { CredentialResolver } from '../../auth/credentials.js';
import type { Databases } from '../../db/databases.js';
import type { Company } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { isId } from '../../ids.js';
import {
  SAMPLE_ORDER,
  type SampleTemplate,
  type SampleWeekDeps,
  buildSampleCompany,
  deleteTestCompanies,
  forgetCompanies,
} from '../sandbox/index.js';
import { insertCompany, parseCompanyInput, SEED_TRANSACTION } from './create-company.js';

export interface RestoreResult {
  testCompanies: Company[];
  created: number;
  deleted: number;
}

export async function restoreSampleCompanies(
  dbs: Databases,
  credentials: Pick<CredentialResolver, 'invalidateCompany'>,
  opts: {
    accountId: string;
    reset?: boolean;
    companyIds?: string[];
    now?: Date;
    /** The server's config and logger: the recreated samples get their week (sample-builder.ts). */
    week?: SampleWeekDeps;
  },
): Promise<RestoreResult> {
  // The account is control plane (live database): no samples for an account that is not there.
  const account = isId(opts.accountId)
    ? await dbs.live.prisma.account.findUnique({ where: { id: opts.accountId } })
    : null;
  if (!account) throw AppError.notFound('Account');

  const { deletedIds, testCompanies, created, fresh } = await dbs.test.prisma.$transaction(async (tx) => {
    // One restore per account at a time: two concurrent restores would both see a template
    // missing and create it twice. The lock is released when the transaction ends.
    await tx.$queryRaw`SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(hashtext(${`restore-samples:${account.id}`}))) AS l`;
    const deletedIds = opts.reset
      ? await deleteTestCompanies(tx, { accountId: account.id, templates: SAMPLE_ORDER, companyIds: opts.companyIds })
      : [];
    const existing = await tx.company.findMany({
      where: { accountId: account.id, mode: 'test', template: { in: SAMPLE_ORDER } },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    const byTemplate = new Map<SampleTemplate, Company>();
    for (const c of existing)
      if (!byTemplate.has(c.template as SampleTemplate)) byTemplate.set(c.template as SampleTemplate, c);
    const fresh: Company[] = [];
    for (const template of SAMPLE_ORDER.filter((t) => !byTemplate.has(t))) {
      const data = parseCompanyInput({ accountId: account.id, mode: 'test', template });
      const company = await insertCompany(tx, data, { now: opts.now });
      byTemplate.set(template, company);
      fresh.push(company);
    }
    return {
      deletedIds,
      testCompanies: SAMPLE_ORDER.map((t) => byTemplate.get(t)!),
      created: fresh.length,
      fresh,
    };
  }, SEED_TRANSACTION);

  await forgetCompanies(credentials, deletedIds);
  await Promise.all(
    fresh.map((company) => buildSampleCompany(dbs.test.prisma, company, { now: opts.now, week: opts.week })),
  );
  return { testCompanies, created, deleted: deletedIds.length };
}
