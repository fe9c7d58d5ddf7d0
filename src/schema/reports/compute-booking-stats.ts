// Booking statistics for dashboards (docs/api.md, "Reports"; docs/graphql.md): the bookings that
// start in [from, to), grouped by the company's local day, by employee or by service. Counts,
// booked minutes and revenue are GROUP BY queries in PostgreSQL; a day is the company's local
// calendar day (`start_time AT TIME ZONE <company zone>`), so a DST change gives a 23- or
// 25-hour day, never a booking on the wrong date. The working time that utilisation divides by
// comes from the working-hours code availability uses (src/schema/staff/working-hours.ts),
// less time off, for active employees, as availability sees them.
import { z } from 'zod';
import type { Db } from '../../db/databases.js';
import { Prisma, type Company } from '../../generated/prisma/client.js';
import { boundedInstant, checkRange } from '../domain-validation.js';
import {
  localDays,
  mergeIntervals,
  readWorkingHours,
  workingIntervals,
  type Interval,
  type LocalDay,
  type WorkingHours,
} from '../staff/index.js';
import { parseInput } from '../validation.js';

export const MAX_REPORT_DAYS = 366;
export const STATS_GROUPINGS = ['day', 'employee', 'service'] as const;
export type StatsGrouping = (typeof STATS_GROUPINGS)[number];

const input = z.object({ from: boundedInstant, to: boundedInstant, groupBy: z.enum(STATS_GROUPINGS) }).strict();

export interface StatusCounts {
  total: number;
  pending: number;
  confirmed: number;
  cancelled: number;
  completed: number;
  noShow: number;
  expired: number;
  /** On a full class's waitlist, holding no place. */
  waitlisted: number;
  /** Offered a freed place of a class, not yet accepted. */
  offered: number;
}

/** Money taken for the group's bookings, in minor units of one currency. */
export interface Revenue {
  currency: string;
  /** Succeeded payments, including those refunded since. */
  collected: number;
  refunded: number;
  /** collected − refunded. */
  net: number;
}

export interface StatsGroup {
  /** The local date (YYYY-MM-DD), the employee's id or the service's id; `total` for the totals. */
  key: string;
  /** The employee's or service's name. */
  name: string | null;
  counts: StatusCounts;
  /** noShow / (completed + noShow); null before any booking was completed or missed. */
  noShowRate: number | null;
  /** Null when not asked for (a credential without payments:read). */
  revenue: Revenue[] | null;
  bookedMinutes: number;
  availableMinutes: number;
  /** bookedMinutes / availableMinutes; null when there was no working time. */
  utilisation: number | null;
}

export interface BookingStats {
  from: Date;
  to: Date;
  groupBy: StatsGrouping;
  timeZone: string;
  groups: StatsGroup[];
  totals: StatsGroup;
}

// The bookings that take (or took) their employee's time: not cancelled or expired.
const HELD = Prisma.sql`('pending', 'confirmed', 'completed', 'no_show')`;
const MINUTE = 60_000;

function keyOf(groupBy: StatsGrouping, zone: string, alias: string): Prisma.Sql {
  const col = (c: string) => Prisma.raw(`${alias}.${c}`);
  if (groupBy === 'employee') return col('employee_id');
  if (groupBy === 'service') return col('service_id');
  return Prisma.sql`to_char(${col('start_time')} AT TIME ZONE ${zone}, 'YYYY-MM-DD')`;
}

// The bookings a charge stands for: held, or served (as the payments worker counts them).
const STANDING = Prisma.sql`('pending', 'confirmed', 'completed', 'no_show')`;

/**
 * Each item of each charged visit payment of the company (docs/api.md, Reports), with its part:
 * `collected`, its share, is its price, taken from the payment's amount item by item, the items
 * standing first (then the others), each in the visit's order (start, id), so the shares add up
 * to the amount exactly; `refunded`, its part of the payment's refunds, is taken from the
 * refunded amount item by item the other way round, the items no longer standing (whose shares
 * a cancel gave back) first, each at most its share, so the parts add up to amount_refunded.
 * Every item of the visit takes its part, inside the report's window or not; the caller keeps
 * the items in the window.
 */
