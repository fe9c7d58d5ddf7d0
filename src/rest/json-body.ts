// The JSON body parser for every route: refuses an empty body, prototype-poisoning keys, bodies
// nested deeper than MAX_DEPTH and strings with NUL characters (which PostgreSQL cannot store)
// as 400 BAD_REQUEST (docs/api.md: a malformed body), and text that is not Unicode (bytes that are
// not UTF-8, unpaired surrogates) as a VALIDATION_ERROR naming the field, before any handler runs.
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import sjson from 'secure-json-parse';
import { AppError } from '../errors.js';

export const MAX_DEPTH = 32;
export const BODY_LIMIT = 1024 * 1024;

function depthOf(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91 /* { [ */) {
      if (++depth > max) max = depth;
      if (max > MAX_DEPTH) return max;
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}

// Bytes that are not UTF-8 are read as lone surrogates, one per byte (U+DC80 + byte, Python's
// "surrogateescape"), instead of the U+FFFD a decoder would store in their place. Valid UTF-8
// never decodes to a lone surrogate and JSON's `\ud800` escapes parse to the same, so one walk
// over the parsed value finds both, with the field they sit in. Bytes of 0x80 and up are never
// JSON syntax, so the escaping leaves the structure as it was.
function sequenceLength(b: Buffer, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  const tail = (j: number, lo = 0x80, hi = 0xbf) => j < b.length && b[j]! >= lo && b[j]! <= hi;
  // The well-formed sequences of Unicode's Table 3-7: no overlongs, surrogates or > U+10FFFF.
  if (c >= 0xc2 && c <= 0xdf) return tail(i + 1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef)
    return tail(i + 1, c === 0xe0 ? 0xa0 : 0x80, c === 0xed ? 0x9f : 0xbf) && tail(i + 2) ? 3 : 0;
  if (c >= 0xf0 && c <= 0xf4)
    return tail(i + 1, c === 0xf0 ? 0x90 : 0x80, c === 0xf4 ? 0x8f : 0xbf) && tail(i + 2) && tail(i + 3) ? 4 : 0;
  return 0;
}

function decodeEscapingInvalidBytes(b: Buffer): string {
  let out = '';
  let start = 0;
  let i = 0;
  while (i < b.length) {
    const n = sequenceLength(b, i);
    if (n > 0) {
      i += n;
      continue;
    }
    out += b.toString('utf8', start, i) + String.fromCharCode(0xdc00 + b[i]!);
    start = ++i;
  }
  return out + b.toString('utf8', start);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

type Unstorable = { problem: 'nul' | 'not-unicode'; path: string };

function checkText(s: string, path: string): Unstorable | null {
  if (s.includes('\u0000')) return { problem: 'nul', path };
  return LONE_SURROGATE.test(s) ? { problem: 'not-unicode', path } : null;
}

/** The first key or string value PostgreSQL could not store as it is, and where it sits. */
function findUnstorable(value: unknown, path: string): Unstorable | null {
  if (typeof value === 'string') return checkText(value, path);
  if (value === null || typeof value !== 'object') return null;
  const isArray = Array.isArray(value);
  for (const [key, child] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    const bad = (isArray ? null : checkText(key, at)) ?? findUnstorable(child, at);
    if (bad) return bad;
  }
  return null;
}

/** Route config of POST actions whose body may be left out (route.ts). */
export interface OptionalBodyConfig {
  optionalBody?: boolean;
}

/** An empty body is malformed only where a body is required; elsewhere it is simply absent. */
function requiresBody(req: FastifyRequest): boolean {
  return (
    req.routeOptions.schema?.body !== undefined &&
    !(req.routeOptions.config as OptionalBodyConfig | undefined)?.optionalBody
  );
}

export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) throw new AppError('BAD_REQUEST', 'The body is empty; send a JSON object');
  const utf8 = isUtf8(body);
  const text = utf8 ? body.toString('utf8') : decodeEscapingInvalidBytes(body);
  if (depthOf(text) > MAX_DEPTH)
    throw new AppError('BAD_REQUEST', `The JSON body is nested deeper than ${MAX_DEPTH} levels`);
  let value: unknown;
  try {
    value = sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (err) {
    const msg = (err as Error).message;
    if (/prototype|constructor/i.test(msg))
      throw new AppError('BAD_REQUEST', 'The JSON body contains a forbidden key (__proto__ or constructor)');
    throw new AppError('BAD_REQUEST', 'The body is not valid JSON');
  }
  // A NUL or a lone surrogate can only come from a \u escape (JSON forbids raw control
  // characters) or from bytes that were not UTF-8: most bodies have neither and skip the walk.
  if (utf8 && !text.includes('\\u')) return value;
  const bad = findUnstorable(value, '');
  if (bad?.problem === 'nul') throw new AppError('BAD_REQUEST', 'The JSON body contains a NUL character');
  if (bad) {
    // The path itself may hold the bad text (a key): shown with U+FFFD, as far as it can be read.
    const path = bad.path.replace(LONE_SURROGATES, '\uFFFD');
    throw AppError.validation([
      {
        path,
        message:
          'is not valid Unicode text: it holds bytes that are not UTF-8 or an unpaired surrogate such as \\ud800',
      },
    ]);
  }
  return value;
}

export function registerJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser(['application/json']);
  const parser = (req: FastifyRequest, body: string | Buffer, done: (err: Error | null, value?: unknown) => void) => {
    try {
      const bytes = typeof body === 'string' ? Buffer.from(body) : body;
      if (bytes.length === 0 && !requiresBody(req)) return done(null, undefined);
      done(null, parseJsonBody(bytes));
    } catch (err) {
      done(err as Error, undefined);
    }
  };
  // As bytes: a string would already have turned bytes that are not UTF-8 into U+FFFD.
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, parser);
  app.addContentTypeParser(/^application\/[a-z.-]+\+json$/, { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, parser);
}
