// The two databases (docs/sandbox.md): live data, and the sandbox with the same tables. With
// DATABASE_URL they are PostgreSQL schemas (`public` and SANDBOX_SCHEMA, the latter on
// SANDBOX_DATABASE_URL when given); without it, two embedded PGlite directories under DATA_DIR.
// A credential's mode picks the database, so sandbox requests cannot reach live rows.
//
// Behind a transaction-pooling PgBouncer (DATABASE_POOLER=transaction, docs/scaling.md) a
// client's statements may each run on another server connection, so nothing may rest on
// connection state: statements go unnamed, the sandbox schema is chosen by the pooler's
// database alias (its connect_query sets search_path on every server connection it opens)
// rather than by a startup option, and LISTEN and migrations use DIRECT_DATABASE_URL.
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { from as copyFromStdin } from 'pg-copy-streams';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import type { Config } from '../config.js';
import { PrismaClient, type Prisma } from '../generated/prisma/client.js';
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
  /**
   * Runs one query on a pooled connection, past Prisma, and returns its rows: for the hot
   * writes' own statements, where Prisma's raw path (serializing, compiling and copying each
   * parameter) cost more CPU than the rest of the write (see docs/performance.md,
   * "Database handles").
   */
  queryRows<T>(sql: string, params: unknown[]): Promise<T[]>;
  /**
   * Runs one `COPY … FROM STDIN` on a pooled connection with `data` as its input (PostgreSQL's
   * text format) and returns how many rows it wrote: PostgreSQL's cheapest way in for many rows
   * (the request logs: a row a request; see docs/performance.md, "Request log rows").
   */
  copyFrom(sql: string, data: Buffer): Promise<number>;
  /**
   * Runs fn in a transaction on one connection, past Prisma: BEGIN, fn's statements (through
   * sqlOf / sqlRows of the SqlTransaction it is given), COMMIT; ROLLBACK when fn throws.
   */
  transaction<T>(fn: (tx: SqlTransaction) => Promise<T>): Promise<T>;
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

type DbConfig = Pick<
  Config,
  'DATABASE_URL' | 'SANDBOX_DATABASE_URL' | 'SANDBOX_SCHEMA' | 'DATABASE_POOL_SIZE' | 'DATA_DIR'
> &
  Partial<
    Pick<Config, 'DATABASE_POOL_TIMEOUT_MS' | 'DATABASE_QUERY_TIMEOUT_MS' | 'DATABASE_POOLER' | 'DIRECT_DATABASE_URL'>
  >;

/** Where a database is reached: through the pool (maybe a pooler), and directly. */
interface Urls {
  /** The application's queries: PostgreSQL itself, or a transaction pooler's database alias. */
  pooled: string;
  /** LISTEN and raw sessions (migrations): always PostgreSQL itself. */
  direct: string;
  /** `pooled` is a transaction pooler: no named statements, no startup options. */
  pooler: boolean;
}

interface Timeouts {
  /** The longest wait for a connection, from the pool or a new one. */
  connectMs: number;
  /** The longest wait for the answer to a query. */
  queryMs: number;
}

/**
 * Opens a statement whose best plan depends on its values: it is sent unnamed, so PostgreSQL
 * plans it with them on every call. A named statement is planned once per connection and, after
 * five runs, may keep a generic plan that guessed the values' selectivity: for a page of a
 * long `from`/`to` window deep in its cursor steps that plan walked the window by start time and
 * sorted it, far slower than the plan made with the values (see docs/performance.md,
 * "Database handles").
 */
export const PLANNED_WITH_VALUES = '/* planned with its values */';

