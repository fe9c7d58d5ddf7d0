// The workers' NOTIFY channel. A bare payload (the schema name, sent by the events trigger and
// wakeWorkers) wakes the relay. `deliver <schema> <deliveryId> <due ms>` says one delivery is
// due now (the test button, a manual retry): each worker listening on that schema enqueues it
// at once, the relay's own path, rather than leave it to the sweep. NOTIFY is transactional, so
// it arrives only once the row it names is committed; one lost (no worker listening) is the
// sweep's, as every lost job is.
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
