import type { CredentialResolver } from '../../auth/credentials.js';
import type { Databases } from '../../db/databases.js';
import type { ApiKey } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { isId } from '../../ids.js';

/**
 * Revokes a key at once: the row is marked and every instance drops it from its credential
 * cache through the bus (docs/api.md, "Revocation is immediate (also across instances)").
 * A key is looked up in both databases, since its id does not say its mode. When the bus cannot
 * carry the message the revocation still stands (invalidateToken logs and never throws); other
 * instances then re-check the key within CREDENTIAL_CACHE_TTL_SECONDS.
 */
export async function revokeApiKey(
  dbs: Databases,
  credentials: Pick<CredentialResolver, 'invalidateToken'>,
  opts: { keyId: string; companyId?: string },
): Promise<ApiKey> {
  if (!isId(opts.keyId)) throw AppError.notFound('API key');
  for (const db of [dbs.live.prisma, dbs.test.prisma]) {
    const key = await db.apiKey.findUnique({ where: { id: opts.keyId } });
    if (!key || (opts.companyId && key.companyId !== opts.companyId)) continue;
    const revoked = key.revokedAt
      ? key
      : await db.apiKey.update({ where: { id: key.id }, data: { revokedAt: new Date() } });
    await credentials.invalidateToken(key.keyHash);
    return revoked;
  }
  throw AppError.notFound('API key');
}
