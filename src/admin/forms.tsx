// Reading plain HTML form fields into the inputs the use cases take, and showing their refusals
// next to the fields: local times in the company's zone, amounts in the currency's own units,
// a day's working intervals written as text ("09:00-12:00, 13:00-18:00"). Only the shape of a
// field is judged here; what the values may be is the use case's to say (its VALIDATION_ERROR,
// keyed by the full path of each fault, e.g. `cancellationPolicy.lateFee.amount`).
import { DateTime } from 'luxon';
import { isAppError } from '../errors.js';
import { describedBy, ErrorText, HintText } from './components/fields.js';
export { Check, Select } from './components/fields.js';

/** A VALIDATION_ERROR's faults keyed by their full path ("questions.0.label"); null for any other error. */
export function detailErrors(err: unknown): Record<string, string> | null {
  if (!isAppError(err) || err.code !== 'VALIDATION_ERROR') return null;
  const out: Record<string, string> = {};
  const details = (err.details ?? []) as Array<{ path?: string; message?: string }>;
  for (const d of Array.isArray(details) ? details : []) out[String(d.path ?? '') || '_'] ??= d.message ?? 'is invalid';
  if (Object.keys(out).length === 0) out._ = err.message;
  return out;
}

/** The first error at `path` or under it (`path.…`, `path[…]`). */
export function errorAt(errors: Record<string, string> | null | undefined, path: string): string | undefined {
  if (!errors) return undefined;
  if (errors[path]) return errors[path];
  const key = Object.keys(errors).find((k) => k.startsWith(`${path}.`) || k.startsWith(`${path}[`));
  return key ? errors[key] : undefined;
}

export type Interval = { start: string; end: string };

const INTERVAL = /^(\d{1,2}):(\d{2})\s*[-–]\s*(\d{1,2}):(\d{2})$/;

/**
 * One day's intervals as typed: "09:00-12:00, 13:00-18:00" (a comma or semicolon between them;
 * empty: none). Hours of one digit are padded; whether a time exists, the order and overlaps are
 * the use case's to judge.
 */
export function parseIntervals(text: string): { ranges: Interval[] } | { error: string } {
  const parts = text
    .split(/[,;]/)
    .map((p) => p.trim())
    .filter(Boolean);
  const ranges: Interval[] = [];
  for (const part of parts) {
    const m = INTERVAL.exec(part);
    if (!m) return { error: `"${part}" is not an interval like 09:00-12:00` };
    ranges.push({ start: `${m[1]!.padStart(2, '0')}:${m[2]}`, end: `${m[3]!.padStart(2, '0')}:${m[4]}` });
  }
  return { ranges };
}

export const formatIntervals = (ranges: Interval[]) => ranges.map((r) => `${r.start}-${r.end}`).join(', ');

/** A datetime-local value ("2026-11-24T09:30") in `zone` as an instant; null if it is not one. */
export function localInstant(value: string, zone: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value)) return null;
  const t = DateTime.fromISO(value, { zone });
  return t.isValid ? t.toJSDate() : null;
}

/** An instant as a datetime-local value in `zone`. */
export const localValue = (d: Date, zone: string) => DateTime.fromJSDate(d, { zone }).toFormat("yyyy-MM-dd'T'HH:mm");

export const digitsOf = (currency: string) =>
  new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;

/** An amount typed in the currency's units ("45", "45.5", "45.50") as minor units; null if it is not one. */
export function parseAmount(text: string, currency: string): number | null {
  const digits = digitsOf(currency);
  const m = /^(\d{1,9})(?:[.,](\d+))?$/.exec(text.trim());
  if (!m || (m[2] ?? '').length > digits) return null;
  return Number(m[1]) * 10 ** digits + Number((m[2] ?? '').padEnd(digits, '0') || 0);
}

/** Minor units as the amount field shows them ("45.00"). */
export function amountValue(minor: number, currency: string): string {
  const digits = digitsOf(currency);
  return digits ? (minor / 10 ** digits).toFixed(digits) : String(minor);
}

/** A whole number typed in a field; null if it is not one (the use case judges its range). */
export function parseWhole(text: string | undefined): number | null {
  const t = (text ?? '').trim();
  return /^-?\d{1,9}$/.test(t) ? Number(t) : null;
}

/**
 * The customer search box: a GET form (role=search) whose `q` is a prefix of a name, an e-mail
 * or a phone number; `keep` carries the page's other parameters as hidden fields.
 */
export function CustomerSearch(p: {
  action: string;
  search: string;
  hint: string;
  error?: string;
  keep?: Record<string, string | null | undefined>;
}) {
  return (
    <form method="get" action={p.action} class="inline" role="search">
      {Object.entries(p.keep ?? {}).map(([k, val]) => (val ? <input type="hidden" name={k} value={val} /> : null))}
      <div>
        <label for="f-q">Search customers</label>
        <HintText id="f-q" hint={p.hint} />
        <input
          id="f-q"
          name="q"
          type="search"
          value={p.search}
          maxlength={200}
          {...describedBy('f-q', { hint: p.hint, error: p.error })}
        />
        <ErrorText id="f-q" error={p.error} />
      </div>
      <button type="submit">Search</button>
    </form>
  );
}
