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
 * The appointments and class sessions of some employees starting in the window. A day view of a
 * big team reads these for everyone first (which inactive staff have something that day decides
 * the columns), then the hours of the columns on screen only (loadCalendarHours).
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

/** Each employee's effective working hours, time off, closures and busy times in the window. */
export async function loadCalendarHours(
  db: Db,
  opts: CalendarWindow & { employees: Array<{ id: string; workingHours: unknown }> },
): Promise<CalendarColumnHours[]> {
  if (opts.employees.length === 0) return [];
  const schedules = await loadSchedules(db, {
    companyId: opts.companyId,
    zone: opts.zone,
    employees: opts.employees,
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
