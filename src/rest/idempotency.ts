// Idempotency-Key on every POST of /api/v1 (docs/api.md, after Stripe's design): the first
// result (status and body) is kept 24 h per credential and replayed with
// `Idempotent-Replayed: true`; the same key with another request is 409
// IDEMPOTENCY_KEY_REUSED; the same key while the first request still runs is 409
// IDEMPOTENCY_KEY_IN_USE. The record is inserted before the work starts, so the unique
// (credential_id, key) index arbitrates between instances: exactly one request does the work.
//
// "Credential" for an OAuth client is its grant, not the access token: tokens live an hour
// and are replaced by refresh, and a client retrying a POST with a fresh token after a
// refresh must get the first result back, not a second booking. Every token of one grant
// therefore shares one key space (as they share one rate-limit budget, rate-limit.ts).
//
// Requests refused before they start (401, 403, 429, body validation) are not recorded, so a
// corrected retry with the same key runs. A 5xx is not kept either: the work did not happen,
// and the client's retry with the same key should try again.
//
// A kept body can hold what must never sit in the database in clear (a webhook endpoint's
// `secret` and `token` from POST /webhook-endpoints and /rotate-secret, any key material a
// POST returns), so every stored body is sealed with the secret box (AES-256-GCM, SECRET_KEY),
// the same for all responses: no per-route list of secret fields to keep up to date.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { secretBox } from '../crypto/secret-box.js';
import type { Db } from '../db/databases.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { Services } from '../services.js';

export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;
/** An in-flight record older than this belongs to a process that died: a retry takes it over. */
export const IDEMPOTENCY_STALE_MS = 5 * 60_000;
const KEY = /^[\x21-\x7e]{1,255}$/;

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: { db: Db; id: string } | null;
  }
}

/** Key order does not make two bodies different requests. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function requestHash(req: FastifyRequest): string {
  return createHash('sha256')
    .update(`${req.method} ${req.url}\n${canonical(req.body ?? null)}`)
    .digest('hex');
}

/** The first response's text; bodies kept before sealing began ('{...}') are read as they are. */
function storedBody(box: ReturnType<typeof secretBox>, stored: unknown): string {
  const text = String(stored);
  return text.startsWith('{') ? text : box.open(text);
}

/** The request id in a kept envelope (`meta.requestId`). */
function firstRequestId(body: string): string | null {
  try {
    const id = (JSON.parse(body) as { meta?: { requestId?: unknown } }).meta?.requestId;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

/** Whose key space an Idempotency-Key lives in: an API key's own, or an OAuth grant's. */
export function idempotencyScope(c: { id: string; grantId: string | null }): string {
  return c.grantId ? `grant:${c.grantId}` : c.id;
}

export function registerIdempotency(app: FastifyInstance, services: Services): void {
  app.decorateRequest('idempotency', null);
  // Read on first use (the development key file is created only when needed).
  const box = () => secretBox(services.config);

  app.addHook('preHandler', async (req, reply) => {
    if (req.method !== 'POST' || !req.credential) return;
    const key = req.headers['idempotency-key'];
    if (key === undefined) return;
    if (typeof key !== 'string' || !KEY.test(key)) {
      throw AppError.validation([
        { path: 'Idempotency-Key', message: 'must be 1–255 printable ASCII characters without spaces' },
      ]);
    }
    const db = services.dbs.forMode(req.credential.mode);
    const credentialId = idempotencyScope(req.credential);
    const hash = requestHash(req);
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = new Date();
      const id = newId();
      const { count } = await db.idempotencyRecord.createMany({
        data: [
          {
            id,
            credentialId,
            key,
            requestHash: hash,
            state: 'in_progress',
            expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
          },
        ],
        skipDuplicates: true,
      });
      if (count === 1) {
        req.idempotency = { db, id };
        return;
      }
      const existing = await db.idempotencyRecord.findUnique({ where: { credentialId_key: { credentialId, key } } });
      if (!existing) continue; // expired and removed meanwhile: insert again
      if (existing.expiresAt <= now) {
        await db.idempotencyRecord.deleteMany({ where: { id: existing.id, expiresAt: { lte: now } } });
        continue;
      }
      if (existing.requestHash !== hash) {
        throw new AppError(
          'IDEMPOTENCY_KEY_REUSED',
          'This Idempotency-Key was used with a different request; use a new key for a new request',
        );
      }
      if (existing.state !== 'completed') {
        if (now.getTime() - existing.createdAt.getTime() > IDEMPOTENCY_STALE_MS) {
          const taken = await db.idempotencyRecord.updateMany({
            where: { id: existing.id, state: 'in_progress', createdAt: existing.createdAt },
            data: { createdAt: now },
          });
          if (taken.count === 1) {
            req.idempotency = { db, id: existing.id };
            return;
          }
        }
        throw new AppError(
          'IDEMPOTENCY_KEY_IN_USE',
          'A request with this Idempotency-Key is still in progress; retry after it finishes',
          {
            headers: { 'retry-after': '1' },
          },
        );
      }
      // The stored body is the exact text first sent, and its meta.requestId the first
      // request's. The replay is that answer, X-Request-Id included, since the envelope's
      // request id is always the header's; the log ties this request to the first one.
      const body = storedBody(box(), existing.responseBody);
      const first = firstRequestId(body);
      if (first) {
        reply.header('x-request-id', first);
        req.log.info({ firstRequestId: first }, 'replayed the first answer of this Idempotency-Key');
      }
      return reply
        .code(existing.responseStatus ?? 200)
        .header('idempotent-replayed', 'true')
        .type('application/json; charset=utf-8')
        .send(body);
    }
    throw new AppError(
      'IDEMPOTENCY_KEY_IN_USE',
      'A request with this Idempotency-Key is still in progress; retry after it finishes',
      { headers: { 'retry-after': '1' } },
    );
  });

  app.addHook('onSend', async (req, reply, payload) => {
    const owned = req.idempotency;
    if (!owned) return payload;
    req.idempotency = null;
    try {
      if (reply.statusCode >= 500 || typeof payload !== 'string') {
        await owned.db.idempotencyRecord.deleteMany({ where: { id: owned.id } });
      } else {
        await owned.db.idempotencyRecord.update({
          where: { id: owned.id },
          data: { state: 'completed', responseStatus: reply.statusCode, responseBody: box().seal(payload) },
        });
      }
    } catch (err) {
      // The response itself is right; a lost record only means a retry runs again.
      req.log.error({ err }, 'could not store the idempotent response');
    }
    return payload;
  });
}
