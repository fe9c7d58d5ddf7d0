// What a sample company has booked when it is made (docs/sandbox.md, Sample companies): the
// salon's multi-service visit, the clinic's booking series, the fitness center's full class
// with people waiting. They are made by the use cases the API runs (createVisit,
// createBookingSeries, createBooking with waitlist), so their holds, resource holds, counts,
// waitlist positions, events and reminders are exactly what POST /visits, /booking-series and
// /bookings make, and the exclusion constraints have their say as for any booking.
//
// Those use cases run their own transactions, so this runs right after the company's seed has
// committed, in the same flow (createCompany, restoreSampleCompanies), never inside it.
//
// Times come from the sample data, judged by the company's domain time: the first local day
// `inDays` ahead or later whose working hours hold the booking, at the start of the first
// interval long enough. A fresh sample company has no other booking, closure or time off, so
// that time is free. A refusal here is a fault of the sample data, and is thrown.
//
// Notifications are not skipped (docs/sandbox.md says why): the bookings record their events
// and plan their reminders as any booking does; a new company has no webhook endpoint, and its
// e-mails go to the sandbox's e-mail log, never out.
import { DateTime } from 'luxon';
import type { Db } from '../../db/databases.js';
import type { Company } from '../../generated/prisma/client.js';
import { createBooking } from '../bookings/index.js';
import { createBookingSeries } from '../booking-series/index.js';
import { domainNow } from '../domain-time.js';
import { createVisit } from '../visits/index.js';
import { SAMPLE_DATA, WEEKDAYS, type SampleCompanyData, type WorkingHours } from './sample-data/index.js';
import type { SampleTemplate } from './samples.js';

