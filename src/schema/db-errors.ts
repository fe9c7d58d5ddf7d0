// PostgreSQL errors that are answers, not failures: the exclusion constraints and CHECKs of the
// migrations (no double booking, class capacity) enforce the rules of API.md §5 under any
// concurrency, and the use cases turn their violations into SLOT_UNAVAILABLE / CLASS_FULL.
// Prisma 7 with a driver adapter carries the SQLSTATE in meta.driverAdapterError.cause.

/** SQLSTATE of a database error thrown through Prisma, or undefined. */
export function sqlState(err: unknown): string | undefined {
  const e = err as {
    code?: unknown;
    meta?: { driverAdapterError?: { cause?: { originalCode?: string; code?: string } } };
    cause?: { originalCode?: string; code?: string };
  };
  const cause = e?.meta?.driverAdapterError?.cause ?? e?.cause;
  const code = cause?.originalCode ?? cause?.code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  return undefined;
}

/** The name of the violated constraint, when the driver reports it. */
export function constraintName(err: unknown): string | undefined {
  const e = err as { meta?: { driverAdapterError?: { cause?: { constraint?: unknown; originalMessage?: string } } }; message?: string };
  const cause = e?.meta?.driverAdapterError?.cause;
  const c = cause?.constraint as { index?: string } | string | undefined;
  if (typeof c === 'string') return c;
  if (c && typeof c.index === 'string') return c.index;
  const m = /constraint "([^"]+)"/.exec(cause?.originalMessage ?? e?.message ?? '');
  return m?.[1];
}

export const isExclusionViolation = (err: unknown) => sqlState(err) === '23P01';
export const isCheckViolation = (err: unknown) => sqlState(err) === '23514';
export const isUniqueViolation = (err: unknown) => (err as { code?: string })?.code === 'P2002' || sqlState(err) === '23505';

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
