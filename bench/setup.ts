// What the benchmarks share: a database of their own, dropped and created afresh, so a run
// never measures the leftovers of the one before; the environment of a bench server; and the
// load generator (bench/load.ts) in a process of its own.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { LoadOptions, LoadResult } from './load.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');

/** Drops and creates the database `url` names (its name must be a plain identifier). */
export async function recreateDatabase(url: string): Promise<void> {
  const u = new URL(url);
  const name = u.pathname.slice(1);
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`the bench database has an odd name: ${name}`);
  u.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: u.toString() });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
}

/** `node [extra] --import tsx bench/<script>` as argv. */
export const nodeArgs = (script: string, extra: string[] = []) => [
  process.execPath,
  ...extra,
  '--import',
  'tsx',
  join(here, script),
];

/**
 * The environment of a bench server (bench/server.ts, or several through bench/cluster.ts):
 * production settings on a throwaway database and Redis prefix, workers off (webhook delivery
 * and the like have benchmarks of their own), and a limit that never says no.
 */
export function benchServerEnv(o: {
  databaseUrl: string;
  redisUrl: string;
  redisPrefix?: string;
  secretKey?: string;
  logLevel?: string;
}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL: o.databaseUrl,
    REDIS_URL: o.redisUrl,
    REDIS_PREFIX: o.redisPrefix ?? `bench${randomBytes(3).toString('hex')}:`,
    LOG_LEVEL: o.logLevel ?? 'warn',
    // One key drives the load: the limiter still makes its Redis round trip on every request,
    // it just never says no (the limit itself is tested, not benchmarked).
    RATE_LIMIT_PER_SECOND: '1000000000',
    // Production refuses to start without one; a throwaway key for a throwaway database.
    SECRET_KEY: o.secretKey ?? randomBytes(32).toString('hex'),
    RUN_WORKERS: 'false',
    SEED_DEMO: 'false',
  };
}

/**
 * One run of the load generator (bench/load.ts) in a process of its own; `prefix` runs it under
 * another command (taskset, to pin it to a core).
 */
export function runLoad(options: LoadOptions, prefix: string[] = []): Promise<LoadResult> {
  const [cmd, ...args] = [...prefix, ...nodeArgs('load.ts')];
  // Options go through stdin: a booking scenario's bodies are too long for argv.
  const child = spawn(cmd!, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.end(JSON.stringify(options));
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split('\n').pop()!) as LoadResult)
        : reject(new Error(`load generator exited with ${code}`)),
    );
  });
}

/**
 * One `svc worker` process (the compiled CLI in dist/, as deployed) on this database and Redis
 * prefix; `env` adds settings (a SECRET_KEY shared with the server that sealed the endpoints'
 * secrets, private webhook URLs), `prefix` runs it under another command (taskset).
 */
export function spawnWorkerProcess(
  o: { databaseUrl: string; redisUrl: string; redisPrefix: string; env?: Record<string, string> },
  prefix: string[] = [],
): ChildProcess {
  const [cmd, ...args] = [...prefix, process.execPath, join(root, 'dist', 'cli.js'), 'worker'];
  return spawn(cmd, args, {
    cwd: root,
    stdio: 'ignore',
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATABASE_URL: o.databaseUrl,
      REDIS_URL: o.redisUrl,
      REDIS_PREFIX: o.redisPrefix,
      LOG_LEVEL: 'warn',
      NODE_ENV: 'test',
      ...o.env,
    },
  });
}
