// Every error leaves through here as the error envelope (docs/api.md): one table (src/errors.ts) from
// cause to code and status. Nothing unknown reaches the client; it is logged and answered 500.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { AppError, isAppError } from '../errors.js';
import { failure } from './envelope.js';
import { validationError } from './validation.js';

const FASTIFY_CODES: Record<string, () => AppError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => new AppError('PAYLOAD_TOO_LARGE', 'The body is larger than 1 MiB'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => new AppError('BAD_REQUEST', 'Send the body as application/json'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => new AppError('BAD_REQUEST', 'Content-Length does not match the body'),
  FST_ERR_CTP_INVALID_JSON_BODY: () => new AppError('BAD_REQUEST', 'The body is not valid JSON'),
  // A path that is not valid percent-encoded UTF-8, or a segment longer than any route
  // parameter, names no route and no record: the 404 of an unknown path or a malformed id.
  FST_ERR_BAD_URL: () => new AppError('NOT_FOUND', 'No such path: it is not valid percent-encoded UTF-8'),
  FST_ERR_MAX_PARAM_LENGTH: () => new AppError('NOT_FOUND', 'No such record: the path segment is longer than any id'),
  FST_ERR_ASYNC_CONSTRAINT: () => new AppError('BAD_REQUEST', 'The request is malformed'),
};

interface PrismaLikeError {
  code?: string;
  meta?: { driverAdapterError?: { cause?: { originalCode?: string; kind?: string } } };
}

// A database that cannot be reached, is shutting down or has no connection to spare is a
// dependency outage: 503 SERVICE_UNAVAILABLE with Retry-After (docs/api.md), not a 500.
const UNREACHABLE_PRISMA = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
const UNREACHABLE_DRIVER = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections', 'DatabaseUnavailable']);
const UNREACHABLE_SOCKET = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE']);
// node-postgres reports a connection dropped under a query, a pool wait that timed out, a query
// whose answer did not come within DATABASE_QUERY_TIMEOUT_MS, and a query on a connection ended
// for that reason, as plain Errors without a code; these are its messages.
const PG_CONNECTION_LOST = /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client (was closed|has encountered a connection error) and is not queryable)/;

function isDependencyDown(err: PrismaLikeError): boolean {
  const cause = err.meta?.driverAdapterError?.cause;
  const pgCode = cause?.originalCode ?? '';
  return (
    UNREACHABLE_PRISMA.has(err.code ?? '') ||
    UNREACHABLE_DRIVER.has(cause?.kind ?? '') ||
    UNREACHABLE_SOCKET.has(err.code ?? '') ||
    (err instanceof Error && err.code === undefined && PG_CONNECTION_LOST.test(err.message)) ||
    // PostgreSQL: connection exceptions (08), shutting down or starting (57P01-57P03), too many connections.
    pgCode.startsWith('08') ||
    ['57P01', '57P02', '57P03', '53300'].includes(pgCode)
  );
}

export const serviceUnavailable = (cause?: unknown) =>
  new AppError('SERVICE_UNAVAILABLE', 'A service we depend on is unavailable; retry shortly', { cause, headers: { 'retry-after': '5' } });

/** Maps any thrown value onto an AppError. */
export function toAppError(err: unknown): AppError {
  if (isAppError(err)) return err;
  const fe = err as FastifyError & PrismaLikeError;
  // Every path parameter is a record id (PathId): one that cannot be an id names no record.
  if (fe?.validation && fe.validationContext === 'params') return new AppError('NOT_FOUND', 'No such record');
  if (fe?.validation) return validationError(fe.validation as never, fe.validationContext ?? 'body');
  if (fe?.code && FASTIFY_CODES[fe.code]) return FASTIFY_CODES[fe.code]!();
  if (fe?.code === 'P2025') return new AppError('NOT_FOUND', 'No such record', { cause: err });
  if (fe?.code === 'P2002') return new AppError('CONFLICT', 'A record with this value already exists', { cause: err });
  // A foreign key refused the change: a record it refers to was deleted meanwhile, or one still
  // referred to was to be deleted (a customer with bookings). Nothing was changed.
  const fkCode = fe?.meta?.driverAdapterError?.cause?.originalCode;
  if (fe?.code === 'P2003' || fkCode === '23503' || fkCode === '23001') {
    return new AppError('CONFLICT', 'A related record was changed or is still in use; nothing was changed', { cause: err });
  }
  // The transaction found no pooled connection within its maxWait, or outlived its timeout.
  if (fe?.code === 'P2028') return new AppError('SERVICE_UNAVAILABLE', 'The database is busy; retry shortly', { cause: err, headers: { 'retry-after': '2' } });
  if (fe && isDependencyDown(fe)) return serviceUnavailable(err);
  const pgCode = fe?.meta?.driverAdapterError?.cause?.originalCode;
  // A deadlock or serialization victim that its use case did not retry: nothing was changed.
  if (pgCode === '40P01' || pgCode === '40001') return new AppError('CONFLICT', 'A concurrent request changed the same records; retry the request', { cause: err });
  if (pgCode === '22021' || pgCode === '22P05') return new AppError('BAD_REQUEST', 'The request contains characters that cannot be stored');
  if (typeof fe?.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    if (fe.statusCode === 404) return new AppError('NOT_FOUND', 'Not found');
    if (fe.statusCode === 413) return new AppError('PAYLOAD_TOO_LARGE', 'The body is larger than 1 MiB');
    return new AppError('BAD_REQUEST', 'The request is malformed');
  }
  return new AppError('INTERNAL_ERROR', 'Something went wrong on our side; retry later', { cause: err });
}

export function sendError(req: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  const appError = toAppError(err);
  if (appError.code === 'SERVICE_UNAVAILABLE') req.log.warn({ err: appError.cause ?? appError }, appError.message);
  else if (appError.status >= 500) req.log.error({ err: appError.cause ?? appError, internal: appError.internal }, appError.message);
  if (appError.headers) reply.headers(appError.headers);
  return reply.status(appError.status).type('application/json; charset=utf-8').send(failure(appError, String(req.id)));
}

/**
 * Fastify's `frameworkErrors`: what its router refuses before any route or hook runs (a path
 * that does not decode, an over-long parameter). No onRequest hook set X-Request-Id here.
 */
export function frameworkErrorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.header('x-request-id', req.id);
  return sendError(req, reply, err);
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err, req, reply) => sendError(req, reply, err));
}

/**
 * Unknown paths answer the 404 envelope. Fastify runs no route hooks for them, so the rate
 * limiter is passed in as a preHandler: probing unknown /api paths is counted and answered
 * with RateLimit-* headers like any other /api request (docs/api.md: "every response").
 */
export function registerNotFoundHandler(app: FastifyInstance, preHandler: preHandlerAsyncHookHandler): void {
  app.setNotFoundHandler({ preHandler }, (req, reply) =>
    sendError(req, reply, new AppError('NOT_FOUND', `No route ${req.method} ${req.url.split('?')[0]}`)),
  );
}
