import type { Db } from '../../db/databases.js';
import { AppError } from '../../errors.js';
import type { WebhookDelivery } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { announceDueDelivery } from '../events/index.js';
import { findWebhookEndpoint } from './update-webhook-endpoint.js';

/**
 * The test button (docs/webhooks.md): a `ping` event delivered to this endpoint only, signed like
 * every other delivery. The event and its delivery are written together; the workers send it
 * as soon as they commit.
 */
export async function sendTestWebhook(
  db: Db,
  opts: { companyId: string; id: string },
): Promise<WebhookDelivery & { event: { id: string; type: string } }> {
  const endpoint = await findWebhookEndpoint(db, opts.companyId, opts.id);
  if (!endpoint.enabled) {
    throw new AppError('INVALID_STATE_TRANSITION', 'The endpoint is disabled; enable it before sending a test event', {
      details: { from: 'disabled', to: 'ping' },
    });
  }
  const now = new Date();
  return db.$transaction(async (tx) => {
    const event = await tx.event.create({
      data: {
        id: newId(),
        companyId: opts.companyId,
        type: 'ping',
        data: { endpointId: endpoint.id, message: 'A test event from the booking service' },
        // Fanned out here, not by the relay: it is meant for this endpoint alone.
        dispatchedAt: now,
      },
    });
    const delivery = await tx.webhookDelivery.create({
      data: {
        id: newId(),
        companyId: opts.companyId,
        endpointId: endpoint.id,
        eventId: event.id,
        status: 'pending',
        nextAttemptAt: now,
      },
      include: { event: { select: { id: true, type: true } } },
    });
    await announceDueDelivery(tx, delivery);
    return delivery;
  });
}
