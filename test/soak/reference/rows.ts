// The soak test's reference model: what /availability, /availability/explain, POST /bookings and
// reschedule must answer, written from the rule as docs/api.md states it ("Why a time is not
// available", "Booking rules: when a time can be booked", "Slots", "Availability", "Closures",
// date overrides under "Employees") over the rows read straight from the database with plain SQL
// (this file). Nothing here is shared with the server's hot path: no cache, no import from `src`,
// local times through Luxon alone. A world read here serves the comparisons of one moment (no
// write in between) and is thrown away.
//
// Its scope, kept honest: the soak's worlds have appointment services only, no rooms, equipment,
// locations, classes or outside calendars, and no service that requires payment (so nothing is
// ever `pending`, and nothing expires when a clock moves); `readWorld` refuses a company with any
// of them. Working hours and date overrides never start or end in the local hour 02:00-03:00: the
// docs say that a spring-forward day loses that hour and a fall-back day repeats it (Slots), not
// where a boundary inside it lands, so the generator never asks (intervals still span the changes).
//
// What the docs leave open, the model says, and accepts either way (rule.ts, answers.ts):
// - whether OFF_INTERVAL is given for a start in no working interval (it is outside the hours);
// - whether OFF_INTERVAL and DAILY_LIMIT are given for a start that has passed (MIN_NOTICE);
// - which further reasons come beside NOT_QUALIFIED (nobody performs it, or the employee named
//   does not or is deactivated) and SERVICE_INACTIVE;
// - a reason's `message` (docs/api.md, Errors: for people, may change): code, employee and
//   details are compared.
// Two readings of the docs' words, written where they are used: a date override's day is the
// local day an appointment overlaps (DATE_OVERRIDE, and the bookings "of that day" a change would
// leave outside the hours), and a slot's employees and an explanation's are compared as sets.
import type pg from 'pg';

export const MINUTE = 60_000;
export const DAY = 86_400_000;

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
export type Range = { start: string; end: string };
export type Week = Record<Weekday, Range[]>;

export interface Svc {
  id: string;
  active: boolean;
  durationMinutes: number;
  bufferBeforeMinutes: number;
  bufferAfterMinutes: number;
  rules: Record<string, unknown>;
  /** The qualified employees (employee_services). */
  employeeIds: string[];
}

export interface Emp {
  id: string;
  active: boolean;
  week: Week;
}

export interface Bk {
  id: string;
  employeeId: string;
  serviceId: string;
  customerId: string;
  status: string;
  start: number;
  end: number;
  blockStart: number;
  blockEnd: number;
}

/** One company's rows, as committed when read. */
export interface World {
  companyId: string;
  zone: string;
  companyRules: Record<string, unknown>;
  /** The attached test clock's time; null: the real time. */
  clock: number | null;
  clockId: string | null;
  services: Map<string, Svc>;
  employees: Map<string, Emp>;
  /** By employee, by local date. */
  overrides: Map<string, Map<string, Range[]>>;
  closures: Array<{ id: string; start: number; end: number; employeeIds: string[] }>;
  timeOff: Array<{ id: string; employeeId: string; start: number; end: number }>;
  bookings: Bk[];
  customers: string[];
  clocks: string[];
}

const ms = (d: Date) => d.getTime();

