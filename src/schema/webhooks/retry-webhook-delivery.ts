import type { Db } from '../../db/databases.js';
import { AppError } from '../../errors.js';
import type { WebhookDelivery } from '../../generated/prisma/client.js';
import { isId } from '../../ids.js';
import { announceDueDelivery } from '../events/index.js';

/**
 * Retry by hand (docs/webhooks.md): the delivery becomes due now, whatever its state, and keeps its
 * event id, so the receiver sees the same X-Webhook-Id. Its attempts so far stay on record.
 * The workers enqueue it as soon as this commits. A delivery a worker is attempting right now
 * (its lease is held) is a CONFLICT: a second attempt would run beside it and the two would
 * race to record theirs. `endpointId`, when given, must be the delivery's (a page about one
 * endpoint retries only its own deliveries); otherwise the delivery is NOT_FOUND.
 */
export async function retryWebhookDelivery(
  db: Db,
  opts: { companyId: string; id: string; endpointId?: string },
): Promise<WebhookDelivery> {
  const delivery = isId(opts.id)
    ? await db.webhookDelivery.findFirst({
        where: {
          id: opts.id,
          companyId: opts.companyId,
          ...(opts.endpointId !== undefined ? { endpointId: opts.endpointId } : {}),
        },
        include: { endpoint: true },
      })
    : null;
  if (!delivery) throw AppError.notFound('webhook delivery');
  if (!delivery.endpoint.enabled) {
    throw new AppError(
      'INVALID_STATE_TRANSITION',
      'The endpoint is disabled; enable it before retrying its deliveries',
      {
        details: { from: 'disabled', to: 'pending' },
      },
    );
  }
  return db.$transaction(async (tx) => {
    // Conditional on the lease, in the database's clock, like the worker's claim: whichever of
    // the two updates the row first, the other sees it.
    const due = await tx.$queryRaw<Array<{ nextAttemptAt: Date }>>`
      UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(), updated_at = now()
      WHERE id = ${delivery.id} AND (lease_until IS NULL OR lease_until <= now())
      RETURNING next_attempt_at AS "nextAttemptAt"`;
    if (!due.length) {
      const held = await tx.webhookDelivery.findUniqueOrThrow({
        where: { id: delivery.id },
        select: { leaseUntil: true },
      });
      const seconds = Math.max(1, Math.ceil(((held.leaseUntil?.getTime() ?? Date.now()) - Date.now()) / 1000));
      throw new AppError(
        'CONFLICT',
        'The delivery is being attempted right now; retry it once that attempt is recorded',
        {
          details: { deliveryId: delivery.id, attemptInProgress: true },
          headers: { 'retry-after': String(seconds) },
        },
      );
    }
    await announceDueDelivery(tx, { id: delivery.id, nextAttemptAt: new Date(due[0]!.nextAttemptAt) });
    return tx.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } });
  });
}
