// Counts attempts (password logins, client authentications) per key in fixed windows and
// refuses an attempt once one of its keys is over its limit (docs/oauth.md: "Repeated failed client
// authentication is rate limited"; issue 4: login attempts rate limited).
//
// An attempt is counted *before* it is judged, atomically (one Lua script in Redis, synchronous
// code in memory): checking first and counting after the slow password check let a burst of
// parallel guesses all pass the check while the first ones were still hashing. The caller then
// takes the count back when the attempt should not count (a success, for the keys that only
// count failures). A refused attempt counts nowhere.
//
// Windows are judged with the injectable clock (services.now), also in Redis, so tests can let a
// window pass; Redis' own TTL only removes keys once their window is over. With Redis the
// counters are shared by every instance — an attacker spreading guesses over instances gains
// nothing; without it they live in this process, which is then the only one.
import type { Redis } from 'ioredis';

export interface Bucket {
  /** Attempts allowed per key within one window; the next one is refused. */
  max: number;
  windowMs: number;
}

export interface AttemptLimiterOptions<B extends string> {
  buckets: Record<B, Bucket>;
  now?: () => number;
  onError?: (err: Error) => void;
}

/** One key per bucket (an e-mail, an IP, a client and IP); absent buckets are not touched. */
export type AttemptKeys<B extends string> = Partial<Record<B, string>>;

export interface AttemptLimiter<B extends string> {
  /**
   * Counts one attempt against each key. Returns 0 when the attempt may go ahead, else the
   * seconds until the most exhausted key accepts attempts again (the attempt is then not counted).
   */
  hit(keys: AttemptKeys<B>): Promise<number>;
  /** Takes back one attempt counted by hit (e.g. it succeeded and only failures count). */
  undo(keys: AttemptKeys<B>): Promise<void>;
  /** Forgets these keys' counts (e.g. a successful login clears its e-mail's failures). */
  reset(keys: AttemptKeys<B>): Promise<void>;
}

const MAX_MEMORY_KEYS = 100_000;

type Rule = { key: string; bucket: Bucket };

function rulesOf<B extends string>(buckets: Record<B, Bucket>, keys: AttemptKeys<B>): Rule[] {
  const out: Rule[] = [];
  for (const [name, value] of Object.entries(keys) as Array<[B, string | undefined]>) {
    if (value !== undefined) out.push({ key: `${name}:${value}`, bucket: buckets[name] });
  }
  return out;
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

function memoryLimiter<B extends string>(opts: AttemptLimiterOptions<B>): AttemptLimiter<B> {
  const now = opts.now ?? Date.now;
  const counts = new Map<string, { count: number; resetAt: number }>();
  const live = (key: string, at: number) => {
    const e = counts.get(key);
    if (e && e.resetAt <= at) {
      counts.delete(key);
      return undefined;
    }
    return e;
  };
  const make = (key: string, at: number, windowMs: number) => {
    if (counts.size >= MAX_MEMORY_KEYS) {
      for (const [k, v] of counts) if (v.resetAt <= at) counts.delete(k);
      if (counts.size >= MAX_MEMORY_KEYS) counts.delete(counts.keys().next().value!);
    }
    const e = { count: 0, resetAt: at + windowMs };
    counts.set(key, e);
    return e;
  };
  return {
    // No await between counting and deciding: concurrent attempts are serialised here.
    async hit(keys) {
      const at = now();
      const rules = rulesOf(opts.buckets, keys);
      const entries = rules.map((r) => live(r.key, at) ?? make(r.key, at, r.bucket.windowMs));
      let waitMs = 0;
      entries.forEach((e, i) => {
        e.count++;
        if (e.count > rules[i]!.bucket.max) waitMs = Math.max(waitMs, e.resetAt - at);
      });
      if (waitMs > 0) for (const e of entries) e.count--;
      return waitMs > 0 ? seconds(waitMs) : 0;
    },
    async undo(keys) {
      const at = now();
      for (const r of rulesOf(opts.buckets, keys)) {
        const e = live(r.key, at);
        if (e && e.count > 0) e.count--;
      }
    },
    async reset(keys) {
      for (const r of rulesOf(opts.buckets, keys)) counts.delete(r.key);
    },
  };
}

// KEYS: the counters (hashes n = count, r = window end in ms). ARGV: now, then max and window
// per key. Counts the attempt on every key; if one is over its limit, takes them all back and
// returns the milliseconds until that key's window ends, else 0.
const HIT = `
local now = tonumber(ARGV[1])
local wait = 0
for i, key in ipairs(KEYS) do
  local max = tonumber(ARGV[2 * i])
  local window = tonumber(ARGV[2 * i + 1])
  local v = redis.call('HMGET', key, 'n', 'r')
  local n = tonumber(v[1])
  local r = tonumber(v[2])
  if (not n) or (not r) or r <= now then
    n = 0
    r = now + window
  end
  n = n + 1
  redis.call('HSET', key, 'n', n, 'r', r)
  redis.call('PEXPIRE', key, r - now)
  if n > max and r - now > wait then wait = r - now end
end
if wait > 0 then
  for _, key in ipairs(KEYS) do redis.call('HINCRBY', key, 'n', -1) end
end
return wait
`;

const UNDO = `
for _, key in ipairs(KEYS) do
  local n = tonumber(redis.call('HGET', key, 'n'))
  if n and n > 0 then redis.call('HINCRBY', key, 'n', -1) end
end
return 0
`;

function redisLimiter<B extends string>(
  redis: Redis,
  prefix: string,
  opts: AttemptLimiterOptions<B>,
): AttemptLimiter<B> {
  const now = opts.now ?? Date.now;
  return {
    async hit(keys) {
      const rules = rulesOf(opts.buckets, keys);
      if (rules.length === 0) return 0;
      const args = rules.flatMap((r) => [r.bucket.max, r.bucket.windowMs]);
      const waitMs = Number(
        await redis.eval(HIT, rules.length, ...rules.map((r) => prefix + r.key), Math.floor(now()), ...args),
      );
      return waitMs > 0 ? seconds(waitMs) : 0;
    },
    async undo(keys) {
      const rules = rulesOf(opts.buckets, keys);
      if (rules.length) await redis.eval(UNDO, rules.length, ...rules.map((r) => prefix + r.key));
    },
    async reset(keys) {
      const rules = rulesOf(opts.buckets, keys);
      if (rules.length) await redis.del(...rules.map((r) => prefix + r.key));
    },
  };
}

/** Redis trouble fails open (as the request rate limiter does): readiness reports Redis down. */
function failOpen<B extends string>(inner: AttemptLimiter<B>, onError: (err: Error) => void): AttemptLimiter<B> {
  return {
    hit: (keys) => inner.hit(keys).catch((err: Error) => (onError(err), 0)),
    undo: (keys) => inner.undo(keys).catch(onError),
    reset: (keys) => inner.reset(keys).catch(onError),
  };
}

export function createAttemptLimiter<B extends string>(
  redis: Redis | null,
  prefix: string,
  opts: AttemptLimiterOptions<B>,
): AttemptLimiter<B> {
  return redis ? failOpen(redisLimiter(redis, prefix, opts), opts.onError ?? (() => undefined)) : memoryLimiter(opts);
}
