// The storage model @node-oauth/oauth2-server's grants run against (the customer's design:
// the library does the authorization_code and refresh_token grants). One model per token
// request, so it knows the already-authenticated client and the request's parameters, and
// adds the OAuth 2.1 rules the library lacks:
// - a replayed code, when presented by its client with a valid PKCE verifier, revokes every
//   token of its grant (OAuth 2.1 §4.1.3); a replay with a wrong verifier revokes nothing;
// - the code is spent in the transaction that issues its tokens (not before PKCE and the
//   redirect URI are checked, as the library would): of two concurrent exchanges exactly one
//   gets tokens, and the other's replay revocation comes after them, so none survive. A failed
//   verifier does not burn the code; guessing 256 bits of verifier is not a threat;
// - a spent refresh token presented again by its client revokes the whole grant (§4.3.1,
//   refresh token rotation), and of two concurrent refreshes at most one wins;
// - a refresh asking for more scope than the token has is refused before the library spends
//   the token (it spends first and checks scope after), so the client can simply retry;
// - the rotated refresh token keeps its scope while the access token may be narrower;
// - expiry is judged with the service's clock (injectable), not the library's Date.now.
import { createHash, timingSafeEqual } from 'node:crypto';
import OAuth2Server from '@node-oauth/oauth2-server';
import type { OAuthClient, OAuthCode, OAuthToken } from '../../generated/prisma/client.js';
import type { Services } from '../../services.js';
import { nowOf } from '../sessions.js';
import { hashToken, parseToken } from '../tokens.js';
import {
  CodeSpentError,
  GrantRevokedError,
  issueTokens,
  revokeGrant,
  spendRefreshToken,
  type GrantSubject,
} from './grants.js';

const { InvalidGrantError, InvalidScopeError } = OAuth2Server;

type User = GrantSubject & { [key: string]: unknown };

const scopeList = (s: string) => s.split(' ').filter(Boolean);

/** The library compares expiry with the real clock; shift our clock's deadline onto it. */
function onRealClock(services: Services, at: Date): Date {
  return new Date(at.getTime() - nowOf(services) + Date.now());
}

function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Whether this request would have been a valid exchange of the code had it not been spent:
 * the code's own client, and the right PKCE verifier (or none, when no challenge was sent).
 */
function provesCode(code: OAuthCode, clientId: string, verifier: string | undefined): boolean {
  if (code.clientId !== clientId) return false;
  if (!code.codeChallenge) return verifier === undefined;
  return verifier !== undefined && sameText(s256(verifier), code.codeChallenge);
}

const subjectOf = (r: OAuthCode | OAuthToken): User => ({
  grantId: r.grantId,
  clientId: r.clientId,
  accountId: r.accountId,
  companyId: r.companyId,
  mode: r.mode,
});

