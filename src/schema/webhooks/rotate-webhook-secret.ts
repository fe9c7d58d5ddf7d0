import type { Config } from '../../config.js';
import { secretBox } from '../../crypto/secret-box.js';
import type { Db } from '../../db/databases.js';
import { AppError } from '../../errors.js';
import { generateWebhookSecret } from '../../webhooks/signature.js';
import type { EndpointWithSecrets } from './create-webhook-endpoint.js';
import { findWebhookEndpoint } from './update-webhook-endpoint.js';

export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

/**
 * A new signing secret; the old one keeps signing alongside it for 24 h (a second v1= in
 * X-Signature and webhook-signature), so receivers can switch without missing a delivery.
 *
 * Rotating again within those 24 h does not cut the first overlap short (as Stripe does not):
 * the secret being replaced gets 24 h of its own, and the one before it keeps signing until
 * its own expiry. At most two old secrets sign at once; a third rotation within a day ends the
 * oldest overlap.
 */
export async function rotateWebhookSecret(
  db: Db,
  opts: { companyId: string; config: Config; id: string; now?: Date },
): Promise<EndpointWithSecrets> {
  const endpoint = await findWebhookEndpoint(db, opts.companyId, opts.id);
  const box = secretBox(opts.config);
  const secret = generateWebhookSecret();
  const now = opts.now ?? new Date();
  const previousStillSigns = Boolean(
    endpoint.previousSecretEnc && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now,
  );
  // Conditional on the secret read above: two rotations at once must not both demote it.
  const { count } = await db.webhookEndpoint.updateMany({
    where: { id: endpoint.id, secretEnc: endpoint.secretEnc },
    data: {
      secretEnc: box.seal(secret),
      previousSecretEnc: endpoint.secretEnc,
      previousSecretExpiresAt: new Date(now.getTime() + ROTATION_OVERLAP_MS),
      olderSecretEnc: previousStillSigns ? endpoint.previousSecretEnc : null,
      olderSecretExpiresAt: previousStillSigns ? endpoint.previousSecretExpiresAt : null,
    },
  });
  if (!count)
    throw new AppError('CONFLICT', 'The secret was rotated meanwhile; fetch the endpoint and try again', {
      details: { id: endpoint.id },
    });
  const updated = await db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
  return { endpoint: updated, secret, token: box.open(updated.tokenEnc) };
}
