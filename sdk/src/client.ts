// The client: one method per operation (resources.ts), each a thin call of `request` below,
// which sends the request with the credential, the API version and, on a POST, an
// Idempotency-Key, and retries where that is safe.
import { apiError, ConnectionError, type ApiError } from './errors.js';
import {
  OPERATIONS,
  type ApiVersion,
  type Args,
  type Method,
  type OperationId,
  type RequestOptions,
  type ResponseData,
  type Result,
} from './operations.js';
import { List, type Page } from './pagination.js';
import { RESOURCES } from './resources.js';
import { webhooks } from './webhooks.js';

export interface ClientOptions {
  /** The server's origin, e.g. `https://api.example.com` (the API is under `/api/v1`). */
  baseUrl: string;
  /** An API key (`svc_sk_live_…`, `svc_sk_test_…`). */
  apiKey?: string;
  /** An OAuth access token, or a function answering the current one (called per request). */
  accessToken?: string | (() => string | Promise<string>);
  /** `API-Version` sent on every request; without it, the company's pinned version applies. */
  apiVersion?: ApiVersion;
  /** Retries after the first attempt (network errors, 429, 503; see README). Default 2. */
  maxRetries?: number;
  /** Milliseconds one attempt may take before it is abandoned (and retried where safe). Default 60 000. */
  timeoutMs?: number;
  /** The longest `Retry-After` (seconds) the client waits out by itself; longer ones are thrown. Default 60. */
  maxRetryAfterSeconds?: number;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

/** What one answer was, for logging: `client.onResponse = (info) => ...`. */
export interface ResponseInfo {
  operationId: OperationId;
  method: string;
  url: string;
  status: number;
  requestId: string | undefined;
  attempt: number;
}

type ResourceMethods = {
  [R in keyof typeof RESOURCES]: {
    [V in keyof (typeof RESOURCES)[R]]: (typeof RESOURCES)[R][V] extends OperationId
      ? Method<(typeof RESOURCES)[R][V]>
      : never;
  };
};

interface Envelope {
  status?: boolean;
  data?: unknown;
  error?: { code?: string; message?: string; details?: unknown };
  meta?: { requestId?: string; pagination?: { limit: number; hasMore: boolean; nextCursor: string | null } };
}

const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;

class BaseClient {
  readonly baseUrl: string;
  /** `client.webhooks.verify(rawBody, headers, secret)`: the same as the `webhooks` export. */
  readonly webhooks = webhooks;
  /** Called with every answer (each attempt), for logging. */
  onResponse: ((info: ResponseInfo) => void) | undefined;
  readonly #options: ClientOptions;
  readonly #fetch: typeof fetch;

  constructor(options: ClientOptions) {
    if (!options.baseUrl) throw new TypeError('baseUrl is required');
    if (options.apiKey && options.accessToken) throw new TypeError('pass apiKey or accessToken, not both');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#options = options;
    this.#fetch = options.fetch ?? ((...args) => globalThis.fetch(...args));
    for (const [resource, verbs] of Object.entries(RESOURCES)) {
      const group: Record<string, unknown> = {};
      for (const [verb, operationId] of Object.entries(verbs)) {
        group[verb] = (...args: unknown[]) => this.#call(operationId, args);
      }
      (this as unknown as Record<string, unknown>)[resource] = group;
    }
  }

  /**
   * Calls an operation by its operationId, with the same arguments as its method:
   * `client.call('cancelBooking', id, { reason })` is `client.bookings.cancel(id, { reason })`.
   */
  call<K extends OperationId>(operationId: K, ...args: [...Args<K>, options?: RequestOptions]): Result<K> {
    return this.#call(operationId, args) as Result<K>;
  }

  #call(operationId: OperationId, args: unknown[]): unknown {
    const route = OPERATIONS[operationId];
    if (!route) throw new TypeError(`unknown operation ${operationId}`);
    const names = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    const rest = args.slice(names.length);
    for (const [i, name] of names.entries()) {
      if (typeof args[i] !== 'string' || args[i] === '')
        throw new TypeError(`${operationId}: the path parameter ${name} must be a non-empty string`);
    }
    let path: string = route.path;
    for (const [i, name] of names.entries()) path = path.replace(`{${name}}`, encodeURIComponent(args[i] as string));
    const takesInput = route.body !== 'none' || route.query;
    const input = takesInput ? rest[0] : undefined;
    const options = ((takesInput ? rest[1] : rest[0]) ?? {}) as RequestOptions;
    const body = route.body !== 'none' ? input : undefined;
    const query = route.query ? ((input ?? {}) as Record<string, unknown>) : undefined;
    if (!route.list) {
      return this.request(operationId, { path, query, body, options }).then((r) => r.data);
    }
    // A POST of a list has no idempotency to keep across pages; each page is its own GET.
    return new List(async (cursor) => {
      const r = await this.request(operationId, {
        path,
        query: { ...query, ...(cursor !== undefined ? { cursor } : {}) },
        options,
      });
      const p = r.envelope.meta?.pagination;
      const page: Page<unknown> = {
        data: r.data as unknown[],
        hasMore: p?.hasMore ?? false,
        nextCursor: p?.nextCursor ?? null,
        limit: p?.limit ?? (r.data as unknown[]).length,
        requestId: r.requestId ?? '',
      };
      return page;
    });
  }

