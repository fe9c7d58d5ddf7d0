// Signing of webhook deliveries (docs/webhooks.md). Two header sets over the same secret:
// - X-Signature: t=<unix s>,v1=<hex HMAC-SHA256(secret bytes, "<t>.<raw body>")>, with one
//   more v1= for each previous secret still in its 24 h rotation overlap;
// - the Standard Webhooks trio (standardwebhooks.com): webhook-id, webhook-timestamp and
//   webhook-signature "v1,<base64 HMAC-SHA256(secret bytes, "<id>.<t>.<raw body>")>", so the
//   `standardwebhooks` library verifies our deliveries unchanged.
// The secret is `whsec_<base64 of 32 random bytes>`; the HMAC key is the decoded bytes.
// Verifying is the receiver's side: the README shows it in a few lines of Node, and the tests
// check our deliveries with that hand-written code and with `standardwebhooks`.
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The verification token sent as X-Webhook-Token on every delivery. */
export function generateVerificationToken(): string {
  return `whtok_${randomBytes(24).toString('base64url')}`;
}

export function secretBytes(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

export interface SignOptions {
  eventId: string;
  body: string;
  /** Unix seconds. */
  timestamp: number;
  /** Current secret first, then the previous ones still in their rotation overlap. */
  secrets: string[];
}

/** The body of a delivery: exactly { event, timestamp, data } (docs/webhooks.md, A delivery). */
export function webhookBody(event: { type: string; createdAt: Date; data: unknown }): string {
  return JSON.stringify({ event: event.type, timestamp: event.createdAt.getTime(), data: event.data });
}

/**
 * Every header of one delivery attempt: both signature sets, the verification token and the
 * event's id and type. The workers' deliveries and `svc listen`'s forwards are signed by this
 * one function, so a receiver tested against one accepts the other.
 */
export function deliveryHeaders(o: SignOptions & { eventType: string; token: string }): Record<string, string> {
  return {
    ...signatureHeaders(o),
    'x-webhook-token': o.token,
    'x-webhook-id': o.eventId,
    'x-webhook-event': o.eventType,
  };
}

export function signatureHeaders(o: SignOptions): Record<string, string> {
  const hex = o.secrets.map((s) =>
    createHmac('sha256', secretBytes(s)).update(`${o.timestamp}.${o.body}`).digest('hex'),
  );
  const standard = o.secrets.map(
    (s) =>
      `v1,${createHmac('sha256', secretBytes(s)).update(`${o.eventId}.${o.timestamp}.${o.body}`).digest('base64')}`,
  );
  return {
    'x-signature': [`t=${o.timestamp}`, ...hex.map((h) => `v1=${h}`)].join(','),
    'webhook-id': o.eventId,
    'webhook-timestamp': String(o.timestamp),
    'webhook-signature': standard.join(' '),
  };
}
