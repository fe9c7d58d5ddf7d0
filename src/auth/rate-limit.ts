// 100 requests per credential in each fixed one-second window, shared by every instance through
// Redis; 20 per IP for requests without a valid credential (docs/api.md). RateLimit-* headers on
// every response, Retry-After on 429s.
import { createRequire } from 'node:module';
import rateLimit, { type FastifyRateLimitStore } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { Services } from '../services.js';

const LIMITED = /^\/(api|graphql|oauth)(\/|$|\?)/;
// The customer's manage links: no credential, so a per-IP bucket of their own with the
// unauthenticated limit (docs/api.md, Rate limits).
const MANAGE_LINK = /^\/b(\/|$|\?)/;

type Counter = { current: number; ttl: number };
type IncrCallback = (error: Error | null, result?: Counter) => void;
interface LocalStoreInstance {
  incr(key: string, cb: IncrCallback, timeWindow: number, max: number): void;
}
const LocalStore = createRequire(import.meta.url)('@fastify/rate-limit/store/LocalStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  cacheSize?: number,
) => LocalStoreInstance;

/**
 * The plugin's in-memory store hands every caller the same mutable counter object, and the
 * plugin reads it only after an `await`: concurrent requests of one key all saw the final count
 * of the burst, so a burst of 130 requests was refused whole instead of 100 served and 30
 * refused (test/auth/rate-limit.test.ts). Answering with a snapshot fixes that; the
 * counting itself (fixed windows per key, LRU of keys) stays the library's.
 */
class SnapshotLocalStore implements FastifyRateLimitStore {
  private readonly inner: LocalStoreInstance;

  constructor(opts: { continueExceeding?: boolean; exponentialBackoff?: boolean } = {}) {
    this.inner = new LocalStore(opts.continueExceeding ?? false, opts.exponentialBackoff ?? false, 20_000);
  }

  incr(key: string, cb: IncrCallback, timeWindow: number, max: number): void {
    this.inner.incr(key, (err, res) => cb(err, res && { current: res.current, ttl: res.ttl }), timeWindow, max);
  }

  /** A route with its own `config.rateLimit` gets its own counters, with its own options. */
  child(routeOptions: Parameters<FastifyRateLimitStore['child']>[0]): FastifyRateLimitStore {
    return new SnapshotLocalStore(routeOptions as { continueExceeding?: boolean; exponentialBackoff?: boolean });
  }
}

/**
 * Whose budget an API request spends: an API key's own; an OAuth access token's grant's, so
 * that refreshing for more access tokens does not multiply a client's budget (every token of
 * one grant shares it); the IP's without a valid credential.
 */
export function rateLimitKey(req: FastifyRequest): string {
  const c = req.credential;
  if (!c) return `ip:${req.ip}`;
  return c.grantId ? `g:${c.grantId}` : `c:${c.id}`;
}

export async function registerRateLimit(app: FastifyInstance, services: Services): Promise<void> {
  const { config, redis } = services;
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    timeWindow: 1000,
    // docs/api.md: "Every response carries RateLimit-*", so every path is counted. Pages and
    // operational endpoints (admin, docs, health, metrics) have a per-IP bucket of their own
    // with the per-credential limit: browsing never eats into the API's budgets.
    max: async (req: FastifyRequest) =>
      MANAGE_LINK.test(req.url)
        ? config.RATE_LIMIT_UNAUTHENTICATED_PER_SECOND
        : !LIMITED.test(req.url) || req.credential
          ? config.RATE_LIMIT_PER_SECOND
          : config.RATE_LIMIT_UNAUTHENTICATED_PER_SECOND,
    keyGenerator: (req: FastifyRequest) =>
      MANAGE_LINK.test(req.url) ? `ml:${req.ip}` : !LIMITED.test(req.url) ? `web:${req.ip}` : rateLimitKey(req),
    ...(redis ? { redis, nameSpace: `${config.REDIS_PREFIX}rl:` } : { store: SnapshotLocalStore }),
    // If Redis is unreachable, serve rather than fail every request; readiness reports it.
    skipOnError: true,
    enableDraftSpec: true,
    addHeaders: { 'ratelimit-limit': true, 'ratelimit-remaining': true, 'ratelimit-reset': true, 'retry-after': true },
    addHeadersOnExceeding: { 'ratelimit-limit': true, 'ratelimit-remaining': true, 'ratelimit-reset': true },
    errorResponseBuilder: (_req, ctx) =>
      new AppError(
        'RATE_LIMITED',
        `Rate limit of ${ctx.max} requests per second exceeded; retry after ${Math.ceil(ctx.ttl / 1000)} s with exponential backoff`,
        {
          headers: { 'retry-after': String(Math.max(1, Math.ceil(ctx.ttl / 1000))) },
        },
      ),
  });
}
