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

export async function loadCalendar(
  db: Db,
  opts: {
    companyId: string;
    zone: string;
    employees: Array<{ id: string; workingHours: unknown }>;
    from: Date;
    to: Date;
  },
) {
  const ids = opts.employees.map((e) => e.id);
  const inWindow = { gte: opts.from, lt: opts.to };
  const [schedules, bookings, sessions] = await Promise.all([
    loadSchedules(db, {
      companyId: opts.companyId,
      zone: opts.zone,
      employees: opts.employees,
      from: opts.from.getTime(),
      to: opts.to.getTime(),
      margin: 0,
    }),
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
  const hours: CalendarColumnHours[] = schedules.map((s) => ({
    employeeId: s.employeeId,
    hours: s.hours,
    timeOff: s.timeOff,
    closures: s.closures,
    externalBusy: s.externalBusy,
  }));
  return { hours, bookings, sessions, truncated: bookings.length >= CALENDAR_LIMIT };
}

export type CalendarData = Awaited<ReturnType<typeof loadCalendar>>;
