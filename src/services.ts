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

export function connectRedis(url: string, opts: { forWorker?: boolean } = {}): Redis {
  return new Redis(url, {
    // BullMQ workers need blocking commands to wait forever (STACK.md).
    maxRetriesPerRequest: opts.forWorker ? null : 2,
    // A request must not hang on a Redis that is down or stuck: everything the API asks of
    // Redis (rate limits, attempt counters, pub/sub, queue adds) fails open or reports its
    // own error, so a command gives up after 2 s instead of waiting through reconnects.
    // Workers block on purpose and keep no limit.
    ...(opts.forWorker ? {} : { commandTimeout: 2000 }),
    enableOfflineQueue: true,
    lazyConnect: false,
  });
}

export async function createServices(
  config: Config,
  opts: { logger?: Logger; dbs?: Databases; migrate?: boolean } = {},
): Promise<Services> {
  const logger = opts.logger ?? createLogger(config.LOG_LEVEL);
  const dbs = opts.dbs ?? (await openDatabases(config));
  if (opts.migrate) {
    const applied = await dbs.migrate();
    if (applied.live.length || applied.test.length) logger.info({ applied }, 'migrations applied');
  }
  const redis = config.REDIS_URL ? connectRedis(config.REDIS_URL) : null;
  redis?.on('error', (err) => logger.warn({ err: { message: err.message } }, 'redis error'));
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
