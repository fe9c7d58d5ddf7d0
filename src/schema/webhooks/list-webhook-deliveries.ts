import type { Db } from '../../db/databases.js';
import type { WebhookEndpoint } from '../../generated/prisma/client.js';

/** All of a company's endpoints, oldest first. */
export async function listWebhookEndpoints(db: Db, companyId: string): Promise<WebhookEndpoint[]> {
  return db.webhookEndpoint.findMany({ where: { companyId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

/** An endpoint's latest deliveries, newest first, each with its event and every attempt. */
export async function listWebhookDeliveries(db: Db, opts: { companyId: string; endpointId: string; limit: number }) {
  return db.webhookDelivery.findMany({
    where: { companyId: opts.companyId, endpointId: opts.endpointId },
    orderBy: { id: 'desc' },
    take: opts.limit,
    include: { event: { select: { type: true, id: true } }, attempts: { orderBy: { createdAt: 'asc' } } },
  });
}
