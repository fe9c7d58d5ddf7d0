// A database pair of its own for one test file: a clone of the migrated template on
// PostgreSQL, or a fresh in-memory PGlite pair when the run is embedded.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { inject } from 'vitest';
import { openDatabases, type Databases } from '../../src/db/databases.js';
import { withDatabase } from '../global-setup.js';

export const embedded = () => !process.env.DATABASE_URL || process.env.TEST_EMBEDDED === '1';

export interface TestDatabases {
  dbs: Databases;
  /** The connection string of this file's database (PostgreSQL runs only). */
  url: string | undefined;
  drop(): Promise<void>;
}

let snapshot: Blob | undefined;

export async function createTestDatabases(): Promise<TestDatabases> {
  if (embedded()) {
    snapshot ??= new Blob([readFileSync(inject('pgliteSnapshot'))]);
    const dbs = await openDatabases(
      { DATA_DIR: 'memory://', SANDBOX_SCHEMA: 'sandbox', DATABASE_POOL_SIZE: 1 },
      { pgliteSnapshot: snapshot },
    );
    await dbs.migrate();
    return { dbs, url: undefined, drop: () => dbs.close() };
  }
  const base = process.env.DATABASE_URL!;
  const name = `svc_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${inject('templateDatabase')}`);
  await admin.end();
  const url = withDatabase(base, name);
  const dbs = await openDatabases({
    DATABASE_URL: url,
    SANDBOX_SCHEMA: 'sandbox',
    DATABASE_POOL_SIZE: 10,
    DATA_DIR: '.data',
  });
  return {
    dbs,
    url,
    async drop() {
      await dbs.close();
      const a = new pg.Client({ connectionString: base });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}