// Named prepared statements let PostgreSQL plan each distinct Prisma query once per connection;
// those that open with PLANNED_WITH_VALUES go unnamed.
// Each text's name is hashed once: a booking sends a dozen statements, and hashing them on every
// call showed in its profile (see docs/performance.md, "Database handles"). The texts are the
// app's own (values travel apart), a bounded set.
// eslint-disable-next-line no-restricted-syntax -- process state: statement names
const statementNames = new Map<string, string>();
// (The adapter's type asks for a string; an undefined name is pg's unnamed statement.)
const statementName = ((q: { sql: string }) => {
  if (q.sql.startsWith(PLANNED_WITH_VALUES)) return undefined;
  let name = statementNames.get(q.sql);
  if (name === undefined) {
    name = `s${createHash('sha1').update(q.sql).digest('base64url').slice(0, 20)}`;
    if (statementNames.size >= 10_000) statementNames.clear();
    statementNames.set(q.sql, name);
  }
  return name;
}) as (q: { sql: string }) => string;

// TCP keepalive finds the connections to a server that went away without a word (host down,
// network cut): idle ones in the pool, and the workers' LISTEN connection, which only reads.
const KEEPALIVE = { keepAlive: true, keepAliveInitialDelayMillis: 10_000 } as const;

const QUERY_TIMED_OUT = 'Query read timeout';

/**
 * The parameters of a statement past Prisma as they go to pg: an instant as its ISO string,
 * which PostgreSQL reads as the same timestamptz. pg would write a Date in the process's local
 * time with its offset, field by field, a cost a booking's profile showed (see
 * docs/performance.md, "Database handles").
 */
function wireValues(params: unknown[]): unknown[] {
  return params.map((v) => (v instanceof Date ? v.toISOString() : v));
}

/**
 * A pg client that ends its connection when a query gets no answer in time. pg's query_timeout
 * answers the caller but leaves the query on the wire, and the client would go back to the
 * pool: every later query on it would queue behind an answer that may never come (a stopped
 * server, a dead network path). Ending it makes the pool drop it (a released client that is
 * ending is never reused) and open a fresh one for the next caller; the server, once it runs
 * again, sees the connection closed and rolls back whatever it held.
 */
class StallSafeClient extends pg.Client {
  // pg's query() has a dozen overloads (text or config, values, callback or a promise); this
  // wraps them all and forwards each argument unchanged, which only `any` can type.
  /* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access,
     @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-assignment,
     @typescript-eslint/no-unsafe-call -- the overloads above */
  override query(config: any, values?: any, callback?: any): any {
    const onError = (err: unknown) => {
      if (err instanceof Error && err.message === QUERY_TIMED_OUT) this.end().catch(() => undefined);
    };
    if (typeof config?.submit === 'function') return super.query(config, values, callback);
    if (typeof values === 'function') [values, callback] = [undefined, values];
    if (typeof callback === 'function') {
      return super.query(config, values, (err: Error | null, res: unknown) => {
        if (err) onError(err);
        callback(err, res);
      });
    }
    return (super.query(config, values) as Promise<unknown>).catch((err: unknown) => {
      onError(err);
      throw err;
    });
  }
  /* eslint-enable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access,
     @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-assignment,
     @typescript-eslint/no-unsafe-call */
}

/** A statement as it goes to PostgreSQL: its text and parameters (OpenOptions.onQuery). */
export interface SentQuery {
  mode: Mode;
  text: string;
  values: unknown[];
  /** The prepared statement's name; none for an unnamed one (planned with its values). */
  name?: string;
}

/**
 * One statement past Prisma, on the pool of the client it is asked for: positional parameters
 * (`$1`), rows as the driver gives them (timestamptz as Date, jsonb parsed, bigint as text). For
 * the hot reads of pages and lists, where Prisma's work per statement (its query plan's
 * interpretation and its mapping of every row) cost several times the driver's (see
 * docs/performance.md, "Database handles"); the reads of a booking before its transaction go this
 * way too. Asked of a
 * transaction's client, it runs on the transaction's connection through Prisma's raw path (only
 * the pools are registered), so a use case may read the same way inside and outside one.
 */
