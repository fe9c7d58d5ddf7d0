// Sending admin pages: the headers every page carries (no caching, no framing, a CSP with no
// source outside this app), the error pages, and small form helpers shared by the routes.
import type { FastifyReply } from 'fastify';
import type { ComponentChildren } from 'preact';
import { sendPage } from '../auth/pages/html.js';
import { AppError, isAppError } from '../errors.js';
import { adminPage, barePage, type LayoutContext } from './layout.js';

// Scripts and styles only from this app. `frame-src 'none'`: the one frame (an e-mail body) is
// a srcdoc document, which frame-src does not govern; it carries its own stricter policy.
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** The page headers of the OAuth pages, with the admin area's own CSP and referrer policy. */
export function sendAdmin(
  reply: FastifyReply,
  status: number,
  html: string,
  opts: { csp?: string } = {},
): FastifyReply {
  return sendPage(reply, status, html, { csp: opts.csp ?? CSP, referrerPolicy: 'same-origin' });
}

export { CSP as ADMIN_CSP };

export function messagePage(ctx: LayoutContext | null, status: number, title: string, message: string): string {
  const back = ctx?.mode === 'test' ? '/admin/test' : '/admin';
  const body = (
    <>
      <h1>{title}</h1>
      <p class="notice error" role="alert">
        {message}
      </p>
      <p>
        <a href={back}>Back to the admin area</a>
      </p>
    </>
  );
  return ctx ? adminPage(ctx, title, body) : barePage(title, body);
}

/** A 404 for anything not found or not the session's own: the two are indistinguishable. */
export class AdminNotFound extends Error {
  constructor(what = 'page') {
    super(`No such ${what}`);
  }
}

/** Field errors of a VALIDATION_ERROR keyed by the first path segment, for re-shown forms. */
export function fieldErrors(err: unknown): Record<string, string> | null {
  if (!isAppError(err) || err.code !== 'VALIDATION_ERROR') return null;
  const out: Record<string, string> = {};
  const details = (err.details ?? []) as Array<{ path?: string; message?: string }>;
  for (const d of Array.isArray(details) ? details : []) {
    const key = String(d.path ?? '').split(/[.[]/)[0] || '_';
    out[key] ??= d.message ?? 'is invalid';
  }
  if (Object.keys(out).length === 0) out._ = err.message;
  return out;
}

/**
 * A table that scrolls sideways inside its own region on a narrow screen instead of widening the
 * page; the region is focusable so a keyboard can scroll it, and named for screen readers.
 */
export function ScrollTable({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-scroll" role="region" aria-label={label} tabindex={0}>
      {children}
    </div>
  );
}

/** `?page=`: a whole number from 1 (1 when absent), else a 400 naming it. */
export function pageParam(value: string | undefined): number {
  const page = value ? Number(value) : 1;
  if (!Number.isSafeInteger(page) || page < 1 || !/^\d+$/.test(value ?? '1'))
    throw AppError.validation([{ path: 'page', message: 'must be a whole number from 1' }]);
  return page;
}

/** One page of a list of staff (a big team's day is paged, as Square and Fresha page it); past the last, the last. */
export function staffPage<T>(list: T[], page: number, perPage: number) {
  const pages = Math.max(1, Math.ceil(list.length / perPage));
  const current = Math.min(page, pages);
  const first = (current - 1) * perPage;
  return { pages, current, first, items: list.slice(first, first + perPage), total: list.length };
}

/** "Staff 1–12 of 200" with the links to the pages before and after; nothing when there is one page. */
export function StaffPages({
  label,
  paged,
  href,
}: {
  label: string;
  paged: ReturnType<typeof staffPage>;
  href: (page: number) => string;
}) {
  const { pages, current, first, items, total } = paged;
  if (pages <= 1) return null;
  return (
    <nav class="inline cal-pages" aria-label={label}>
      <span>
        Staff {first + 1}–{first + items.length} of {total}
      </span>
      {current > 1 && (
        <a class="button" href={href(current - 1)}>
          ← Previous staff
        </a>
      )}
      {current < pages && (
        <a class="button" href={href(current + 1)}>
          Next staff →
        </a>
      )}
    </nav>
  );
}

/**
 * HH:mm of an instant in a zone, 24-hour (one Intl format per zone, made once). A calendar page
 * asks for the same few instants (its rows, its bookings' starts and ends) hundreds of times, and
 * an Intl format costs microseconds each: the answers of the last instants are kept.
 */
export function clockTime(at: Date | number, zone: string): string {
  const ms = typeof at === 'number' ? at : at.getTime();
  const key = `${zone} ${ms}`;
  const known = clockTimes.get(key);
  if (known !== undefined) return known;
  let f = clocks.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    clocks.set(zone, f);
  }
  const text = f.format(ms);
  if (clockTimes.size >= 20_000) clockTimes.clear();
  clockTimes.set(key, text);
  return text;
}
// eslint-disable-next-line no-restricted-syntax -- process state: admin formats
const clocks = new Map<string, Intl.DateTimeFormat>();
// eslint-disable-next-line no-restricted-syntax -- process state: admin formats
const clockTimes = new Map<string, string>();

export function formatTime(d: Date | null | undefined, zone = 'UTC', opts: { seconds?: boolean } = {}): string {
  if (!d) return '—';
  const s = timeFormatOf(zone, Boolean(opts.seconds)).format(d);
  return zone === 'UTC' ? `${s} UTC` : s;
}

// One Intl.DateTimeFormat per zone and precision, made once (a list page formats hundreds of times).
// eslint-disable-next-line no-restricted-syntax -- process state: admin formats
const timeFormats = new Map<string, Intl.DateTimeFormat>();
function timeFormatOf(zone: string, seconds: boolean): Intl.DateTimeFormat {
  const key = `${zone} ${seconds}`;
  let f = timeFormats.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      year: 'numeric',
      month: 'short',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      ...(seconds ? { second: '2-digit' } : {}),
      hour12: false,
    });
    timeFormats.set(key, f);
  }
  return f;
}

export function TimeTag({
  at,
  zone = 'UTC',
  seconds,
}: {
  at: Date | null | undefined;
  zone?: string;
  seconds?: boolean;
}) {
  return at ? <time datetime={at.toISOString()}>{formatTime(at, zone, { seconds })}</time> : <>—</>;
}

/** An amount in minor units, shown with its currency's own decimals (2 for EUR, 0 for JPY). */
export function money(minor: number, currency: string): string {
  const { format, digits } = formatOf(currency);
  return format.format(minor / 10 ** digits);
}

// An Intl.NumberFormat costs far more to make than to use: one per currency, made once.
// eslint-disable-next-line no-restricted-syntax -- process state: admin formats
const formats = new Map<string, { format: Intl.NumberFormat; digits: number }>();
function formatOf(currency: string) {
  let f = formats.get(currency);
  if (!f) {
    const format = new Intl.NumberFormat('en', { style: 'currency', currency, currencyDisplay: 'code' });
    f = { format, digits: format.resolvedOptions().maximumFractionDigits ?? 2 };
    formats.set(currency, f);
  }
  return f;
}
