// Accounts are control plane: they live in the live database only (docs/sandbox.md).
import type { Databases } from '../../db/databases.js';
import { AppError } from '../../errors.js';
import type { Account } from '../../generated/prisma/client.js';

/** The account signed up with this e-mail (case-insensitively, as stored), else NOT_FOUND. */
export async function findAccountByEmail(dbs: Databases, email: string): Promise<Account> {
  const account = await dbs.live.prisma.account.findUnique({ where: { email: email.toLowerCase() } });
  if (!account) throw new AppError('NOT_FOUND', `No account with e-mail ${email}`);
  return account;
}
