// Events (docs/webhooks.md): every change of a booking, customer, class session or payment writes its
// event in the same transaction as the change. The events table is the outbox the webhook
// workers read, and GET /events lets a client that missed webhooks re-sync.
import { Prisma, type Event } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import type { Tx } from '../../db/databases.js';

// The event types are the webhook contract's, in src/webhooks/ (so `svc` can list them without
// loading the domain); the domain records them.
export { EVENT_TYPES, OUTBOX_EVENT_TYPES, type EventType, type OutboxEventType } from '../../webhooks/event-types.js';
import type { OutboxEventType } from '../../webhooks/event-types.js';

/**
 * Records one event. Call it with the transaction that makes the change, so the event exists
 * if and only if the change does (the transactional outbox).
 */
export async function recordEvent(
  tx: Tx,
  opts: { companyId: string; type: OutboxEventType; data: Record<string, unknown> },
): Promise<Event> {
  return tx.event.create({
    data: { id: newId(), companyId: opts.companyId, type: opts.type, data: opts.data as Prisma.InputJsonValue },
  });
}

/**
 * recordEvent as SQL, for a statement that writes the change and its event at once (a booking's
 * INSERT: src/schema/bookings/insert-booking.ts). The same row: a new id, the data as JSON, the
 * time written now, not yet dispatched.
 */
export function eventInsert(
  opts: { companyId: string; type: OutboxEventType; data: Record<string, unknown> },
  /** Only when this WITH clause returned a row (a change that may be a no-op: ON CONFLICT DO NOTHING). */
  onlyIf?: string,
) {
  const values = Prisma.sql`${newId()}, ${opts.companyId}, ${opts.type}, ${JSON.stringify(opts.data)}::jsonb, ${new Date()}, 0`;
  return Prisma.sql`
    INSERT INTO events (id, company_id, type, data, created_at, dispatch_attempts)
    ${onlyIf ? Prisma.sql`SELECT ${values} WHERE EXISTS (SELECT 1 FROM ${Prisma.raw(onlyIf)})` : Prisma.sql`VALUES (${values})`}`;
}