function visitShares(companyId: string): Prisma.Sql {
  return Prisma.sql`
    SELECT f.*,
      least(f.collected, greatest(0, f.amount_refunded - (sum(f.collected) OVER (
        PARTITION BY f.payment_id ORDER BY f.standing, f.start_time, f.id ROWS UNBOUNDED PRECEDING) - f.collected))) AS refunded
    FROM (
      SELECT i.*, least(i.price, greatest(0, i.amount - i.before)) AS collected
      FROM (
        SELECT b.id, b.company_id, b.employee_id, b.service_id, b.start_time, b.price,
          p.id AS payment_id, p.currency, p.amount, p.amount_refunded,
          b.status::text IN ${STANDING} AS standing,
          sum(b.price) OVER (PARTITION BY p.id ORDER BY (b.status::text IN ${STANDING}) DESC, b.start_time, b.id
            ROWS UNBOUNDED PRECEDING) - b.price AS before
        FROM payments p JOIN bookings b ON b.visit_id = p.visit_id
        WHERE p.company_id = ${companyId} AND p.visit_id IS NOT NULL
          AND p.status IN ('succeeded', 'partially_refunded', 'refunded')
      ) i
    ) f`;
}

type CountRow = { key: string } & StatusCounts;
type BookedRow = { key: string; minutes: number };
type RevenueRow = { key: string; currency: string; collected: string; refunded: string };
type ReportRow = { part: 'counts' | 'booked' | 'revenue'; key: string; currency: string | null } & StatusCounts & {
    minutes: number | null;
    collected: string | null;
    refunded: string | null;
  };

