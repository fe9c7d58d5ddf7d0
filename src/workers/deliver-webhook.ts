// One delivery attempt (docs/webhooks.md). The delivery row is claimed with a lease first, so two
// workers holding the same job (a duplicate enqueue, a stalled job handed on) never POST it
// at the same time, and a manual retry is refused while the lease is held; a worker killed
// mid-attempt leaves the lease to run out and the relay's sweep hands the delivery to another
// (at-least-once: receivers de-duplicate on X-Webhook-Id). Whatever happens after the claim
// ends as a recorded attempt, so no delivery stays pending without one.
import { secretBox } from '../crypto/secret-box.js';
import type { Prisma, WebhookEndpoint } from '../generated/prisma/client.js';
import { newId } from '../ids.js';
import { deliveryHeaders, webhookBody } from '../webhooks/signature.js';
import { policyFor } from '../webhooks/ssrf-guard.js';
import type { JobContext } from './job-types.js';
import { sendWebhook, type SendResult } from './webhook-sender.js';

/**
 * When to try again after failed attempt number `attempt` (1-based), or null when the
 * schedule is spent. ±20 % jitter spreads a receiver's recovery; Retry-After is honoured
 * (never sooner than asked, never more than a day later).
 */
const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;

export function nextAttemptDelayMs(
  schedule: readonly number[],
  attempt: number,
  retryAfterMs: number | null,
  random = Math.random,
): number | null {
  const base = schedule[attempt - 1];
  if (base === undefined) return null;
  const jittered = base * 1000 * (0.8 + 0.4 * random());
  return Math.round(retryAfterMs === null ? jittered : Math.max(jittered, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS)));
}

/**
 * The signed headers of one attempt. Signed with the current secret and, during rotations,
 * each previous secret until its own expiry (docs/webhooks.md: the old secret signs alongside for
 * 24 h). A secret or token that cannot be decrypted (SECRET_KEY changed, a damaged row) is an
 * error recorded on the attempt, not an exception that would leave the delivery pending.
 */
function signedHeaders(
  ctx: JobContext,
  endpoint: WebhookEndpoint,
  event: { id: string; type: string },
  body: string,
): { headers: Record<string, string> } | { error: string } {
  const box = secretBox(ctx.services.config);
  // The rotation window is judged on the services' clock (tests move it); the signature's
  // timestamp is the real time, which receivers check against theirs.
  const now = ctx.services.now?.() ?? Date.now();
  try {
    const secrets = [box.open(endpoint.secretEnc)];
    for (const [sealed, expiresAt] of [
      [endpoint.previousSecretEnc, endpoint.previousSecretExpiresAt],
      [endpoint.olderSecretEnc, endpoint.olderSecretExpiresAt],
    ] as const) {
      if (sealed && expiresAt && expiresAt.getTime() > now) secrets.push(box.open(sealed));
    }
    const headers = deliveryHeaders({
      eventId: event.id,
      eventType: event.type,
      body,
      timestamp: Math.floor(Date.now() / 1000),
      secrets,
      token: box.open(endpoint.tokenEnc),
    });
    return { headers };
  } catch (err) {
    ctx.services.logger.error(
      { endpointId: endpoint.id, err: { message: (err as Error).message } },
      'webhook not sent: the endpoint secret cannot be decrypted',
    );
    return {
      error: `not sent: the endpoint's signing secret or token cannot be decrypted (${(err as Error).message}); was SECRET_KEY changed?`,
    };
  }
}

export async function deliverWebhook(
  ctx: JobContext,
  p: { mode: 'live' | 'test'; deliveryId: string; due: number; sweep?: number },
): Promise<void> {
  const { config } = ctx.services;
  const db = ctx.services.dbs.forMode(p.mode);
  // Longer than an attempt can take (its timeout) plus the time to record it.
  const t0 = performance.now();
  const leaseSeconds = Math.ceil(config.WEBHOOK_TIMEOUT_MS / 1000) + 3;
  // The claim. One second of tolerance absorbs clock skew between a worker and the database.
  // next_attempt_at moves past the lease too, so the sweep finds the delivery if its worker dies.
  const claimed = await db.$queryRaw<{ id: string }[]>`
    UPDATE webhook_deliveries
    SET lease_until = now() + make_interval(secs => ${leaseSeconds}), next_attempt_at = now() + make_interval(secs => ${leaseSeconds}), updated_at = now()
    WHERE id = ${p.deliveryId} AND status = 'pending' AND next_attempt_at <= now() + interval '1 second'
      AND (lease_until IS NULL OR lease_until <= now())
    RETURNING id`;
  if (!claimed.length) return;
  const delivery = await db.webhookDelivery.findUnique({
    where: { id: p.deliveryId },
    include: { endpoint: true, event: true },
  });
  if (!delivery) return;
  const { endpoint, event } = delivery;
  if (!endpoint.enabled) {
    await db.webhookDelivery.update({
      where: { id: delivery.id },
      data: { status: 'failed', nextAttemptAt: null, leaseUntil: null },
    });
    return;
  }
  const t1 = performance.now();
  const body = webhookBody(event);
  const signed = signedHeaders(ctx, endpoint, event, body);
  const result: SendResult =
    'error' in signed
      ? { ok: false, statusCode: null, durationMs: 0, responseExcerpt: null, error: signed.error, retryAfterMs: null }
      : await sendWebhook({
          url: endpoint.url,
          body,
          headers: signed.headers,
          timeoutMs: config.WEBHOOK_TIMEOUT_MS,
          policy: policyFor(p.mode, config),
        });

  const t2 = performance.now();
  const attempt = delivery.attemptCount + 1;
  const gone = result.statusCode === 410;
  const delayMs =
    result.ok || gone ? null : nextAttemptDelayMs(config.WEBHOOK_RETRY_SCHEDULE, attempt, result.retryAfterMs);
  const nextAttemptAt = delayMs === null ? null : new Date(Date.now() + delayMs);
  const status = result.ok ? 'succeeded' : nextAttemptAt ? 'pending' : 'failed';
  const writes: Prisma.PrismaPromise<unknown>[] = [
    db.webhookAttempt.create({
      data: {
        id: newId(),
        companyId: delivery.companyId,
        deliveryId: delivery.id,
        statusCode: result.statusCode,
        durationMs: result.durationMs,
        responseExcerpt: result.responseExcerpt,
        error: result.error,
      },
    }),
    db.webhookDelivery.update({
      where: { id: delivery.id },
      data: {
        status,
        attemptCount: { increment: 1 },
        nextAttemptAt,
        leaseUntil: null,
        lastStatusCode: result.statusCode,
      },
    }),
  ];
  // 410 Gone: the receiver says the endpoint is no more; stop sending (docs/webhooks.md).
  if (gone) {
    writes.push(
      db.webhookEndpoint.update({
        where: { id: endpoint.id },
        data: { enabled: false, disabledReason: `The receiver answered 410 Gone at ${new Date().toISOString()}` },
      }),
    );
  }
  await db.$transaction(writes);
  const ms = { load: Math.round(t1 - t0), send: Math.round(t2 - t1), record: Math.round(performance.now() - t2) };
  ctx.services.logger.debug(
    { mode: p.mode, deliveryId: delivery.id, eventId: event.id, attempt, status, statusCode: result.statusCode, ms },
    'webhook attempt',
  );
  if (nextAttemptAt) {
    await ctx
      .enqueue(
        'deliver-webhook',
        { mode: p.mode, deliveryId: delivery.id, due: nextAttemptAt.getTime() },
        { delayMs: delayMs! },
      )
      .catch(() => undefined); // the relay's sweep finds it when due
  }
}
