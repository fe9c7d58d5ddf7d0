// Signing of webhook deliveries (API.md §6). Two header sets over the same secret:
// - X-Signature: t=<unix s>,v1=<hex HMAC-SHA256(secret bytes, "<t>.<raw body>")>, with a
//   second v1= from the previous secret while a rotation is in its 24 h overlap;
// - the Standard Webhooks trio (standardwebhooks.com): webhook-id, webhook-timestamp and
//   webhook-signature "v1,<base64 HMAC-SHA256(secret bytes, "<id>.<t>.<raw body>")>", so the
//   `standardwebhooks` library verifies our deliveries unchanged.
// The secret is `whsec_<base64 of 32 random bytes>`; the HMAC key is the decoded bytes.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

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
  /** Current secret first, then the previous one during a rotation. */
  secrets: string[];
}

export function signatureHeaders(o: SignOptions): Record<string, string> {
  const hex = o.secrets.map((s) => createHmac('sha256', secretBytes(s)).update(`${o.timestamp}.${o.body}`).digest('hex'));
  const standard = o.secrets.map(
    (s) => `v1,${createHmac('sha256', secretBytes(s)).update(`${o.eventId}.${o.timestamp}.${o.body}`).digest('base64')}`,
  );
  return {
    'x-signature': [`t=${o.timestamp}`, ...hex.map((h) => `v1=${h}`)].join(','),
    'webhook-id': o.eventId,
    'webhook-timestamp': String(o.timestamp),
    'webhook-signature': standard.join(' '),
  };
}

/**
 * What a receiver does (and what the README shows): recompute the HMAC over "<t>.<raw body>"
 * and compare in constant time with each v1=, refusing timestamps outside the tolerance
 * (replays). True when any v1 matches the secret.
 */
export function verifyXSignature(header: string, body: string, secret: string, opts: { toleranceSec?: number; now?: number } = {}): boolean {
  const parts = header.split(',').map((p) => p.trim().split('='));
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t)) return false;
  const now = Math.floor((opts.now ?? Date.now()) / 1000);
  if (Math.abs(now - t) > (opts.toleranceSec ?? 300)) return false;
  const expected = createHmac('sha256', secretBytes(secret)).update(`${t}.${body}`).digest();
  return parts
    .filter(([k, v]) => k === 'v1' && v && /^[0-9a-f]{64}$/.test(v))
    .some(([, v]) => timingSafeEqual(Buffer.from(v!, 'hex'), expected));
}
