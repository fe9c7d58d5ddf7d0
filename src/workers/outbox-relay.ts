// The outbox relay (API.md §6: "the event is written in the same transaction as the change
// that caused it, then delivered by workers over Redis"). Events with dispatchedAt NULL are
// claimed with FOR UPDATE SKIP LOCKED, so several worker processes share the work without
// taking the same event, and fanned out in one transaction into a WebhookDelivery per
// subscribed endpoint (unique endpointId+eventId) and the e-mails the event calls for
// (unique eventId). Only then are jobs enqueued; if that fails (Redis down), the rows stay
// due and the sweeps below enqueue them later. An event committed while no worker or no
// Redis was running is relayed by the next poll: nothing waits on a message that was lost.
import type { Database } from '../db/databases.js';
import type { Prisma } from '../generated/prisma/client.js';
import type { Mode } from '../generated/prisma/enums.js';
import { newId } from '../ids.js';
import type { Services } from '../services.js';
import { composeEmails } from './email/compose-emails.js';
import type { Enqueue } from './job-catalog.js';

const BATCH = 200;
const SWEEP_BUCKET_MS = 5_000;
// The fast path enqueues every delivery as it is written and every retry as it is scheduled;
// the sweep is for stragglers whose job was lost, so it leaves fresh work alone (re-adding
// thousands of just-enqueued jobs every cycle would cost more than the deliveries).
const STRAGGLER_SECONDS = 2;

interface OutboxRow {
  id: string;
  companyId: string;
  type: string;
  data: Prisma.JsonValue;
}

export function subscribes(endpointEvents: readonly string[], type: string): boolean {
  return endpointEvents.includes('*') || endpointEvents.includes(type);
}

/** Claims and fans out one batch; returns how many events it took. */
export async function relayBatch(services: Services, db: Database, enqueue: Enqueue): Promise<number> {
  const mode: Mode = db.mode;
  const claimed = await db.prisma.$transaction(async (tx) => {
    const events = await tx.$queryRaw<OutboxRow[]>`
      SELECT id, company_id AS "companyId", type, data FROM events
      WHERE dispatched_at IS NULL ORDER BY id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`;
    if (!events.length) return null;
    const now = new Date();
    const companyIds = [...new Set(events.map((e) => e.companyId))];
    const endpoints = await tx.webhookEndpoint.findMany({
      where: { companyId: { in: companyIds }, enabled: true },
      select: { id: true, companyId: true, events: true },
    });
    const deliveries: Prisma.WebhookDeliveryCreateManyInput[] = [];
    for (const e of events) {
      const target = e.type === 'ping' ? (e.data as { endpointId?: string } | null)?.endpointId : undefined;
      for (const ep of endpoints) {
        if (ep.companyId !== e.companyId) continue;
        // A ping goes to the endpoint whose test button made it, and only there.
        if (e.type === 'ping' ? ep.id !== target : !subscribes(ep.events, e.type)) continue;
        deliveries.push({ id: newId(), companyId: e.companyId, endpointId: ep.id, eventId: e.id, status: 'pending', nextAttemptAt: now });
      }
    }
    if (deliveries.length) await tx.webhookDelivery.createMany({ data: deliveries, skipDuplicates: true });
    const emails = await composeEmails(tx, { mode, events, from: services.config.EMAIL_FROM });
    if (emails.length) await tx.email.createMany({ data: emails, skipDuplicates: true });
    await tx.event.updateMany({ where: { id: { in: events.map((e) => e.id) } }, data: { dispatchedAt: now } });
    return { count: events.length, deliveries, emails };
  });
  if (!claimed) return 0;
  // After the commit: the fast path. A failure here is picked up by the sweeps.
  await Promise.all([
    ...claimed.deliveries.map((d) => enqueue('deliver-webhook', { mode, deliveryId: d.id!, due: (d.nextAttemptAt as Date).getTime() })),
    ...claimed.emails.filter((m) => m.status === 'queued').map((m) => enqueue('send-email', { mode, emailId: m.id })),
  ]).catch((err: Error) => services.logger.warn({ mode, err: { message: err.message } }, 'enqueue failed; the sweep will retry'));
  return claimed.count;
}

/**
 * Re-enqueues work whose rows say it is due: deliveries whose next attempt (or whose lost
 * worker's lease) came more than STRAGGLER_SECONDS ago, payments still processing, e-mails still queued. Job ids make
 * this idempotent while a job waits; handlers claim their row, so a rerun is harmless.
 */
export async function sweep(services: Services, db: Database, enqueue: Enqueue): Promise<void> {
  const mode: Mode = db.mode;
  const now = Date.now();
  // Work overdue by more than this gets a fresh job id once per bucket (see job-catalog.ts).
  const grace = Math.max(SWEEP_BUCKET_MS, 2 * services.config.WORKER_POLL_MS);
  const bucket = Math.floor(now / SWEEP_BUCKET_MS);
  const overdue = (since: Date) => (now - since.getTime() > grace ? bucket : undefined);
  const [deliveries, payments, emails] = await Promise.all([
    db.prisma.$queryRaw<{ id: string; due: Date }[]>`
      SELECT id, next_attempt_at AS due FROM webhook_deliveries
      WHERE status = 'pending' AND next_attempt_at <= now() - make_interval(secs => ${STRAGGLER_SECONDS})
      ORDER BY next_attempt_at LIMIT 1000`,
    db.prisma.payment.findMany({ where: { status: 'processing' }, select: { id: true, createdAt: true }, take: 500, orderBy: { createdAt: 'asc' } }),
    db.prisma.email.findMany({ where: { status: 'queued' }, select: { id: true, createdAt: true }, take: 500, orderBy: { createdAt: 'asc' } }),
  ]);
  await Promise.all([
    ...deliveries.map((d) => {
      const due = new Date(d.due);
      return enqueue('deliver-webhook', { mode, deliveryId: d.id, due: due.getTime(), sweep: overdue(due) });
    }),
    // Payments and e-mails retry with the queue's backoff; only long-stuck ones get a new job.
    ...payments.map((p) => enqueue('settle-payment', { mode, paymentId: p.id, sweep: overdue(new Date(p.createdAt.getTime() + 60_000)) })),
    ...emails.map((m) => enqueue('send-email', { mode, emailId: m.id, sweep: overdue(new Date(m.createdAt.getTime() + 300_000)) })),
  ]);
}
