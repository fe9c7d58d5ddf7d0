// The API client of `svc listen` and `svc trigger` (docs/cli.md, Sandbox events on your
// machine): these run where an integrator works, so they reach the server as any client does,
// through /api/v1 and /graphql with an API key, never through the database. An answer's error
// envelope becomes an AppError of the same code, so the command reports it as the API gave it.
import { randomUUID } from 'node:crypto';
import type { Config } from '../config.js';
import { AppError, ERROR_STATUS, type ErrorCode } from '../errors.js';
import { readServerFile } from './server-file.js';
import { optional, type Values } from './values.js';

export interface Company {
  _id: string;
  name: string;
  mode: 'live' | 'test';
  timezone: string;
  /** The test clock it is attached to (docs/sandbox.md, Test clocks), or null. */
  testClockId: string | null;
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly credential: string,
  ) {}

  /** The headers every request carries: the credential, and the client's name in logs. */
  authHeaders(): Record<string, string> {
    return { authorization: `Bearer ${this.credential}`, 'user-agent': 'svc-cli' };
  }

  /** One /api/v1 request; its `data`, or the API's refusal as an AppError of the same code. */
  async request<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
    return (await this.send<T>(method, path, body)).data;
  }

  /** One page of a list, with the cursor of the next. */
  async page<T>(path: string): Promise<Page<T>> {
    const { data, meta } = await this.send<T[]>('GET', path);
    return { data, nextCursor: meta?.pagination?.nextCursor ?? null };
  }

  private async send<T>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ data: T; meta?: { pagination?: { nextCursor: string | null } } }> {
    const url = `${this.baseUrl}/api/v1${path}`;
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: {
          ...this.authHeaders(),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          // A retried command creates nothing twice (docs/api.md, Idempotency).
          ...(method === 'POST' ? { 'idempotency-key': randomUUID() } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (err) {
      throw unreachable(this.baseUrl, err);
    }
    const envelope = (await res.json().catch(() => null)) as {
      status?: boolean;
      data?: T;
      meta?: { pagination?: { nextCursor: string | null } };
      error?: { code?: string; message?: string; details?: unknown };
    } | null;
    if (res.ok && envelope?.status === true) return { data: envelope.data as T, meta: envelope.meta };
    const code = envelope?.error?.code;
    const message = envelope?.error?.message ?? `${method} ${path} answered HTTP ${res.status}`;
    throw new AppError(
      code && code in ERROR_STATUS ? (code as ErrorCode) : res.status >= 500 ? 'INTERNAL_ERROR' : 'BAD_REQUEST',
      message,
      envelope?.error?.details !== undefined ? { details: envelope.error.details } : {},
    );
  }
}

export function unreachable(baseUrl: string, err: unknown): AppError {
  const reason = (err as Error & { cause?: Error }).cause?.message ?? (err as Error).message;
  return new AppError(
    'SERVICE_UNAVAILABLE',
    `could not reach the server at ${baseUrl} (${reason}); is it running? Pass --base-url to name another`,
  );
}

function httpUrl(raw: string, path: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw AppError.validation([{ path, message: 'must be an http:// or https:// URL' }]);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw AppError.validation([{ path, message: 'must be an http:// or https:// URL' }]);
  return url.href;
}

/** An http(s) URL option, checked (`--forward-to`). */
export function urlOption(values: Values, name: string): string {
  const v = optional(values, name);
  if (v === undefined) throw AppError.validation([{ path: name, message: 'is required' }]);
  return httpUrl(v, name);
}

/**
 * Which server: `--base-url`; else the server running on this machine's DATA_DIR (its
 * server.json names its API origin); else BASE_URL; else http://localhost:PORT.
 */
export function serverOrigin(config: Config, values: Values): string {
  const given = optional(values, 'base-url');
  const origin =
    given !== undefined
      ? httpUrl(given, 'base-url')
      : ((config.DATABASE_URL ? null : readServerFile(config.DATA_DIR)?.apiUrl) ??
        config.BASE_URL ??
        `http://localhost:${config.PORT}`);
  return origin.replace(/\/+$/, '');
}

/**
 * The client of a test company: `--api-key` or SVC_API_KEY, checked against the server (GET
 * /me). Live keys are refused before anything is sent: these commands are for the sandbox.
 */
export async function sandboxClient(config: Config, values: Values): Promise<{ api: ApiClient; company: Company }> {
  const credential = optional(values, 'api-key') ?? process.env.SVC_API_KEY;
  if (!credential)
    throw AppError.validation([
      { path: 'api-key', message: 'is required: pass --api-key svc_sk_test_... or set SVC_API_KEY' },
    ]);
  if (credential.startsWith('svc_sk_live_'))
    throw new AppError('FORBIDDEN', 'svc listen and svc trigger work in the sandbox only: use a svc_sk_test_ key');
  const api = new ApiClient(serverOrigin(config, values), credential);
  const company = await api.request<Company>('GET', '/me');
  if (company.mode !== 'test')
    throw new AppError(
      'FORBIDDEN',
      `${company.name} is a live company: svc listen and svc trigger work in the sandbox only`,
    );
  return { api, company };
}
