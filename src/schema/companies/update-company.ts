import { z } from 'zod';
import type { Db } from '../../db/databases.js';
import type { Company } from '../../generated/prisma/client.js';
import { currency, email, parseInput, phone, requiredText, text, timezone } from '../validation.js';

export const updateCompanyInput = z
  .object({
    name: requiredText(200),
    email: email.nullable(),
    phone: phone.nullable(),
    address: text(500).nullable(),
    timezone,
    currency,
  })
  .partial()
  .strict();

export type UpdateCompanyInput = z.input<typeof updateCompanyInput>;

/** Changes a company's profile (PATCH /me, updateMe). Absent fields stay; null clears. */
export async function updateCompany(db: Db, opts: { companyId: string; input: unknown }): Promise<Company> {
  const patch = parseInput(updateCompanyInput, opts.input);
  return db.company.update({ where: { id: opts.companyId }, data: patch });
}
