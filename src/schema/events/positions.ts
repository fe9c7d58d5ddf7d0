// Event positions (docs/api.md, Events): the order in which the outbox relay dispatched the
// events of one database (live or sandbox), and the cursor every reader resumes from. Ids are
// made before their transaction commits, so a smaller id can become visible after a larger
// one and a reader resuming "after this id" would skip it; a position is given at dispatch,
// under a lock held to the commit, so every position below a visible one is visible too.
import type { Tx } from '../../db/databases.js';

/**
 * Numbers `ids` (events being dispatched in this transaction), in this order, after the
 * largest position of this database. A transaction-scoped advisory lock, one per schema,
 * makes the next relay wait for this transaction's commit before it numbers its own events:
 * positions are then dense and increase in commit order, with no duplicate (the unique index
 * would refuse one). Call it last in the relay's transaction, so the lock is held only for
 * this statement and the commit.
 */
export async function assignPositions(tx: Tx, ids: readonly string[]): Promise<Map<string, bigint>> {
  if (!ids.length) return new Map();
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(current_schema() || '.event_positions', 0))`;
  const rows = await tx.$queryRaw<Array<{ id: string; position: bigint }>>`
    UPDATE events AS e SET position = base.last + o.ord
      FROM (SELECT coalesce(max(position), 0) AS last FROM events) AS base,
           unnest(${ids}::text[]) WITH ORDINALITY AS o(id, ord)
     WHERE e.id = o.id
    RETURNING e.id, e.position`;
  return new Map(rows.map((r) => [r.id, BigInt(r.position)]));
}
