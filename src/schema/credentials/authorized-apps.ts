// The apps a person authorised (docs/oauth.md, docs/admin.md): the OAuth grants their account
// approved on a consent page, for their own companies, and the revocation of one.
import type { CredentialResolver } from '../../auth/credentials.js';
import type { Databases } from '../../db/databases.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { AppError } from '../../errors.js';
import { isId } from '../../ids.js';

/** An app a person authorised for one of their companies. */
export interface AuthorizedApp {
  grantId: string;
  clientName: string;
  clientId: string;
  companyName: string;
  mode: Mode;
  scope: string;
  createdAt: Date;
}

/**
 * The grants an account approved that are not revoked, newest first (at most 200), with the
 * app's and the company's names (an app or company deleted since shows as such).
 */
export async function listAuthorizedApps(dbs: Databases, accountId: string): Promise<AuthorizedApp[]> {
  const live = dbs.live.prisma;
  const grants = await live.oAuthGrant.findMany({
    where: { accountId, revokedAt: null },
    orderBy: { id: 'desc' },
    take: 200,
  });
  if (grants.length === 0) return [];
  const clientIds = [...new Set(grants.map((g) => g.clientId))];
  const idsOf = (mode: Mode) => [...new Set(grants.filter((g) => g.mode === mode).map((g) => g.companyId))];
  const [clients, liveCompanies, testCompanies] = await Promise.all([
    live.oAuthClient.findMany({ where: { clientId: { in: clientIds } }, select: { clientId: true, name: true } }),
    live.company.findMany({ where: { id: { in: idsOf('live') } }, select: { id: true, name: true } }),
    dbs.test.prisma.company.findMany({ where: { id: { in: idsOf('test') } }, select: { id: true, name: true } }),
  ]);
  const clientName = new Map(clients.map((c) => [c.clientId, c.name]));
  const companyName = new Map([...liveCompanies, ...testCompanies].map((c) => [c.id, c.name]));
  return grants.map((g) => ({
    grantId: g.id,
    clientName: clientName.get(g.clientId) ?? '(a deleted app)',
    clientId: g.clientId,
    companyName: companyName.get(g.companyId) ?? '(a deleted company)',
    mode: g.mode,
    scope: g.scope,
    createdAt: g.createdAt,
  }));
}

/**
 * Revokes a grant the account approved, with every token issued under it and its unused codes,
 * in one transaction: the grant's UPDATE comes first, so a refresh racing it (issuing locks the
 * grant row) either finishes before and its tokens are revoked here, or finds the grant revoked.
 * Then its access tokens are dropped from every instance's credential cache. A grant of another
 * account, an unknown or an already revoked one is NOT_FOUND.
 */
export async function revokeAuthorizedApp(
  dbs: Databases,
  credentials: Pick<CredentialResolver, 'invalidateToken'>,
  opts: { accountId: string; grantId: string; now?: Date },
): Promise<void> {
  if (!isId(opts.grantId)) throw AppError.notFound('authorised app');
  const now = opts.now ?? new Date();
  const live = await dbs.live.prisma.$transaction(async (tx) => {
    const revoked = await tx.oAuthGrant.updateMany({
      where: { id: opts.grantId, accountId: opts.accountId, revokedAt: null },
      data: { revokedAt: now },
    });
    if (revoked.count === 0) throw AppError.notFound('authorised app');
    const live = await tx.oAuthToken.findMany({
      where: { grantId: opts.grantId, revokedAt: null, kind: 'access', expiresAt: { gt: now } },
      select: { tokenHash: true },
    });
    await tx.oAuthToken.updateMany({ where: { grantId: opts.grantId, revokedAt: null }, data: { revokedAt: now } });
    await tx.oAuthCode.deleteMany({ where: { grantId: opts.grantId } });
    return live;
  });
  for (const t of live) await credentials.invalidateToken(t.tokenHash);
}
