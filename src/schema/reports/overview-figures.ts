// The figures of the admin overview (docs/admin.md, Overview): the next 7 days, this week and
// this month of a company's bookings (computeBookingStats, by local day, with revenue) and its
// staff by name, for one local date of the company. Three reports over up to six weeks of 200
// staff are most of the page's cost, and the page is the one an operator leaves open and
// reloads; so a computed set is kept in the process against the company's report versions
// (keptByReportVersion: served again for one statement while nothing the figures are made of was
// committed since). The rest of what they depend on is in the key: the company's time zone and
// the local date (a test clock's date in the sandbox).
import { DateTime } from 'luxon';
import type { Db } from '../../db/databases.js';
import type { Company } from '../../generated/prisma/client.js';
import { computeBookingStats, loadWorkingTime, type BookingStats, type WorkingTime } from './compute-booking-stats.js';
import { keptByReportVersion } from './report-versions.js';

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

const kept = keptByReportVersion<OverviewFigures>(256);

/** The overview's figures of the local day of `now` in the company's zone. */
export function overviewFigures(db: Db, company: Company, now: Date): Promise<OverviewFigures> {
  const zone = company.timezone;
  const today = DateTime.fromJSDate(now, { zone }).startOf('day');
  return kept(db, company.id, `overview ${zone} ${today.toISODate()!}`, () => computeFigures(db, company, today));
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
