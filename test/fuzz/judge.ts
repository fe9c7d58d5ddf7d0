// What every answer under /api/v1 must be (docs/api.md, "The envelope" and "Errors"): never a
// 5xx; the envelope with `status`, `meta.requestId` (the X-Request-Id header) and, for an
// error, a code of the error table of the answer's class (4xx or 5xx); a success is 200 with
// `data`.
import { ERROR_STATUS } from '../../src/errors.js';
import type { WireResponse } from './wire.js';

export type ProblemKind =
  | '5xx'
  | 'non-envelope'
  | 'write-on-4xx'
  | 'no-answer'
  | 'undocumented'
  // The canary company's answers moved, or its ids appeared in an answer (test/fuzz/canary.ts).
  | 'canary-changed'
  | 'canary-leak';

export interface Problem {
  kind: ProblemKind;
  detail: string;
}

const CODES = ERROR_STATUS as Record<string, number>;

export function excerpt(body: Buffer | string, max = 300): string {
  const s = typeof body === 'string' ? body : body.toString('utf8');
  return s.length > max ? `${s.slice(0, max)}… (${s.length} chars)` : s;
}

/** The answer's problems, and its parsed body when it is an envelope. */
export function judge(res: WireResponse): { problems: Problem[]; body: Record<string, any> | null } {
  const problems: Problem[] = [];
  if (res.status >= 500) problems.push({ kind: '5xx', detail: `${res.status} ${excerpt(res.body)}` });
  const bad = (why: string) =>
    problems.push({ kind: 'non-envelope', detail: `${why}: ${res.status} ${excerpt(res.body)}` });
  let body: Record<string, any> | null;
  try {
    body = JSON.parse(res.body.toString('utf8'));
  } catch {
    bad('the body is not JSON');
    return { problems, body: null };
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    bad('the body is not an object');
    return { problems, body: null };
  }
  if (!/^application\/json/.test(res.headers['content-type'] ?? '')) bad(`content-type ${res.headers['content-type']}`);
  const meta = body.meta;
  if (!meta || typeof meta.requestId !== 'string' || !meta.requestId) bad('no meta.requestId');
  else if (meta.requestId !== res.headers['x-request-id'])
    bad(`meta.requestId ${meta.requestId} is not the X-Request-Id header ${res.headers['x-request-id']}`);
  if (meta && typeof meta.timestamp !== 'number') bad('no meta.timestamp');
  if (body.status === true) {
    if (res.status !== 200) bad('a success that is not 200');
    if (!('data' in body)) bad('a success without data');
  } else if (body.status === false) {
    const code = body.error?.code;
    if (typeof code !== 'string' || !(code in CODES))
      bad(`error.code ${JSON.stringify(code)} is not in the error table`);
    // The class must agree (a 4xx code on a 4xx answer); the status itself may be more precise
    // than the table's (431 and 408 from the HTTP parser carry BAD_REQUEST, src/http/client-error.ts).
    else if (Math.floor(CODES[code]! / 100) !== Math.floor(res.status / 100))
      bad(`error.code ${code} is ${CODES[code]} in the error table`);
    if (typeof body.error?.message !== 'string' || !body.error.message) bad('no error.message');
  } else bad('status is neither true nor false');
  return { problems, body: problems.some((p) => p.kind === 'non-envelope') ? null : body };
}
