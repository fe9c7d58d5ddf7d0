// One error type for every surface (after documenso's AppError). The code picks the HTTP
// status for REST and is the GraphQL `extensions.code`; `message` is safe to show a client,
// `internal` is for logs only. The table, with when each code happens, is in docs/api.md (Errors).
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  INSUFFICIENT_SCOPE: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  SLOT_UNAVAILABLE: 409,
  CLASS_FULL: 409,
  INVALID_STATE_TRANSITION: 409,
  CONFLICT: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  IDEMPOTENCY_KEY_IN_USE: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface FieldError {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details?: unknown;
  readonly internal?: string;
  /** Extra response headers this error needs (WWW-Authenticate, Retry-After). */
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { details?: unknown; internal?: string; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: opts.cause });
    this.name = 'AppError';
    this.code = code;
    this.details = opts.details;
    this.internal = opts.internal;
    this.headers = opts.headers;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  static validation(errors: FieldError[]): AppError {
    const first = errors[0];
    const message = first ? `${first.path ? `${first.path}: ` : ''}${first.message}` : 'Invalid request';
    return new AppError('VALIDATION_ERROR', message, { details: errors });
  }

  static notFound(what: string): AppError {
    return new AppError('NOT_FOUND', `No such ${what}`);
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}
