// One error type and one table for every surface (after documenso's AppError). The code picks
// the HTTP status for REST and is the GraphQL `extensions.code`; `message` is safe to show a
// client, `internal` is for logs only. `toAppError` decides the code for any thrown cause, so
// REST, GraphQL, the CLI and the admin pages answer the same cause with the same code. The
// table, with when each code happens, is in docs/api.md (Errors). This module imports nothing
// of ours: every layer may use it.
import { deepFreeze } from './frozen.js';

export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  BAD_REQUEST: 400,
  // GraphQL documents refused before execution by the limits of src/http/graphql.ts.
  QUERY_TOO_DEEP: 400,
  TOO_MANY_ALIASES: 400,
  QUERY_TOO_COMPLEX: 400,
  // GraphQL trusted documents (src/http/trusted-documents.ts): an id the manifest lacks, and a
  // document sent where only trusted documents are run.
  PERSISTED_QUERY_NOT_FOUND: 400,
  PERSISTED_QUERY_REQUIRED: 400,
  UNAUTHORIZED: 401,
  INSUFFICIENT_SCOPE: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  SLOT_UNAVAILABLE: 409,
  CLASS_FULL: 409,
  INVALID_STATE_TRANSITION: 409,
  CONFLICT: 409,
  // A customer's cancel or reschedule after its cut-off (docs/api.md, Booking rules); details.deadline.
  CUTOFF_PASSED: 409,
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

/**
 * The code of each limit a GraphQL document can exceed (graphql-armor's options, set in
 * src/http/graphql.ts). Too many tokens or directives make a document costly to parse and
 * validate, so they count as too complex.
 */
export const QUERY_LIMIT_CODES = {
  maxDepth: 'QUERY_TOO_DEEP',
  maxAliases: 'TOO_MANY_ALIASES',
  costLimit: 'QUERY_TOO_COMPLEX',
  maxTokens: 'QUERY_TOO_COMPLEX',
  maxDirectives: 'QUERY_TOO_COMPLEX',
} as const satisfies Record<string, ErrorCode>;

// ---------------------------------------------------------------------------------------------
// Causes: what the database and its driver throw, recognised by shape (no import of Prisma).

interface PrismaLikeError {
  code?: unknown;
  statusCode?: unknown;
  meta?: { driverAdapterError?: { cause?: { originalCode?: string; code?: string; kind?: string } } };
  cause?: { originalCode?: string; code?: string };
  /** The server's notice severity: on the driver's own error (pg's or PGlite's DatabaseError). */
  severity?: unknown;
}

const SQLSTATE = /^[0-9A-Z]{5}$/;

/**
 * SQLSTATE of a database error thrown through Prisma (7, with a driver adapter), or by the
 * driver itself (a statement past Prisma: sqlOf, sqlTransaction), or undefined. A driver error
 * is told by its severity, so that Prisma's own codes (P2002…) never pass for one.
 */
export function sqlState(err: unknown): string | undefined {
  const e = err as PrismaLikeError | undefined;
  if (typeof e?.severity === 'string' && typeof e.code === 'string' && SQLSTATE.test(e.code)) return e.code;
  const cause = e?.meta?.driverAdapterError?.cause ?? e?.cause;
  const code = cause?.originalCode ?? cause?.code;
  if (typeof code === 'string' && SQLSTATE.test(code)) return code;
  return undefined;
}

export const serviceUnavailable = (cause?: unknown) =>
  new AppError('SERVICE_UNAVAILABLE', 'A service we depend on is unavailable; retry shortly', {
    cause,
    headers: { 'retry-after': '5' },
  });

/** The pool had no connection to spare in time, or a transaction outlived its timeout. */
export const databaseBusy = (cause?: unknown) =>
  new AppError('SERVICE_UNAVAILABLE', 'The database is busy; retry shortly', {
    cause,
    headers: { 'retry-after': '2' },
  });

