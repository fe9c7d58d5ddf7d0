// How the outbox (events.ts: every change writes its event in its own transaction) tells the
// workers there is work, defined here beside it, by the side that writes; the workers only
// listen (src/workers/runtime.ts).
//
// One NOTIFY channel. A bare payload (the schema name, sent by the events trigger of the
// webhook-workers migration, which names the channel in SQL, and by wakeWorkers) wakes the
// relay. `deliver <schema> <deliveryId> <due ms>` says one delivery is due now (the test
// button, a manual retry): each worker listening on that schema enqueues it at once, the
// relay's own path, rather than leave it to the sweep. NOTIFY is transactional, so it arrives
// only once the row it names is committed; one lost (no worker listening) is the sweep's, as
// every lost job is.
import type { Db } from '../../db/databases.js';
import type { Tx } from '../../db/databases.js';

export const OUTBOX_CHANNEL = 'svc_outbox';

export interface DueDelivery {
  schema: string;
  deliveryId: string;
  due: number;
}

export function dueDeliveryPayload(d: DueDelivery): string {
  return `deliver ${d.schema} ${d.deliveryId} ${d.due}`;
}

export function parseDueDelivery(payload: string): DueDelivery | null {
  const m = /^deliver (\S+) ([0-9a-f]{24}) (\d{1,15})$/.exec(payload);
  return m ? { schema: m[1]!, deliveryId: m[2]!, due: Number(m[3]) } : null;
}

/** Asks the workers to look now (what the events trigger does for an event). */
export async function wakeWorkers(db: Db): Promise<void> {
  await db.$executeRaw`SELECT pg_notify(${OUTBOX_CHANNEL}, current_schema())`;
}

/**
 * Tells the workers, when the transaction commits, that this delivery is due now: they enqueue
 * its job at once instead of leaving it to the sweep.
 */
export async function announceDueDelivery(tx: Tx, delivery: { id: string; nextAttemptAt: Date | null }): Promise<void> {
  const [{ schema }] = await tx.$queryRaw<[{ schema: string }]>`SELECT current_schema() AS schema`;
  const payload = dueDeliveryPayload({
    schema,
    deliveryId: delivery.id,
    due: (delivery.nextAttemptAt ?? new Date()).getTime(),
  });
  await tx.$executeRaw`SELECT pg_notify(${OUTBOX_CHANNEL}, ${payload})`;
}
