// The outbox relay (docs/webhooks.md: "the event is written in the same transaction as the change
// that caused it, then delivered by workers over Redis"). Events with dispatchedAt NULL are
// claimed with FOR UPDATE SKIP LOCKED, so several worker processes share the work without
// taking the same event, and fanned out in one transaction into a WebhookDelivery per
// subscribed endpoint (unique endpointId+eventId) and the e-mails the event calls for
// (unique eventId). Only then are jobs enqueued; if that fails (Redis down), the rows stay
// due and the sweeps below enqueue them later. An event committed while no worker or no
// Redis was running is relayed by the next poll: nothing waits on a message that was lost.
// One event that cannot be fanned out (bad data, a bug) fails alone, inside a savepoint, and
// is set aside after MAX_DISPATCH_ATTEMPTS with its error; the events behind it flow on.
// Last in the transaction, the events it finished with get their positions (dispatch order,
// docs/api.md, Events), and after the commit they are published to the live subscriptions.
import type { Config } from '../config.js';
import { inSavepoint, type Database, type Tx } from '../db/databases.js';
import type { Prisma } from '../generated/prisma/client.js';
import type { Mode } from '../generated/prisma/enums.js';
import { newId } from '../ids.js';
import { assignPositions, publishDispatched, type EventRecord } from '../schema/events/index.js';
import type { Services } from '../services.js';
import { composeEmails } from './email/compose-emails.js';
import type { Enqueue } from './job-types.js';
import { enqueuePlannedReminders, sweepDueReminders } from './reminder-sweep.js';

const BATCH = 200;
const SWEEP_BUCKET_MS = 5_000;
// The fast path enqueues every delivery as it is written and every retry as it is scheduled;
// the sweep is for stragglers whose job was lost, so it leaves fresh work alone (re-adding
// thousands of just-enqueued jobs every cycle would cost more than the deliveries).
const STRAGGLER_SECONDS = 2;
/** Relay attempts before an event that keeps failing is set aside (dispatched, with its error). */
export const MAX_DISPATCH_ATTEMPTS = 5;

interface OutboxRow {
  id: string;
  companyId: string;
  type: string;
  data: Prisma.JsonValue;
  createdAt: Date;
  dispatchAttempts: number;
}

interface Endpoint {
  id: string;
  companyId: string;
  events: string[];
}

interface FanOut {
  deliveries: Prisma.WebhookDeliveryCreateManyInput[];
  emails: Prisma.EmailCreateManyInput[];
}

export function subscribes(endpointEvents: readonly string[], type: string): boolean {
  return endpointEvents.includes('*') || endpointEvents.includes(type);
}

/** Writes the deliveries and e-mails of some events (unique keys make a rerun add nothing). */
async function fanOut(
  tx: Tx,
  o: { mode: Mode; from: string; config: Config; events: OutboxRow[]; endpoints: Endpoint[]; now: Date },
): Promise<FanOut> {
  const deliveries: Prisma.WebhookDeliveryCreateManyInput[] = [];
  // No `ping` reaches here: the test button writes its event already dispatched, with its one
  // delivery (send-test-webhook.ts), and recordEvent cannot record one (OutboxEventType).
  for (const e of o.events) {
    for (const ep of o.endpoints) {
      if (ep.companyId !== e.companyId || !subscribes(ep.events, e.type)) continue;
      deliveries.push({
        id: newId(),
        companyId: e.companyId,
        endpointId: ep.id,
        eventId: e.id,
        status: 'pending',
        nextAttemptAt: o.now,
      });
    }
  }
  if (deliveries.length) await tx.webhookDelivery.createMany({ data: deliveries, skipDuplicates: true });
  const emails = await composeEmails(tx, { mode: o.mode, events: o.events, from: o.from, config: o.config });
  if (emails.length) await tx.email.createMany({ data: emails, skipDuplicates: true });
  return { deliveries, emails };
}

const errorText = (err: unknown) => (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 1000);

/**
 * Claims and fans out one batch; returns how many events it finished with (dispatched, or set
 * aside). An event that failed and is left for another try does not count, so the caller's
 * drain loop does not spin on it: the next poll tries it again.
 */
