// What the two stand-alone benchmarks (bench/webhook-latency.ts, bench/reminder-burst.ts) share:
// a PostgreSQL database of their own, dropped and created afresh; the real app in this process
// on it and Redis, with an account, its sandbox key and a way to call /api/v1; and `svc worker`
// processes on the same database and Redis.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabases } from '../src/db/databases.js';
import { createServices } from '../src/services.js';
import { createAccountWithKeys } from '../test/helpers/factories.js';
import { spawnWorkerProcess } from './setup.js';

/** An employee's working hours: every day, all day. */
export const ALL_DAY = Object.fromEntries(
  ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [
    d,
    [{ start: '00:00', end: '24:00' }],
  ]),
);

export async function startInProcessApp(o: {
  url: string;
  redisUrl: string;
  prefixTag: string;
  /** Configuration over the defaults below (a benchmark of CPU runs what production runs). */
  env?: Record<string, string>;
}) {
  const dbName = new URL(o.url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: o.url.replace(/\/[^/]*$/, '/postgres') });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${dbName}`);

  const prefix = `${o.prefixTag}${randomBytes(3).toString('hex')}:`;
  const config = loadConfig({
    DATABASE_URL: o.url,
    REDIS_URL: o.redisUrl,
    REDIS_PREFIX: prefix,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'test',
    RATE_LIMIT_PER_SECOND: '100000',
    ...o.env,
  });
  const dbs = await openDatabases(config);
  await dbs.migrate();
  const services = await createServices(config, { dbs });
  const app = await buildApp(services);
  const w = await createAccountWithKeys(dbs);
  const auth = { authorization: `Bearer ${w.testKey.key}` };
  /** One /api/v1 call with the sandbox key; its `data`, or the run fails. */
  const call = async <T = { _id: string }>(method: string, path: string, payload?: object): Promise<T> => {
    const res = await app.inject({ method: method as 'POST', url: `/api/v1${path}`, headers: auth, payload });
    if (res.statusCode !== 200) throw new Error(`${method} ${path}: ${res.body}`);
    return res.json<{ data: T }>().data;
  };
  /** `svc worker` processes on this database and Redis (the compiled CLI in dist/). */
  const startWorkerProcesses = (n: number): ChildProcess[] =>
    Array.from({ length: n }, () =>
      spawnWorkerProcess({ databaseUrl: o.url, redisUrl: o.redisUrl, redisPrefix: prefix }),
    );
  return {
    config,
    dbs,
    services,
    app,
    w,
    call,
    startWorkerProcesses,
    /** Closes the app and the connections, and drops the database. */
    close: async () => {
      await app.close();
      await services.close();
      await dbs.close();
      await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await admin.end();
    },
  };
}
