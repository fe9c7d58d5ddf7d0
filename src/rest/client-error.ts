// Node's HTTP parser refuses some requests before Fastify sees them (an oversized header block,
// a request line that is not HTTP, a client too slow to send its headers). The server's
// `clientError` handler answers those on the raw socket; this one writes the error envelope
// (docs/api.md: every answer carries it) instead of Node's or Fastify's bare bodies. There is no
// request to take an X-Request-Id from, so the id is always a new one.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';
import { failure } from './envelope.js';
import { newRequestId } from './request-id.js';

// The HTTP status keeps the parser's precise answer (RFC 6585's 431, RFC 9110's 408); the code
// is the error table's for a malformed request.
function answerFor(err: NodeJS.ErrnoException): { status: number; error: AppError } {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return { status: 431, error: new AppError('BAD_REQUEST', 'The request headers are too large (16 KiB at most)') };
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: 408, error: new AppError('BAD_REQUEST', 'The request was not received in time') };
  }
  return { status: 400, error: new AppError('BAD_REQUEST', 'The request is not valid HTTP') };
}

export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has no one left to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, error } = answerFor(err);
  const id = newRequestId();
  this.log.debug({ err: { code: err.code, message: err.message }, requestId: id }, 'client error');
  if (socket.writable) {
    const body = JSON.stringify(failure(error, id));
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${id}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy(err);
}