export async function relayBatch(services: Services, db: Database, enqueue: Enqueue): Promise<number> {
  const mode: Mode = db.mode;
  const from = services.config.EMAIL_FROM;
  const claimed = await db.prisma.$transaction(async (tx) => {
    // Events that failed before come after fresh ones, so they never hold a batch up.
    const events = await tx.$queryRaw<OutboxRow[]>`
      SELECT id, company_id AS "companyId", type, data, created_at AS "createdAt", dispatch_attempts AS "dispatchAttempts"
      FROM events
      WHERE dispatched_at IS NULL ORDER BY dispatch_attempts, id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`;
    if (!events.length) return null;
    const now = new Date();
    const companyIds = [...new Set(events.map((e) => e.companyId))];
    const endpoints = await tx.webhookEndpoint.findMany({
      where: { companyId: { in: companyIds }, enabled: true },
      select: { id: true, companyId: true, events: true },
    });
    const failed = new Map<string, string>();
    let out: FanOut;
    try {
      // The whole batch in one go: the common case, and the fast one.
      out = await inSavepoint(tx, () => fanOut(tx, { mode, from, config: services.config, events, endpoints, now }));
    } catch {
      // Something in the batch is bad: event by event, so only that one is held back.
      out = { deliveries: [], emails: [] };
      for (const e of events) {
        try {
          const one = await inSavepoint(tx, () =>
            fanOut(tx, { mode, from, config: services.config, events: [e], endpoints, now }),
          );
          out.deliveries.push(...one.deliveries);
          out.emails.push(...one.emails);
        } catch (err) {
          failed.set(e.id, errorText(err));
        }
      }
    }
    const done = events.filter((e) => !failed.has(e.id)).map((e) => e.id);
    if (done.length)
      await tx.event.updateMany({ where: { id: { in: done } }, data: { dispatchedAt: now, dispatchError: null } });
    const setAside: Array<{ id: string; type: string; error: string }> = [];
    const retried: Array<{ id: string; type: string; error: string }> = [];
    for (const e of events) {
      const error = failed.get(e.id);
      if (error === undefined) continue;
      const attempts = e.dispatchAttempts + 1;
      const giveUp = attempts >= MAX_DISPATCH_ATTEMPTS;
      await tx.event.update({
        where: { id: e.id },
        data: { dispatchAttempts: attempts, dispatchError: error, dispatchedAt: giveUp ? now : null },
      });
      (giveUp ? setAside : retried).push({ id: e.id, type: e.type, error });
    }
    // Every event dispatched now, set-aside ones included (they are in the record as well), in
    // the batch's order. Last, so the positions' lock is held only until the commit.
    const retry = new Set(retried.map((e) => e.id));
    const positions = await assignPositions(
      tx,
      events.filter((e) => !retry.has(e.id)).map((e) => e.id),
    );
    const dispatched: Array<EventRecord & { position: bigint }> = [];
    for (const e of events) {
      const position = positions.get(e.id);
      if (position !== undefined) dispatched.push({ ...e, position });
    }
    return { handled: done.length + setAside.length, ...out, setAside, retried, dispatched };
  });
  if (!claimed) return 0;
  for (const e of claimed.retried)
    services.logger.warn(
      { mode, eventId: e.id, type: e.type, err: { message: e.error } },
      'event could not be relayed; trying again',
    );
  for (const e of claimed.setAside) {
    services.logger.error(
      { mode, eventId: e.id, type: e.type, err: { message: e.error } },
      `event set aside after ${MAX_DISPATCH_ATTEMPTS} failed relays (events.dispatch_error)`,
    );
  }
  // After the commit: the live subscriptions (a lost message is found in the database by
  // them), then the fast path of the jobs (a failure there is picked up by the sweeps).
  await publishDispatched(services.bus, mode, claimed.dispatched).catch((err: Error) =>
    services.logger.warn({ mode, err: { message: err.message } }, 'live events publish failed; subscribers catch up'),
  );
  await Promise.all([
    ...claimed.deliveries.map((d) =>
      enqueue('deliver-webhook', { mode, deliveryId: d.id, due: (d.nextAttemptAt as Date).getTime() }),
    ),
    ...claimed.emails.filter((m) => m.status === 'queued').map((m) => enqueue('send-email', { mode, emailId: m.id })),
  ]).catch((err: Error) =>
    services.logger.warn({ mode, err: { message: err.message } }, 'enqueue failed; the sweep will retry'),
  );
  // A booking made or moved: its reminders as delayed jobs (the sweep is the backstop).
  const planned = claimed.dispatched
    .filter((e) => e.type === 'booking.created' || e.type === 'booking.rescheduled')
    .map((e) => String((e.data as Record<string, unknown>).bookingId));
  await enqueuePlannedReminders(db, enqueue, planned).catch((err: Error) =>
    services.logger.warn({ mode, err: { message: err.message } }, 'reminder enqueue failed; the sweep will retry'),
  );
  return claimed.handled;
}

/**
 * Re-enqueues work whose rows say it is due: deliveries whose next attempt (or whose lost
 * worker's lease) came more than STRAGGLER_SECONDS ago, payments still processing, e-mails
 * still queued and not held by a sender. Payments and e-mails have one job id per row (see
 * job-catalog.ts), so while their job exists this adds nothing; handlers claim their row, so
 * a rerun is harmless.
 */
export async function sweep(services: Services, db: Database, enqueue: Enqueue): Promise<void> {
  const mode: Mode = db.mode;
  const now = Date.now();
  // An attempt overdue by more than this gets a fresh job id once per bucket (see job-catalog.ts).
  const grace = Math.max(SWEEP_BUCKET_MS, 2 * services.config.WORKER_POLL_MS);
  const bucket = Math.floor(now / SWEEP_BUCKET_MS);
  const overdue = (since: Date) => (now - since.getTime() > grace ? bucket : undefined);
  const [deliveries, payments, emails] = await Promise.all([
    db.prisma.$queryRaw<{ id: string; due: Date }[]>`
      SELECT id, next_attempt_at AS due FROM webhook_deliveries
      WHERE status = 'pending' AND next_attempt_at <= now() - make_interval(secs => ${STRAGGLER_SECONDS})
        AND (lease_until IS NULL OR lease_until <= now())
      ORDER BY next_attempt_at LIMIT 1000`,
    db.prisma.payment.findMany({
      where: { status: 'processing' },
      select: { id: true },
      take: 500,
      orderBy: { createdAt: 'asc' },
    }),
    db.prisma.$queryRaw<{ id: string }[]>`
      SELECT id FROM emails WHERE status = 'queued' AND (lease_until IS NULL OR lease_until <= now())
      ORDER BY created_at LIMIT 500`,
  ]);
  await Promise.all([
    ...deliveries.map((d) => {
      const due = new Date(d.due);
      return enqueue('deliver-webhook', { mode, deliveryId: d.id, due: due.getTime(), sweep: overdue(due) });
    }),
    ...payments.map((p) => enqueue('settle-payment', { mode, paymentId: p.id })),
    ...emails.map((m) => enqueue('send-email', { mode, emailId: m.id })),
    sweepDueReminders(services, db, enqueue),
  ]);
}
