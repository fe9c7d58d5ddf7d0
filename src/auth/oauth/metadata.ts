// RFC 8414 authorization server metadata. The issuer is AUTH_URL exactly (openid-client
// compares it character for character with the URL it discovered from). Without AUTH_URL the
// issuer is the origin the request reached us on — scheme (honouring TRUST_PROXY) and Host —
// the same for the metadata, the `iss` of every redirect and introspection. Such a response
// depends on headers the client chose, so it is never stored by a shared cache (which one
// forged Host would otherwise poison for everyone); production requires AUTH_URL or BASE_URL
// (checkServerConfig), so there the issuer never depends on a header.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../../services.js';
import { SCOPES } from '../scopes.js';

export function issuerOf(services: Services, req: FastifyRequest): string {
  return services.config.AUTH_URL ?? `${req.protocol}://${req.host}`;
}

export function metadata(issuer: string) {
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    introspection_endpoint: `${issuer}/oauth/introspect`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    code_challenge_methods_supported: ['S256'],
    scopes_supported: [...SCOPES],
    // RFC 9207: every authorization response, errors included, carries `iss`.
    authorization_response_iss_parameter_supported: true,
  };
}

export function registerMetadata(app: FastifyInstance, services: Services): void {
  app.get('/.well-known/oauth-authorization-server', { schema: { hide: true } }, async (req, reply) => {
    if (services.config.AUTH_URL) reply.header('cache-control', 'public, max-age=300');
    else reply.header('cache-control', 'no-store').header('vary', 'Host, X-Forwarded-Host, X-Forwarded-Proto');
    return reply.send(metadata(issuerOf(services, req)));
  });
}
