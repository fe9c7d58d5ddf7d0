// JSON logs (pino) that never carry a secret (docs/scaling.md: "keys, tokens, secrets, passwords and
// card numbers never appear in logs"). Two layers, because a secret can sit anywhere:
// - by key: any property whose name says credential, password, secret, token, key or card is
//   replaced at any depth of a logged object (pino's `redact` paths only reach fixed depths);
// - by shape: strings (messages, values, error messages and stacks, URLs) are scrubbed of our
//   credential formats, webhook secrets and card numbers (13-19 digits passing Luhn).
// test/logger.test.ts sends secrets through headers, query strings, bodies and
// GraphQL and logs them from code, and asserts none reach the output.
import pino, { type Logger, type LoggerOptions } from 'pino';
import { deepFreeze } from './frozen.js';

const CENSOR = '[REDACTED]';

// Property names are compared lower-cased without '-' and '_' (x-api-key → xapikey).
const SECRET_KEY =
  /password|passphrase|secret|token|apikey|authorization|cookie|credential|^key$|^card|cardnumber|^number$|^cvc$|^cvv$|^pan$|^otp$/;

const normaliseKey = (k: string) => k.toLowerCase().replace(/[-_]/g, '');

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(normaliseKey(key));
}

// Bearer credentials of ours (any kind and mode, whole or cut), the tokens of secret URLs
// (manage links svc_ml_, calendar feeds svc_cf_: in request paths), webhook secrets, and
// anything after "Bearer " or "Basic " in a string.
const SECRET_IN_TEXT =
  /svc_(sk|at|rt)_(live|test)_[0-9A-Za-z]+|svc_(ml|cf)_[0-9A-Za-z_-]+|whsec_[A-Za-z0-9+/=_-]+|\b(Bearer|Basic)\s+[A-Za-z0-9\-._~+/]+=*/gi;
// Candidate card numbers: 13-19 digits, optionally grouped by single spaces or dashes.
const CARD_CANDIDATE = /\b\d(?:[ -]?\d){12,18}\b/g;

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export function scrubText(s: string): string {
  return s
    .replace(
      SECRET_IN_TEXT,
      (m) => `${m.slice(0, /^svc_(ml|cf)_/.test(m) ? 7 : m.startsWith('svc_') ? 12 : 6)}${CENSOR}`,
    )
    .replace(CARD_CANDIDATE, (m) => (luhn(m.replace(/[ -]/g, '')) ? CENSOR : m));
}

const MAX_DEPTH = 8;

/** A redacted copy of a logged value; the caller's objects are never changed. */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[Object]';
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  if (value instanceof Error) return serializeError(value);
  const proto: unknown = Object.getPrototypeOf(value);
  // Class instances (requests, sockets, buffers, dates) are left to their serializers.
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    out[k] = isSecretKey(k) && v != null && v !== '' ? CENSOR : redactValue(v, depth + 1);
  return out;
}

function serializeError(err: Error): unknown {
  const plain = pino.stdSerializers.err(err) as unknown as Record<string, unknown>;
  return redactValue({ ...plain }, 1);
}

// Fastify's and pino's own keys: their serializers below decide what is written.
const SERIALIZED = deepFreeze(new Set(['req', 'res', 'err', 'error']));

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options: LoggerOptions = {
    level,
    formatters: {
      log(obj) {
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(obj)) {
          if (SERIALIZED.has(k)) out[k] = v;
          else out[k] = isSecretKey(k) && v != null && v !== '' ? CENSOR : redactValue(v, 1);
        }
        return out;
      },
      bindings(bindings) {
        return redactValue(bindings) as Record<string, unknown>;
      },
    },
    hooks: {
      logMethod(args, method) {
        const scrubbed = args.map((a) => (typeof a === 'string' ? scrubText(a) : a));
        return method.apply(this, scrubbed as Parameters<typeof method>);
      },
    },
    serializers: {
      req: (req: { method: string; url: string; id: string }) => ({
        id: req.id,
        method: req.method,
        // Query strings can carry codes or tokens by mistake: logged without them.
        url: scrubText(req.url.split('?')[0] ?? ''),
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      err: (err: unknown) => (err instanceof Error ? serializeError(err) : redactValue(err)),
      error: (err: unknown) => (err instanceof Error ? serializeError(err) : redactValue(err)),
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
