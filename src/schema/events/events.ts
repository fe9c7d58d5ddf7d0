// Events (docs/webhooks.md): every change of a booking, customer, class session or payment writes its
// event in the same transaction as the change. The events table is the outbox the webhook
// workers read, and GET /events lets a client that missed webhooks re-sync.
import type { Prisma } from '../../generated/prisma/client.js';
import type { Event } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';

export const EVENT_TYPES = [
  'booking.created',
  'booking.confirmed',
  'booking.rescheduled',
  'booking.cancelled',
  'booking.completed',
  'booking.no_show',
  'booking.expired',
  'booking.updated',
  'booking.reminder_due',
  'payment.succeeded',
  'payment.failed',
  'payment.refunded',
  'payment.updated',
  'customer.created',
  'customer.updated',
  'class.cancelled',
  'ping',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/**
 * The events the outbox relay fans out to subscribed endpoints. A `ping` is not one: it is
 * meant for the one endpoint whose test button made it, so sendTestWebhook writes it already
 * dispatched, together with its delivery.
 */
export type OutboxEventType = Exclude<EventType, 'ping'>;

/** Anything that can run Prisma model calls: the client or an interactive transaction. */
export type Tx = Prisma.TransactionClient;

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
