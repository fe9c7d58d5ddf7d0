import { z } from 'zod';
import { hashPassword } from '../../crypto/password.js';
import type { Databases } from '../../db/databases.js';
import type { Account, Company } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import { email, parseInput } from '../validation.js';
import { createSampleCompanies } from '../companies/index.js';
import { SAMPLE_ORDER, type SampleBuildOptions } from '../sandbox/index.js';

const createAccountInput = z
  .object({
    email,
    password: z.string().min(10, 'must be at least 10 characters').max(256, 'must be at most 256 characters'),
  })
  .strict();

/**
 * A person's account (control plane, live database) with its sample test companies; with
 * `opts.week`, each with a week of bookings around today (src/schema/sandbox/sample-builder.ts).
 */
export async function createAccount(
  dbs: Databases,
  input: { email: string; password: string },
  opts: Pick<SampleBuildOptions, 'week'> = {},
): Promise<{ account: Account; testCompanies: Company[] }> {
  const data = parseInput(createAccountInput, input);
  const passwordHash = await hashPassword(data.password);
  let account: Account;
  try {
    account = await dbs.live.prisma.account.create({ data: { id: newId(), email: data.email, passwordHash } });
  } catch (err) {
    if ((err as { code?: string }).code === 'P2002')
      throw new AppError('CONFLICT', 'An account with this e-mail already exists');
    throw err;
  }
  const testCompanies = await createSampleCompanies(dbs, account.id, SAMPLE_ORDER, opts);
  return { account, testCompanies };
}
