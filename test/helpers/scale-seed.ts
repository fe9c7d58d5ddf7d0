// A tiny `npm run bench:seed` data set (docs/performance.md, "The scale data set") in a database
// of its own, for the tests that need the seed's shape: the seed's own test and the query plans.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import pg from 'pg';

export interface SeededDatabase {
  url: string;
  /** Runs bench/seed.ts with a tiny set (21 companies, 3 000 bookings) on the database. */
  seed(): SpawnSyncReturns<string>;
  /** Drops the database. */
  drop(): Promise<void>;
}

/** A database named after `tag` and this process on the tests' server; not created until seed(). */
export function seededDatabase(tag: string): SeededDatabase {
  const base = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test');
  const name = `svc_${tag}_${process.pid}`;
  const url = new URL(base);
  url.pathname = `/${name}`;
  const admin = new URL(base);
  admin.pathname = '/postgres';
  return {
    url: url.toString(),
    seed: () =>
      spawnSync(
        process.execPath,
        ['--import', 'tsx', 'bench/seed.ts', '--companies', '21', '--bookings', '3000', '--database', url.toString()],
        { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
      ),
    async drop() {
      const c = new pg.Client({ connectionString: admin.toString() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
