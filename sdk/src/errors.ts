// The errors the client throws. An answer in the API's error envelope is an ApiError (a
// subclass per HTTP status class) carrying the envelope's code, message and details and the
// request id; a request that got no answer is a ConnectionError.
import type { operations } from './generated/openapi.js';

type ErrorBodies = {
  [K in keyof operations]: Exclude<operations[K]['responses'][keyof operations[K]['responses']], { content: never }>;
}[keyof operations];
type EnvelopeCode<R> = R extends { content: { 'application/json': { error: { code: infer C } } } } ? C : never;

/** Every `error.code` some operation of the document lists for one of its error answers. */
export type KnownErrorCode = EnvelopeCode<ErrorBodies>;

/**
 * An `error.code`: one the document lists, or another. An open set (docs/api.md, Compatibility): a server
 * newer than this SDK may answer a code it does not know, so act on the ones you handle and on
 * `status` for the rest.
 */
export type ErrorCode = KnownErrorCode | (string & {});

/** `details[]` of a field error: the field's path (`customer.email`, `Idempotency-Key`) and why. */
export interface FieldError {
  path: string;
  message: string;
}

export interface ApiErrorInit {
  status: number;
  code: ErrorCode;
  message: string;
  requestId: string | undefined;
  details: unknown;
  headers: Headers;
  operationId: string;
}

export class ApiError extends Error {
  override name = 'ApiError';
  /** The HTTP status. */
  readonly status: number;
  /** The envelope's `error.code` (`VALIDATION_ERROR`, `SLOT_UNAVAILABLE`, …). */
  readonly code: ErrorCode;
  /** `meta.requestId`, also the `X-Request-Id` header: quote it when asking for help. */
  readonly requestId: string | undefined;
  /** `error.details`: field errors (`[{ path, message }]`) or the facts of a conflict. */
  readonly details: unknown;
  readonly headers: Headers;
  /** The operation that was called (`createBooking`). */
  readonly operationId: string;

  constructor(init: ApiErrorInit) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.details = init.details;
    this.headers = init.headers;
    this.operationId = init.operationId;
  }

  /** The field errors of a `VALIDATION_ERROR` (empty for other errors). */
  get fieldErrors(): FieldError[] {
    return Array.isArray(this.details)
      ? this.details.filter(
          (d): d is FieldError => typeof d === 'object' && d !== null && typeof (d as FieldError).path === 'string',
        )
      : [];
  }

  /** Seconds the server asked to wait (`Retry-After`), when it said. */
  get retryAfter(): number | undefined {
    return parseRetryAfter(this.headers.get('retry-after'));
  }
}

/** 400: a field or parameter is wrong (`VALIDATION_ERROR`), or the request is malformed. */
export class BadRequestError extends ApiError {
  override name = 'BadRequestError';
}
/** 401: the credential is missing, unknown, revoked or expired. */
export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
}
/** 403: `INSUFFICIENT_SCOPE` (an OAuth token without the scope) or `FORBIDDEN`. */
export class PermissionDeniedError extends ApiError {
  override name = 'PermissionDeniedError';
}
/** 404: no such record for this company and mode. */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}
/** 409: a state or uniqueness conflict (`SLOT_UNAVAILABLE`, `INVALID_STATE_TRANSITION`, …). */
export class ConflictError extends ApiError {
  override name = 'ConflictError';
}
/** 429: over the rate limit, after the client's own retries. */
export class RateLimitError extends ApiError {
  override name = 'RateLimitError';
}
/** 5xx: a fault or an outage on the server's side, after the client's own retries where safe. */
export class ServerError extends ApiError {
  override name = 'ServerError';
}

export function apiError(init: ApiErrorInit): ApiError {
  const s = init.status;
  const Class =
    s === 400 || s === 413 || s === 431
      ? BadRequestError
      : s === 401
        ? AuthenticationError
        : s === 403
          ? PermissionDeniedError
          : s === 404
            ? NotFoundError
            : s === 409
              ? ConflictError
              : s === 429
                ? RateLimitError
                : s >= 500
                  ? ServerError
                  : ApiError;
  return new Class(init);
}

/** No answer: the connection failed, was cut, or the attempt timed out (after retries where safe). */
export class ConnectionError extends Error {
  override name = 'ConnectionError';
  readonly operationId: string;
  constructor(message: string, operationId: string, options?: { cause?: unknown }) {
    super(message, options);
    this.operationId = operationId;
  }
}

/** An OAuth endpoint's `{ error, error_description }`, or a callback that must not be trusted. */
export class OAuthError extends Error {
  override name = 'OAuthError';
  /** `invalid_grant`, `access_denied`, `invalid_client`, … or `state_mismatch` / `issuer_mismatch`. */
  readonly error: string;
  readonly status: number | undefined;
  constructor(error: string, description: string | undefined, status?: number) {
    super(description ? `${error}: ${description}` : error);
    this.error = error;
    this.status = status;
  }
}

/** A webhook delivery whose signature or timestamp does not check out. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

/** `Retry-After` as seconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
