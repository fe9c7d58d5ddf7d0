// Client authentication at the token, revocation and introspection endpoints (RFC 6749
// §2.3.1): client_secret_basic — whose id and secret are form-url-encoded before base64, so
// they are decoded here (the library does not) — or client_secret_post, never both; public
// clients send only client_id. Failures are counted per client_id and per IP, and a client or
// IP with too many is refused with 429 before its secret is even compared (API.md §7).
import type { FastifyRequest } from 'fastify';
import type { OAuthClient } from '../../generated/prisma/client.js';
import type { Services } from '../../services.js';
import { createAttemptLimiter, type AttemptLimiter } from '../attempt-limiter.js';
import { nowOf, sameSecret } from '../sessions.js';
import { hashToken } from '../tokens.js';
import { OAuthProblem } from './oauth-errors.js';

export const CLIENT_AUTH_LIMITS = {
  perClient: { max: 10, windowMs: 5 * 60 * 1000 },
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
    if (!m) throw new OAuthProblem('invalid_client', 'The Authorization header must be HTTP Basic with the client id and secret', 401);
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
      throw new OAuthProblem('invalid_request', 'Use one client authentication method: Basic or client_secret in the form, not both');
    }
    if (body.client_id !== undefined && body.client_id !== id) {
      throw new OAuthProblem('invalid_request', 'client_id in the form differs from the Basic credentials');
    }
    if (!id || !VSCHAR.test(id) || !VSCHAR.test(secret)) throw new OAuthProblem('invalid_client', 'Client authentication failed', 401);
    return { clientId: id, clientSecret: secret, method: 'client_secret_basic' };
  }
  if (!body.client_id) throw new OAuthProblem('invalid_client', 'Client authentication is required: send client_id (and client_secret for a confidential client)', 401);
  if (!VSCHAR.test(body.client_id)) throw new OAuthProblem('invalid_client', 'Client authentication failed', 401);
  if (body.client_secret !== undefined) return { clientId: body.client_id, clientSecret: body.client_secret, method: 'client_secret_post' };
  return { clientId: body.client_id, method: 'none' };
}

export class ClientAuthenticator {
  private readonly perClient: AttemptLimiter;
  private readonly perIp: AttemptLimiter;

  constructor(private readonly services: Services) {
    const { redis, config, logger } = services;
    const onError = (err: Error) => logger.warn({ err: { message: err.message } }, 'client auth limiter: redis unavailable');
    const now = () => nowOf(services);
    this.perClient = createAttemptLimiter(redis, `${config.REDIS_PREFIX}oauth:client-fail:`, { ...CLIENT_AUTH_LIMITS.perClient, now, onError });
    this.perIp = createAttemptLimiter(redis, `${config.REDIS_PREFIX}oauth:ip-fail:`, { ...CLIENT_AUTH_LIMITS.perIp, now, onError });
  }

  /** Throws 429 when this client id or this IP has failed too often. */
  async refuseIfLimited(clientId: string, ip: string): Promise<void> {
    const wait = Math.max(await this.perClient.retryAfter([clientId]), await this.perIp.retryAfter([ip]));
    if (wait > 0) {
      throw new OAuthProblem('invalid_client', `Too many failed client authentications; retry after ${wait} s`, 429, {
        'retry-after': String(wait),
      });
    }
  }

  async recordFailure(clientId: string, ip: string): Promise<void> {
    await Promise.all([this.perClient.fail([clientId]), this.perIp.fail([ip])]);
  }

  /**
   * The client these credentials prove, or null: a confidential client must present its
   * secret, a public client must present none (it cannot keep one).
   */
  async verify(creds: { clientId: string; clientSecret?: string }): Promise<OAuthClient | null> {
    const client = await this.services.dbs.live.prisma.oAuthClient.findUnique({ where: { clientId: creds.clientId } });
    if (!client) return null;
    if (client.type === 'public') return creds.clientSecret === undefined ? client : null;
    if (creds.clientSecret === undefined || !client.secretHash) return null;
    return sameSecret(client.secretHash, hashToken(creds.clientSecret)) ? client : null;
  }

  /** Reads, rate-limits and verifies a request's client; counts a failure. */
  async authenticate(req: FastifyRequest, body: Record<string, string>): Promise<{ client: OAuthClient; creds: ClientCredentials }> {
    const creds = readClientCredentials(req, body);
    await this.refuseIfLimited(creds.clientId, req.ip);
    const client = await this.verify(creds);
    if (!client) {
      await this.recordFailure(creds.clientId, req.ip);
      throw new OAuthProblem('invalid_client', 'Client authentication failed', 401, creds.method === 'client_secret_basic' ? { 'www-authenticate': 'Basic realm="oauth"' } : undefined);
    }
    return { client, creds };
  }
}
