// Idempotency records are kept 24 hours (API.md §2). Expired ones are already ignored on use;
// the workers call this periodically, for each database, so the table does not grow.
import type { Db } from '../../db/databases.js';

export async function deleteExpiredIdempotencyRecords(db: Db, opts: { now?: Date } = {}): Promise<{ deleted: number }> {
  const { count } = await db.idempotencyRecord.deleteMany({ where: { expiresAt: { lte: opts.now ?? new Date() } } });
  return { deleted: count };
}
