// Migrates a template database once per run; each test file then clones its own from it
// (as trigger.dev does with testcontainers). Embedded runs likewise start every file's PGlite
// pair from one migrated snapshot.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabases } from '../src/db/databases.js';
import { applyMigrations, readMigrations } from '../src/db/migrate.js';
import { pgliteSession } from '../src/db/sql.js';

async function pgliteSnapshot(): Promise<{ file: string; remove(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pglite-'));
  const db = await PGlite.create('memory://', { extensions: { btree_gist } });
  await applyMigrations(pgliteSession(db), { schema: 'public', migrations: await readMigrations() });
  const file = join(dir, 'migrated.tar');
  writeFileSync(file, Buffer.from(await (await db.dumpDataDir('none')).arrayBuffer()));
  await db.close();
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export default async function setup(project: TestProject) {
  // The server and `svc` run as child processes from their compiled build (dist/, what
  // `npm start` and the bin run): rebuilt here so they are never older than the sources.
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  const snapshot = await pgliteSnapshot();
  project.provide('pgliteSnapshot', snapshot.file);
  const url = process.env.DATABASE_URL;
  if (!url) return () => snapshot.remove();
  const template = `svc_template_${process.pid}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${template}`);
  await admin.query(`CREATE DATABASE ${template}`);
  const templateUrl = withDatabase(url, template);
  const dbs = await openDatabases({
    DATABASE_URL: templateUrl,
    SANDBOX_SCHEMA: 'sandbox',
    DATABASE_POOL_SIZE: 1,
    DATA_DIR: '.data',
  });
  await dbs.migrate();
  await dbs.close();
  project.provide('templateDatabase', template);
  return async () => {
    snapshot.remove();
    await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await admin.end();
  };
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

declare module 'vitest' {
  export interface ProvidedContext {
    templateDatabase: string;
    /** A migrated embedded data directory, dumped (PGlite's dumpDataDir). */
    pgliteSnapshot: string;
  }
}
