// Which error codes an /api/v1 operation can answer, by HTTP status, for the OpenAPI document
// (docs/api.md, "OpenAPI" and "Errors"). Derived from what every route shares (the hooks of the
// prefix and of the app) and what the route declares of its own: whether it has path ids or a
// body, whether it is a POST (Idempotency-Key), and the codes its use case adds (`errors`).
// test/fuzz checks every answer it gets against the enum published here.
import { ERROR_STATUS, type ErrorCode } from '../errors.js';

export interface ErrorSources {
  method: string;
  /** The route has path parameters (an id of no record, or another company's, is 404). */
  pathIds: boolean;
  /** The route reads a body (malformed JSON, a wrong media type, too large). */
  body: boolean;
  /** Body or query fields that name other records by id (`serviceId`): 404 when there is none. */
  references: boolean;
  /** Codes the route's use case adds (SLOT_UNAVAILABLE, INVALID_STATE_TRANSITION, ...). */
  extra: readonly ErrorCode[];
}

export function errorCodesOf(s: ErrorSources): Record<number, ErrorCode[]> {
  const write = s.method !== 'GET';
  const codes = new Set<ErrorCode>([
    // Validation of the query, path, body and the API-Version and Idempotency-Key headers.
    'VALIDATION_ERROR',
    // A body or a request the parsers refuse (malformed JSON, a wrong media type, not HTTP).
    'BAD_REQUEST',
    // No or a revoked credential; the credential lacks the route's scope; plain HTTP in production.
    'UNAUTHORIZED',
    'INSUFFICIENT_SCOPE',
    'FORBIDDEN',
    // The rate limit of the credential (src/auth/rate-limit.ts).
    'RATE_LIMITED',
    // A bug (never on purpose), and a dependency down or the instance shutting down.
    'INTERNAL_ERROR',
    'SERVICE_UNAVAILABLE',
    ...s.extra,
  ]);
  if (s.body || write) {
    // A body over the limit (any write may be sent one).
    codes.add('PAYLOAD_TOO_LARGE');
  }
  if (s.pathIds || s.references) codes.add('NOT_FOUND');
  // Writes race with one another and meet the database's unique constraints (src/schema/db-errors.ts).
  if (write) codes.add('CONFLICT');
  if (s.method === 'POST') {
    codes.add('IDEMPOTENCY_KEY_REUSED');
    codes.add('IDEMPOTENCY_KEY_IN_USE');
  }
  const byStatus: Record<number, ErrorCode[]> = {};
  for (const code of Object.keys(ERROR_STATUS) as ErrorCode[]) {
    if (!codes.has(code)) continue;
    (byStatus[ERROR_STATUS[code]] ??= []).push(code);
  }
  return byStatus;
}
