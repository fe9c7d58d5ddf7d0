// The two databases of API.md §4: live data, and the sandbox with the same tables. With
// DATABASE_URL they are PostgreSQL schemas (`public` and SANDBOX_SCHEMA, the latter on
// SANDBOX_DATABASE_URL when given); without it, two embedded PGlite directories under DATA_DIR.
// A credential's mode picks the database, so sandbox requests cannot reach live rows.
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import type { Config } from '../config.js';
import { PrismaClient } from '../generated/prisma/client.js';
import type { Mode } from '../generated/prisma/enums.js';
import { lockDataDir, type DataDirLock } from './data-dir-lock.js';
import { applyMigrations, type Migration } from './migrate.js';
import { pgliteSession, pgSession, type SqlSession } from './sql.js';

export type Db = PrismaClient;
export { PrismaClient };

export interface Database {
  mode: Mode;
  prisma: PrismaClient;
  /** Where the tables live: a PostgreSQL schema, or `public` of an embedded instance. */
  schema: string;
  /** Runs fn on one raw SQL session (migrations, health checks, tests). */
  withSession<T>(fn: (s: SqlSession) => Promise<T>): Promise<T>;
  /** LISTENs on a channel until the returned function is called (the workers' outbox wake-up). */
  listen(channel: string, handler: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface Databases {
  kind: 'postgres' | 'pglite';
  live: Database;
  test: Database;
  forMode(mode: Mode): PrismaClient;
  migrate(migrations?: Migration[]): Promise<{ live: string[]; test: string[] }>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

type DbConfig = Pick<Config, 'DATABASE_URL' | 'SANDBOX_DATABASE_URL' | 'SANDBOX_SCHEMA' | 'DATABASE_POOL_SIZE' | 'DATA_DIR'> &
  Partial<Pick<Config, 'DATABASE_POOL_TIMEOUT_MS'>>;

// Named prepared statements let PostgreSQL plan each distinct Prisma query once per connection.
const statementName = (q: { sql: string }) => `s${createHash('sha1').update(q.sql).digest('base64url').slice(0, 20)}`;

function postgresDatabase(mode: Mode, url: string, schema: string, poolSize: number, poolTimeoutMs: number): Database {
  const options = `-c search_path=${schema},public`;
  // connectionTimeoutMillis bounds the wait for a connection, from the pool or a new one: an
  // exhausted pool or an unanswering server becomes a 503 with Retry-After (the error table's
  // "timeout exceeded when trying to connect"), not a request that hangs until the client
  // gives up.
  const pool = new pg.Pool({ connectionString: url, max: poolSize, options, connectionTimeoutMillis: poolTimeoutMs });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it. Queries report their own errors.
  });
  const prisma = new PrismaClient({
    adapter: new PrismaPg(pool, { schema, statementNameGenerator: statementName }),
  });
  return {
    mode,
    prisma,
    schema,
    async withSession(fn) {
      const client = new pg.Client({ connectionString: url, options });
      await client.connect();
      try {
        return await fn(pgSession(client));
      } finally {
        await client.end();
      }
    },
    listen: (channel, handler) => listenPostgres(url, options, channel, handler),
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

/**
 * A dedicated connection that LISTENs and reconnects after a lost connection (a listener
 * misses nothing for good: the workers also poll, this only makes them prompt).
 */
async function listenPostgres(url: string, options: string, channel: string, handler: (payload: string) => void) {
  let client: pg.Client | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: url, options });
    c.on('notification', (n) => n.channel === channel && handler(n.payload ?? ''));
    c.on('error', () => {
      if (stopped || client !== c) return;
      client = null;
      c.end().catch(() => undefined);
      retry = setTimeout(() => void connect().catch(() => undefined), 1000);
    });
    try {
      await c.connect();
      await c.query(`LISTEN "${channel.replace(/"/g, '""')}"`);
      if (stopped) await c.end();
      else client = c;
    } catch (err) {
      await c.end().catch(() => undefined);
      if (stopped) return;
      retry = setTimeout(() => void connect().catch(() => undefined), 1000);
      throw err;
    }
  };
  await connect().catch(() => undefined);
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end().catch(() => undefined);
  };
}

async function pgliteDatabase(mode: Mode, dataDir: string, snapshot?: Blob): Promise<Database> {
  let dir = dataDir;
  if (!dataDir.startsWith('memory://')) {
    dir = join(dataDir, mode === 'live' ? 'live' : 'sandbox');
    mkdirSync(dir, { recursive: true });
  }
  const db = await PGlite.create(dir, { extensions: { btree_gist }, ...(snapshot ? { loadDataDir: snapshot } : {}) });
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(db) });
  const session = pgliteSession(db);
  // PGlite is one connection: serialise raw sessions so a migration is not interleaved.
  let queue: Promise<unknown> = Promise.resolve();
  return {
    mode,
    prisma,
    schema: 'public',
    withSession(fn) {
      const run = queue.then(() => fn(session));
      queue = run.catch(() => undefined);
      return run;
    },
    async listen(channel, handler) {
      return db.listen(channel, handler);
    },
    async close() {
      await prisma.$disconnect();
      await db.close();
    },
  };
}

/**
 * `pgliteSnapshot`: an embedded database's dumped data directory to start both embedded
 * databases from (tests: one migrated snapshot per run loads in well under a second, where
 * creating and migrating an embedded database takes seconds).
 * `holder`: what opens an embedded DATA_DIR (`server`, `svc key create`), named to a second
 * opener, which fails with DataDirLockedError (data-dir-lock.ts).
 */
export async function openDatabases(config: DbConfig, opts: { pgliteSnapshot?: Blob; holder?: string } = {}): Promise<Databases> {
  let live: Database;
  let test: Database;
  let lock: DataDirLock | null = null;
  if (config.DATABASE_URL) {
    const poolTimeoutMs = config.DATABASE_POOL_TIMEOUT_MS ?? 10_000;
    live = postgresDatabase('live', config.DATABASE_URL, 'public', config.DATABASE_POOL_SIZE, poolTimeoutMs);
    test = postgresDatabase(
      'test',
      config.SANDBOX_DATABASE_URL ?? config.DATABASE_URL,
      config.SANDBOX_SCHEMA,
      config.DATABASE_POOL_SIZE,
      poolTimeoutMs,
    );
  } else {
    // Before anything slow, so that a second opener fails at once.
    if (!config.DATA_DIR.startsWith('memory://')) lock = await lockDataDir(config.DATA_DIR, opts.holder ?? 'a process');
    try {
      [live, test] = await Promise.all([
        pgliteDatabase('live', config.DATA_DIR, opts.pgliteSnapshot),
        pgliteDatabase('test', config.DATA_DIR, opts.pgliteSnapshot),
      ]);
    } catch (err) {
      lock?.release();
      throw err;
    }
  }
  return {
    kind: config.DATABASE_URL ? 'postgres' : 'pglite',
    live,
    test,
    forMode: (mode) => (mode === 'test' ? test.prisma : live.prisma),
    async migrate(migrations) {
      // Live first: it creates the btree_gist extension the sandbox schema shares.
      const l = await live.withSession((s) => applyMigrations(s, { schema: live.schema, migrations }));
      const t = await test.withSession((s) => applyMigrations(s, { schema: test.schema, migrations }));
      return { live: l, test: t };
    },
    async ping() {
      await Promise.all([live.prisma.$queryRawUnsafe('SELECT 1'), test.prisma.$queryRawUnsafe('SELECT 1')]);
    },
    async close() {
      try {
        await Promise.all([live.close(), test.close()]);
      } finally {
        lock?.release();
      }
    },
  };
}