export type SqlRows = <T>(sql: string, params: unknown[]) => Promise<T[]>;

/**
 * A transaction past Prisma (sqlTransaction): one pooled connection between BEGIN and COMMIT,
 * its statements sent by the driver as sqlOf's are. Prisma's interactive transaction costs a
 * good part of a booking's CPU over the driver's (its transaction manager, its query
 * interpreter, the adapter's mapping of every row; see docs/performance.md, "Database handles").
 * A step written with sqlOf / sqlRows runs in either kind of transaction (Transaction).
 */
export class SqlTransaction {
  #open = true;
  readonly #sql: SqlRows;
  constructor(sql: SqlRows) {
    this.#sql = sql;
  }
  /** One statement in this transaction; refused once it has ended. */
  readonly sql: SqlRows = (sql, params) => {
    if (!this.#open) return Promise.reject(new Error('The transaction has ended'));
    return this.#sql(sql, params);
  };
  /** Its end (COMMIT or ROLLBACK sent): later statements are refused, not run outside it. */
  end(): void {
    this.#open = false;
  }
}

/** Prisma's interactive transaction: what a step that uses Prisma's model API inside a transaction takes. */
export type Tx = Prisma.TransactionClient;
/** Where a step inside a transaction sends its SQL: Prisma's interactive transaction, or sqlTransaction's. */
export type Transaction = Prisma.TransactionClient | SqlTransaction;
/** A pool or a transaction of either kind: what a read that runs anywhere takes. */
export type Queryable = Db | Transaction;

/**
 * Runs fn in a savepoint of a transaction of either kind: if fn throws (a refusal after a row
 * was written, a constraint violation), everything it wrote is rolled back and the transaction
 * stays usable, so the caller may try another way (a visit's next employee, a series' next
 * occurrence) or report and go on (the relay's fan-out). Savepoints nest: each RELEASE or
 * ROLLBACK TO names the newest savepoint of the name.
 */
export async function inSavepoint<T>(tx: Transaction, fn: () => Promise<T>): Promise<T> {
  const run = (statement: string) =>
    tx instanceof SqlTransaction ? tx.sql(statement, []) : tx.$executeRawUnsafe(statement);
  await run('SAVEPOINT attempt');
  try {
    const out = await fn();
    await run('RELEASE SAVEPOINT attempt');
    return out;
  } catch (err) {
    await run('ROLLBACK TO SAVEPOINT attempt');
    throw err;
  }
}

// eslint-disable-next-line no-restricted-syntax -- process state: database handles
const sqlOfClient = new WeakMap<PrismaClient, Database>();

function registered(d: Database): Database {
  sqlOfClient.set(d.prisma, d);
  return d;
}

/**
 * The pool of `db` for one statement past Prisma (SqlRows), or a SqlTransaction's connection;
 * through Prisma's raw path for Prisma's transaction client, or a client made elsewhere.
 */
export function sqlOf(db: Queryable): SqlRows {
  if (db instanceof SqlTransaction) return db.sql;
  const d = sqlOfClient.get(db as PrismaClient);
  if (d) return (sql, params) => d.queryRows(sql, params);
  return <T>(sql: string, params: unknown[]) => db.$queryRawUnsafe<T[]>(sql, ...params);
}

/** One `Prisma.sql` statement through sqlOf: the same values, the rows as the driver gives them. */
export function sqlRows<T>(db: Queryable, q: Prisma.Sql): Promise<T[]> {
  return sqlOf(db)<T>(q.text, q.values);
}

/**
 * fn in a transaction past Prisma on the pool of `db` (Database.transaction); for a client
 * made elsewhere, in Prisma's interactive transaction (either is a Transaction to fn).
 */
export function sqlTransaction<T>(db: Db, fn: (tx: Transaction) => Promise<T>): Promise<T> {
  const d = sqlOfClient.get(db);
  return d ? d.transaction(fn) : db.$transaction(fn);
}

/** A StallSafeClient that also tells `onQuery` every statement it sends. */
function observedClient(mode: Mode, onQuery: (q: SentQuery) => void): typeof StallSafeClient {
  return class ObservedClient extends StallSafeClient {
    /* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access,
       @typescript-eslint/no-unsafe-assignment -- pg's overloads, as above */
    override query(config: any, values?: any, callback?: any): any {
      const text = typeof config === 'string' ? config : config?.text;
      if (typeof text === 'string')
        onQuery({
          mode,
          text,
          values: (Array.isArray(values) ? values : config?.values) ?? [],
          ...(typeof config?.name === 'string' ? { name: config.name as string } : {}),
        });
      return super.query(config, values, callback);
    }
    /* eslint-enable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access,
       @typescript-eslint/no-unsafe-assignment */
  };
}

function postgresDatabase(
  mode: Mode,
  urls: Urls,
  schema: string,
  poolSize: number,
  timeouts: Timeouts,
  onQuery?: (q: SentQuery) => void,
): Database {
  const options = `-c search_path=${schema},public`;
  // A transaction pooler refuses startup options, and would not keep them: the server
  // connection behind the next statement is not the one the option was sent to. Its database
  // alias sets the search_path instead (checkSchema).
  // connectionTimeoutMillis bounds the wait for a connection, from the pool or a new one: an
  // exhausted pool or an unanswering server becomes a 503 with Retry-After (the error table's
  // "timeout exceeded when trying to connect"), not a request that hangs until the client
  // gives up. query_timeout does the same for a query whose answer does not come: a server
  // that is stopped or cut off never fails it, and its own statement_timeout never fires.
  // A statement past Prisma as pg sends it: named as Prisma's are (planned once per
  // connection), but never through a pooler.
  const statement = (sql: string, params: unknown[]): pg.QueryConfig => {
    const name = urls.pooler ? undefined : statementName({ sql });
    return { text: sql, values: wireValues(params), ...(name ? { name } : {}) };
  };
  const pool = new pg.Pool({
    connectionString: urls.pooled,
    max: poolSize,
    ...(urls.pooler ? {} : { options }),
    connectionTimeoutMillis: timeouts.connectMs,
    query_timeout: timeouts.queryMs,
    ...KEEPALIVE,
    Client: onQuery ? observedClient(mode, onQuery) : StallSafeClient,
  });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it. Queries report their own errors.
  });
  const prisma = new PrismaClient({
    // Named statements are prepared on one server connection; through a transaction pooler the
    // next use may land on another that never saw them. Prisma's own SQL names `schema` on
    // every table either way, so only raw SQL depends on the search_path.
    adapter: new PrismaPg(pool, urls.pooler ? { schema } : { schema, statementNameGenerator: statementName }),
  });
  return registered({
    mode,
    prisma,
    schema,
    async withSession(fn) {
      // No query timeout: migrations may rightly run long (an index on a big table).
      const client = new pg.Client({
        connectionString: urls.direct,
        options,
        connectionTimeoutMillis: timeouts.connectMs,
        ...KEEPALIVE,
      });
      await client.connect();
      try {
        return await fn(pgSession(client));
      } finally {
        await client.end();
      }
    },
    async queryRows<T>(sql: string, params: unknown[]) {
      return (await pool.query(statement(sql, params))).rows as T[];
    },
    async transaction(fn) {
      const client = await pool.connect();
      const tx = new SqlTransaction(
        async <T>(sql: string, params: unknown[]) => (await client.query(statement(sql, params))).rows as T[],
      );
      // A connection whose ROLLBACK failed is in no known state: the pool drops it.
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const out = await fn(tx);
        tx.end();
        await client.query('COMMIT');
        return out;
      } catch (err) {
        tx.end();
        await client.query('ROLLBACK').catch((e: Error) => void (broken = e));
        throw err;
      } finally {
        client.release(broken);
      }
    },
    async copyFrom(sql, data) {
      const client = await pool.connect();
      return new Promise<number>((resolve, reject) => {
        let settled = false;
        const done = (err: Error | null, rows = 0) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          // A connection a COPY failed on may be mid-protocol: let the pool drop it.
          client.release(err ?? undefined);
          if (err) reject(err);
          else resolve(rows);
        };
        // pg's query_timeout does not cover a COPY: a server that stops answering mid-COPY
        // would hold this connection for ever. Past the query timeout the connection is
        // destroyed, as StallSafeClient does for a query.
        const timer = setTimeout(() => done(new Error(QUERY_TIMED_OUT)), timeouts.queryMs);
        const stream = client.query(copyFromStdin(sql));
        stream.on('error', (err) => done(err));
        stream.on('finish', () => done(null, stream.rowCount));
        stream.end(data);
      });
    },
    listen: (channel, handler) => listenPostgres(urls.direct, options, timeouts, channel, handler),
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  });
}

