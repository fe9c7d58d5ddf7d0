// What a calendar of some employees shows for a window (docs/admin.md, Calendar): each one's
// effective working hours, time off, closures and outside-calendar busy times exactly as
// availability computes them (loadSchedules: weekly hours, date overrides, location intervals),
// and the appointments and class sessions starting in the window. One query per kind of thing,
// each bounded by the window on an index ((company_id, start_time) for bookings and sessions),
// so a company with a long history pays only for the days on screen.
import type { Db } from '../../db/databases.js';
import type { Interval } from '../staff/working-hours.js';
import { loadSchedules } from './schedule.js';

/** The most appointments or class sessions one calendar shows (a week of a very busy team). */
export const CALENDAR_LIMIT = 5000;

export interface CalendarColumnHours {
  employeeId: string;
  /** Working hours (weekly hours, date overrides, location intervals), merged. */
  hours: Interval[];
  timeOff: Interval[];
  closures: Interval[];
  externalBusy: Interval[];
}

interface CalendarWindow {
  companyId: string;
  zone: string;
  from: Date;
  to: Date;
}

/**
 * The appointments and class sessions of some employees starting in the window: a calendar reads
 * them, and the hours (loadCalendarHours), for the columns on screen only.
 */
export async function loadCalendarItems(db: Db, opts: CalendarWindow & { employeeIds: readonly string[] }) {
  const ids = [...opts.employeeIds];
  const inWindow = { gte: opts.from, lt: opts.to };
  const [bookings, sessions] = await Promise.all([
    // Appointments only: a class's bookings are counted on its session (its fill).
    db.booking.findMany({
      where: { companyId: opts.companyId, startTime: inWindow, classSessionId: null, employeeId: { in: ids } },
      select: {
        id: true,
        employeeId: true,
        startTime: true,
        endTime: true,
        status: true,
        customer: { select: { name: true } },
        service: { select: { name: true } },
      },
      orderBy: [{ startTime: 'asc' }, { id: 'asc' }],
      take: CALENDAR_LIMIT,
    }),
    db.classSession.findMany({
      where: { companyId: opts.companyId, startTime: inWindow, employeeId: { in: ids } },
      select: {
        id: true,
        employeeId: true,
        startTime: true,
        endTime: true,
        capacity: true,
        bookedCount: true,
        status: true,
        service: { select: { name: true } },
      },
      orderBy: [{ startTime: 'asc' }, { id: 'asc' }],
      take: CALENDAR_LIMIT,
    }),
  ]);
  return { bookings, sessions, truncated: bookings.length >= CALENDAR_LIMIT };
}

/**
 * Which of some employees have an appointment or a class session starting in the window, in one
 * statement: a day view shows an inactive staff member's column only when something of theirs is
 * on the day, and reads the items of the columns it shows only.
 */
export async function employeesWithItems(
  db: Db,
  opts: CalendarWindow & { employeeIds: readonly string[] },
): Promise<Set<string>> {
  if (opts.employeeIds.length === 0) return new Set();
  const ids = [...opts.employeeIds];
  const rows = await db.$queryRaw<Array<{ employee_id: string }>>`
    SELECT DISTINCT employee_id FROM bookings
      WHERE company_id = ${opts.companyId} AND employee_id = ANY(${ids}::text[]) AND class_session_id IS NULL
        AND start_time >= ${opts.from}::timestamptz AND start_time < ${opts.to}::timestamptz
    UNION
    SELECT DISTINCT employee_id FROM class_sessions
      WHERE company_id = ${opts.companyId} AND employee_id = ANY(${ids}::text[])
        AND start_time >= ${opts.from}::timestamptz AND start_time < ${opts.to}::timestamptz`;
  return new Set(rows.map((r) => r.employee_id));
}

/** Each employee's effective working hours, time off, closures and busy times in the window. */
export async function loadCalendarHours(
  db: Db,
  opts: CalendarWindow & { employeeIds: readonly string[] },
): Promise<CalendarColumnHours[]> {
  if (opts.employeeIds.length === 0) return [];
  // The weekly hours of these columns only (a picker lists every employee, by name alone).
  const employees = await db.employee.findMany({
    where: { companyId: opts.companyId, id: { in: [...opts.employeeIds] } },
    select: { id: true, workingHours: true },
  });
  const schedules = await loadSchedules(db, {
    companyId: opts.companyId,
    zone: opts.zone,
    employees,
    from: opts.from.getTime(),
    to: opts.to.getTime(),
    margin: 0,
  });
  return schedules.map((s) => ({
    employeeId: s.employeeId,
    hours: s.hours,
    timeOff: s.timeOff,
    closures: s.closures,
    externalBusy: s.externalBusy,
  }));
}

export type CalendarItems = Awaited<ReturnType<typeof loadCalendarItems>>;