export function createTokenModel(services: Services, client: OAuthClient, params: Record<string, string>) {
  const libClient = {
    id: client.clientId,
    grants: ['authorization_code', 'refresh_token'],
    redirectUris: client.redirectUris,
  };
  let presentedRefresh: OAuthToken | null = null;
  let presentedCode: OAuthCode | null = null;

  const replayedCode = async (code: OAuthCode) => {
    if (provesCode(code, client.clientId, params.code_verifier)) {
      await revokeGrant(services, code.grantId);
      return new InvalidGrantError(
        'Invalid grant: the authorization code was already used; every token issued from it is revoked',
      );
    }
    return new InvalidGrantError('Invalid grant: authorization code is invalid');
  };

  return {
    // The client was authenticated (and rate limited) before the library runs.
    async getClient(clientId: string) {
      return clientId === client.clientId ? libClient : null;
    },

    async getAuthorizationCode(code: string) {
      const record = await services.dbs.live.prisma.oAuthCode.findUnique({ where: { codeHash: hashToken(code) } });
      if (!record) return null;
      if (record.usedAt) throw await replayedCode(record);
      if (record.expiresAt.getTime() <= nowOf(services)) {
        throw new InvalidGrantError('Invalid grant: authorization code has expired');
      }
      presentedCode = record;
      return {
        authorizationCode: code,
        expiresAt: onRealClock(services, record.expiresAt),
        // RFC 6749 §4.1.3: redirect_uri must be repeated only if the request named it.
        redirectUri: record.redirectUriGiven ? record.redirectUri : undefined,
        scope: scopeList(record.scope),
        codeChallenge: record.codeChallenge ?? undefined,
        codeChallengeMethod: record.codeChallengeMethod ?? undefined,
        client: { id: record.clientId, grants: [] },
        user: subjectOf(record),
      };
    },

    // The library "revokes" the code before checking PKCE and the redirect URI; it is spent
    // in saveToken, in the transaction that issues its tokens.
    async revokeAuthorizationCode() {
      return presentedCode !== null;
    },

    async validateScope(_user: User, _client: unknown, scope?: string[]) {
      return scope && scope.length ? scope : false;
    },

    async getRefreshToken(refreshToken: string) {
      const parsed = parseToken(refreshToken);
      if (!parsed || parsed.kind !== 'rt') return null;
      const record = await services.dbs.live.prisma.oAuthToken.findUnique({
        where: { tokenHash: hashToken(refreshToken) },
      });
      if (!record || record.kind !== 'refresh' || record.mode !== parsed.mode) return null;
      if (record.usedAt && !record.revokedAt && record.clientId === client.clientId) {
        // Reuse of a rotated refresh token: someone holds a copy. Revoke the whole grant.
        await revokeGrant(services, record.grantId);
        throw new InvalidGrantError('Invalid grant: the refresh token was already used; the grant is revoked');
      }
      if (record.revokedAt || record.usedAt) return null;
      if (record.expiresAt.getTime() <= nowOf(services))
        throw new InvalidGrantError('Invalid grant: refresh token has expired');
      // The library would spend the token before judging the scope (RFC 6749 §6: no scope
      // beyond the original grant); judged here, a refused request leaves the token usable.
      if (record.clientId === client.clientId && params.scope !== undefined) {
        const granted = scopeList(record.scope);
        const extra = scopeList(params.scope).filter((s) => !granted.includes(s));
        if (extra.length)
          throw new InvalidScopeError(`Invalid scope: the grant does not include ${extra.join(' ').slice(0, 200)}`);
      }
      presentedRefresh = record;
      return {
        refreshToken,
        refreshTokenExpiresAt: onRealClock(services, record.expiresAt),
        scope: scopeList(record.scope),
        client: { id: record.clientId, grants: [] },
        user: subjectOf(record),
      };
    },

    async revokeToken() {
      if (!presentedRefresh) return false;
      if (await spendRefreshToken(services, presentedRefresh.id)) return true;
      // A concurrent request spent it first: two holders of one refresh token. Revoke all.
      await revokeGrant(services, presentedRefresh.grantId);
      return false;
    },

    async saveToken(token: { scope?: string[] }, _client: unknown, user: User) {
      const accessScope = (token.scope ?? []).join(' ');
      try {
        const issued = await issueTokens(services, {
          ...user,
          accessScope,
          refreshScope: presentedRefresh ? presentedRefresh.scope : accessScope,
          spendCodeId: presentedCode?.id,
        });
        return { ...issued, scope: token.scope, client: libClient, user };
      } catch (err) {
        // Lost a race with another exchange of the same code: that is a replay too.
        if (err instanceof CodeSpentError && presentedCode) throw await replayedCode(presentedCode);
        if (err instanceof GrantRevokedError) throw new InvalidGrantError('Invalid grant: the grant has been revoked');
        throw err;
      }
    },

    // Unused by these grants but required by the library's model type.
    async getAccessToken() {
      return null;
    },
  };
}
