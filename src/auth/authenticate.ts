// Reads the bearer credential of a request (docs/api.md, Authentication). Never throws: the result is
// kept on the request, so the rate limiter can count failed attempts per IP before the 401 is
// given (docs/api.md: "keys cannot be guessed at speed").
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { Services } from '../services.js';
import type { Credential } from './credentials.js';

declare module 'fastify' {
  interface FastifyRequest {
    credential: Credential | null;
    authError: AppError | null;
  }
}

// RFC 6750 §2.1: the scheme is case-insensitive; one space-separated token of token68 chars.
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

function invalidToken(description: string): AppError {
  return new AppError('UNAUTHORIZED', description, {
    headers: { 'www-authenticate': `Bearer realm="api", error="invalid_token", error_description="${description}"` },
  });
}

export const missingCredential = () =>
  new AppError('UNAUTHORIZED', 'Send an API key or access token as Authorization: Bearer <credential>', {
    headers: { 'www-authenticate': 'Bearer realm="api"' },
  });

export async function authenticateRequest(req: FastifyRequest, services: Services): Promise<void> {
  req.credential = null;
  req.authError = null;
  const header = req.headers.authorization;
  if (header === undefined || header === '') {
    req.authError = missingCredential();
    return;
  }
  const m = BEARER.exec(header);
  if (!m) {
    req.authError = invalidToken('The Authorization header must use the Bearer scheme with one credential');
    return;
  }
  const credential = await services.credentials.resolve(m[1]!);
  if (!credential) {
    req.authError = invalidToken('The credential is unknown, malformed, revoked or expired');
    return;
  }
  req.credential = credential;
}

export function requireCredential(req: FastifyRequest): Credential {
  if (req.credential) return req.credential;
  throw req.authError ?? missingCredential();
}

/**
 * The error of a credential that was sent but refused (malformed, unknown, revoked, expired):
 * 401 with `WWW-Authenticate: Bearer error="invalid_token"` on every surface. Null when the
 * request is authenticated or sent no credential at all.
 */
export function refusedCredential(req: FastifyRequest): AppError | null {
  return !req.credential && req.authError && req.headers.authorization ? req.authError : null;
}
