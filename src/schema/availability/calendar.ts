// What a calendar of some employees shows for a window (docs/admin.md, Calendar): each one's
// effective working hours, time off, closures and outside-calendar busy times exactly as
// availability computes them (loadSchedules: weekly hours, date overrides, location intervals),
// and the appointments and class sessions starting in the window. One query per kind of thing,
// each bounded by the window on an index ((company_id, start_time) for bookings and sessions),
// so a company with a long history pays only for the days on screen.
import { sqlOf, type Db } from '../../db/databases.js';
import type { BookingStatus, ClassStatus } from '../../generated/prisma/enums.js';
import type { Interval } from '../staff/index.js';
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
  const sql = sqlOf(db);
  const args = [opts.companyId, opts.from, opts.to, ids, CALENDAR_LIMIT];
  // Past Prisma (sqlOf): a calendar page reads these on every load, and Prisma's mapping of the
  // rows and their related names cost several times the statements themselves.
  const [bookings, sessions] = await Promise.all([
    // Appointments only: a class's bookings are counted on its session (its fill).
    sql<BookingRow>(
      `SELECT b.id, b.employee_id, b.start_time, b.end_time, b.status::text AS status,
              c.name AS customer_name, s.name AS service_name
         FROM bookings b JOIN customers c ON c.id = b.customer_id JOIN services s ON s.id = b.service_id
        WHERE b.company_id = $1 AND b.start_time >= $2 AND b.start_time < $3 AND b.class_session_id IS NULL
          AND b.employee_id = ANY($4::text[])
        ORDER BY b.start_time, b.id LIMIT $5`,
      args,
    ),
    sql<SessionRow>(
      `SELECT x.id, x.employee_id, x.start_time, x.end_time, x.capacity, x.booked_count, x.status::text AS status,
              s.name AS service_name
         FROM class_sessions x JOIN services s ON s.id = x.service_id
        WHERE x.company_id = $1 AND x.start_time >= $2 AND x.start_time < $3 AND x.employee_id = ANY($4::text[])
        ORDER BY x.start_time, x.id LIMIT $5`,
      args,
    ),
  ]);
  return {
    bookings: bookings.map((r) => ({
      id: r.id,
      employeeId: r.employee_id,
      startTime: r.start_time,
      endTime: r.end_time,
      status: r.status,
      customer: { name: r.customer_name },
      service: { name: r.service_name },
    })),
    sessions: sessions.map((r) => ({
      id: r.id,
      employeeId: r.employee_id,
      startTime: r.start_time,
      endTime: r.end_time,
      capacity: r.capacity,
      bookedCount: r.booked_count,
      status: r.status,
      service: { name: r.service_name },
    })),
    truncated: bookings.length >= CALENDAR_LIMIT,
  };
}

interface BookingRow {
  id: string;
  employee_id: string;
  start_time: Date;
  end_time: Date;
  status: BookingStatus;
  customer_name: string;
  service_name: string;
}

interface SessionRow {
  id: string;
  employee_id: string;
  start_time: Date;
  end_time: Date;
  capacity: number;
  booked_count: number;
  status: ClassStatus;
  service_name: string;
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
  const rows = await sqlOf(db)<{ employee_id: string }>(
    `SELECT DISTINCT employee_id FROM bookings
      WHERE company_id = $1 AND employee_id = ANY($2::text[]) AND class_session_id IS NULL
        AND start_time >= $3 AND start_time < $4
     UNION
     SELECT DISTINCT employee_id FROM class_sessions
      WHERE company_id = $1 AND employee_id = ANY($2::text[]) AND start_time >= $3 AND start_time < $4`,
    [opts.companyId, ids, opts.from, opts.to],
  );
  return new Set(rows.map((r) => r.employee_id));
}

/** Each employee's effective working hours, time off, closures and busy times in the window. */
export async function loadCalendarHours(
  db: Db,
  opts: CalendarWindow & { employeeIds: readonly string[] },
): Promise<CalendarColumnHours[]> {
  if (opts.employeeIds.length === 0) return [];
  // The weekly hours of these columns only (a picker lists every employee, by name alone).
  const employees = await sqlOf(db)<{ id: string; workingHours: unknown }>(
    `SELECT id, working_hours AS "workingHours" FROM employees WHERE company_id = $1 AND id = ANY($2::text[])`,
    [opts.companyId, [...opts.employeeIds]],
  );
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