/**
 * A dedicated connection that LISTENs and reconnects after a lost connection (a listener
 * misses nothing for good: the workers also poll, this only makes them prompt). A LISTEN
 * connection only reads, so it would never notice a server that stopped answering, or a
 * connection silently gone (a failover): it asks `SELECT 1` every query timeout, and one
 * that goes unanswered ends it like any lost connection.
 */
async function listenPostgres(
  url: string,
  options: string,
  timeouts: Timeouts,
  channel: string,
  handler: (payload: string) => void,
) {
  let client: pg.Client | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  const reconnectSoon = () => {
    retry = setTimeout(() => void connect().catch(() => undefined), 1000);
  };
  const lost = (c: pg.Client) => {
    if (stopped || client !== c) return;
    client = null;
    clearInterval(heartbeat);
    c.end().catch(() => undefined);
    reconnectSoon();
  };
  const connect = async (): Promise<void> => {
    const c = new StallSafeClient({
      connectionString: url,
      options,
      connectionTimeoutMillis: timeouts.connectMs,
      query_timeout: timeouts.queryMs,
      ...KEEPALIVE,
    });
    c.on('notification', (n) => n.channel === channel && handler(n.payload ?? ''));
    c.on('error', () => lost(c));
    c.on('end', () => lost(c));
    try {
      await c.connect();
      await c.query(`LISTEN "${channel.replace(/"/g, '""')}"`);
      if (stopped) await c.end();
      else {
        client = c;
        let pinging = false;
        heartbeat = setInterval(() => {
          if (pinging) return;
          pinging = true;
          (c.query('SELECT 1') as Promise<unknown>).then(
            () => void (pinging = false),
            () => lost(c),
          );
        }, timeouts.queryMs);
      }
    } catch (err) {
      await c.end().catch(() => undefined);
      if (stopped) return;
      reconnectSoon();
      throw err;
    }
  };
  await connect().catch(() => undefined);
  return async () => {
    stopped = true;
    clearTimeout(retry);
    clearInterval(heartbeat);
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
  return registered({
    mode,
    prisma,
    schema: 'public',
    withSession(fn) {
      const run = queue.then(() => fn(session));
      queue = run.catch(() => undefined);
      return run;
    },
    // PGlite's query() waits for any open transaction (Prisma's interactive ones included) to
    // end before it runs.
    async queryRows<T>(sql: string, params: unknown[]) {
      return (await db.query<T>(sql, params)).rows;
    },
    // PGlite's own transaction: it holds the instance until it ends (BEGIN, COMMIT or ROLLBACK).
    transaction(fn) {
      return db.transaction(async (t) => {
        const tx = new SqlTransaction(
          async <T>(sql: string, params: unknown[]) => (await t.query<T>(sql, params)).rows,
        );
        try {
          return await fn(tx);
        } finally {
          tx.end();
        }
      });
    },
    // PGlite reads COPY's input from its /dev/blob device.
    async copyFrom(sql, data) {
      const result = await db.query(sql.replace(/\bFROM STDIN\b/, "FROM '/dev/blob'"), [], {
        blob: new Blob([new Uint8Array(data)]),
      });
      return result.affectedRows ?? 0;
    },
    async listen(channel, handler) {
      return db.listen(channel, handler);
    },
    async close() {
      await prisma.$disconnect();
      await db.close();
    },
  });
}

export class PoolerSchemaError extends Error {}

/**
 * Behind a transaction pooler the pooled connection's schema is the pooler alias's doing
 * (connect_query), not ours: refuse to serve a mode from an alias that selects another schema,
 * where raw SQL would read and write the other mode's tables. Every server connection of one
 * alias runs the same connect_query, so one answer speaks for all of them.
 */
async function checkSchema(db: Database): Promise<void> {
  const [row] = await db.prisma.$queryRawUnsafe<{ schema: string | null }[]>('SELECT current_schema() AS schema');
  if (row?.schema !== db.schema) {
    throw new PoolerSchemaError(
      `The pooled ${db.mode === 'test' ? 'sandbox' : 'live'} database's current schema is ${row?.schema ?? 'none'}, not ${db.schema}: set search_path=${db.schema},public in its pooler alias's connect_query (docs/scaling.md)`,
    );
  }
}

/**
 * `pgliteSnapshot`: an embedded database's dumped data directory to start both embedded
 * databases from (tests: one migrated snapshot per run loads in well under a second, where
 * creating and migrating an embedded database takes seconds).
 * `holder`: what opens an embedded DATA_DIR (`server`, `svc key create`), named to a second
 * opener, which fails with DataDirLockedError (data-dir-lock.ts).
 */
export async function openDatabases(
  config: DbConfig,
  opts: {
    pgliteSnapshot?: Blob;
    holder?: string;
    /** Told every statement the pools send to PostgreSQL (the query-plan test reads them). */
    onQuery?: (q: SentQuery) => void;
  } = {},
): Promise<Databases> {
  let live: Database;
  let test: Database;
  let lock: DataDirLock | null = null;
  if (config.DATABASE_URL) {
    const timeouts = {
      connectMs: config.DATABASE_POOL_TIMEOUT_MS ?? 5_000,
      queryMs: config.DATABASE_QUERY_TIMEOUT_MS ?? 5_000,
    };
    const pooler = config.DATABASE_POOLER === 'transaction';
    const direct = config.DIRECT_DATABASE_URL ?? config.DATABASE_URL;
    const sandbox = config.SANDBOX_DATABASE_URL ?? config.DATABASE_URL;
    live = postgresDatabase(
      'live',
      { pooled: config.DATABASE_URL, direct, pooler },
      'public',
      config.DATABASE_POOL_SIZE,
      timeouts,
      opts.onQuery,
    );
    test = postgresDatabase(
      'test',
      // Behind a pooler SANDBOX_DATABASE_URL is the pooler's sandbox alias of the same server,
      // which DIRECT_DATABASE_URL reaches directly (the startup option picks the schema there).
      { pooled: sandbox, direct: pooler || !config.SANDBOX_DATABASE_URL ? direct : sandbox, pooler },
      config.SANDBOX_SCHEMA,
      config.DATABASE_POOL_SIZE,
      timeouts,
      opts.onQuery,
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
      if (config.DATABASE_POOLER === 'transaction') await Promise.all([checkSchema(live), checkSchema(test)]);
      return { live: l, test: t };
    },
    async ping() {
      if (config.DATABASE_POOLER === 'transaction') await Promise.all([checkSchema(live), checkSchema(test)]);
      else await Promise.all([live.prisma.$queryRawUnsafe('SELECT 1'), test.prisma.$queryRawUnsafe('SELECT 1')]);
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
