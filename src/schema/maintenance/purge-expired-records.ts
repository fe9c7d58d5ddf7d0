// Retention (README "Retention"): every table that grows with traffic has a rule saying when a
// row may go, and the workers run this once an hour for each database (live and sandbox).
// Events are the record of what happened and are never deleted; live e-mails, bookings and
// payments are business records and have no rule either.
//
// Rows go in batches, each its own short statement: a backlog of a million stale rows never
// holds a lock on a table for long, and a batch skips rows another transaction holds (a
// manual webhook retry, a token being spent) instead of waiting for them; they go next time.
// The stale condition is repeated outside the batch's sub-select, so a row changed between the
// two (a finished delivery retried by hand) is checked again before it is deleted.
import type { Db } from '../../db/databases.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export interface RetentionRule {
  table: string;
  /** How long a row is kept past the moment it could go: the cut-off `$1` is now minus this. */
  keepMs: number;
  /** SQL over the table's own columns, true for a row that may go; `$1` is the cut-off. */
  stale: string;
}

/** In order: a grant goes only after its codes and tokens, a delivery after its attempts. */
export const RETENTION_RULES: readonly RetentionRule[] = [
  // A record answers replays for 24 h (its expiresAt) and is kept a day past that, so what a
  // client sent can still be looked up when it asks about a replay that no longer happened.
  { table: 'idempotency_records', keepMs: DAY, stale: 'expires_at < $1' },
  { table: 'oauth_codes', keepMs: 0, stale: 'expires_at < $1' },
  // Access and refresh tokens alike go once expired, and not before: a spent refresh token is
  // kept until then, because its reuse is what reveals a stolen copy (and revokes the grant).
  { table: 'oauth_tokens', keepMs: 0, stale: 'expires_at < $1' },
  // A grant with no code or token left can issue nothing any more. Grants and codes are made in
  // one transaction, so a grant never exists without one of them until it is dead.
  {
    table: 'oauth_grants',
    keepMs: 0,
    stale:
      'created_at < $1 AND NOT EXISTS (SELECT 1 FROM oauth_codes c WHERE c.grant_id = oauth_grants.id)' +
      ' AND NOT EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.grant_id = oauth_grants.id)',
  },
  { table: 'sessions', keepMs: 0, stale: 'expires_at < $1' },
  { table: 'webhook_attempts', keepMs: 30 * DAY, stale: 'created_at < $1' },
  // A delivery is the heading of its attempts: it goes with the last of them, once finished
  // (a pending one is still being retried) and 30 days old.
  {
    table: 'webhook_deliveries',
    keepMs: 30 * DAY,
    stale:
      "status <> 'pending' AND created_at < $1" +
      ' AND NOT EXISTS (SELECT 1 FROM webhook_attempts a WHERE a.delivery_id = webhook_deliveries.id)',
  },
  // The sandbox's e-mail log (test companies' e-mails are logged, never sent).
  {
    table: 'emails',
    keepMs: 30 * DAY,
    stale: "status = 'logged' AND created_at < $1 AND company_id IN (SELECT id FROM companies WHERE mode = 'test')",
  },
  // Request logs (docs/api.md, Request logs), live and sandbox alike: 30 days after the request.
  { table: 'request_logs', keepMs: 30 * DAY, stale: 'created_at < $1' },
];

export const PURGE_BATCH_SIZE = 1000;

/**
 * Deletes the stale rows of every rule from one database, batch after batch until none is
 * left (or `signal` aborts: the next run carries on). Returns the count deleted per table.
 */
export async function purgeExpiredRecords(
  db: Db,
  opts: { now?: Date; batchSize?: number; signal?: AbortSignal; rules?: readonly RetentionRule[] } = {},
): Promise<Record<string, number>> {
  const now = (opts.now ?? new Date()).getTime();
  const batch = opts.batchSize ?? PURGE_BATCH_SIZE;
  const deleted: Record<string, number> = {};
  for (const rule of opts.rules ?? RETENTION_RULES) {
    // The ids of one batch, then the delete by primary key: no scan of the whole table under a
    // lock, and FOR UPDATE SKIP LOCKED leaves rows in use to the next run.
    const sql =
      `DELETE FROM ${rule.table} WHERE id = ANY(ARRAY(` +
      `SELECT id FROM ${rule.table} WHERE ${rule.stale} LIMIT ${batch} FOR UPDATE SKIP LOCKED)) AND ${rule.stale}`;
    const cutoff = new Date(now - rule.keepMs);
    let total = 0;
    for (;;) {
      if (opts.signal?.aborted) break;
      const count = await db.$executeRawUnsafe(sql, cutoff);
      total += count;
      if (count < batch) break;
    }
    deleted[rule.table] = total;
    if (opts.signal?.aborted) break;
  }
  return deleted;
}
