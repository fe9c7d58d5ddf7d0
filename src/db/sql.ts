// The smallest SQL surface the migration runner and start-up checks need, over either a
// node-postgres client or an embedded PGlite instance.
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';

export interface SqlSession {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  exec(sql: string): Promise<void>;
}

export function pgSession(client: pg.ClientBase): SqlSession {
  return {
    async query<T>(sql: string, params?: unknown[]) {
      return (await client.query(sql, params as unknown[])).rows as T[];
    },
    async exec(sql: string) {
      await client.query(sql);
    },
  };
}

export function pgliteSession(db: PGlite): SqlSession {
  return {
    async query<T>(sql: string, params?: unknown[]) {
      return (await db.query<T>(sql, params as unknown[])).rows;
    },
    async exec(sql: string) {
      await db.exec(sql);
    },
  };
}
