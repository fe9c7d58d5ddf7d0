// Applies prisma/migrations in order and records them in `_prisma_migrations` exactly as
// `prisma migrate deploy` does, so someone with the real CLI sees the same history. Prisma's
// CLI cannot run migrations on these machines (its engine cannot be downloaded here).
import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageFile } from '../package-files.js';
import type { SqlSession } from './sql.js';

export const MIGRATIONS_DIR = packageFile('prisma', 'migrations');

// The same number `prisma migrate` locks on, so the real CLI and this runner exclude each other.
const ADVISORY_LOCK = 72707369;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export class MigrationError extends Error {}

/**
 * Applies every migration not yet recorded, each in its own transaction, in the schema the
 * session's search_path names first. Returns the names it applied.
 */
export async function applyMigrations(
  session: SqlSession,
  opts: { schema: string; migrations?: Migration[] },
): Promise<string[]> {
  const migrations = opts.migrations ?? (await readMigrations());
  const schema = `"${opts.schema.replace(/"/g, '""')}"`;
  await session.exec(`CREATE SCHEMA IF NOT EXISTS ${schema}; SET search_path TO ${schema}, public`);
  await session.query('SELECT pg_advisory_lock($1)', [ADVISORY_LOCK]);
  try {
    await session.exec(CREATE_TABLE);
    const rows = await session.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
      'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL',
    );
    const done = new Map(rows.map((r) => [r.migration_name, r]));
    const applied: string[] = [];
    for (const m of migrations) {
      const prior = done.get(m.name);
      if (prior) {
        if (!prior.finished_at)
          throw new MigrationError(`Migration ${m.name} failed earlier in ${opts.schema}; resolve it by hand`);
        if (prior.checksum !== m.checksum)
          throw new MigrationError(`Migration ${m.name} was changed after it was applied`);
        continue;
      }
      const id = randomUUID();
      await session.exec('BEGIN');
      try {
        await session.query(
          'INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())',
          [id, m.checksum, m.name],
        );
        await session.exec(m.sql);
        await session.query(
          'UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1',
          [id],
        );
        await session.exec('COMMIT');
      } catch (err) {
        await session.exec('ROLLBACK');
        throw new MigrationError(`Migration ${m.name} failed in ${opts.schema}: ${(err as Error).message}`);
      }
      applied.push(m.name);
    }
    return applied;
  } finally {
    await session.query('SELECT pg_advisory_unlock($1)', [ADVISORY_LOCK]);
    await session.exec('SET search_path TO DEFAULT');
  }
}
