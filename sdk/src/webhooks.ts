// Verifying a webhook delivery (docs/webhooks.md, "Verifying the signature"). Every delivery
// carries two signatures over the same secret, and either is enough:
// - `X-Signature: t=<unix s>,v1=<hex HMAC-SHA256(key, "<t>.<raw body>")>` (one more `v1=` per
//   old secret during a rotation);
// - Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature:
//   v1,<base64 HMAC-SHA256(key, "<id>.<t>.<raw body>")>` (space-separated during a rotation).
// The key is the secret's decoded bytes (`whsec_<base64>`). Web Crypto's HMAC verify compares
// in constant time.
import { WebhookVerificationError } from './errors.js';
import type { webhooks as WebhookDocs } from './generated/openapi.js';

type BodyOf<B> = B extends { content: { 'application/json': infer J } } ? J : never;
type Payloads = { [E in keyof WebhookDocs]: BodyOf<NonNullable<WebhookDocs[E]['post']['requestBody']>> };

/** The event types the document's `webhooks` section lists. */
export type EventType = keyof WebhookDocs;

/**
 * A delivery's body, `{ event, timestamp, data }`, typed per event from the document's
 * `webhooks` section: `if (e.event === 'booking.created') e.data.bookingId`. Event types are an
 * open set (docs/api.md, Compatibility): a server newer than this SDK may send one it does not
 * list, so handle the ones you know and ignore the rest.
 */
export type WebhookEvent = Payloads[EventType];

/** Node's `req.headers`, a fetch `Headers`, or any object of header names to values. */
export type HeadersLike = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Largest accepted distance of the signed timestamp from now, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** Now, in milliseconds (for tests). Default Date.now(). */
  now?: number;
}

const SECRET_PREFIX = 'whsec_';
const encoder = new TextEncoder();

function header(headers: HeadersLike, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : record[key];
  return Array.isArray(v) ? v.join(',') : v;
}

function base64ToBytes(b64: string): Uint8Array | undefined {
  try {
    const bin = atob(b64);
    return Uint8Array.from(bin, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

function hexToBytes(hex: string): Uint8Array | undefined {
  if (!/^[0-9a-f]{64}$/i.test(hex)) return undefined;
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

async function hmacKey(secret: string): Promise<CryptoKey> {
  const bytes = base64ToBytes(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
  if (!bytes || bytes.length === 0) throw new TypeError('the webhook secret is not whsec_<base64>');
  return crypto.subtle.importKey('raw', bytes as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
}

/** True when one of the signatures is the HMAC of `signed` under one of the keys. */
async function anyValid(keys: CryptoKey[], signatures: Uint8Array[], signed: Uint8Array): Promise<boolean> {
  for (const key of keys) {
    for (const sig of signatures) {
      if (await crypto.subtle.verify('HMAC', key, sig as BufferSource, signed as BufferSource)) return true;
    }
  }
  return false;
}

function checkTimestamp(value: string | undefined, opts: VerifyOptions): number {
  if (!value || !/^\d{1,12}$/.test(value)) throw new WebhookVerificationError('no valid signature timestamp');
  const t = Number(value);
  const now = (opts.now ?? Date.now()) / 1000;
  if (Math.abs(now - t) > (opts.toleranceSeconds ?? 300))
    throw new WebhookVerificationError('the signature timestamp is outside the tolerance (a replay, or a wrong clock)');
  return t;
}

/**
 * Verifies a delivery and answers its parsed event; throws WebhookVerificationError when the
 * signature does not match (a forged or altered body, a wrong secret) or is too old.
 * `rawBody` is the body exactly as received, before any JSON parsing. `secret` may be a list
 * (your current secret and the one you are rotating away from).
 */
async function verify(
  rawBody: string | Uint8Array,
  headers: HeadersLike,
  secret: string | string[],
  opts: VerifyOptions = {},
): Promise<WebhookEvent> {
  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
  const secrets = Array.isArray(secret) ? secret : [secret];
  if (secrets.length === 0) throw new TypeError('no webhook secret given');
  const keys = await Promise.all(secrets.map(hmacKey));
  const xSignature = header(headers, 'x-signature');
  const standard = header(headers, 'webhook-signature');
  let valid: boolean;
  if (xSignature !== undefined) {
    const parts = xSignature.split(',').map((p) => p.trim().split('='));
    const t = checkTimestamp(parts.find(([k]) => k === 't')?.[1], opts);
    const sigs = parts.filter(([k]) => k === 'v1').flatMap(([, v]) => hexToBytes(v ?? '') ?? []);
    valid = await anyValid(keys, sigs, concat(encoder.encode(`${t}.`), body));
  } else if (standard !== undefined) {
    const id = header(headers, 'webhook-id');
    if (!id) throw new WebhookVerificationError('no webhook-id header');
    const t = checkTimestamp(header(headers, 'webhook-timestamp'), opts);
    const sigs = standard
      .split(' ')
      .filter((s) => s.startsWith('v1,'))
      .flatMap((s) => base64ToBytes(s.slice(3)) ?? []);
    valid = await anyValid(keys, sigs, concat(encoder.encode(`${id}.${t}.`), body));
  } else {
    throw new WebhookVerificationError('no X-Signature or webhook-signature header');
  }
  if (!valid) throw new WebhookVerificationError('no signature matches the body and secret');
  const text = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  return JSON.parse(text) as WebhookEvent;
}

export const webhooks = { verify };
