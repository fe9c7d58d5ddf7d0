import type { CredentialResolver } from '../../auth/credentials.js';
import type { Databases } from '../../db/databases.js';
import type { OAuthClient } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { isId } from '../../ids.js';

/**
 * Deletes an account's OAuth client (docs/admin.md) and ends everything it was
 * given: its grants and tokens are revoked and its unused codes deleted in one transaction, so
 * a refresh or code exchange racing the delete finds the grant revoked (issuing locks the grant
 * row, see OAuthGrant); then the access tokens still within their lifetime are dropped from the
 * credential caches of every instance. A client of another account is NOT_FOUND.
 */
export async function deleteOAuthClient(
  dbs: Databases,
  credentials: Pick<CredentialResolver, 'invalidateToken'>,
  opts: { accountId: string; id: string; now?: Date },
): Promise<{ client: OAuthClient; revokedTokens: number }> {
  if (!isId(opts.id)) throw AppError.notFound('OAuth client');
  const now = opts.now ?? new Date();
  const { client, live } = await dbs.live.prisma.$transaction(async (tx) => {
    const client = await tx.oAuthClient.findFirst({ where: { id: opts.id, accountId: opts.accountId } });
    if (!client) throw AppError.notFound('OAuth client');
    await tx.oAuthGrant.updateMany({ where: { clientId: client.clientId, revokedAt: null }, data: { revokedAt: now } });
    const live = await tx.oAuthToken.findMany({
      where: { clientId: client.clientId, revokedAt: null, kind: 'access', expiresAt: { gt: now } },
      select: { tokenHash: true },
    });
    await tx.oAuthToken.updateMany({ where: { clientId: client.clientId, revokedAt: null }, data: { revokedAt: now } });
    await tx.oAuthCode.deleteMany({ where: { clientId: client.clientId } });
    await tx.oAuthClient.delete({ where: { id: client.id } });
    return { client, live };
  });
  for (const t of live) await credentials.invalidateToken(t.tokenHash);
  return { client, revokedTokens: live.length };
}
