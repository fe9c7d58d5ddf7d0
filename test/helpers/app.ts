// Builds the real app over a test file's own databases (and, when REDIS_URL is set, the real
// Redis under a key prefix of the file's own). No component of ours is replaced.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Databases } from '../../src/db/databases.js';
import { createLogger } from '../../src/logger.js';
import { createServices, type Services } from '../../src/services.js';
import { createTestDatabases, embedded, type TestDatabases } from './db.js';

export interface TestApp {
  app: FastifyInstance;
  services: Services;
  dbs: Databases;
  config: Config;
  close(): Promise<void>;
}

/** Production refuses to start without SECRET_KEY; tests of production behaviour pass this one. */
export const TEST_SECRET_KEY = 'ab'.repeat(32);

export const redisUrl = () => (embedded() ? undefined : process.env.REDIS_URL);

export function testConfig(env: Record<string, string | undefined> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    REDIS_URL: redisUrl(),
    REDIS_PREFIX: `t${randomBytes(4).toString('hex')}:`,
    ...env,
  });
}

/** One app over a database of its own; pass `db` to share one between several instances. */
export async function createTestApp(
  opts: { env?: Record<string, string | undefined>; db?: TestDatabases; logger?: ReturnType<typeof createLogger> } = {},
): Promise<TestApp & { db: TestDatabases }> {
  const db = opts.db ?? (await createTestDatabases());
  const config = testConfig({ DATABASE_URL: db.url, ...opts.env });
  const services = await createServices(config, { dbs: db.dbs, ...(opts.logger ? { logger: opts.logger } : {}) });
  const app = await buildApp(services);
  await app.ready();
  return {
    app,
    services,
    dbs: db.dbs,
    config,
    db,
    async close() {
      await app.close();
      await services.close();
      if (!opts.db) await db.drop();
    },
  };
}

/** Listens on 127.0.0.1 (a free port, or `port`) and answers the origin. */
export async function listen(app: FastifyInstance, port = 0): Promise<string> {
  await app.listen({ host: '127.0.0.1', port });
  const address = app.server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : port}`;
}
