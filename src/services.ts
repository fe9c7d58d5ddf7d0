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
 * `forWorker`: BullMQ workers block on purpose, so their commands wait forever.
 * `failFast`: the API's own connection. A request must not hang on a Redis that is down or
 * stuck, and everything it asks of Redis (rate limits, attempt counters, pub/sub) fails open
 * or reports its own error: so while disconnected a command fails at once instead of queueing
 * through reconnects, and a command that gets no answer gives up after 2 s.
 */
export function connectRedis(url: string, opts: { forWorker?: boolean; failFast?: boolean } = {}): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: opts.forWorker ? null : 2,
    ...(opts.forWorker ? {} : { commandTimeout: 2000 }),
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
    if (applied.live.length || applied.test.length) logger.info({ applied }, 'migrations applied');
  }
  const redis = config.REDIS_URL ? connectRedis(config.REDIS_URL, { failFast: true }) : null;
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
