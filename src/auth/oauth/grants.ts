// The records behind OAuth: grants, codes and tokens (all control plane, live database).
// Every state change that must happen once is one conditional UPDATE, never read-then-write:
// spending a code, spending a refresh token, revoking a grant. Issuing tokens locks the grant
// row FOR SHARE and refuses a revoked grant, so a revocation racing an issue either waits for
// the new tokens and revokes them too, or makes the issue fail — no token outlives its grant.
import { randomBytes } from 'node:crypto';
import type { Mode } from '../../generated/prisma/enums.js';
import { newId } from '../../ids.js';
import type { Services } from '../../services.js';
import { nowOf } from '../sessions.js';
import { generateToken, hashToken } from '../tokens.js';

export const CODE_TTL_MS = 10 * 60 * 1000; // spec, Limits: 10 minutes
export const ACCESS_TOKEN_TTL_S = 3600; // spec, Limits: 1 hour
export const REFRESH_TOKEN_TTL_S = 30 * 24 * 3600; // docs/oauth.md: 30 days

export interface GrantSubject {
  grantId: string;
  clientId: string;
  accountId: string;
  companyId: string;
  mode: Mode;
}

export class GrantRevokedError extends Error {}

/** The code was spent by another exchange first (issueTokens with spendCodeId). */
export class CodeSpentError extends Error {}

/** Creates the grant and its code after the user approved; returns the code (stored hashed). */
export async function issueCode(
  services: Services,
  o: Omit<GrantSubject, 'grantId'> & {
    scope: string;
    redirectUri: string;
    redirectUriGiven: boolean;
    codeChallenge?: string;
    codeChallengeMethod?: string;
  },
): Promise<string> {
  const code = randomBytes(32).toString('base64url');
  const grantId = newId();
  const now = nowOf(services);
  const prisma = services.dbs.live.prisma;
  await prisma.$transaction([
    prisma.oAuthGrant.create({
      data: {
        id: grantId,
        clientId: o.clientId,
        accountId: o.accountId,
        companyId: o.companyId,
        mode: o.mode,
        scope: o.scope,
      },
    }),
    prisma.oAuthCode.create({
      data: {
        id: newId(),
        codeHash: hashToken(code),
        clientId: o.clientId,
        accountId: o.accountId,
        companyId: o.companyId,
        mode: o.mode,
        redirectUri: o.redirectUri,
        redirectUriGiven: o.redirectUriGiven,
        scope: o.scope,
        codeChallenge: o.codeChallenge ?? null,
        codeChallengeMethod: o.codeChallengeMethod ?? null,
        grantId,
        expiresAt: new Date(now + CODE_TTL_MS),
      },
    }),
  ]);
  return code;
}

/** Marks a refresh token spent (rotated); false when it was already spent or revoked. */
export async function spendRefreshToken(services: Services, tokenId: string): Promise<boolean> {
  const { count } = await services.dbs.live.prisma.oAuthToken.updateMany({
    where: { id: tokenId, kind: 'refresh', usedAt: null, revokedAt: null },
    data: { usedAt: new Date(nowOf(services)) },
  });
  return count === 1;
}

/**
 * Revokes a grant and every token issued under it, and drops its access tokens from every
 * instance's credential cache at once.
 */
export async function revokeGrant(services: Services, grantId: string): Promise<void> {
  const prisma = services.dbs.live.prisma;
  const at = new Date(nowOf(services));
  // The grant first: its row lock waits for an issue in flight, and the token UPDATE that
  // follows (a new statement, a new snapshot) then sees that issue's tokens.
  await prisma.oAuthGrant.updateMany({ where: { id: grantId, revokedAt: null }, data: { revokedAt: at } });
  const revoked = await prisma.$queryRawUnsafe<Array<{ token_hash: string }>>(
    `UPDATE oauth_tokens SET revoked_at = $2 WHERE grant_id = $1 AND revoked_at IS NULL RETURNING token_hash`,
    grantId,
    at,
  );
  await Promise.all(revoked.map((r) => services.credentials.invalidateToken(r.token_hash)));
}

/** Revokes one access token (RFC 7009 for an access token: the grant stays). */
export async function revokeAccessToken(services: Services, tokenId: string, tokenHash: string): Promise<void> {
  await services.dbs.live.prisma.oAuthToken.updateMany({
    where: { id: tokenId, revokedAt: null },
    data: { revokedAt: new Date(nowOf(services)) },
  });
  await services.credentials.invalidateToken(tokenHash);
}

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  accessTokenExpiresAt: Date;
  refreshTokenExpiresAt: Date;
}

/**
 * Issues an access and a refresh token under a live grant. RFC 6749 §6: a rotated refresh
 * token keeps the scope of the one it replaces, while the access token may be narrower.
 * Throws GrantRevokedError when the grant is (or is being) revoked.
 *
 * With spendCodeId the authorization code is spent in the same transaction: of two concurrent
 * exchanges of one code exactly one gets tokens, and the other (CodeSpentError) waits on the
 * code's row lock until those tokens are committed — so its replay revocation reaches them.
 */
export async function issueTokens(
  services: Services,
  s: GrantSubject & { accessScope: string; refreshScope: string; spendCodeId?: string },
): Promise<IssuedTokens> {
  const now = nowOf(services);
  const accessToken = generateToken('at', s.mode);
  const refreshToken = generateToken('rt', s.mode);
  const accessTokenExpiresAt = new Date(now + ACCESS_TOKEN_TTL_S * 1000);
  const refreshTokenExpiresAt = new Date(now + REFRESH_TOKEN_TTL_S * 1000);
  const base = {
    clientId: s.clientId,
    accountId: s.accountId,
    companyId: s.companyId,
    mode: s.mode,
    grantId: s.grantId,
    createdAt: new Date(now),
  };
  await services.dbs.live.prisma.$transaction(async (tx) => {
    if (s.spendCodeId !== undefined) {
      const { count } = await tx.oAuthCode.updateMany({
        where: { id: s.spendCodeId, usedAt: null },
        data: { usedAt: new Date(now) },
      });
      if (count !== 1) throw new CodeSpentError('The authorization code was already used');
    }
    const live = await tx.$queryRawUnsafe<unknown[]>(
      `SELECT id FROM oauth_grants WHERE id = $1 AND revoked_at IS NULL FOR SHARE`,
      s.grantId,
    );
    if (live.length === 0) throw new GrantRevokedError('The grant has been revoked');
    await tx.oAuthToken.createMany({
      data: [
        {
          ...base,
          id: newId(),
          tokenHash: hashToken(accessToken),
          kind: 'access',
          scope: s.accessScope,
          expiresAt: accessTokenExpiresAt,
        },
        {
          ...base,
          id: newId(),
          tokenHash: hashToken(refreshToken),
          kind: 'refresh',
          scope: s.refreshScope,
          expiresAt: refreshTokenExpiresAt,
        },
      ],
    });
  });
  return { accessToken, refreshToken, accessTokenExpiresAt, refreshTokenExpiresAt };
}
