// "Nothing written" for the fuzzer, cheap enough to take before every request: for every table
// of both databases (live and sandbox), its row count and the newest row version's xmin.
// PostgreSQL gives every inserted or updated row version the id of the transaction that wrote
// it, and transaction ids only grow, so an insert or update raises the maximum and a delete
// lowers the count; a rolled-back write leaves neither. One sequential scan per table, no
// hashing of row contents.
//
// Four tables are read differently, because the request path writes them by design:
// - api_keys: the credential resolver writes lastUsedAt in batches on a timer (never a write
//   per request), so it is compared by a hash of its rows without that column;
// - idempotency_records: an Idempotency-Key's first answer is kept for replay, 4xx answers
//   included (docs/api.md, Idempotency), so this bookkeeping is not a change of the company's data;
// - request_logs: every /api/v1 request is recorded, 4xx answers with their bodies (docs/api.md,
//   request logs), in batches off the request path: a record of the request, not of a change;
// - report_versions: counters raised only by triggers on writes to other tables (migration
//   report_versions), which are seen themselves.
import type { Database, Databases } from '../../src/db/databases.js';

export type Snapshot = Record<string, string>;

const IGNORED = new Set(['_prisma_migrations', 'idempotency_records', 'request_logs', 'report_versions']);
const HASHED: Record<string, string> = { api_keys: 'last_used_at' };

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

export class DbSnapshotter {
  private readonly queries = new Map<Database, string>();

  constructor(private readonly dbs: Databases) {}

  /** Reads each database's table list once (the schema does not change during a run). */
  async init(): Promise<void> {
    for (const db of [this.dbs.live, this.dbs.test]) {
      const rows = await db.prisma.$queryRawUnsafe<Array<{ table_name: string }>>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE' ORDER BY table_name`,
        db.schema,
      );
      const parts = rows
        .map((r) => r.table_name)
        .filter((t) => !IGNORED.has(t))
        .map((t) => {
          const from = `${quote(db.schema)}.${quote(t)}`;
          const marker = HASHED[t]
            ? `md5(coalesce(string_agg((to_jsonb(r) - '${HASHED[t]}')::text, ',' ORDER BY (to_jsonb(r) - '${HASHED[t]}')::text), ''))`
            : `coalesce(max(r.xmin::text::bigint), 0)::text`;
          return `SELECT '${db.mode}.${t}' AS t, count(*)::text || ':' || ${marker} AS v FROM ${from} AS r`;
        });
      if (parts.length === 0) throw new Error(`no tables found in schema ${db.schema}`);
      this.queries.set(db, parts.join(' UNION ALL '));
    }
  }

  async take(): Promise<Snapshot> {
    const out: Snapshot = {};
    const results = await Promise.all(
      [...this.queries].map(([db, sql]) => db.prisma.$queryRawUnsafe<Array<{ t: string; v: string }>>(sql)),
    );
    for (const row of results.flat()) out[row.t] = row.v;
    return out;
  }
}

/** The tables whose rows differ between two snapshots ("test.bookings 12:881 → 13:905"). */
export function changedTables(before: Snapshot, after: Snapshot): string[] {
  return Object.keys({ ...before, ...after })
    .filter((t) => before[t] !== after[t])
    .map((t) => `${t} ${before[t] ?? '-'} → ${after[t] ?? '-'}`);
}
