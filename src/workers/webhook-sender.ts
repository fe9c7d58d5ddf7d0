// One HTTP attempt of a webhook delivery: POST with a timeout, redirects not followed, through
// a connection whose DNS lookup is the SSRF guard (src/webhooks/ssrf-guard.ts). Never throws:
// the outcome (status, duration, response excerpt, error) is what gets recorded as a
// WebhookAttempt.
import { Agent, request } from 'undici';
import { checkUrl, guardedLookup, UrlRefused, type UrlPolicy } from '../webhooks/ssrf-guard.js';

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  responseExcerpt: string | null;
  error: string | null;
  /** Milliseconds the receiver asked us to wait (Retry-After), if it did. */
  retryAfterMs: number | null;
}

const EXCERPT_BYTES = 1024;

export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return null;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

async function readExcerpt(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size < EXCERPT_BYTES) chunks.push(chunk);
    size += chunk.length;
    // Stop reading a huge body; the excerpt is all we keep.
    if (size > 64 * 1024) break;
  }
  return Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8');
}

export interface SendOptions {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  policy: UrlPolicy;
  /** Replaces the system resolver (tests). */
  resolve?: Parameters<typeof guardedLookup>[1];
}

export async function sendWebhook(o: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const done = (r: Omit<SendResult, 'durationMs'>): SendResult => ({
    ...r,
    durationMs: Math.round(performance.now() - started),
  });
  let url: URL;
  try {
    url = checkUrl(o.url, o.policy);
  } catch (err) {
    return done({
      ok: false,
      statusCode: null,
      responseExcerpt: null,
      error: (err as Error).message,
      retryAfterMs: null,
    });
  }
  // One agent per attempt: its lookup is the guard, and no pooled socket to an address checked
  // earlier is reused after DNS has changed.
  const agent = new Agent({
    connect: { lookup: guardedLookup(o.policy, o.resolve), timeout: o.timeoutMs },
    pipelining: 0,
  });
  try {
    const res = await request(url, {
      method: 'POST',
      body: o.body,
      headers: { 'content-type': 'application/json', 'user-agent': 'booking-service-webhooks/1', ...o.headers },
      dispatcher: agent,
      signal: AbortSignal.timeout(o.timeoutMs),
      headersTimeout: o.timeoutMs,
      bodyTimeout: o.timeoutMs,
    });
    const excerpt = await readExcerpt(res.body).catch(() => '');
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    return done({
      ok,
      statusCode: res.statusCode,
      responseExcerpt: excerpt,
      // A redirect is a failure: following it could lead anywhere (docs/webhooks.md).
      error: ok
        ? null
        : res.statusCode >= 300 && res.statusCode < 400
          ? `redirect to ${String(res.headers.location ?? '?').slice(0, 200)} not followed`
          : `HTTP ${res.statusCode}`,
      retryAfterMs: parseRetryAfter(res.headers['retry-after']),
    });
  } catch (err) {
    const e = err as Error & { code?: string; cause?: Error };
    const cause = e.cause instanceof UrlRefused ? e.cause : e;
    const message =
      e.name === 'TimeoutError' || e.name === 'AbortError'
        ? `timed out after ${o.timeoutMs} ms`
        : cause.message || e.code || 'request failed';
    return done({
      ok: false,
      statusCode: null,
      responseExcerpt: null,
      error: message.slice(0, 500),
      retryAfterMs: null,
    });
  } finally {
    agent.close().catch(() => undefined);
  }
}