  /**
   * The lower level of every method: sends one operation's request (with retries) and answers
   * its data, request id and headers. `path` is already filled in.
   */
  async request<K extends OperationId>(
    operationId: K,
    req: { path: string; query?: Record<string, unknown> | undefined; body?: unknown; options?: RequestOptions },
  ): Promise<{ data: ResponseData<K>; requestId: string | undefined; headers: Headers; envelope: Envelope }> {
    const route = OPERATIONS[operationId];
    const options = req.options ?? {};
    const url = new URL(this.baseUrl + req.path);
    for (const [k, v] of Object.entries(req.query ?? {})) {
      if (v === undefined || v === null) continue;
      for (const item of Array.isArray(v) ? v : [v]) url.searchParams.append(k, String(item));
    }
    const method = route.method;
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    const apiVersion = options.apiVersion ?? this.#options.apiVersion;
    if (apiVersion) headers['api-version'] = apiVersion;
    let payload: string | undefined;
    if (req.body !== undefined) {
      payload = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }
    // One key per logical call: every retry of it sends the same one, so the server runs it once.
    const idempotencyKey = method === 'POST' ? (options.idempotencyKey ?? crypto.randomUUID()) : undefined;
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    // Safe to send again after a lost answer or a 503: reads, PUT and DELETE (idempotent by
    // their meaning), and a POST with its key. A PATCH is retried only after a 429, which the
    // server answers before running anything.
    const safeToRepeat = method === 'GET' || method === 'PUT' || method === 'DELETE' || idempotencyKey !== undefined;
    const maxRetries = options.maxRetries ?? this.#options.maxRetries ?? 2;
    const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs ?? 60_000;
    const maxRetryAfter = this.#options.maxRetryAfterSeconds ?? 60;

    for (let attempt = 0; ; attempt++) {
      options.signal?.throwIfAborted();
      const credential = await this.#authorization();
      const signals = [AbortSignal.timeout(timeoutMs), ...(options.signal ? [options.signal] : [])];
      let res: Response;
      let text: string;
      try {
        res = await this.#fetch(url, {
          method,
          headers: { ...headers, ...credential },
          ...(payload !== undefined ? { body: payload } : {}),
          signal: signals.length > 1 ? AbortSignal.any(signals) : signals[0]!,
        });
        // A connection cut in the middle of the answer is as much a lost answer as no answer.
        text = await res.text();
      } catch (cause) {
        if (options.signal?.aborted) throw options.signal.reason;
        if (safeToRepeat && attempt < maxRetries) {
          await sleep(backoff(attempt), options.signal);
          continue;
        }
        throw new ConnectionError(
          `${operationId}: no answer from ${url.origin} (${describe(cause)})${attempt ? ` after ${attempt + 1} attempts` : ''}`,
          operationId,
          { cause },
        );
      }
      const envelope = parse(text);
      const requestId = envelope?.meta?.requestId ?? res.headers.get('x-request-id') ?? undefined;
      this.onResponse?.({ operationId, method, url: url.href, status: res.status, requestId, attempt });
      if (res.ok && envelope && envelope.status === true) {
        return { data: envelope.data as ResponseData<K>, requestId, headers: res.headers, envelope };
      }
      const error = apiError({
        status: res.ok ? 502 : res.status,
        code: envelope?.error?.code ?? (res.ok ? 'UNEXPECTED_RESPONSE' : `HTTP_${res.status}`),
        message: envelope?.error?.message ?? `${operationId}: HTTP ${res.status} ${text.slice(0, 200)}`.trim(),
        requestId,
        details: envelope?.error?.details,
        headers: res.headers,
        operationId,
      });
      const delay = attempt < maxRetries ? retryDelay(error, attempt, safeToRepeat, maxRetryAfter) : undefined;
      if (delay === undefined) throw error;
      await sleep(delay, options.signal);
    }
  }

  async #authorization(): Promise<Record<string, string>> {
    const { apiKey, accessToken } = this.#options;
    const token = apiKey ?? (typeof accessToken === 'function' ? await accessToken() : accessToken);
    return token ? { authorization: `Bearer ${token}` } : {};
  }
}

/** The client: `new Client({ apiKey, baseUrl })`, then `client.<resource>.<verb>(...)` (README.md). */
export type Client = BaseClient & ResourceMethods;
export const Client = BaseClient as new (options: ClientOptions) => Client;

/**
 * How long to wait before retrying after an error answer, or undefined when it must not be
 * retried: a 429 always (nothing ran), a 503 when the request is safe to repeat, and a 409
 * IDEMPOTENCY_KEY_IN_USE (the same key's first request still running). The server's
 * Retry-After is honoured (never sooner), up to maxRetryAfter seconds.
 */
function retryDelay(error: ApiError, attempt: number, safeToRepeat: boolean, maxRetryAfter: number) {
  const retryable =
    error.status === 429 ||
    (error.status === 503 && safeToRepeat) ||
    (error.status === 409 && error.code === 'IDEMPOTENCY_KEY_IN_USE');
  if (!retryable) return undefined;
  const after = error.retryAfter;
  if (after === undefined) return backoff(attempt);
  if (after > maxRetryAfter) return undefined;
  // At least what was asked, plus a little jitter so that many clients do not return at once.
  return after * 1000 + Math.random() * 250;
}

/** Exponential backoff with jitter: half fixed, half random, from 0.5 s doubling up to 8 s. */
function backoff(attempt: number): number {
  const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt);
  return ceiling / 2 + (Math.random() * ceiling) / 2;
}

const abortReason = (signal: AbortSignal): Error =>
  signal.reason instanceof Error ? signal.reason : new DOMException('The operation was aborted', 'AbortError');

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function parse(text: string): Envelope | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null ? v : undefined;
  } catch {
    return undefined;
  }
}

function describe(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = (cause as { cause?: unknown }).cause;
    return inner instanceof Error ? `${cause.message}: ${inner.message}` : cause.message;
  }
  return String(cause);
}
