// External calendars (docs/api.md, External calendars): the sweep that finds calendars due for a
// fetch (each cycle of the runtime, so a new calendar is fetched within seconds and nothing
// waits on a timer in memory), and the job that fetches one. The fetch goes through the webhook
// SSRF guard (src/webhooks/ssrf-guard.ts: scheme, literal address, and every resolved address
// inside the connection's own lookup), with a timeout and a size limit, sending the ETag and
// Last-Modified of the last good copy; redirects are followed (at most 3), each hop checked
// again. The URL is a secret: it is never logged, and no error recorded or logged quotes it.
import { Agent, request } from 'undici';
import type { Database } from '../db/databases.js';
import {
  claimExternalCalendar,
  dueExternalCalendars,
  recordExternalCalendarFetch,
  type FetchOutcome,
} from '../schema/staff/index.js';
import { checkUrl, guardedLookup, policyFor, UrlRefused, type UrlPolicy } from '../webhooks/ssrf-guard.js';
import type { Enqueue, JobContext, JobPayload } from './job-types.js';

const MAX_REDIRECTS = 3;

/** Enqueues a fetch of every due calendar of one database (the job id names the due time). */
export async function sweepExternalCalendars(db: Database, enqueue: Enqueue): Promise<void> {
  const due = await dueExternalCalendars(db.prisma);
  await Promise.all(
    due.map((c) => enqueue('fetch-external-calendar', { mode: db.mode, calendarId: c.id, due: c.due.getTime() })),
  );
}

export interface CalendarFetchOptions {
  url: string;
  etag: string | null;
  lastModified: string | null;
  policy: UrlPolicy;
  timeoutMs: number;
  maxBytes: number;
  /** Replaces the system resolver (tests). */
  resolve?: Parameters<typeof guardedLookup>[1];
}

/** One fetch of a calendar; never throws, and its error text never contains the URL. */
export async function fetchCalendar(o: CalendarFetchOptions): Promise<FetchOutcome> {
  const agent = new Agent({
    connect: { lookup: guardedLookup(o.policy, o.resolve), timeout: o.timeoutMs },
    pipelining: 0,
  });
  const signal = AbortSignal.timeout(o.timeoutMs);
  try {
    let target = o.url;
    for (let hop = 0; ; hop++) {
      let url: URL;
      try {
        url = checkUrl(target, o.policy);
      } catch (err) {
        return { kind: 'failed', error: `refused: ${(err as Error).message}${hop ? ' (after a redirect)' : ''}` };
      }
      const headers: Record<string, string> = {
        accept: 'text/calendar, */*;q=0.5',
        'user-agent': 'booking-service-calendars/1',
      };
      if (hop === 0 && o.etag) headers['if-none-match'] = o.etag;
      if (hop === 0 && o.lastModified) headers['if-modified-since'] = o.lastModified;
      const res = await request(url, {
        method: 'GET',
        headers,
        dispatcher: agent,
        signal,
        headersTimeout: o.timeoutMs,
        bodyTimeout: o.timeoutMs,
      });
      if (res.statusCode >= 300 && res.statusCode < 400 && res.statusCode !== 304) {
        await res.body.dump().catch(() => undefined);
        const location = res.headers.location;
        if (typeof location !== 'string' || hop >= MAX_REDIRECTS)
          return { kind: 'failed', error: `HTTP ${res.statusCode}: too many redirects or no Location` };
        target = new URL(location, url).toString();
        continue;
      }
      if (res.statusCode === 304) {
        await res.body.dump().catch(() => undefined);
        return { kind: 'not-modified' };
      }
      if (res.statusCode < 200 || res.statusCode >= 300) {
        await res.body.dump().catch(() => undefined);
        return { kind: 'failed', error: `HTTP ${res.statusCode}` };
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > o.maxBytes) {
        await res.body.dump({ limit: 0 }).catch(() => undefined);
        return { kind: 'failed', error: `the calendar is larger than ${o.maxBytes} bytes` };
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > o.maxBytes) {
          res.body.destroy();
          return { kind: 'failed', error: `the calendar is larger than ${o.maxBytes} bytes` };
        }
        chunks.push(chunk);
      }
      const header = (h: string | string[] | undefined) => (typeof h === 'string' ? h.slice(0, 500) : null);
      return {
        kind: 'fetched',
        body: Buffer.concat(chunks).toString('utf8'),
        etag: header(res.headers.etag),
        lastModified: header(res.headers['last-modified']),
      };
    }
  } catch (err) {
    const e = err as Error & { code?: string; cause?: Error };
    if (e.name === 'TimeoutError' || e.name === 'AbortError' || signal.aborted)
      return { kind: 'failed', error: `timed out after ${o.timeoutMs} ms` };
    const cause = e.cause instanceof UrlRefused ? e.cause : e;
    // Messages of the network stack name the host at most, never the path (the secret part).
    return { kind: 'failed', error: (cause.message || e.code || 'request failed').slice(0, 300) };
  } finally {
    agent.close().catch(() => undefined);
  }
}

/** The job: claim the calendar, fetch it, record the outcome (idempotent: a stale job claims nothing). */
export async function fetchExternalCalendar(
  ctx: JobContext,
  payload: JobPayload<'fetch-external-calendar'>,
): Promise<void> {
  const { config, logger } = ctx.services;
  const db = payload.mode === 'live' ? ctx.services.dbs.live : ctx.services.dbs.test;
  const pollMinutes = config.EXTERNAL_CALENDAR_POLL_MINUTES;
  const claim = await claimExternalCalendar(db.prisma, {
    calendarId: payload.calendarId,
    leaseMs: config.EXTERNAL_CALENDAR_TIMEOUT_MS + 30_000,
    config,
    pollMinutes,
  });
  if (!claim) return;
  const outcome = await fetchCalendar({
    url: claim.url,
    etag: claim.etag,
    lastModified: claim.lastModified,
    policy: policyFor(payload.mode, config),
    timeoutMs: config.EXTERNAL_CALENDAR_TIMEOUT_MS,
    maxBytes: config.EXTERNAL_CALENDAR_MAX_BYTES,
  });
  const result = await recordExternalCalendarFetch(db.prisma, { claim, outcome, pollMinutes });
  // The calendar's id only: its URL is a secret.
  if (result.error)
    logger.warn({ mode: payload.mode, calendarId: claim.id, error: result.error }, 'external calendar fetch failed');
  else logger.debug({ mode: payload.mode, calendarId: claim.id, stored: result.stored }, 'external calendar fetched');
}