export interface SampleBookingCounts {
  visits: number;
  series: number;
  /** Bookings holding a place (the visit's items, the series' occurrences, the class's places). */
  booked: number;
  waitlisted: number;
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * The start of the first working interval, `inDays` local days from `now` or later, that holds
 * `minutes` from its start (at `location`, a key, when given; an interval naming none is at
 * `main`). Two weeks are looked at: every sample employee works some day of every week.
 */
export function firstWorkingStart(opts: {
  hours: WorkingHours;
  zone: string;
  now: Date;
  inDays: number;
  minutes: number;
  location?: string;
  main?: string;
}): Date {
  const today = DateTime.fromJSDate(opts.now, { zone: opts.zone }).startOf('day');
  for (let i = opts.inDays; i < opts.inDays + 14; i++) {
    const date = today.plus({ days: i });
    const intervals = opts.hours[WEEKDAYS[date.weekday - 1]!] ?? [];
    for (const r of [...intervals].sort((a, b) => minutesOf(a.start) - minutesOf(b.start))) {
      if (opts.location && (r.locationId ?? opts.main) !== opts.location) continue;
      if (minutesOf(r.end) - minutesOf(r.start) < opts.minutes) continue;
      const [hour, minute] = r.start.split(':').map(Number) as [number, number];
      const { year, month, day } = date;
      const start = DateTime.fromObject({ year, month, day, hour, minute }, { zone: opts.zone });
      // A wall time in a spring-forward gap does not exist that day: try the next interval.
      if (!start.isValid || start.hour !== hour || start.minute !== minute) continue;
      if (start.toMillis() > opts.now.getTime()) return start.toJSDate();
    }
  }
  throw new Error(`sample data: no working interval of ${opts.minutes} minutes from ${opts.inDays} days ahead`);
}

/** The company's records a template names by key: found by their sample names and e-mails. */
async function recordsOf(db: Db, companyId: string, data: SampleCompanyData) {
  const [employees, services, locations, customers] = await Promise.all([
    db.employee.findMany({ where: { companyId }, select: { id: true, name: true } }),
    db.service.findMany({ where: { companyId }, select: { id: true, name: true } }),
    db.location.findMany({ where: { companyId }, select: { id: true, name: true } }),
    db.customer.findMany({ where: { companyId }, select: { id: true, email: true } }),
  ]);
  const pick = <T extends { id: string }>(rows: T[], match: (r: T) => boolean, what: string): string => {
    const row = rows.find(match);
    if (!row) throw new Error(`sample data: no ${what}`);
    return row.id;
  };
  const byKey = <K extends { key: string; name: string }>(list: K[] | undefined, key: string) => {
    const item = list?.find((x) => x.key === key);
    if (!item) throw new Error(`sample data: unknown key ${key}`);
    return item;
  };
  return {
    employee: (key: string) => {
      const e = byKey(data.employees, key);
      return { ...e, id: pick(employees, (r) => r.name === e.name, `employee ${key}`) };
    },
    service: (key: string) => {
      const s = byKey(data.services, key);
      return { ...s, id: pick(services, (r) => r.name === s.name, `service ${key}`) };
    },
    location: (key: string) => {
      const l = byKey(data.locations, key);
      return pick(locations, (r) => r.name === l.name, `location ${key}`);
    },
    customer: (email: string) => pick(customers, (r) => r.email === email.toLowerCase(), `customer ${email}`),
  };
}

/** Books a freshly seeded sample company's sample bookings (none for a template without). */
export async function bookSampleCompany(
  db: Db,
  company: Company,
  opts: { now?: Date } = {},
): Promise<SampleBookingCounts> {
  const counts: SampleBookingCounts = { visits: 0, series: 0, booked: 0, waitlisted: 0 };
  const data = company.template ? SAMPLE_DATA[company.template as SampleTemplate] : undefined;
  const plan = data?.bookings;
  if (!data || !plan) return counts;
  const now = opts.now ?? (await domainNow(db, company));
  const the = await recordsOf(db, company.id, data);
  const main = data.locations?.[0]?.key;

  if (plan.visit) {
    const employee = the.employee(plan.visit.employee);
    const services = plan.visit.services.map((key) => the.service(key));
    // The whole visit inside one interval: from the first service's buffer before to the last's after.
    const lead = services[0]!.bufferBeforeMinutes;
    const span = services.reduce(
      (sum, s, i) => sum + (i > 0 ? s.bufferBeforeMinutes : 0) + s.durationMinutes + s.bufferAfterMinutes,
      lead,
    );
    const start = firstWorkingStart({
      hours: employee.workingHours,
      zone: company.timezone,
      now,
      inDays: plan.visit.inDays,
      minutes: span,
      main,
    });
    const visit = await createVisit(db, {
      company,
      now,
      input: {
        items: services.map((s) => ({ serviceId: s.id, employeeId: employee.id })),
        startTime: new Date(start.getTime() + lead * 60_000).toISOString(),
        customerId: the.customer(plan.visit.customer),
      },
    });
    counts.visits++;
    counts.booked += visit.bookings.length;
  }

  if (plan.series) {
    const employee = the.employee(plan.series.employee);
    const service = the.service(plan.series.service);
    const start = firstWorkingStart({
      hours: employee.workingHours,
      zone: company.timezone,
      now,
      inDays: plan.series.inDays,
      minutes: service.bufferBeforeMinutes + service.durationMinutes + service.bufferAfterMinutes,
      location: plan.series.location,
      main,
    });
    const series = await createBookingSeries(db, {
      company,
      now,
      input: {
        serviceId: service.id,
        employeeId: employee.id,
        customerId: the.customer(plan.series.customer),
        locationId: the.location(plan.series.location),
        startTime: new Date(start.getTime() + service.bufferBeforeMinutes * 60_000).toISOString(),
        rrule: plan.series.rrule,
      },
    });
    counts.series++;
    counts.booked += series.bookings.length;
  }

  if (plan.fullClass) {
    const service = the.service(plan.fullClass.service);
    const from = DateTime.fromJSDate(now, { zone: company.timezone })
      .startOf('day')
      .plus({ days: plan.fullClass.inDays });
    const session = await db.classSession.findFirst({
      where: { companyId: company.id, serviceId: service.id, status: 'scheduled', startTime: { gte: from.toJSDate() } },
      orderBy: [{ startTime: 'asc' }, { id: 'asc' }],
    });
    if (!session) throw new Error(`sample data: no session of ${plan.fullClass.service} to fill`);
    // One after the other, as people would come: the places first, then the line in order.
    for (const [i, email] of plan.fullClass.customers.entries()) {
      const waitlist = i >= session.capacity;
      await createBooking(db, {
        company,
        now,
        input: { serviceId: service.id, classId: session.id, customerId: the.customer(email), waitlist },
      });
      if (waitlist) counts.waitlisted++;
      else counts.booked++;
    }
  }
  return counts;
}
