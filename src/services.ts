// The process's long-lived dependencies, built once and handed to the HTTP app, the CLI and
// the workers. With REDIS_URL, everything instances must share (rate limits, revocations,
// queues) goes through Redis; without it, in-process stand-ins serve one process.
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { CredentialResolver } from './auth/credentials.js';
import { localBus, redisBus, type Bus } from './bus.js';
import type { Config } from './config.js';
import { openDatabases, type Databases } from './db/databases.js';
import { createLogger } from './logger.js';

export interface Services {
  config: Config;
  logger: Logger;
  dbs: Databases;
  redis: Redis | null;
  bus: Bus;
  credentials: CredentialResolver;
  /** The clock of time-limited records (OAuth codes, sessions); tests replace it. Date.now when unset. */
  now?: () => number;
  close(): Promise<void>;
}

/**
 * `forWorker`: BullMQ workers block on purpose (BZPOPMIN waits up to a few seconds for the
 * next job), so their commands have no time limit, which would cut that wait short, and are
 * retried across reconnects (BullMQ requires `maxRetriesPerRequest: null`). A stopped Redis
 * only pauses them, and they carry on when it continues; a blocking read that outlives its
 * own timeout by a second is abandoned and its connection remade by BullMQ itself.
 * `failFast`: the API's own connection. A request must not hang on a Redis that is down or
 * stuck, and everything it asks of Redis (rate limits, attempt counters, pub/sub) fails open
 * or reports its own error: so while disconnected a command fails at once instead of queueing
 * through reconnects.
 * Every connection but a worker's gives a command `commandTimeoutMs` (REDIS_COMMAND_TIMEOUT_MS)
 * for its answer, and drops a connection that has heard nothing for that long while a command
 * waits (`socketTimeout`): a stopped Redis keeps its sockets open and never fails a command, so
 * without this every later command would queue behind the first. The reconnect that follows
 * is bounded the same way (its handshake is a command), and while it lasts the fail-fast
 * connection refuses commands at once.
 */
export function connectRedis(
  url: string,
  opts: { forWorker?: boolean; failFast?: boolean; commandTimeoutMs?: number } = {},
): Redis {
  const timeout = opts.commandTimeoutMs ?? 2000;
  return new Redis(url, {
    maxRetriesPerRequest: opts.forWorker ? null : 2,
    ...(opts.forWorker ? {} : { commandTimeout: timeout, socketTimeout: timeout }),
    // A TCP connect that gets no answer (a host gone, packets dropped) is given up and retried.
    connectTimeout: Math.max(timeout, 1000),
    // Finds a connection to a host that went away without a word; idle ones included.
    keepAlive: 10_000,
    enableOfflineQueue: !opts.failFast,
    lazyConnect: false,
  });
}

/** Resolves once `redis` is ready, or after `ms` (false): the process then starts without it. */
function readyWithin(redis: Redis, ms: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ok);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    redis.on('ready', onReady);
  });
}

export async function createServices(
  config: Config,
  opts: { logger?: Logger; dbs?: Databases; migrate?: boolean; holder?: string } = {},
): Promise<Services> {
  const logger = opts.logger ?? createLogger(config.LOG_LEVEL);
  const dbs = opts.dbs ?? (await openDatabases(config, { holder: opts.holder }));
  if (opts.migrate) {
    const applied = await dbs.migrate();
    // One short line, not every name: a first start applies all of them (`svc migrate` lists them).
    if (applied.live.length || applied.test.length) {
      const latest = [...applied.live, ...applied.test].sort().at(-1);
      logger.info(
        { migrations: { live: applied.live.length, sandbox: applied.test.length, latest } },
        `migrations applied: ${applied.live.length} live, ${applied.test.length} sandbox, up to ${latest}`,
      );
    }
  }
  const redis = config.REDIS_URL
    ? connectRedis(config.REDIS_URL, { failFast: true, commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS })
    : null;
  // Once per outage, not once per reconnect attempt.
  let redisDown = false;
  redis?.on('error', (err) => {
    if (!redisDown) logger.warn({ err: { message: err.message } }, 'redis error; reconnecting until it is back');
    redisDown = true;
  });
  redis?.on('ready', () => {
    if (redisDown) logger.info('redis reconnected');
    redisDown = false;
  });
  // Commands fail while disconnected, so give the first connection a moment; a Redis that is
  // down does not stop the start: /readyz reports it, limits fail open, and everything
  // (pub/sub subscriptions included, bus.ts) connects when it is back.
  if (redis && !(await readyWithin(redis, 5000))) {
    logger.warn('Redis is unreachable: serving without it (rate limits fail open, /readyz is 503) until it is back');
  }
  const bus = redis ? redisBus(redis, config.REDIS_PREFIX) : localBus();
  const credentials = new CredentialResolver(dbs, bus, { ttlMs: config.CREDENTIAL_CACHE_TTL_SECONDS * 1000, logger });
  await credentials.start();
  return {
    config,
    logger,
    dbs,
    redis,
    bus,
    credentials,
    async close() {
      await credentials.stop();
      await bus.close();
      redis?.disconnect();
      if (!opts.dbs) await dbs.close();
    },
  };
}
