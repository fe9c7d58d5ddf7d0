// What of a request's or response's body a request log keeps (docs/api.md, Request logs): the
// logger's redaction (src/logger.ts: secret-named keys at any depth; our credential formats,
// webhook secrets and card numbers passing Luhn anywhere in a string), plus card security codes
// (a `cvc`/`cvv`/`csc`/`securityCode`-named key, or such a word followed by 3-4 digits in
// text), then cut to a size a log row can afford.
import { isSecretKey, scrubText } from '../../logger.js';

export const REDACTED = '[REDACTED]';
/** The most of one body a row keeps, in characters; longer bodies end with TRUNCATED. */
export const MAX_BODY_CHARS = 16 * 1024;
export const TRUNCATED = '…[truncated]';

const CVC_KEY = /cvc|cvv|csc|securitycode|cardcode|cardverification/;
const CVC_IN_TEXT = /\b(cvc2?|cvv2?|csc|security code)\b(\W{0,3})\d{3,4}\b/gi;
const MAX_DEPTH = 16;

const normaliseKey = (k: string) => k.toLowerCase().replace(/[-_ ]/g, '');

function isRedactedKey(key: string): boolean {
  return isSecretKey(key) || CVC_KEY.test(normaliseKey(key));
}

// PostgreSQL text cannot hold NUL: one in a stored string would fail its whole batch.
// eslint-disable-next-line no-control-regex
const NUL = /\u0000/g;

export function redactText(s: string): string {
  return scrubText(s)
    .replace(CVC_IN_TEXT, (_m, word: string, sep: string) => `${word}${sep}${REDACTED}`)
    .replace(NUL, '');
}

/** A redacted copy of a parsed JSON value; the caller's value is never changed. */
export function redactJson(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  // A card number sent as a JSON number is a card number still.
  if (typeof value === 'number') return redactText(String(value)) === String(value) ? value : REDACTED;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[Object]';
  if (Array.isArray(value)) return value.map((v) => redactJson(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>))
    out[redactText(k)] = isRedactedKey(k) && v != null && v !== '' ? REDACTED : redactJson(v, depth + 1);
  return out;
}

function cap(text: string): string {
  return text.length > MAX_BODY_CHARS ? text.slice(0, MAX_BODY_CHARS - TRUNCATED.length) + TRUNCATED : text;
}

/**
 * The stored form of a body: JSON (a parsed body, or text that parses as JSON) redacted and
 * printed again; other text scrubbed as text; capped at MAX_BODY_CHARS. Null for no body.
 */
export function bodyForLog(body: unknown): string | null {
  if (body === undefined || body === null || body === '') return null;
  if (Buffer.isBuffer(body)) body = body.toString('utf8');
  if (typeof body === 'string') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return cap(redactText(body));
    }
    return cap(JSON.stringify(redactJson(parsed)));
  }
  // Parsed bodies are JSON values: objects and arrays, or a bare number or boolean.
  return cap(JSON.stringify(redactJson(body)));
}
