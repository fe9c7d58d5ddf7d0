// Computed availability kept in the API process (docs/performance.md, "CPU per request, issue
// 22 §4"). A month of one service's slots costs a dozen statements and a few milliseconds of
// slot arithmetic; asked again unchanged it costs one statement here: the sum of the
// availability versions (the migration availability_versions) of what the answer depends on,
// the company (closures, locations), the service (its timing, rules and who performs it) and
// each employee asked (hours, bookings and holds, time off, overrides, outside busy times, the
// classes they teach). Triggers raise those counters inside every writing transaction, whatever
// process or path writes, and counters only grow: an unchanged sum means no write that changes
// the answer has been committed since it was computed, so a stale answer is never served, by
// this instance or any other.
//
// What moves with the clock is kept out: the slots are computed without "now" (no passed
// starts, minimum notice or maximum advance cut) and cut to the request's now on every answer
// (`cutEntry`), so a cached month stays right as time passes and under a test clock.
import type { Db } from '../../db/databases.js';
import { deepFreeze } from '../../frozen.js';
import type { Slot } from './schedule.js';
import type { Policy } from './refusals.js';
import type { BookingRules } from '../booking-rules.js';

const MAX_ENTRIES = 256;
const MINUTE = 60_000;
const DAY = 86_400_000;

interface Entry {
  /** The sum of the scopes' versions read before the data it was computed from. */
  version: string;
  scopes: string[];
  /** Every start free as far as schedules and rules go, the clock left out. */
  slots: readonly Slot[];
  /** The booking rules in force (the company's, in the key, under the service's). */
  rules: BookingRules;
  /**
   * The last cut answered (`cutEntry`): the same starts are answered as the same array while
   * the clock stays between two of them, so what a transport derives from that array (the
   * REST body, written once) is derived once.
   */
  cut?: { i: number; j: number; slots: readonly Slot[] };
}

// Process state (ARCHITECTURE.md): the entries of each database (live, sandbox), so of one mode;
// every key starts with the company's id. A database whose app was built with
// AVAILABILITY_CACHE=off has no map here: the switch belongs to that app's databases, not to the
// process, so one app (or test) cannot turn the cache off or on for another.
// eslint-disable-next-line no-restricted-syntax -- process state: availability cache
const caches = new WeakMap<Db, Map<string, Entry>>();
// eslint-disable-next-line no-restricted-syntax -- process state: availability cache
const switchedOff = new WeakSet<Db>();

/** AVAILABILITY_CACHE=off (config.ts): the databases given compute every answer afresh (for measuring the cache). */
export function setAvailabilityCache(dbs: readonly Db[], on: boolean): void {
  for (const db of dbs) {
    if (on) switchedOff.delete(db);
    else {
      switchedOff.add(db);
      caches.delete(db);
    }
  }
}

export const availabilityCacheEnabled = (db: Db) => !switchedOff.has(db);

/** The sum of the scopes' availability versions (and of the first `head` of them), one statement. */
export async function readVersions(db: Db, scopes: string[], head = 0): Promise<{ total: string; head: string }> {
  const rows = await db.$queryRaw<Array<{ total: string; head: string }>>`
    SELECT coalesce(sum(version), 0)::text AS total,
           coalesce(sum(version) FILTER (WHERE scope_id = ANY(${scopes.slice(0, head)}::text[])), 0)::text AS head
    FROM availability_versions WHERE scope_id = ANY(${scopes}::text[])`;
  return rows[0]!;
}

function cacheOf(db: Db): Map<string, Entry> {
  let c = caches.get(db);
  if (!c) caches.set(db, (c = new Map<string, Entry>()));
  return c;
}

/** The entry for `key` when nothing it depends on changed since (one statement), else null. */
export async function cachedSlots(db: Db, key: string): Promise<Entry | null> {
  if (switchedOff.has(db)) return null;
  const cache = cacheOf(db);
  const entry = cache.get(key);
  if (!entry) return null;
  const { total } = await readVersions(db, entry.scopes);
  if (total !== entry.version) {
    cache.delete(key);
    return null;
  }
  // Most recently used last: the first key is the one evicted.
  cache.delete(key);
  cache.set(key, entry);
  return entry;
}

/**
 * Keeps an entry for `key`. Its slots and rules are deeply frozen first: every later request of
 * the same month is answered with these very arrays and objects.
 */
export function keepSlots(db: Db, key: string, entry: Entry): void {
  if (switchedOff.has(db)) return;
  deepFreeze(entry.slots);
  deepFreeze(entry.rules);
  const cache = cacheOf(db);
  cache.delete(key);
  cache.set(key, entry);
  if (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value!);
}

/** The policy with the clock left out: every start passes the time rules (`cutEntry` applies them). */
export function withoutClock(p: Policy): Policy {
  return {
    ...p,
    now: Number.MIN_SAFE_INTEGER,
    rules: { ...p.rules, minNoticeMinutes: 0, maxAdvanceDays: 2e8 },
    skipRules: false,
  };
}

/**
 * The bounds [i, j) of the starts of `slots` (computed `withoutClock`) that the time rules of
 * `p` allow: after now, at or after `from`, the minimum notice and at most the maximum advance
 * ahead, exactly as `refusals` decides them.
 */
function cutBounds(slots: readonly Slot[], p: Policy, from: number): [number, number] {
  const lo = Math.max(from, p.now + 1, p.now + p.rules.minNoticeMinutes * MINUTE);
  const hi = p.now + p.rules.maxAdvanceDays * DAY;
  let i = 0;
  while (i < slots.length && slots[i]!.startTime.getTime() < lo) i++;
  let j = slots.length;
  while (j > i && slots[j - 1]!.startTime.getTime() > hi) j--;
  return [i, j];
}

/**
 * The starts of an entry's slots that the time rules of `p` allow (`cutBounds`): the same
 * array as the last answer's when the cut is the same. The arrays are never changed once made: an array stands for its starts, and an entry
 * is only reached after its versions were checked (`cachedSlots`).
 */
export function cutEntry(entry: Entry, p: Policy, from: number): readonly Slot[] {
  const [i, j] = cutBounds(entry.slots, p, from);
  if (entry.cut?.i !== i || entry.cut.j !== j)
    entry.cut = {
      i,
      j,
      slots: i === 0 && j === entry.slots.length ? entry.slots : Object.freeze(entry.slots.slice(i, j)),
    };
  return entry.cut.slots;
}
