// Request ids (docs/api.md: meta.requestId and X-Request-Id). A caller's X-Request-Id is kept
// when it is sane, so their logs and ours line up; otherwise `req_` + 24 hex characters.
//
// Randomness is drawn 4 KiB at a time: randomBytes(12) per request was a getrandom call and
// a Buffer each time, a visible share of the server's CPU on GET /api/v1/me (see
// docs/performance.md, "Request ids").
// The ids need to be unique, not secret, and 96 bits from the CSPRNG are that.
import { randomFillSync } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;
const ID_BYTES = 12;
const pool = Buffer.alloc(ID_BYTES * 341);
// eslint-disable-next-line no-restricted-syntax -- process state: ids
let offset = pool.length;

export function newRequestId(): string {
  if (offset + ID_BYTES > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const id = `req_${pool.toString('hex', offset, offset + ID_BYTES)}`;
  offset += ID_BYTES;
  return id;
}

export function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : newRequestId();
}
