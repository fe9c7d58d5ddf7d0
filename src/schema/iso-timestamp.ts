// Timestamps in and out. In: parseIsoTimestamp, the one parser of every time a client sends
// (REST's JSON Schema format, GraphQL's DateTime scalar, the use cases' zod rules), so they
// all accept and refuse the same strings with the same words.
//
// Out: the DateTime scalar's output (docs/api.md, Times: ISO 8601 UTC with Z and milliseconds), the same
// string Date.prototype.toISOString gives, built without it: a month of availability serialises
// some 1600 instants, and toISOString was the largest single cost left in that route's GraphQL
// execution by its CPU profile (see docs/performance.md, "Timestamps out"). Instants of
// one UTC day share their "YYYY-MM-DDT" prefix, kept in a small cache; the rest is arithmetic.
const DAY = 86_400_000;
// 0001-01-01 .. 9999-12-31: outside it toISOString writes ±YYYYYY years; leave those to it.
const MIN = Date.UTC(1, 0, 1);
const MAX = Date.UTC(10_000, 0, 1);
// eslint-disable-next-line no-restricted-syntax -- process state: timestamp prefixes
const prefixes = new Map<number, string>();

const two = (n: number) => (n < 10 ? `0${n}` : String(n));
const three = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : String(n));

export function toIsoTimestamp(date: Date): string {
  const ms = date.getTime();
  // NaN (an invalid Date) fails both tests and throws toISOString's RangeError, as before.
  if (!(ms >= MIN && ms < MAX)) return date.toISOString();
  const day = Math.floor(ms / DAY);
  let prefix = prefixes.get(day);
  if (prefix === undefined) {
    if (prefixes.size >= 4096) prefixes.clear(); // bounded: a request touches a few dozen days
    prefix = new Date(day * DAY).toISOString().slice(0, 11);
    prefixes.set(day, prefix);
  }
  const t = ms - day * DAY;
  const h = Math.floor(t / 3_600_000);
  const m = Math.floor((t % 3_600_000) / 60_000);
  const s = Math.floor((t % 60_000) / 1000);
  return `${prefix}${two(h)}:${two(m)}:${two(s)}.${three(t % 1000)}Z`;
}

// RFC 3339 §5.6 date-time (T and Z in either case); seconds may be left out, as the DateTime
// scalar always allowed. Fractions beyond milliseconds are cut, not rounded, so an instant
// never moves into the next second (or year).
const RFC_3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;
const WITHOUT_OFFSET = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/;
// The range every stored time must fall in: PostgreSQL refuses years before 1 (22008, once a
// 500) and outputs must keep four-digit years; nothing this service books lies before 1970.
export const EARLIEST_TIMESTAMP = Date.UTC(1970, 0, 1);
export const LATEST_TIMESTAMP = Date.UTC(10_000, 0, 1) - 1;

export const TIMESTAMP_FORMAT =
  'must be an RFC 3339 timestamp with Z or a numeric offset, e.g. 2026-03-29T09:00:00.000Z';

const rangeError = () => 'must be between 1970-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z';
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export type TimestampResult = { date: Date; error?: undefined } | { date?: undefined; error: string };

/** The instant a client's timestamp names, normalised to UTC milliseconds, or why it names none. */
export function parseIsoTimestamp(value: unknown): TimestampResult {
  const m = typeof value === 'string' ? RFC_3339.exec(value) : null;
  if (!m) {
    if (typeof value === 'string' && WITHOUT_OFFSET.test(value))
      return { error: 'must have Z or a numeric offset such as +02:00; a time without one is ambiguous' };
    return { error: TIMESTAMP_FORMAT };
  }
  const [year, month, day, hour, minute] = [m[1], m[2], m[3], m[4], m[5]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const second = m[6] === undefined ? 0 : Number(m[6]);
  // Date would roll impossible fields over (31 February becomes 3 March, 24:00 the next day).
  if (
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > (month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month - 1]!) ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  ) {
    return { error: 'is not a real date and time' };
  }
  // Date.UTC reads years 0–99 as 1900–1999; no year before 1969 can land in the range.
  if (year < 1969) return { error: rangeError() };
  let offsetMinutes = 0;
  if (m[8] !== undefined) {
    const [h, min] = [Number(m[9]), Number(m[10])];
    if (h > 23 || min > 59) return { error: 'has an offset that is not a real one (-23:59 to +23:59)' };
    offsetMinutes = (m[8] === '-' ? -1 : 1) * (h * 60 + min);
  }
  const millis = m[7] === undefined ? 0 : Number(m[7].padEnd(3, '0').slice(0, 3));
  const ms = Date.UTC(year, month - 1, day, hour, minute, second, millis) - offsetMinutes * 60_000;
  if (ms < EARLIEST_TIMESTAMP || ms > LATEST_TIMESTAMP) return { error: rangeError() };
  return { date: new Date(ms) };
}
