// PostgreSQL errors that are answers, not failures: the exclusion constraints and CHECKs of the
// migrations (no double booking, class capacity) enforce the rules of docs/api.md under any
// concurrency, and the use cases turn their violations into SLOT_UNAVAILABLE / CLASS_FULL.
// Prisma 7 with a driver adapter carries the SQLSTATE in meta.driverAdapterError.cause.
import { sqlTransaction, type Db, type Transaction, type Tx } from '../db/databases.js';
import { databaseBusy, sqlState } from '../errors.js';

/** The name of the violated constraint, when the driver reports it. */
export function constraintName(err: unknown): string | undefined {
  const e = err as {
    meta?: { driverAdapterError?: { cause?: { constraint?: unknown; originalMessage?: string } } };
    message?: string;
  };
  const cause = e?.meta?.driverAdapterError?.cause;
  const c = cause?.constraint as { index?: string } | string | undefined;
  if (typeof c === 'string') return c;
  if (c && typeof c.index === 'string') return c.index;
  const m = /constraint "([^"]+)"/.exec(cause?.originalMessage ?? e?.message ?? '');
  return m?.[1];
}

export const isExclusionViolation = (err: unknown) => sqlState(err) === '23P01';
/**
 * A row refers to one that is gone, or one still referred to was to be deleted: P2003, or the
 * SQLSTATE where a driver adapter does not map it (23001 is an ON DELETE RESTRICT refusal).
 */
export const isForeignKeyViolation = (err: unknown) => {
  const s = sqlState(err);
  return (err as { code?: string })?.code === 'P2003' || s === '23503' || s === '23001';
};
export const isCheckViolation = (err: unknown) => sqlState(err) === '23514';
export const isUniqueViolation = (err: unknown) =>
  (err as { code?: string })?.code === 'P2002' || sqlState(err) === '23505';

/**
 * Deadlock and serialization failures: PostgreSQL aborts one of two transactions that wait on
 * each other (concurrent inserts checked by the same exclusion constraint can do exactly that).
 * The aborted one changed nothing and may simply run again.
 */
export const isRetryableTransactionError = (err: unknown) => {
  const s = sqlState(err);
  return s === '40P01' || s === '40001';
};

/** Runs fn, again (up to `attempts` times in all) when the database aborted it as a deadlock victim. */
export async function retryOnDeadlock<T>(fn: () => Promise<T>, attempts = 4): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= attempts || !isRetryableTransactionError(err)) throw err;
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * i));
    }
  }
}

/**
 * Options of the booking domain's interactive transactions. Prisma's default maxWait (how long
 * $transaction waits for a pooled connection before failing with P2028) is 2 s; bursts of
 * bookings on one slot (docs/api.md: 100 clients contending) queue longer than that on a pool of
 * ten, and each of their transactions is a few short statements, so they wait up to 5 s
 * for a connection (then 503, retry shortly) and may run up to 10 s.
 */
export const DOMAIN_TRANSACTION = { maxWait: 5_000, timeout: 10_000 } as const;

/**
 * P2028: Prisma could not start the transaction in maxWait (the pool had no connection to
 * spare) or the transaction outlived its timeout. Nothing was committed; the database is
 * saturated, a dependency outage (docs/api.md: 503 SERVICE_UNAVAILABLE with Retry-After).
 */
export const isTransactionTimeout = (err: unknown) => (err as { code?: string })?.code === 'P2028';

/**
 * db.$transaction with DOMAIN_TRANSACTION, retried as a deadlock victim (retryOnDeadlock), and
 * a transaction that could not start or ran out of time answered as 503 wherever it is called
 * from (REST, GraphQL, the CLI), not as an unknown error.
 */
export function domainTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return asDomainTransaction(() => db.$transaction(fn, DOMAIN_TRANSACTION));
}

/** A transaction run as the domain's are: again as a deadlock victim, a 503 when it timed out. */
async function asDomainTransaction<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await retryOnDeadlock(run);
  } catch (err) {
    if (isTransactionTimeout(err)) throw databaseBusy(err);
    throw err;
  }
}

/**
 * domainTransaction past Prisma (sqlTransaction), for a use case whose every step in the
 * transaction is SQL (sqlOf / sqlRows): the same retry of a deadlock victim. Its wait for a
 * connection is the pool's (DATABASE_POOL_TIMEOUT_MS), and one that runs out is a 503 by the
 * error table, as Prisma's P2028 is here.
 */
export function domainSqlTransaction<T>(db: Db, fn: (tx: Transaction) => Promise<T>): Promise<T> {
  return asDomainTransaction(() => sqlTransaction(db, fn));
}
