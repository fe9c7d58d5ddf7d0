// The JSON body parser for every route: refuses an empty body, prototype-poisoning keys, bodies
// nested deeper than MAX_DEPTH and strings with NUL characters (which PostgreSQL cannot store)
// as 400 BAD_REQUEST (API.md §3: a malformed body), before any handler runs.
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

function hasNul(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return true;
    } else if (v && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        if (k.includes('\u0000')) return true;
        stack.push(child);
      }
    }
  }
  return false;
}

/** Route config of POST actions whose body may be left out (route.ts). */
export interface OptionalBodyConfig {
  optionalBody?: boolean;
}

/** An empty body is malformed only where a body is required; elsewhere it is simply absent. */
function requiresBody(req: FastifyRequest): boolean {
  return req.routeOptions.schema?.body !== undefined && !(req.routeOptions.config as OptionalBodyConfig | undefined)?.optionalBody;
}

export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw new AppError('BAD_REQUEST', 'The body is empty; send a JSON object');
  if (depthOf(text) > MAX_DEPTH) throw new AppError('BAD_REQUEST', `The JSON body is nested deeper than ${MAX_DEPTH} levels`);
  let value: unknown;
  try {
    value = sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (err) {
    const msg = (err as Error).message;
    if (/prototype|constructor/i.test(msg)) throw new AppError('BAD_REQUEST', 'The JSON body contains a forbidden key (__proto__ or constructor)');
    throw new AppError('BAD_REQUEST', 'The body is not valid JSON');
  }
  if (hasNul(value)) throw new AppError('BAD_REQUEST', 'The JSON body contains a NUL character');
  return value;
}

export function registerJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser(['application/json']);
  const parser = (req: FastifyRequest, body: string | Buffer, done: (err: Error | null, value?: unknown) => void) => {
    try {
      const text = body.toString();
      if (text.length === 0 && !requiresBody(req)) return done(null, undefined);
      done(null, parseJsonBody(text));
    } catch (err) {
      done(err as Error, undefined);
    }
  };
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT }, parser);
  app.addContentTypeParser(/^application\/[a-z.-]+\+json$/, { parseAs: 'string', bodyLimit: BODY_LIMIT }, parser);
}
