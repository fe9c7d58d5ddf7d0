import { hash } from '@node-rs/argon2';
import { z } from 'zod';
import type { Databases } from '../../db/databases.js';
import type { Account, Company } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import { email, parseInput } from '../validation.js';
import { createSampleCompanies } from './create-company.js';

const createAccountInput = z
  .object({
    email,
    password: z.string().min(10, 'must be at least 10 characters').max(256, 'must be at most 256 characters'),
  })
  .strict();

// OWASP's argon2id recommendation (19 MiB, 2 iterations, 1 lane).
export const ARGON2_OPTIONS = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

/** A person's account (control plane, live database) with its sample test companies. */
export async function createAccount(
  dbs: Databases,
  input: { email: string; password: string },
): Promise<{ account: Account; testCompanies: Company[] }> {
  const data = parseInput(createAccountInput, input);
  const passwordHash = await hash(data.password, ARGON2_OPTIONS);
  let account: Account;
  try {
    account = await dbs.live.prisma.account.create({ data: { id: newId(), email: data.email, passwordHash } });
  } catch (err) {
    if ((err as { code?: string }).code === 'P2002') throw new AppError('CONFLICT', 'An account with this e-mail already exists');
    throw err;
  }
  const testCompanies = await createSampleCompanies(dbs, account.id);
  return { account, testCompanies };
}
