// Writes the next migration: the SQL that brings the existing migrations up to
// prisma/schema.prisma, as prisma/migrations/<timestamp>_<name>/migration.sql.
//   npx tsx scripts/migration-diff.ts add_something
// Review the file; add hand-written SQL (constraints Prisma cannot express) at its end.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { diffMigrationsToSchema } from '../src/db/schema-engine.js';
import { MIGRATIONS_DIR } from '../src/db/migrate.js';

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  process.stderr.write('usage: tsx scripts/migration-diff.ts <snake_case_name>\n');
  process.exit(64);
}
const sql = await diffMigrationsToSchema();
if (!sql.trim()) {
  process.stdout.write('schema.prisma and the migrations agree; nothing to write\n');
  process.exit(0);
}
const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
const dir = join(MIGRATIONS_DIR, `${stamp}_${name}`);
mkdirSync(dir, { recursive: true });
writeFileSync(
  join(dir, 'migration.sql'),
  sql.replace(/^-- CreateSchema\nCREATE SCHEMA IF NOT EXISTS "public";\n\n/m, ''),
);
process.stdout.write(`wrote ${join(dir, 'migration.sql')}\n`);
