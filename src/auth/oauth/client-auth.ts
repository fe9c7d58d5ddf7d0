// Client authentication at the token, revocation and introspection endpoints (RFC 6749
// §2.3.1): client_secret_basic — whose id and secret are form-url-encoded before base64, so
// they are decoded here (the library does not) — or client_secret_post, never both; public
// clients send only client_id. Attempts on confidential clients are counted per client and IP
// and per IP, and refused with 429 beyond the limits before the secret is even compared
// (docs/oauth.md); a success takes its count back.
import type { FastifyRequest } from 'fastify';
import type { OAuthClient } from '../../generated/prisma/client.js';
import type { Services } from '../../services.js';
import { createAttemptLimiter, type AttemptLimiter } from '../attempt-limiter.js';
import { nowOf, sameSecret } from '../sessions.js';
import { hashToken } from '../tokens.js';
import { OAuthProblem } from './oauth-errors.js';

/**
 * Failed authentications of confidential (and unknown) clients: per client and IP (guessing
 * one client's secret) and per IP (spraying many clients). Never per client alone: client ids
 * are public, and anyone could otherwise lock a client out of its own token endpoint.
 */
export const CLIENT_AUTH_LIMITS = {
  perClientAndIp: { max: 10, windowMs: 5 * 60 * 1000 },
  perIp: { max: 50, windowMs: 5 * 60 * 1000 },
} as const;

export interface ClientCredentials {
  clientId: string;
  clientSecret?: string;
  method: 'client_secret_basic' | 'client_secret_post' | 'none';
}

const VSCHAR = /^[\x20-\x7e]+$/;

function formDecode(s: string): string {
  return decodeURIComponent(s.replace(/\+/g, ' '));
}

/** Reads the client's credentials from the Authorization header or the form (not both). */
export function readClientCredentials(req: FastifyRequest, body: Record<string, string>): ClientCredentials {
  const header = req.headers.authorization;
  if (header !== undefined) {
    const m = /^basic +([A-Za-z0-9+/]+=*) *$/i.exec(header);
    if (!m)
      throw new OAuthProblem(
        'invalid_client',
        'The Authorization header must be HTTP Basic with the client id and secret',
        401,
      );
    const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    let id: string;
    let secret: string;
    try {
      if (colon < 0) throw new Error('no colon');
      id = formDecode(decoded.slice(0, colon));
      secret = formDecode(decoded.slice(colon + 1));
    } catch {
      throw new OAuthProblem('invalid_client', 'The Basic credentials are not form-url-encoded id:secret', 401);
    }
    if (body.client_secret !== undefined) {
      throw new OAuthProblem(
        'invalid_request',
        'Use one client authentication method: Basic or client_secret in the form, not both',
      );
    }
    if (body.client_id !== undefined && body.client_id !== id) {
      throw new OAuthProblem('invalid_request', 'client_id in the form differs from the Basic credentials');
    }
    if (!id || !VSCHAR.test(id) || !VSCHAR.test(secret))
      throw new OAuthProblem('invalid_client', 'Client authentication failed', 401);
    return { clientId: id, clientSecret: secret, method: 'client_secret_basic' };
  }
  if (!body.client_id)
    throw new OAuthProblem(
      'invalid_client',
      'Client authentication is required: send client_id (and client_secret for a confidential client)',
      401,
    );
  if (!VSCHAR.test(body.client_id)) throw new OAuthProblem('invalid_client', 'Client authentication failed', 401);
  if (body.client_secret !== undefined)
    return { clientId: body.client_id, clientSecret: body.client_secret, method: 'client_secret_post' };
  return { clientId: body.client_id, method: 'none' };
}

export class ClientAuthenticator {
  private readonly limiter: AttemptLimiter<'clientIp' | 'ip'>;

  constructor(private readonly services: Services) {
    const { redis, config, logger } = services;
    this.limiter = createAttemptLimiter(redis, `${config.REDIS_PREFIX}oauth:client-auth:`, {
      buckets: { clientIp: CLIENT_AUTH_LIMITS.perClientAndIp, ip: CLIENT_AUTH_LIMITS.perIp },
      now: () => nowOf(services),
      onError: (err: Error) => logger.warn({ err: { message: err.message } }, 'client auth limiter: redis unavailable'),
    });
  }

  /**
   * The client these credentials prove, or null: a confidential client must present its
   * secret, a public client must present none (it cannot keep one).
   */
  verify(client: OAuthClient | null, creds: { clientSecret?: string }): OAuthClient | null {
    if (!client) return null;
    if (client.type === 'public') return creds.clientSecret === undefined ? client : null;
    if (creds.clientSecret === undefined || !client.secretHash) return null;
    return sameSecret(client.secretHash, hashToken(creds.clientSecret)) ? client : null;
  }

  /** Reads, rate-limits and verifies a request's client. */
  async authenticate(
    req: FastifyRequest,
    body: Record<string, string>,
  ): Promise<{ client: OAuthClient; creds: ClientCredentials }> {
    const creds = readClientCredentials(req, body);
    const failed = () =>
      new OAuthProblem(
        'invalid_client',
        'Client authentication failed',
        401,
        creds.method === 'client_secret_basic' ? { 'www-authenticate': 'Basic realm="oauth"' } : undefined,
      );
    const found =
      creds.clientId.length <= 200
        ? await this.services.dbs.live.prisma.oAuthClient.findUnique({ where: { clientId: creds.clientId } })
        : null;
    // A public client has no secret to guess: nothing is counted, nothing is refused.
    if (found?.type === 'public') {
      const client = this.verify(found, creds);
      if (!client) throw failed();
      return { client, creds };
    }
    // Counted before the secret is compared (parallel guesses cannot slip through), per
    // client and IP and per IP: the attacker's address is refused, the client itself is not.
    // An unknown client id counts against the IP only (it has no secret to find).
    const keys = found ? { clientIp: `${found.clientId}|${req.ip}`, ip: req.ip } : { ip: req.ip };
    const wait = await this.limiter.hit(keys);
    if (wait > 0) {
      throw new OAuthProblem('invalid_client', `Too many failed client authentications; retry after ${wait} s`, 429, {
        'retry-after': String(wait),
      });
    }
    const client = this.verify(found, creds);
    if (!client) throw failed();
    // Only failures count: a success takes its attempt back (not the failures before it).
    await this.limiter.undo(keys);
    return { client, creds };
  }
}
