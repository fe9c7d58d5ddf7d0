// The migrations and schema.prisma must not drift (issue 2, point 2), and the runner must
// record them as `prisma migrate deploy` does.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { diffMigrationsToSchema, diffScript } from '../../src/db/schema-engine.js';
import { tempDir } from '../helpers/server-process.js';
import { readMigrations } from '../../src/db/migrate.js';
import { createTestDatabases } from '../helpers/db.js';

describe('migrations', () => {
  it('bring an empty database exactly to schema.prisma', async () => {
    expect(await diffMigrationsToSchema()).toBe('');
  });

  // The check above is only worth something if it can fail (these also run the engine again
  // in the same process, which used to read garbage from the first instance's memory).
  const dir = tempDir();
  afterAll(() => dir.remove());
  const schemaWith = (extra: (schema: string) => string) => {
    const file = join(dir.path, `schema-${Math.random().toString(36).slice(2)}.prisma`);
    writeFileSync(file, extra(readFileSync('prisma/schema.prisma', 'utf8')));
    return file;
  };

  it('a schema.prisma that drifted from the migrations yields the SQL of the difference', async () => {
    const drifted = schemaWith((s) =>
      s.replace('model IdempotencyRecord {\n', 'model IdempotencyRecord {\n  driftProbe String? @map("drift_probe")\n'),
    );
    const diff = await diffMigrationsToSchema(drifted);
    expect(diff).toMatch(/ALTER TABLE "idempotency_records" ADD COLUMN\s+"drift_probe" TEXT/);
  });

  it('a schema the engine cannot read fails the check loudly instead of passing it', async () => {
    const broken = schemaWith((s) => `${s}\nmodel Broken {\n  id    String @id\n  other Nope\n}\n`);
    await expect(diffMigrationsToSchema(broken)).rejects.toThrow(/Nope/);
  });

  it('reads the engine exit codes as `migrate diff --exit-code` defines them; any other is an error', () => {
    expect(diffScript({ exitCode: 0, stdout: '' })).toBe('');
    expect(diffScript({ exitCode: 2, stdout: 'ALTER TABLE x;' })).toBe('ALTER TABLE x;');
    expect(() => diffScript({ exitCode: 1, stdout: 'Error: something' })).toThrow(/exit code 1/);
    expect(() => diffScript({ exitCode: 2, stdout: null })).toThrow(/exit code 2/);
  });

  it('are recorded in _prisma_migrations of both databases, and a second run applies nothing', async () => {
    const t = await createTestDatabases();
    try {
      const names = (await readMigrations()).map((m) => m.name);
      for (const db of [t.dbs.live, t.dbs.test]) {
        const rows = await db.withSession((s) =>
          s.query<{ migration_name: string; finished_at: Date | null; applied_steps_count: number; checksum: string }>(
            `SELECT migration_name, finished_at, applied_steps_count, checksum FROM "${db.schema}"."_prisma_migrations" ORDER BY migration_name`,
          ),
        );
        expect(rows.map((r) => r.migration_name)).toEqual(names);
        for (const r of rows) {
          expect(r.finished_at).not.toBeNull();
          expect(r.applied_steps_count).toBe(1);
          expect(r.checksum).toMatch(/^[0-9a-f]{64}$/);
        }
      }
      expect(await t.dbs.migrate()).toEqual({ live: [], test: [] });
    } finally {
      await t.drop();
    }
  });

  it('refuse a migration changed after it was applied', async () => {
    const t = await createTestDatabases();
    try {
      const migrations = await readMigrations();
      const changed = migrations.map((m, i) => (i === 0 ? { ...m, checksum: '0'.repeat(64) } : m));
      await expect(t.dbs.migrate(changed)).rejects.toThrow(/changed after it was applied/);
    } finally {
      await t.drop();
    }
  });
});
