import type { Config } from '../../config.js';
import type { Db } from '../../db/databases.js';
import { secretBox } from '../../workers/secret-box.js';
import { generateWebhookSecret } from '../../workers/webhook-signature.js';
import type { EndpointWithSecrets } from './create-webhook-endpoint.js';
import { findWebhookEndpoint } from './update-webhook-endpoint.js';

export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

/**
 * A new signing secret; the old one keeps signing alongside it for 24 h (a second v1= in
 * X-Signature and webhook-signature), so receivers can switch without missing a delivery.
 */
export async function rotateWebhookSecret(db: Db, opts: { companyId: string; config: Config; id: string; now?: Date }): Promise<EndpointWithSecrets> {
  const endpoint = await findWebhookEndpoint(db, opts.companyId, opts.id);
  const box = secretBox(opts.config);
  const secret = generateWebhookSecret();
  const now = opts.now ?? new Date();
  const updated = await db.webhookEndpoint.update({
    where: { id: endpoint.id },
    data: {
      secretEnc: box.seal(secret),
      previousSecretEnc: endpoint.secretEnc,
      previousSecretExpiresAt: new Date(now.getTime() + ROTATION_OVERLAP_MS),
    },
  });
  return { endpoint: updated, secret, token: box.open(updated.tokenEnc) };
}