// A database that cannot be reached, is shutting down or has no connection to spare is a
// dependency outage: 503 SERVICE_UNAVAILABLE with Retry-After, not a 500.
const UNREACHABLE_PRISMA = deepFreeze(new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']));
const UNREACHABLE_DRIVER = deepFreeze(
  new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections', 'DatabaseUnavailable']),
);
const UNREACHABLE_SOCKET = deepFreeze(
  new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE']),
);
// node-postgres reports a connection dropped under a query, a pool wait that timed out, a query
// whose answer did not come within DATABASE_QUERY_TIMEOUT_MS, and a query on a connection ended
// for that reason, as plain Errors without a code; these are its messages.
const PG_CONNECTION_LOST =
  /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client (was closed|has encountered a connection error) and is not queryable)/;

function isDependencyDown(err: PrismaLikeError): boolean {
  const code = typeof err.code === 'string' ? err.code : '';
  const pgCode = sqlState(err) ?? '';
  return (
    UNREACHABLE_PRISMA.has(code) ||
    UNREACHABLE_DRIVER.has(err.meta?.driverAdapterError?.cause?.kind ?? '') ||
    UNREACHABLE_SOCKET.has(code) ||
    (err instanceof Error && err.code === undefined && PG_CONNECTION_LOST.test(err.message)) ||
    // PostgreSQL: connection exceptions (08), shutting down or starting (57P01-57P03), too many connections.
    pgCode.startsWith('08') ||
    ['57P01', '57P02', '57P03', '53300'].includes(pgCode)
  );
}

/**
 * Maps any thrown value onto an AppError: the one decision of a cause's code. An AppError is
 * itself; anything not recognised is an INTERNAL_ERROR whose message says nothing of the cause
 * (the cause stays on the error, for the log).
 */
export function toAppError(err: unknown): AppError {
  if (isAppError(err)) return err;
  const e = (err ?? {}) as PrismaLikeError;
  const pgCode = sqlState(err);
  if (e.code === 'P2025') return new AppError('NOT_FOUND', 'No such record', { cause: err });
  if (e.code === 'P2002' || pgCode === '23505')
    return new AppError('CONFLICT', 'A record with this value already exists', { cause: err });
  // A foreign key refused the change: a record it refers to was deleted meanwhile, or one still
  // referred to was to be deleted (a customer with bookings). Nothing was changed.
  if (e.code === 'P2003' || pgCode === '23503' || pgCode === '23001') {
    return new AppError('CONFLICT', 'A related record was changed or is still in use; nothing was changed', {
      cause: err,
    });
  }
  // The transaction found no pooled connection within its maxWait, or outlived its timeout.
  if (e.code === 'P2028') return databaseBusy(err);
  if (isDependencyDown(e)) return serviceUnavailable(err);
  // A deadlock or serialization victim that its use case did not retry: nothing was changed.
  if (pgCode === '40P01' || pgCode === '40001')
    return new AppError('CONFLICT', 'A concurrent request changed the same records; retry the request', { cause: err });
  if (pgCode === '22021' || pgCode === '22P05')
    return new AppError('BAD_REQUEST', 'The request contains characters that cannot be stored', { cause: err });
  // A GraphQL argument the schema builder's plugins refuse (a connection's cursor or page size).
  if (err instanceof Error && err.name === 'PothosValidationError')
    return new AppError('VALIDATION_ERROR', err.message, { cause: err });
  // HTTP client errors of the frameworks under our transports (Fastify and its plugins set
  // `statusCode`): the client's mistake, told without the framework's wording.
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    if (e.statusCode === 404) return new AppError('NOT_FOUND', 'Not found', { cause: err });
    if (e.statusCode === 413) return new AppError('PAYLOAD_TOO_LARGE', 'The body is larger than 1 MiB', { cause: err });
    if (e.statusCode === 429) return new AppError('RATE_LIMITED', 'Too many requests; retry shortly', { cause: err });
    return new AppError('BAD_REQUEST', 'The request is malformed', { cause: err });
  }
  return new AppError('INTERNAL_ERROR', 'Something went wrong on our side; retry later', { cause: err });
}