export async function readWorld(pool: pg.Pool, companyId: string): Promise<World> {
  const q = async <T>(sql: string): Promise<T[]> => (await pool.query(sql, [companyId])).rows as T[];
  const [company] = await q<{
    timezone: string;
    booking_rules: unknown;
    frozen_time: Date | null;
    clock: string | null;
  }>(
    `SELECT c.timezone, c.booking_rules, tc.frozen_time, tc.id AS clock
       FROM companies c LEFT JOIN test_clocks tc ON tc.id = c.test_clock_id WHERE c.id = $1`,
  );
  if (!company) throw new Error(`reference: no company ${companyId}`);
  const [outside] = await q<{ n: number }>(
    `SELECT (SELECT count(*) FROM class_sessions WHERE company_id = $1)
          + (SELECT count(*) FROM external_calendars WHERE company_id = $1)
          + (SELECT count(*) FROM locations WHERE company_id = $1)
          + (SELECT count(*) FROM resources WHERE company_id = $1)
          + (SELECT count(*) FROM services WHERE company_id = $1
               AND (kind <> 'appointment' OR requires_payment
                    OR cardinality(required_resource_ids) > 0 OR cardinality(required_resource_kinds) > 0)) AS n`,
  );
  if (Number(outside!.n) > 0) throw new Error(`reference: company ${companyId} has rows outside the model's scope`);
  const [services, staff, employees, overrides, closures, timeOff, bookings, customers, clocks] = await Promise.all([
    q<{
      id: string;
      active: boolean;
      duration_minutes: number;
      buffer_before_minutes: number;
      buffer_after_minutes: number;
      booking_rules: unknown;
    }>(
      `SELECT id, active, duration_minutes, buffer_before_minutes, buffer_after_minutes, booking_rules
       FROM services WHERE company_id = $1`,
    ),
    q<{ service_id: string; employee_id: string }>(
      `SELECT es.service_id, es.employee_id FROM employee_services es
       JOIN services s ON s.id = es.service_id WHERE s.company_id = $1`,
    ),
    q<{ id: string; active: boolean; working_hours: Week }>(
      `SELECT id, active, working_hours FROM employees WHERE company_id = $1`,
    ),
    q<{ employee_id: string; date: string; intervals: Range[] }>(
      `SELECT employee_id, date, intervals FROM date_overrides WHERE company_id = $1`,
    ),
    q<{ id: string; start_time: Date; end_time: Date; employee_ids: string[] }>(
      `SELECT id, start_time, end_time, employee_ids FROM closures WHERE company_id = $1`,
    ),
    q<{ id: string; employee_id: string; start_time: Date; end_time: Date }>(
      `SELECT id, employee_id, start_time, end_time FROM time_off WHERE company_id = $1`,
    ),
    q<{
      id: string;
      employee_id: string;
      service_id: string;
      customer_id: string;
      status: string;
      start_time: Date;
      end_time: Date;
      block_start: Date;
      block_end: Date;
    }>(
      `SELECT id, employee_id, service_id, customer_id, status, start_time, end_time, block_start, block_end
       FROM bookings WHERE company_id = $1`,
    ),
    q<{ id: string }>(`SELECT id FROM customers WHERE company_id = $1`),
    q<{ id: string }>(`SELECT id FROM test_clocks WHERE company_id = $1`),
  ]);
  const byEmployee = new Map<string, Map<string, Range[]>>();
  for (const o of overrides) {
    if (!byEmployee.has(o.employee_id)) byEmployee.set(o.employee_id, new Map());
    byEmployee.get(o.employee_id)!.set(o.date, o.intervals);
  }
  return {
    companyId,
    zone: company.timezone,
    companyRules: (company.booking_rules ?? {}) as Record<string, unknown>,
    clock: company.frozen_time ? ms(company.frozen_time) : null,
    clockId: company.clock,
    services: new Map(
      services.map((s) => [
        s.id,
        {
          id: s.id,
          active: s.active,
          durationMinutes: s.duration_minutes,
          bufferBeforeMinutes: s.buffer_before_minutes,
          bufferAfterMinutes: s.buffer_after_minutes,
          rules: (s.booking_rules ?? {}) as Record<string, unknown>,
          employeeIds: staff.filter((x) => x.service_id === s.id).map((x) => x.employee_id),
        },
      ]),
    ),
    employees: new Map(employees.map((e) => [e.id, { id: e.id, active: e.active, week: e.working_hours }])),
    overrides: byEmployee,
    closures: closures.map((c) => ({
      id: c.id,
      start: ms(c.start_time),
      end: ms(c.end_time),
      employeeIds: c.employee_ids,
    })),
    timeOff: timeOff.map((t) => ({
      id: t.id,
      employeeId: t.employee_id,
      start: ms(t.start_time),
      end: ms(t.end_time),
    })),
    bookings: bookings.map((b) => ({
      id: b.id,
      employeeId: b.employee_id,
      serviceId: b.service_id,
      customerId: b.customer_id,
      status: b.status,
      start: ms(b.start_time),
      end: ms(b.end_time),
      blockStart: ms(b.block_start),
      blockEnd: ms(b.block_end),
    })),
    customers: customers.map((c) => c.id),
    clocks: clocks.map((c) => c.id),
  };
}

/** Every id of the world (all of them the company's own). */
export function idsOf(w: World): string[] {
  return [
    ...w.services.keys(),
    ...w.employees.keys(),
    ...w.closures.map((c) => c.id),
    ...w.timeOff.map((t) => t.id),
    ...w.bookings.map((b) => b.id),
    ...w.customers,
    ...w.clocks,
  ];
}
