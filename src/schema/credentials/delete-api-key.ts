import type { CredentialResolver } from '../../auth/credentials.js';
import type { Db } from '../../db/databases.js';
import type { ApiKey } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { isId } from '../../ids.js';

/**
 * Deletes a key of a company (docs/admin.md: "revoke, delete"): the row goes, so it no longer
 * shows in the list, and the key stops at once on every instance. A key of another company
 * is NOT_FOUND.
 */
export async function deleteApiKey(
  db: Db,
  credentials: Pick<CredentialResolver, 'invalidateToken'>,
  opts: { companyId: string; keyId: string },
): Promise<ApiKey> {
  if (!isId(opts.keyId)) throw AppError.notFound('API key');
  const key = await db.apiKey.findFirst({ where: { id: opts.keyId, companyId: opts.companyId } });
  // deleteMany: a concurrent delete of the same key is a NOT_FOUND, not a failed delete.
  const gone = key ? await db.apiKey.deleteMany({ where: { id: key.id, companyId: opts.companyId } }) : { count: 0 };
  if (!key || gone.count === 0) throw AppError.notFound('API key');
  await credentials.invalidateToken(key.keyHash);
  return key;
}
