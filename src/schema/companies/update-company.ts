import { z } from 'zod';
import type { Db } from '../../db/databases.js';
import type { Company } from '../../generated/prisma/client.js';
import { bookingRulesPatch, patchBookingRules } from '../booking-rules.js';
import { mergeMetadata, metadataPatch } from '../metadata.js';
import { DEFAULT_REMINDERS, remindersInput } from '../notifications/index.js';
import { apiVersionInput } from './api-versions.js';
import { id } from '../domain-validation.js';
import { attachableTestClock } from '../test-clocks/index.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { currency, email, parseInput, phone, requiredText, text, timezone } from '../validation.js';

export const updateCompanyInput = z
  .object({
    name: requiredText(200),
    email: email.nullable(),
    phone: phone.nullable(),
    address: text(500).nullable(),
    timezone,
    currency,
    bookingRules: bookingRulesPatch,
    /** The whole list, replacing the stored one; null restores the default. */
    reminders: remindersInput.nullable(),
    metadata: metadataPatch,
    /** The API version requests without an API-Version header get (the admin area sets it). */
    apiVersion: apiVersionInput,
    /** The test clock to attach to (sandbox only); null detaches. */
    testClockId: id.nullable(),
  })
  .partial()
  .strict();

export type UpdateCompanyInput = z.input<typeof updateCompanyInput>;

/** Changes a company's profile (PATCH /me, updateMe). Absent fields stay; null clears. */
export async function updateCompany(
  db: Db,
  opts: { companyId: string; input: unknown; /** The credential's; without it testClockId is refused. */ mode?: Mode },
): Promise<Company> {
  const { bookingRules, metadata, reminders, testClockId, ...fields } = parseInput(updateCompanyInput, opts.input);
  const patch = {
    ...fields,
    ...(reminders !== undefined ? { reminders: reminders ?? DEFAULT_REMINDERS } : {}),
    // A test clock of this sandbox company only (docs/sandbox.md, Test clocks).
    ...(testClockId !== undefined
      ? {
          testClockId: await attachableTestClock(db, {
            companyId: opts.companyId,
            mode: opts.mode ?? 'live',
            testClockId,
          }),
        }
      : {}),
  };
  if (!bookingRules && !metadata) return db.company.update({ where: { id: opts.companyId }, data: patch });
  // The stored rules and metadata merged with the patch under the row's lock, so two patches of
  // different rules or keys both stay.
  return db.$transaction(async (tx) => {
    if (metadata)
      await mergeMetadata(tx, { table: 'companies', id: opts.companyId, companyId: opts.companyId, patch: metadata });
    if (!bookingRules) return tx.company.update({ where: { id: opts.companyId }, data: patch });
    await tx.$queryRaw`SELECT id FROM companies WHERE id = ${opts.companyId} FOR UPDATE`;
    const current = await tx.company.findUniqueOrThrow({ where: { id: opts.companyId } });
    return tx.company.update({
      where: { id: opts.companyId },
      data: { ...patch, bookingRules: patchBookingRules(current.bookingRules, bookingRules) },
    });
  });
}
