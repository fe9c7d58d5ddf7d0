import type { Db } from '../../db/databases.js';
import { AppError } from '../../errors.js';
import type { WebhookDelivery } from '../../generated/prisma/client.js';
import { isId } from '../../ids.js';
import { wakeWorkers } from './send-test-webhook.js';

/**
 * Retry by hand (API.md §6): the delivery becomes due now, whatever its state, and keeps its
 * event id, so the receiver sees the same X-Webhook-Id. Its attempts so far stay on record.
 */
export async function retryWebhookDelivery(db: Db, opts: { companyId: string; id: string }): Promise<WebhookDelivery> {
  const delivery = isId(opts.id)
    ? await db.webhookDelivery.findFirst({ where: { id: opts.id, companyId: opts.companyId }, include: { endpoint: true } })
    : null;
  if (!delivery) throw AppError.notFound('webhook delivery');
  if (!delivery.endpoint.enabled) {
    throw new AppError('INVALID_STATE_TRANSITION', 'The endpoint is disabled; enable it before retrying its deliveries', {
      details: { from: 'disabled', to: 'pending' },
    });
  }
  const updated = await db.webhookDelivery.update({ where: { id: delivery.id }, data: { status: 'pending', nextAttemptAt: new Date() } });
  await wakeWorkers(db);
  return updated;
}