export async function computeBookingStats(
  db: Db,
  opts: {
    company: Company;
    input: unknown;
    withRevenue: boolean;
    /** The company's working time over a span holding the window (loadWorkingTime), when a page shows several reports. */
    workingTime?: WorkingTime | Promise<WorkingTime>;
  },
): Promise<BookingStats> {
  const { from, to, groupBy } = parseInput(input, opts.input);
  checkRange(from, to, { fromPath: 'from', toPath: 'to', maxDays: MAX_REPORT_DAYS });
  const companyId = opts.company.id;
  const zone = opts.company.timezone;
  const inWindow = (alias: string) =>
    Prisma.sql`${Prisma.raw(alias)}.company_id = ${companyId} AND ${Prisma.raw(alias)}.start_time >= ${from} AND ${Prisma.raw(alias)}.start_time < ${to}`;
  const key = (alias: string) => keyOf(groupBy, zone, alias);

  const countsSql = Prisma.sql`
      SELECT ${key('b')} AS key,
        count(*)::int AS total,
        count(*) FILTER (WHERE b.status = 'pending')::int AS pending,
        count(*) FILTER (WHERE b.status = 'confirmed')::int AS confirmed,
        count(*) FILTER (WHERE b.status = 'cancelled')::int AS cancelled,
        count(*) FILTER (WHERE b.status = 'completed')::int AS completed,
        count(*) FILTER (WHERE b.status = 'no_show')::int AS "noShow",
        count(*) FILTER (WHERE b.status = 'expired')::int AS expired,
        count(*) FILTER (WHERE b.status = 'waitlisted')::int AS waitlisted,
        count(*) FILTER (WHERE b.status = 'offered')::int AS offered
      FROM bookings b WHERE ${inWindow('b')}
      GROUP BY 1`;
  // An appointment's minutes, and a class session's once however many attend it (when at
  // least one booking holds a place), clipped to the window's end.
  const bookedSql = Prisma.sql`
      SELECT ${key('u')} AS key,
        coalesce(sum(extract(epoch FROM (least(u.end_time, ${to}) - u.start_time))), 0)::float8 / 60 AS minutes
      FROM (
        SELECT b.company_id, b.employee_id, b.service_id, b.start_time, b.end_time FROM bookings b
        WHERE ${inWindow('b')} AND b.class_session_id IS NULL AND b.status::text IN ${HELD}
        UNION ALL
        SELECT c.company_id, c.employee_id, c.service_id, c.start_time, c.end_time FROM class_sessions c
        WHERE ${inWindow('c')} AND c.status = 'scheduled' AND EXISTS (
          SELECT 1 FROM bookings a WHERE a.class_session_id = c.id AND a.status::text IN ${HELD})
      ) u
      GROUP BY 1`;
  // A booking's own payments count whole for it; a visit paid as one counts for each of its
  // items (visitShares): its share collected, and its part of the payment's refunds.
  const revenueSql = Prisma.sql`
      SELECT ${key('r')} AS key, r.currency,
        sum(r.collected) AS collected,
        sum(r.refunded) AS refunded
      FROM (
        SELECT b.company_id, b.employee_id, b.service_id, b.start_time, p.currency,
          p.amount AS collected, p.amount_refunded AS refunded
        FROM payments p JOIN bookings b ON b.id = p.booking_id
        WHERE p.company_id = ${companyId} AND p.status IN ('succeeded', 'partially_refunded', 'refunded')
        UNION ALL
        SELECT s.company_id, s.employee_id, s.service_id, s.start_time, s.currency, s.collected, s.refunded
        FROM (${visitShares(companyId)}) s
      ) r
      WHERE ${inWindow('r')}
      GROUP BY 1, 2`;
  // The three are one statement (a report's round trips, and its share of the driver's and
  // Prisma's work per statement, were most of a small report's cost), each row tagged by its
  // part; revenue rows come in (key, currency) order, as each key's list and the totals show them.
  const [rows, working] = await Promise.all([
    db.$queryRaw<ReportRow[]>`
      SELECT 'counts' AS part, c.key, NULL AS currency,
        c.total, c.pending, c.confirmed, c.cancelled, c.completed, c."noShow", c.expired, c.waitlisted, c.offered,
        NULL::float8 AS minutes, NULL AS collected, NULL AS refunded
      FROM (${countsSql}) c
      UNION ALL
      SELECT 'booked', u.key, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, u.minutes, NULL, NULL
      FROM (${bookedSql}) u
      ${
        opts.withRevenue
          ? Prisma.sql`UNION ALL
      SELECT 'revenue', r.key, r.currency, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
        r.collected::text, r.refunded::text
      FROM (${revenueSql}) r`
          : Prisma.empty
      }
      ORDER BY 1, 2, 3`,
    Promise.resolve(opts.workingTime).then((w) =>
      w && w.from <= from.getTime() && w.to >= to.getTime()
        ? w
        : loadWorkingTime(db, { company: opts.company, from, to }),
    ),
  ]);
  const counts: CountRow[] = [];
  const booked: BookedRow[] = [];
  const revenue: RevenueRow[] | null = opts.withRevenue ? [] : null;
  for (const r of rows) {
    if (r.part === 'counts') counts.push(r);
    else if (r.part === 'booked') booked.push({ key: r.key, minutes: r.minutes! });
    else revenue!.push({ key: r.key, currency: r.currency!, collected: r.collected!, refunded: r.refunded! });
  }
  const { employees, services } = working;
  const available = availableIn(working, from.getTime(), to.getTime());

  // The groups: each key with bookings, and every key with working time (every local day of
  // the window, every active employee, every active service) so idle ones show as zero.
  const names = new Map<string, string | null>();
  const minutesOf = new Map<string, number>();
  if (groupBy === 'day') {
    for (const [day, ms] of available.byDay) {
      names.set(day, null);
      minutesOf.set(day, ms);
    }
  } else if (groupBy === 'employee') {
    for (const e of employees) {
      const ms = available.byEmployee.get(e.id) ?? 0;
      if (e.active || ms) names.set(e.id, e.name);
      minutesOf.set(e.id, ms);
    }
  } else {
    for (const s of services) if (s.active) names.set(s.id, s.name);
    for (const e of employees) {
      for (const { serviceId } of e.services)
        minutesOf.set(serviceId, (minutesOf.get(serviceId) ?? 0) + (available.byEmployee.get(e.id) ?? 0));
    }
  }
  const serviceNames = new Map(services.map((s) => [s.id, s.name]));
  const employeeNames = new Map(employees.map((e) => [e.id, e.name]));
  const nameOf = (k: string) =>
    groupBy === 'employee'
      ? (employeeNames.get(k) ?? null)
      : groupBy === 'service'
        ? (serviceNames.get(k) ?? null)
        : null;
  for (const row of [...counts, ...booked]) if (!names.has(row.key)) names.set(row.key, nameOf(row.key));

  const countsOf = new Map(counts.map((r) => [r.key, r]));
  const bookedOf = new Map(booked.map((r) => [r.key, r.minutes]));
  const revenueOf = new Map<string, Revenue[]>();
  for (const r of revenue ?? []) {
    const list = revenueOf.get(r.key) ?? [];
    list.push(money(r.currency, Number(r.collected), Number(r.refunded)));
    revenueOf.set(r.key, list);
  }
  const keys = [...names.keys()].sort();
  const groups = keys.map((k) =>
    group(k, names.get(k) ?? null, {
      counts: countsOf.get(k),
      revenue: revenue ? (revenueOf.get(k) ?? []) : null,
      bookedMinutes: bookedOf.get(k) ?? 0,
      availableMs: minutesOf.get(k) ?? 0,
    }),
  );

  // Totals: the sums of the groups, except working time, which for services would count an
  // employee who performs several services several times: the company's own is used.
  const totalCounts = emptyCounts();
  for (const r of counts) for (const f of COUNT_FIELDS) totalCounts[f] += r[f];
  const byCurrency = new Map<string, Revenue>();
  for (const r of revenue ?? []) {
    const t = byCurrency.get(r.currency) ?? money(r.currency, 0, 0);
    byCurrency.set(r.currency, money(r.currency, t.collected + Number(r.collected), t.refunded + Number(r.refunded)));
  }
  const totals = group('total', null, {
    counts: totalCounts,
    revenue: revenue ? [...byCurrency.values()].sort((a, b) => a.currency.localeCompare(b.currency)) : null,
    bookedMinutes: booked.reduce((s, r) => s + r.minutes, 0),
    availableMs: available.total,
  });
  return { from, to, groupBy, timeZone: zone, groups, totals };
}

