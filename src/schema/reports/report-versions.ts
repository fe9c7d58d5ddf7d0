// Values kept per process against a company's report versions (the migrations report_versions
// and calendar_versions): triggers raise a company's counters inside every transaction that
// writes what the admin overview and calendar show (bookings, class sessions, payments,
// customers, staff and their services, services, time off, date overrides, closures, busy
// times from outside calendars, locations), whichever process or path writes, and counters only
// grow. A value computed after reading the counters' sum is served again while that sum is
// unchanged: an unchanged sum means nothing it depends on was committed since, by this instance
// or another, so a stale value is never served. Whatever else a value depends on is in its key
// (and, for a value that holds only for a while, in its `usable` test).
import { sqlOf, type Db } from '../../db/databases.js';
import { deepFreeze } from '../../frozen.js';

// The switch belongs to the databases of the app that was built with REPORT_CACHE=off, not to
// the process: one app (or test) cannot turn keeping off or on for another.
// eslint-disable-next-line no-restricted-syntax -- process state: report versions
const switchedOff = new WeakSet<Db>();

/** REPORT_CACHE=off (config.ts): the databases given compute every kept value afresh (for measuring). */
export function setReportCache(dbs: readonly Db[], on: boolean): void {
  for (const db of dbs) {
    if (on) switchedOff.delete(db);
    else switchedOff.add(db);
  }
}

/** The sum of a company's report versions (its shards), one statement, past Prisma (every kept page sends it). */
export async function readReportVersion(db: Db, companyId: string): Promise<string> {
  const rows = await sqlOf(db)<{ version: string }>(
    `SELECT coalesce(sum(version), 0)::text AS version FROM report_versions WHERE company_id = $1`,
    [companyId],
  );
  return rows[0]!.version;
}

interface Entry<T> {
  /** The sum of the company's report versions, read before the value was computed. */
  version: string;
  value: T;
}

/**
 * A kind of kept value: up to `max` of them per database (each mode's its own), the least
 * recently used evicted first.
 */
export function keptByReportVersion<T>(max: number) {
  // Per database: the kept values by key, and the computations under way by key and version
  // (the people who open a page together after a write wait for one computation instead of each
  // making their own; its value is as new as the version they read).
  const states = new WeakMap<Db, { cache: Map<string, Entry<T>>; running: Map<string, Promise<T>> }>();
  /**
   * The value of `key` for a company: the kept one when the company's versions are unchanged
   * since it was computed (and `usable` accepts it), else that of a computation of the same
   * key and version under way, else `compute()`'s, kept. A compute that throws keeps nothing.
   */
  return async function kept(
    db: Db,
    companyId: string,
    key: string,
    compute: () => Promise<T>,
    usable: (value: T) => boolean = () => true,
  ): Promise<T> {
    if (switchedOff.has(db)) return compute();
    const id = `${companyId} ${key}`;
    let state = states.get(db);
    if (!state) states.set(db, (state = { cache: new Map(), running: new Map() }));
    const { cache, running } = state;
    // Read first: a value computed after it is at least as new as this version says.
    const version = await readReportVersion(db, companyId);
    const found = cache.get(id);
    if (found?.version === version && usable(found.value)) {
      // Most recently used last: the first key is the one evicted.
      cache.delete(id);
      cache.set(id, found);
      return found.value;
    }
    const flight = `${version} ${id}`;
    const shared = running.get(flight);
    if (shared) {
      const value = await shared;
      if (usable(value)) return value;
    }
    // Deeply frozen: a kept value is handed to every request that reads the same version.
    const computing = compute().then(deepFreeze);
    if (!shared) {
      running.set(flight, computing);
      void computing.then(
        () => running.delete(flight),
        () => running.delete(flight),
      );
    }
    const value = await computing;
    // A newer version's value may have been kept meanwhile: it stays.
    const newest = cache.get(id);
    if (!newest || BigInt(newest.version) <= BigInt(version)) {
      cache.delete(id);
      cache.set(id, { version, value });
      if (cache.size > max) cache.delete(cache.keys().next().value!);
    }
    return value;
  };
}
