// Errors of the OAuth endpoints in the format of their RFCs (docs/api.md: "the OAuth endpoints
// answer in the formats of their RFCs, which stock OAuth clients require"): RFC 6749 §5.2
// `{ error, error_description }` JSON, never the /api/v1 envelope, never cached.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isAppError } from '../../errors.js';
import { CONTROL_CHARS } from './authorize-request.js';

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'unsupported_token_type'
  | 'server_error';

export class OAuthProblem extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status = error === 'invalid_client' ? 401 : error === 'server_error' ? 500 : 400,
    readonly headers?: Record<string, string>,
  ) {
    super(description);
    this.name = 'OAuthProblem';
  }
}

export function sendOAuthError(reply: FastifyReply, p: OAuthProblem): FastifyReply {
  if (p.headers) reply.headers(p.headers);
  return reply
    .status(p.status)
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .type('application/json; charset=utf-8')
    .send({ error: p.error, error_description: p.description });
}

/** Any error on a JSON OAuth endpoint as RFC 6749 JSON; unknown ones are logged, not shown. */
export function toOAuthProblem(req: FastifyRequest, err: unknown): OAuthProblem {
  if (err instanceof OAuthProblem) return err;
  if (isAppError(err)) {
    if (err.code === 'RATE_LIMITED') return new OAuthProblem('invalid_request', err.message, 429, err.headers);
    if (err.status < 500) return new OAuthProblem('invalid_request', err.message, err.status, err.headers);
  }
  const status = (err as { statusCode?: number })?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const msg =
      status === 415
        ? 'Send the body as application/x-www-form-urlencoded'
        : status === 413
          ? 'The body is too large'
          : 'The request is malformed';
    return new OAuthProblem('invalid_request', msg, status === 413 || status === 415 ? status : 400);
  }
  req.log.error({ err }, 'oauth endpoint failed');
  return new OAuthProblem('server_error', 'Something went wrong on our side; retry later', 500);
}

/**
 * The form's parameters as single strings. RFC 6749 §3.1/§3.2: "Request and response
 * parameters MUST NOT be included more than once" — a repeated one is invalid_request.
 */
export function singleParams(body: unknown): Record<string, string> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body))
    throw new OAuthProblem('invalid_request', 'Send the parameters as an application/x-www-form-urlencoded form');
  const out = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if (Array.isArray(v)) throw new OAuthProblem('invalid_request', `The parameter ${k} is repeated`);
    if (typeof v !== 'string') throw new OAuthProblem('invalid_request', `The parameter ${k} is malformed`);
    // No parameter of these endpoints allows one (RFC 6749 Appendix A), and PostgreSQL refuses NUL.
    if (CONTROL_CHARS.test(v))
      throw new OAuthProblem('invalid_request', `The parameter ${k.slice(0, 64)} contains a control character`);
    // RFC 6749 §3.1: parameters sent without a value are treated as omitted.
    if (v !== '') out[k] = v;
  }
  return out;
}

export function requireFormBody(req: FastifyRequest): void {
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new OAuthProblem('invalid_request', 'Send the body as application/x-www-form-urlencoded');
  }
}
