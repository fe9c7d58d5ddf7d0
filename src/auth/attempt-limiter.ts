// Counts failed attempts (wrong password, wrong client secret) per key in a fixed window and
// refuses further attempts once a key has too many (API.md §7: "Repeated failed client
// authentication is rate limited"; issue 4: login attempts rate limited). With Redis the
// counters are shared by every instance — an attacker spreading guesses over instances gains
// nothing; without it they live in this process, which is then the only one.
import type { Redis } from 'ioredis';

export interface AttemptLimiterOptions {
  /** Failures allowed per key within one window; the next attempt is refused. */
  max: number;
  windowMs: number;
  now?: () => number;
}

export interface AttemptLimiter {
  /** Seconds until the most exhausted of these keys accepts attempts again; 0 when none is. */
  retryAfter(keys: string[]): Promise<number>;
  fail(keys: string[]): Promise<void>;
  reset(keys: string[]): Promise<void>;
}

const MAX_MEMORY_KEYS = 100_000;

function memoryLimiter(opts: AttemptLimiterOptions): AttemptLimiter {
  const now = opts.now ?? Date.now;
  const counts = new Map<string, { count: number; resetAt: number }>();
  const live = (key: string) => {
    const e = counts.get(key);
    if (e && e.resetAt <= now()) {
      counts.delete(key);
      return undefined;
    }
    return e;
  };
  return {
    async retryAfter(keys) {
      let wait = 0;
      for (const k of keys) {
        const e = live(k);
        if (e && e.count >= opts.max) wait = Math.max(wait, Math.ceil((e.resetAt - now()) / 1000));
      }
      return wait;
    },
    async fail(keys) {
      for (const k of keys) {
        const e = live(k);
        if (e) e.count++;
        else {
          if (counts.size >= MAX_MEMORY_KEYS) {
            for (const [key, v] of counts) if (v.resetAt <= now()) counts.delete(key);
            if (counts.size >= MAX_MEMORY_KEYS) counts.delete(counts.keys().next().value!);
          }
          counts.set(k, { count: 1, resetAt: now() + opts.windowMs });
        }
      }
    },
    async reset(keys) {
      for (const k of keys) counts.delete(k);
    },
  };
}

function redisLimiter(redis: Redis, prefix: string, opts: AttemptLimiterOptions): AttemptLimiter {
  const key = (k: string) => `${prefix}${k}`;
  return {
    async retryAfter(keys) {
      if (keys.length === 0) return 0;
      const m = redis.multi();
      for (const k of keys) m.get(key(k)).pttl(key(k));
      const results = (await m.exec()) ?? [];
      let wait = 0;
      for (let i = 0; i < keys.length; i++) {
        const count = Number(results[2 * i]?.[1] ?? 0);
        const ttl = Number(results[2 * i + 1]?.[1] ?? -2);
        if (count >= opts.max) wait = Math.max(wait, ttl > 0 ? Math.ceil(ttl / 1000) : 1);
      }
      return wait;
    },
    async fail(keys) {
      const m = redis.multi();
      // The window starts at the first failure; PEXPIRE NX never extends it (Redis 7).
      for (const k of keys) m.incr(key(k)).pexpire(key(k), opts.windowMs, 'NX');
      await m.exec();
    },
    async reset(keys) {
      if (keys.length) await redis.del(...keys.map(key));
    },
  };
}

/** Redis trouble fails open (as the request rate limiter does): readiness reports Redis down. */
function failOpen(inner: AttemptLimiter, onError: (err: Error) => void): AttemptLimiter {
  return {
    retryAfter: (keys) => inner.retryAfter(keys).catch((err) => (onError(err), 0)),
    fail: (keys) => inner.fail(keys).catch(onError),
    reset: (keys) => inner.reset(keys).catch(onError),
  };
}

export function createAttemptLimiter(
  redis: Redis | null,
  prefix: string,
  opts: AttemptLimiterOptions & { onError?: (err: Error) => void },
): AttemptLimiter {
  return redis ? failOpen(redisLimiter(redis, prefix, opts), opts.onError ?? (() => undefined)) : memoryLimiter(opts);
}
