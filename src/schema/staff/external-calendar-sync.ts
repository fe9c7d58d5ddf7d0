// Keeping external calendars' busy times (docs/api.md, External calendars): the rows say when
// each is due (`next_fetch_at`, now for a new or changed URL); the workers' sweep finds the due
// ones, a fetch claims its row with a lease (two workers never fetch one calendar at once), and
// its outcome is recorded here. A good copy replaces the calendar's busy times whole, under the
// employee's lock like every availability write; a 304 keeps them and counts as a success; a
// failure keeps them too (the last good copy stays in force) and records the error. A fetch
// whose calendar changed URL meanwhile (`version`), was removed, or whose lease ran out and was
// taken by another fetch (`lease_until`) records nothing.
import type { Config } from '../../config.js';
import { secretBox } from '../../crypto/secret-box.js';
import type { Db } from '../../db/databases.js';
import { lockEmployees } from './employee-lock.js';
import { busyIntervals, IcsError, NOT_ICALENDAR } from './ics-busy.js';

/** How far ahead busy times are kept, and how far back (an appointment under way). */
export const BUSY_DAYS_AHEAD = 180;
const DAY = 86_400_000;

/**
 * The calendars due for a fetch (not leased), oldest due first. A deactivated employee's are not
 * polled (nobody can book them); reactivated, they are due at once.
 */
export async function dueExternalCalendars(db: Db, limit = 100): Promise<Array<{ id: string; due: Date }>> {
  const rows = await db.$queryRaw<Array<{ id: string; due: Date }>>`
    SELECT c.id, c.next_fetch_at AS due FROM external_calendars c JOIN employees e ON e.id = c.employee_id
    WHERE c.next_fetch_at <= now() AND (c.lease_until IS NULL OR c.lease_until <= now()) AND e.active
    ORDER BY c.next_fetch_at LIMIT ${limit}`;
  return rows.map((r) => ({ id: r.id, due: new Date(r.due) }));
}

export interface CalendarClaim {
  id: string;
  companyId: string;
  employeeId: string;
  version: number;
  /**
   * The lease this claim holds: its record matches it, so a fetch that outlived its lease
   * (another worker claimed the calendar since) records nothing over the newer copy.
   */
  leaseUntil: Date;
  /** The URL in clear: for the fetch only, never to be logged or answered. */
  url: string;
  etag: string | null;
  lastModified: string | null;
  zone: string;
}

/**
 * Claims a due calendar for `leaseMs` (null: not due, leased by another worker, or gone). A URL
 * that cannot be unsealed (SECRET_KEY changed) is recorded as the calendar's error.
 */
export async function claimExternalCalendar(
  db: Db,
  opts: { calendarId: string; leaseMs: number; config: Config; pollMinutes: number },
): Promise<CalendarClaim | null> {
  const rows = await db.$queryRaw<
    Array<{
      id: string;
      company_id: string;
      employee_id: string;
      version: number;
      lease_until: Date;
      url_enc: string;
      etag: string | null;
      last_modified: string | null;
    }>
  >`
    UPDATE external_calendars SET lease_until = now() + make_interval(secs => ${opts.leaseMs / 1000})
    WHERE id = ${opts.calendarId} AND next_fetch_at <= now() AND (lease_until IS NULL OR lease_until <= now())
    RETURNING id, company_id, employee_id, version, lease_until, url_enc, etag, last_modified`;
  const row = rows[0];
  if (!row) return null;
  const company = await db.company.findUnique({ where: { id: row.company_id }, select: { timezone: true } });
  const claim = {
    id: row.id,
    companyId: row.company_id,
    employeeId: row.employee_id,
    version: row.version,
    // The column keeps milliseconds (timestamptz(3)), so this Date matches it exactly.
    leaseUntil: new Date(row.lease_until),
    url: '',
    etag: row.etag,
    lastModified: row.last_modified,
    zone: company?.timezone ?? 'UTC',
  };
  try {
    claim.url = secretBox(opts.config).open(row.url_enc);
  } catch {
    await recordExternalCalendarFetch(db, {
      claim,
      outcome: { kind: 'failed', error: 'the URL cannot be decrypted (was SECRET_KEY changed?); set it again' },
      pollMinutes: opts.pollMinutes,
    });
    return null;
  }
  return claim;
}

export type FetchOutcome =
  | { kind: 'fetched'; body: string; etag: string | null; lastModified: string | null }
  | { kind: 'not-modified' }
  | { kind: 'failed'; error: string };

/**
 * Records a fetch's outcome and makes the calendar due again in `pollMinutes`. Returns what was
 * kept: the number of busy times stored, or null when nothing was replaced.
 */
export async function recordExternalCalendarFetch(
  db: Db,
  opts: { claim: Omit<CalendarClaim, 'url'>; outcome: FetchOutcome; pollMinutes: number; now?: number },
): Promise<{ stored: number | null; error: string | null }> {
  const { claim } = opts;
  const now = opts.now ?? Date.now();
  let outcome = opts.outcome;
  let intervals: Array<[number, number]> | null = null;
  if (outcome.kind === 'fetched') {
    try {
      intervals = busyIntervals(outcome.body, {
        from: now - DAY,
        to: now + (BUSY_DAYS_AHEAD + 1) * DAY,
        zone: claim.zone,
      });
    } catch (err) {
      // Our own IcsError messages quote nothing of the document; ical.js's (a bad RRULE or date
      // deeper in) quote its private text, so they are recorded as a fixed message only.
      outcome = { kind: 'failed', error: err instanceof IcsError ? err.message : NOT_ICALENDAR };
    }
  }
  const next = new Date(now + opts.pollMinutes * 60_000);
  // Only the current lease holder records: same URL (version) and the very lease it claimed.
  const mine = { id: claim.id, version: claim.version, leaseUntil: claim.leaseUntil };
  return db.$transaction(async (tx) => {
    if (outcome.kind === 'failed') {
      const error = outcome.error.slice(0, 500);
      const n = await tx.externalCalendar.updateMany({
        where: mine,
        data: { lastError: error, lastErrorAt: new Date(now), nextFetchAt: next, leaseUntil: null },
      });
      return { stored: null, error: n.count ? error : null };
    }
    if (outcome.kind === 'not-modified') {
      await tx.externalCalendar.updateMany({
        where: mine,
        data: { lastSuccessAt: new Date(now), lastError: null, lastErrorAt: null, nextFetchAt: next, leaseUntil: null },
      });
      return { stored: null, error: null };
    }
    // A new copy: its busy times replace the old ones whole, under the employee's lock.
    await lockEmployees(tx, claim.companyId, [claim.employeeId]);
    const n = await tx.externalCalendar.updateMany({
      where: mine,
      data: {
        etag: outcome.etag,
        lastModified: outcome.lastModified,
        lastSuccessAt: new Date(now),
        lastError: null,
        lastErrorAt: null,
        nextFetchAt: next,
        leaseUntil: null,
      },
    });
    if (!n.count) return { stored: null, error: null };
    await tx.externalBusy.deleteMany({ where: { calendarId: claim.id } });
    if (intervals!.length)
      await tx.externalBusy.createMany({
        data: intervals!.map(([a, b]) => ({
          companyId: claim.companyId,
          employeeId: claim.employeeId,
          calendarId: claim.id,
          startTime: new Date(a),
          endTime: new Date(b),
        })),
      });
    return { stored: intervals!.length, error: null };
  });
}
