// POST /oauth/token (RFC 6749 §3.2, OAuth 2.1 §3.2), /oauth/revoke (RFC 7009) and
// /oauth/introspect (RFC 7662). Form-encoded in, RFC JSON out, never cached. The client is
// authenticated (and brute force refused) before anything else is judged.
import OAuth2Server from '@node-oauth/oauth2-server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthClient } from '../../generated/prisma/client.js';
import type { Services } from '../../services.js';
import { nowOf } from '../sessions.js';
import { hashToken, parseToken } from '../tokens.js';
import { ClientAuthenticator } from './client-auth.js';
import { ACCESS_TOKEN_TTL_S, REFRESH_TOKEN_TTL_S, revokeAccessToken, revokeGrant } from './grants.js';
import { issuerOf } from './metadata.js';
import { OAuthProblem, requireFormBody, sendOAuthError, singleParams, toOAuthProblem } from './oauth-errors.js';
import { createTokenModel } from './token-model.js';
import { deepFreeze } from '../../frozen.js';

const { OAuthError, Request, Response } = OAuth2Server;

const GRANT_TYPES = deepFreeze(new Set(['authorization_code', 'refresh_token']));

function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
}

async function token(services: Services, auth: ClientAuthenticator, req: FastifyRequest, reply: FastifyReply) {
  requireFormBody(req);
  const params = singleParams(req.body);
  const grantType = params.grant_type;
  if (!grantType) throw new OAuthProblem('invalid_request', 'Missing parameter: grant_type');
  // OAuth 2.1 removed the password and implicit grants; client_credentials is not offered.
  if (!GRANT_TYPES.has(grantType)) {
    throw new OAuthProblem(
      'unsupported_grant_type',
      `grant_type ${grantType.slice(0, 64)} is not supported; use authorization_code or refresh_token`,
    );
  }
  const { client } = await auth.authenticate(req, params);

  // The library sees the client as already authenticated: its own client parsing neither
  // form-url-decodes Basic credentials nor knows public from confidential clients.
  const body: Record<string, string> = { ...params, client_id: client.clientId };
  delete body.client_secret;
  const headers = { ...(req.headers as Record<string, string>) };
  delete headers.authorization;
  const server = new OAuth2Server({
    model: createTokenModel(services, client, params),
    accessTokenLifetime: ACCESS_TOKEN_TTL_S,
    refreshTokenLifetime: REFRESH_TOKEN_TTL_S,
    requireClientAuthentication: { authorization_code: false, refresh_token: false },
    alwaysIssueNewRefreshToken: true,
  });
  let issued: Awaited<ReturnType<typeof server.token>>;
  try {
    issued = await server.token(new Request({ method: 'POST', headers, query: {}, body }), new Response());
  } catch (err) {
    if (err instanceof OAuthError) {
      // ServerError wraps what our model threw: log it, show nothing of it.
      const inner = (err as { inner?: unknown }).inner;
      if (err.name === 'server_error') throw inner instanceof Error ? inner : err;
      // RFC 6749 §5.2: a redirect_uri that differs from the authorization request's (or is
      // missing though that request named one) makes the grant invalid; the library says
      // invalid_request.
      const name = err.name === 'invalid_request' && /`redirect_uri`/.test(err.message) ? 'invalid_grant' : err.name;
      const description =
        name === err.name
          ? err.message.replace(/^Invalid \w+: /, '')
          : 'redirect_uri does not match the one of the authorization request';
      throw new OAuthProblem(name as never, description, name === 'invalid_client' ? 401 : 400);
    }
    throw err;
  }
  return noStore(reply).send({
    access_token: issued.accessToken,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_S,
    refresh_token: issued.refreshToken,
    scope: (issued.scope ?? []).join(' '),
  });
}

/** The token record a presented string names, if it belongs to this client. */
async function findClientToken(services: Services, client: OAuthClient, value: string | undefined) {
  if (!value) throw new OAuthProblem('invalid_request', 'Missing parameter: token');
  const parsed = parseToken(value);
  if (!parsed || (parsed.kind !== 'at' && parsed.kind !== 'rt')) return null;
  const record = await services.dbs.live.prisma.oAuthToken.findUnique({ where: { tokenHash: hashToken(value) } });
  // RFC 7009 §2.1 / RFC 7662 §4: another client's token is treated as unknown to this one.
  if (!record || record.clientId !== client.clientId || record.mode !== parsed.mode) return null;
  return record;
}

async function revoke(services: Services, auth: ClientAuthenticator, req: FastifyRequest, reply: FastifyReply) {
  requireFormBody(req);
  const params = singleParams(req.body);
  const { client } = await auth.authenticate(req, params);
  // token_type_hint is only a hint (RFC 7009 §2.1): the token is looked up by itself whatever
  // it says, and an unknown hint is ignored (§2.2: unsupported_token_type is for tokens of a
  // type the server cannot revoke, and it can revoke every token it issues).
  const record = await findClientToken(services, client, params.token);
  if (record) {
    // RFC 7009 §2.1: revoking a refresh token also revokes the access tokens of its grant.
    if (record.kind === 'refresh') await revokeGrant(services, record.grantId);
    else await revokeAccessToken(services, record.id, record.tokenHash);
  }
  // RFC 7009 §2.2: 200 whether or not the token was known, so it reveals nothing.
  return noStore(reply).status(200).send();
}

async function introspect(services: Services, auth: ClientAuthenticator, req: FastifyRequest, reply: FastifyReply) {
  requireFormBody(req);
  const params = singleParams(req.body);
  const { client } = await auth.authenticate(req, params);
  if (client.type !== 'confidential') {
    throw new OAuthProblem('invalid_client', 'Only confidential clients may introspect tokens', 401);
  }
  const record = await findClientToken(services, client, params.token);
  const now = nowOf(services);
  const active = record && !record.revokedAt && !record.usedAt && record.expiresAt.getTime() > now;
  if (!record || !active) return noStore(reply).send({ active: false });
  return noStore(reply).send({
    active: true,
    scope: record.scope,
    client_id: record.clientId,
    // RFC 7662 §2.2: token_type as in RFC 6749 §7.1, which only access tokens have.
    ...(record.kind === 'access' ? { token_type: 'Bearer' } : {}),
    exp: Math.floor(record.expiresAt.getTime() / 1000),
    iat: Math.floor(record.createdAt.getTime() / 1000),
    sub: record.accountId,
    iss: issuerOf(services, req),
    company_id: record.companyId,
    mode: record.mode,
  });
}

export function registerTokenEndpoints(app: FastifyInstance, services: Services): void {
  const auth = new ClientAuthenticator(services);
  const json = (fn: typeof token) => async (req: FastifyRequest, reply: FastifyReply) => {
    try {
      return await fn(services, auth, req, reply);
    } catch (err) {
      return sendOAuthError(reply, toOAuthProblem(req, err));
    }
  };
  app.post('/oauth/token', { schema: { hide: true } }, json(token));
  app.post('/oauth/revoke', { schema: { hide: true } }, json(revoke));
  app.post('/oauth/introspect', { schema: { hide: true } }, json(introspect));
}