const COUNT_FIELDS = [
  'total',
  'pending',
  'confirmed',
  'cancelled',
  'completed',
  'noShow',
  'expired',
  'waitlisted',
  'offered',
] as const;

function emptyCounts(): StatusCounts {
  return {
    total: 0,
    pending: 0,
    confirmed: 0,
    cancelled: 0,
    completed: 0,
    noShow: 0,
    expired: 0,
    waitlisted: 0,
    offered: 0,
  };
}

function money(currency: string, collected: number, refunded: number): Revenue {
  return { currency, collected, refunded, net: collected - refunded };
}

const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 10_000) / 10_000 : null);

function group(
  key: string,
  name: string | null,
  g: { counts?: StatusCounts; revenue: Revenue[] | null; bookedMinutes: number; availableMs: number },
): StatsGroup {
  const counts = g.counts ? Object.fromEntries(COUNT_FIELDS.map((f) => [f, g.counts![f]])) : emptyCounts();
  const c = counts as StatusCounts;
  const bookedMinutes = Math.round(g.bookedMinutes);
  const availableMinutes = Math.round(g.availableMs / MINUTE);
  return {
    key,
    name,
    counts: c,
    noShowRate: ratio(c.noShow, c.completed + c.noShow),
    revenue: g.revenue,
    bookedMinutes,
    availableMinutes,
    utilisation: ratio(bookedMinutes, availableMinutes),
  };
}

/**
 * A company's staff and services, and each active employee's working time in [from, to): their
 * working hours as availability reads them, less their time off. Loaded once, it serves every
 * report of a window inside it (availableIn), as the admin overview's three do.
 */
export interface WorkingTime {
  zone: string;
  from: number;
  to: number;
  /** Every employee of the company, active or not, by name. */
  employees: Array<{ id: string; name: string; active: boolean; services: Array<{ serviceId: string }> }>;
  services: Array<{ id: string; name: string; active: boolean }>;
  /** Each active employee's free working intervals in [from, to), sorted and merged. */
  free: Map<string, Interval[]>;
  /** The company's local days around [from, to) (localDays), worked out once for every window. */
  days: LocalDay[];
}

