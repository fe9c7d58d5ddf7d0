// The figures of the admin overview (docs/admin.md, Overview): the next 7 days, this week and
// this month of a company's bookings (computeBookingStats, by local day, with revenue) and its
// staff by name, for one local date of the company. Three reports over up to six weeks of 200
// staff are most of the page's cost, and the page is the one an operator leaves open and
// reloads; so a computed set is kept in the process and served again for one statement, the sum
// of the company's report versions (the migration report_versions), while that sum is
// unchanged. Triggers raise those counters inside every transaction that writes what the
// figures are made of (bookings, class sessions, payments, staff and their services and hours,
// services, time off), whichever process or path writes, and counters only grow: an unchanged
// sum means nothing the figures depend on was committed since they were computed, so stale
// figures are never served, by this instance or another. The rest of what they depend on is in
// the key: the company's time zone and the local date (a test clock's date in the sandbox).
import { DateTime } from 'luxon';
import type { Db } from '../../db/databases.js';
import type { Company } from '../../generated/prisma/client.js';
import { computeBookingStats, loadWorkingTime, type BookingStats, type WorkingTime } from './compute-booking-stats.js';

const MAX_ENTRIES = 256;

export interface OverviewFigures {
  /** The start of the local day the figures are of, and of its week (ISO, from Monday) and month. */
  today: DateTime;
  week: DateTime;
  month: DateTime;
  /** From the start of today, 7 days. */
  next7: BookingStats;
  thisWeek: BookingStats;
  thisMonth: BookingStats;
  /** Every employee of the company, active or not, by name. */
  employees: WorkingTime['employees'];
}

interface Entry {
  /** The sum of the company's report versions, read before the figures were computed. */
  version: string;
  figures: OverviewFigures;
}

let enabled = true;
const caches = new WeakMap<Db, Map<string, Entry>>();

/** REPORT_CACHE=off (config.ts): compute the overview's figures afresh on every page (for measuring). */
export function setReportCache(on: boolean): void {
  enabled = on;
}

/** The sum of a company's report versions (its shards), one statement. */
export async function readReportVersion(db: Db, companyId: string): Promise<string> {
  const rows = await db.$queryRaw<Array<{ version: string }>>`
    SELECT coalesce(sum(version), 0)::text AS version FROM report_versions WHERE company_id = ${companyId}`;
  return rows[0]!.version;
}

/** The overview's figures of the local day of `now` in the company's zone. */
export async function overviewFigures(db: Db, company: Company, now: Date): Promise<OverviewFigures> {
  const zone = company.timezone;
  const today = DateTime.fromJSDate(now, { zone }).startOf('day');
  if (!enabled) return computeFigures(db, company, today);
  const key = `${company.id} ${zone} ${today.toISODate()!}`;
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map<string, Entry>()));
  // Read first: figures computed after it are at least as new as this version says.
  const version = await readReportVersion(db, company.id);
  const kept = cache.get(key);
  if (kept?.version === version) {
    // Most recently used last: the first key is the one evicted.
    cache.delete(key);
    cache.set(key, kept);
    return kept.figures;
  }
  const figures = await computeFigures(db, company, today);
  cache.delete(key);
  cache.set(key, { version, figures });
  if (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value!);
  return figures;
}

async function computeFigures(db: Db, company: Company, today: DateTime): Promise<OverviewFigures> {
  const week = today.startOf('week');
  const month = today.startOf('month');
  // The staff's working time is worked out once for the three reports' days together.
  const spanFrom = DateTime.min(today, week, month);
  const spanTo = DateTime.max(today.plus({ days: 7 }), week.plus({ weeks: 1 }), month.plus({ months: 1 }));
  const workingTime = loadWorkingTime(db, { company, from: spanFrom.toJSDate(), to: spanTo.toJSDate() });
  const stats = (from: DateTime, to: DateTime) =>
    computeBookingStats(db, {
      company,
      input: { from: from.toUTC().toISO(), to: to.toUTC().toISO(), groupBy: 'day' },
      withRevenue: true,
      workingTime,
    });
  const [{ employees }, next7, thisWeek, thisMonth] = await Promise.all([
    workingTime,
    stats(today, today.plus({ days: 7 })),
    stats(week, week.plus({ weeks: 1 })),
    stats(month, month.plus({ months: 1 })),
  ]);
  return { today, week, month, next7, thisWeek, thisMonth, employees };
}
