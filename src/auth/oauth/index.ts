// The OAuth 2.1 authorization server (docs/oauth.md) as one encapsulated Fastify plugin: form
// bodies and cookies are parsed only here, and errors answer in the endpoint's own format —
// RFC 6749 JSON on the token, revocation and introspection endpoints, an HTML page on the
// pages — never the /api/v1 envelope.
import type { FastifyInstance } from 'fastify';
import { isAppError } from '../../errors.js';
import type { Services } from '../../services.js';
import { errorPage, sendPage } from '../pages/html.js';
import { registerPageSupport } from '../sessions.js';
import { registerAuthorizeRoutes } from './authorize-routes.js';
import { registerMetadata } from './metadata.js';
import { sendOAuthError, toOAuthProblem } from './oauth-errors.js';
import { registerTokenEndpoints } from './token-endpoints.js';

const JSON_ENDPOINT = /^\/oauth\/(token|revoke|introspect)(\?|$)/;

export default async function oauthServer(app: FastifyInstance, opts: { services: Services }): Promise<void> {
  const { services } = opts;
  await registerPageSupport(app);

  app.setErrorHandler((err, req, reply) => {
    if (JSON_ENDPOINT.test(req.url)) return sendOAuthError(reply, toOAuthProblem(req, err));
    if (isAppError(err) && err.headers) reply.headers(err.headers);
    const status = isAppError(err) ? err.status : ((err as { statusCode?: number }).statusCode ?? 500);
    if (status === 429)
      return sendPage(reply, 429, errorPage('Too many requests', 'Too many requests; wait a moment and try again.'));
    if (status >= 400 && status < 500)
      return sendPage(
        reply,
        status === 413 || status === 415 ? status : 400,
        errorPage('Invalid request', 'The request is malformed.'),
      );
    req.log.error({ err }, 'oauth page failed');
    return sendPage(
      reply,
      500,
      errorPage('Something went wrong', 'Something went wrong on our side; try again later.'),
    );
  });

  registerMetadata(app, services);
  registerAuthorizeRoutes(app, services);
  registerTokenEndpoints(app, services);
}