export async function loadWorkingTime(
  db: Db,
  opts: { company: Pick<Company, 'id' | 'timezone'>; from: Date; to: Date },
): Promise<WorkingTime> {
  const companyId = opts.company.id;
  const zone = opts.company.timezone;
  const from = opts.from.getTime();
  const to = opts.to.getTime();
  const [employees, services, timeOff] = await Promise.all([
    db.employee.findMany({
      where: { companyId },
      select: { id: true, name: true, active: true, workingHours: true, services: { select: { serviceId: true } } },
      // By name, as pages list staff (the reports' groups are sorted by key whatever the order).
      orderBy: [{ name: 'asc' }, { id: 'asc' }],
    }),
    db.service.findMany({
      where: { companyId },
      select: { id: true, name: true, active: true },
      orderBy: { id: 'asc' },
    }),
    db.timeOff.findMany({
      where: { companyId, startTime: { lt: opts.to }, endTime: { gt: opts.from }, employee: { active: true } },
      select: { employeeId: true, startTime: true, endTime: true },
      orderBy: { startTime: 'asc' },
    }),
  ]);
  const offOf = new Map<string, Interval[]>();
  for (const t of timeOff) {
    const list = offOf.get(t.employeeId);
    const span: Interval = [t.startTime.getTime(), t.endTime.getTime()];
    if (list) list.push(span);
    else offOf.set(t.employeeId, [span]);
  }
  const days = localDays(zone, from, to);
  // Staff mostly share a few weekly patterns: each distinct one (readWorkingHours gives equal
  // values one object) is laid over the days once.
  const intervalsOf = new Map<WorkingHours, Interval[]>();
  const free = new Map<string, Interval[]>();
  for (const e of employees) {
    if (!e.active) continue;
    const hours = readWorkingHours(e.workingHours);
    let working = intervalsOf.get(hours);
    if (!working) intervalsOf.set(hours, (working = workingIntervals(hours, zone, from, to, days)));
    const off = offOf.get(e.id);
    free.set(e.id, off ? subtract(working, mergeIntervals(off)) : working);
  }
  return { zone, from, to, employees, services, free, days };
}

/**
 * The working time in [from, to) (epoch ms, inside the loaded span), by employee and by the
 * company's local day.
 */
function availableIn(
  working: WorkingTime,
  from: number,
  to: number,
): { byEmployee: Map<string, number>; byDay: Map<string, number>; total: number } {
  // Every local day of the window is a group of its own, working time or not.
  const windowDays = working.days.filter((d) => d.end > from && d.start < to);
  const perDay = windowDays.map(() => 0);
  const byEmployee = new Map<string, number>();
  let total = 0;
  for (const [employeeId, intervals] of working.free) {
    let sum = 0;
    // Both lists are in time order: each interval (clipped to the window) is split over the
    // days it touches, from the first day that ends after its start.
    let d = 0;
    for (const [s, e] of intervals) {
      const a = Math.max(s, from);
      const b = Math.min(e, to);
      if (a >= b) continue;
      sum += b - a;
      while (d < windowDays.length && windowDays[d]!.end <= a) d++;
      for (let k = d; k < windowDays.length && windowDays[k]!.start < b; k++) {
        const overlap = Math.min(b, windowDays[k]!.end) - Math.max(a, windowDays[k]!.start);
        if (overlap > 0) perDay[k]! += overlap;
      }
    }
    byEmployee.set(employeeId, sum);
    total += sum;
  }
  const byDay = new Map(windowDays.map((d, i) => [d.date, perDay[i]!]));
  return { byEmployee, byDay, total };
}

/**
 * Sorted, merged `list` less sorted, merged `cut`, in one walk of both: a cut that ends before
 * an interval ends before every later one too, so it is passed for good.
 */
function subtract(list: Interval[], cut: Interval[]): Interval[] {
  const out: Interval[] = [];
  let k = 0;
  for (const [a0, b] of list) {
    let a = a0;
    while (k < cut.length && cut[k]![1] <= a) k++;
    for (let j = k; j < cut.length && cut[j]![0] < b; j++) {
      const [c, d] = cut[j]!;
      if (c > a) out.push([a, c]);
      a = Math.max(a, d);
      if (a >= b) break;
    }
    if (a < b) out.push([a, b]);
  }
  return out;
}
