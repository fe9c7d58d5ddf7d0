// Every error leaves through here as the error envelope (docs/api.md), its code decided by the one
// table of src/errors.ts (REST adds only Fastify's request errors, which no other surface
// sees). Nothing unknown reaches the client; it is logged and answered 500.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { AppError, isAppError, toAppError } from '../errors.js';
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

/**
 * REST's own causes, then the one table: Fastify's schema validation (with REST's field paths)
 * and Fastify's request errors, told in REST's words; everything else as every surface maps it.
 */
export function toRestError(err: unknown): AppError {
  if (isAppError(err)) return err;
  const fe = err as Partial<FastifyError> | undefined;
  // Every path parameter is a record id (PathId): one that cannot be an id names no record.
  if (fe?.validation && fe.validationContext === 'params') return new AppError('NOT_FOUND', 'No such record');
  if (fe?.validation) return validationError(fe.validation as never, fe.validationContext ?? 'body');
  if (fe?.code && FASTIFY_CODES[fe.code]) return FASTIFY_CODES[fe.code]!();
  return toAppError(err);
}

export function sendError(req: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  const appError = toRestError(err);
  if (appError.code === 'SERVICE_UNAVAILABLE') req.log.warn({ err: appError.cause ?? appError }, appError.message);
  else if (appError.status >= 500)
    req.log.error({ err: appError.cause ?? appError, internal: appError.internal }, appError.message);
  if (appError.headers) reply.headers(appError.headers);
  return reply
    .status(appError.status)
    .type('application/json; charset=utf-8')
    .send(failure(appError, String(req.id)));
}

/**
 * Fastify's `frameworkErrors`: what its router refuses before any route or hook runs (a path
 * that does not decode, an over-long parameter). No onRequest hook set X-Request-Id here.
 */
export function frameworkErrorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', req.id);
  // Fastify calls this for its own errors and reads nothing back; the reply is sent here.
  void sendError(req, reply, err);
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
