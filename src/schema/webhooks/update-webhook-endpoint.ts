import { z } from 'zod';
import type { Config } from '../../config.js';
import type { Db } from '../../db/databases.js';
import { AppError } from '../../errors.js';
import type { Prisma, WebhookEndpoint } from '../../generated/prisma/client.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { isId } from '../../ids.js';
import { parseInput, text } from '../validation.js';
import { assertEndpointUrl, endpointEvents, endpointUrl } from './create-webhook-endpoint.js';

const input = z
  .object({ url: endpointUrl, events: endpointEvents, description: text(500).nullable(), enabled: z.boolean() })
  .partial()
  .strict();

export async function findWebhookEndpoint(db: Db, companyId: string, id: string): Promise<WebhookEndpoint> {
  // Other companies' and the other mode's endpoints are "not found" alike (docs/api.md).
  const endpoint = isId(id) ? await db.webhookEndpoint.findFirst({ where: { id, companyId } }) : null;
  if (!endpoint) throw AppError.notFound('webhook endpoint');
  return endpoint;
}

/** PATCH: absent fields stay; enabling again clears the reason it was disabled. */
export async function updateWebhookEndpoint(
  db: Db,
  opts: { companyId: string; mode: Mode; config: Config; id: string; input: unknown },
): Promise<WebhookEndpoint> {
  const patch = parseInput(input, opts.input);
  const endpoint = await findWebhookEndpoint(db, opts.companyId, opts.id);
  const data: Prisma.WebhookEndpointUpdateInput = {};
  if (patch.url !== undefined) data.url = assertEndpointUrl(patch.url, opts.mode, opts.config);
  if (patch.events !== undefined) data.events = patch.events;
  if (patch.description !== undefined) data.description = patch.description;
  if (patch.enabled !== undefined) {
    data.enabled = patch.enabled;
    if (patch.enabled) data.disabledReason = null;
  }
  return db.webhookEndpoint.update({ where: { id: endpoint.id }, data });
}

export async function deleteWebhookEndpoint(db: Db, opts: { companyId: string; id: string }): Promise<WebhookEndpoint> {
  const endpoint = await findWebhookEndpoint(db, opts.companyId, opts.id);
  await db.webhookEndpoint.delete({ where: { id: endpoint.id } });
  return endpoint;
}
