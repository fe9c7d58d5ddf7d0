// Records every /api/v1 and /graphql request of a company (docs/api.md, Request logs). The
// hooks only gather the row and hand it to the writer's in-memory buffer
// (src/schema/request-logs/request-log-writer.ts), which writes batches off the request path:
// a request never waits on, or fails because of, its log.
//
// A request that carried no valid credential belongs to no company and is not recorded (its
// 401 is in the process log): a request log is shown to its company, and there is none.
// Bodies are kept for 4xx and 5xx answers only (and for a /graphql 200 that carries errors),
// redacted as src/logger.ts redacts plus card security codes, capped at 16 KiB each.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Credential } from '../auth/credentials.js';
import { tokenPrefix } from '../auth/tokens.js';
import { newId } from '../ids.js';
import { scrubText } from '../logger.js';
import {
  bodyForLog,
  credentialColumns,
  redactText,
  RequestLogWriter,
  type CredentialColumns,
  type RequestLogRow,
} from '../schema/request-logs/index.js';
import type { Services } from '../services.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The request-log writer; null when REQUEST_LOGS=off. */
    requestLogs: RequestLogWriter | null;
  }
  interface FastifyRequest {
    /** The response body of an answer whose bodies are logged, as onSend saw it. */
    loggedResponse: string | null;
  }
}

const LOGGED = /^\/(api\/v1(\/|\?|$)|graphql(\/|\?|$))/;
const OPERATION_NAME = /\b(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)/;
const MAX_TEXT = 2000;

const cut = (s: string, max = MAX_TEXT) => (s.length > max ? s.slice(0, max) : s);

/** A /graphql answer with errors beside (or instead of) its data keeps its bodies too. */
function hasGraphQLErrors(payload: string): boolean {
  return payload.startsWith('{"errors"') || payload.includes('"errors":[');
}

function graphqlParams(req: FastifyRequest): Record<string, unknown> {
  const part = req.method === 'GET' ? req.query : req.body;
  return part !== null && typeof part === 'object' ? (part as Record<string, unknown>) : {};
}

function operationNameOf(params: Record<string, unknown>): string | null {
  if (typeof params.operationName === 'string' && params.operationName)
    return redactText(cut(params.operationName, 200));
  if (typeof params.query !== 'string') return null;
  return OPERATION_NAME.exec(params.query.slice(0, MAX_TEXT))?.[1] ?? null;
}

/** The last four characters of the credential as sent (svc_sk_test_…AbCd shows them, never more). */
function lastFour(req: FastifyRequest): string {
  return (req.headers.authorization ?? '').trim().slice(-4);
}

/**
 * A credential's columns, serialized once for all its requests: the resolver hands out the
 * same Credential object for every request with one token while it is cached.
 */
// eslint-disable-next-line no-restricted-syntax -- process state: request-log writer
const credentialColumnsCache = new WeakMap<Credential, { last4: string; columns: CredentialColumns }>();
function columnsOf(req: FastifyRequest, credential: Credential): CredentialColumns {
  const last4 = lastFour(req);
  let cached = credentialColumnsCache.get(credential);
  if (cached === undefined || cached.last4 !== last4) {
    const prefix = tokenPrefix(credential.kind === 'api_key' ? 'sk' : 'at', credential.mode);
    cached = {
      last4,
      columns: credentialColumns({
        mode: credential.mode,
        companyId: credential.companyId,
        credentialId: credential.id,
        credentialName: credential.name,
        credentialPrefix: `${prefix}…${last4}`,
      }),
    };
    credentialColumnsCache.set(credential, cached);
  }
  return cached.columns;
}

function rowOf(req: FastifyRequest, reply: FastifyReply): RequestLogRow {
  const durationMs = reply.elapsedTime;
  const url = req.url;
  const graphql = url.startsWith('/graphql');
  const params = graphql ? graphqlParams(req) : null;
  const withBodies = req.loggedResponse !== null;
  let requestBody: string | null = null;
  if (withBodies) {
    requestBody = params
      ? bodyForLog({ query: params.query, operationName: params.operationName, variables: params.variables })
      : bodyForLog(req.body);
  }
  const route = graphql ? null : (req.routeOptions.url ?? null);
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const idempotencyKey = req.headers['idempotency-key'];
  // One clock read for both (see docs/performance.md, "Request log rows").
  const now = Date.now();
  return {
    id: newId(now),
    createdAtMs: now - durationMs,
    method: req.method,
    route,
    // A path that is its route's (no parameters) is our own text: nothing to scrub.
    path: path === route ? path : scrubText(cut(path)),
    operationName: params ? operationNameOf(params) : null,
    status: reply.statusCode,
    durationMs: Math.round(durationMs * 1000) / 1000,
    requestId: req.id,
    ip: req.ip ?? '',
    idempotencyKey: typeof idempotencyKey === 'string' ? cut(idempotencyKey, 255) : null,
    requestBody,
    responseBody: withBodies ? bodyForLog(req.loggedResponse) : null,
  };
}

/** Registers the hooks on the root instance, and the writer as `app.requestLogs`. */
export function registerRequestLogs(app: FastifyInstance, services: Services): void {
  const { config } = services;
  const writer =
    config.REQUEST_LOGS === 'off'
      ? null
      : new RequestLogWriter(services.dbs, {
          flushMs: config.REQUEST_LOG_FLUSH_MS,
          batchRows: config.REQUEST_LOG_BATCH_ROWS,
          maxBuffered: config.REQUEST_LOG_BUFFER_ROWS,
          logger: services.logger,
        });
  app.decorate('requestLogs', writer);
  app.decorateRequest('loggedResponse', null);
  if (!writer) return;
  writer.start();
  // After the server stopped taking requests and finished those in flight: write what is left.
  app.addHook('onClose', async () => {
    await writer.close();
  });
  app.addHook('onSend', (req, reply, payload, done) => {
    const status = reply.statusCode;
    // Most answers keep no bodies and are done with here: below 400, only a /graphql answer may
    // (it runs on every request: the cheapest tests first).
    if ((status >= 400 || req.url.startsWith('/graphql')) && req.credential && LOGGED.test(req.url)) {
      const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
      if (status >= 400) req.loggedResponse = text ?? '';
      else if (text !== null && hasGraphQLErrors(text)) req.loggedResponse = text;
    }
    done(null, payload);
  });
  app.addHook('onResponse', (req, reply, done) => {
    const credential = req.credential;
    if (credential && LOGGED.test(req.url)) {
      try {
        writer.recordRow(rowOf(req, reply), columnsOf(req, credential));
      } catch (err) {
        // Never the request's problem: it has been answered already.
        req.log.warn({ err: { message: (err as Error).message } }, 'could not record the request log');
      }
    }
    done();
  });
}
