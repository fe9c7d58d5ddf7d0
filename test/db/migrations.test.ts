// The migrations and schema.prisma must not drift (issue 2, point 2), and the runner must
// record them as `prisma migrate deploy` does.
import { describe, expect, it } from 'vitest';
import { diffMigrationsToSchema } from '../../src/db/schema-engine.js';
import { readMigrations } from '../../src/db/migrate.js';
import { createTestDatabases } from '../helpers/db.js';

describe('migrations', () => {
  it('bring an empty database exactly to schema.prisma', async () => {
    expect(await diffMigrationsToSchema()).toBe('');
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
