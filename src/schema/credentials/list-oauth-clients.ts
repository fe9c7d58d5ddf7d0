// An account's OAuth clients. Clients are control plane: one registration serves both modes,
// so they live in the live database only (docs/oauth.md).
import type { Databases } from '../../db/databases.js';
import { AppError } from '../../errors.js';
import type { OAuthClient } from '../../generated/prisma/client.js';
import { isId } from '../../ids.js';

/** Newest first. */
export async function listOAuthClients(dbs: Databases, accountId: string): Promise<OAuthClient[]> {
  return dbs.live.prisma.oAuthClient.findMany({
    where: { accountId },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  });
}

/** One of the account's clients by its record id; another account's is NOT_FOUND alike. */
export async function findOAuthClient(dbs: Databases, opts: { accountId: string; id: unknown }): Promise<OAuthClient> {
  const client = isId(opts.id)
    ? await dbs.live.prisma.oAuthClient.findFirst({ where: { id: opts.id, accountId: opts.accountId } })
    : null;
  if (!client) throw AppError.notFound('OAuth client');
  return client;
}
