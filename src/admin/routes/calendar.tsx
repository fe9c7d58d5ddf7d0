// The calendar (docs/admin.md, Calendar): a time grid in the company's zone. Day view: one
// column per staff member; week view: one column per day for one staff member (as the salon
// calendars people know do it). Working hours are shaded (each one's effective hours of that
// day, as availability computes them), time off, closures and outside-calendar busy times are
// marked in words, class sessions show their fill, bookings their status in words. A free cell
// links to the new-booking page with that staff member and start. Rows are instants, not wall
// clock: on the day the clocks change the grid has 23 or 25 hours (in the week view a
// wall-clock row that does not exist that day is marked so, and a repeated hour is in one row).
// On a phone the same data is an agenda list, switched by a CSS media query (no script).
import type { FastifyInstance } from 'fastify';
import { DateTime } from 'luxon';
import type { ComponentChildren } from 'preact';
import { renderFragment } from '../../auth/pages/html.js';
import { AppError } from '../../errors.js';
import {
  employeesWithItems,
  loadCalendarHours,
  loadCalendarItems,
  type CalendarColumnHours,
  type CalendarItems,
} from '../../schema/availability/index.js';
import { domainNow } from '../../schema/domain-time.js';
import { keptByReportVersion } from '../../schema/reports/index.js';
import { listEmployeeSummariesByName } from '../../schema/staff/index.js';
import type { Services } from '../../services.js';
import { AdminNotFound, clockTime, pageParam, ScrollTable, sendAdmin, staffPage, StaffPages } from '../http.js';
import { adminPage, companyPath, mayWrite, type RenderedBody } from '../layout.js';
import { queryOf, type CompanyScope, companyRoutes } from '../scope.js';
import { deepFreeze } from '../../frozen.js';
import { STATUS_LABELS } from '../words.js';

const STATUSES = ['pending', 'confirmed', 'completed', 'no_show', 'cancelled', 'expired'] as const;
/** Statuses that hold the staff member's time (a cancelled or expired booking leaves the cell free). */
const HOLDING = deepFreeze(new Set(['pending', 'confirmed', 'completed', 'no_show']));

const STEP_MINUTES = 30;
const MINUTE = 60_000;
/** Shown even when nobody works earlier or later (a grid of only working hours is hard to read). */
const DEFAULT_FIRST_HOUR = 8;
const DEFAULT_LAST_HOUR = 18;
/** Staff columns on one page of the day view (a big team's day is paged, as Square and Fresha do). */
export const COLUMNS_PER_PAGE = 12;

type Interval = [number, number];
type Booking = CalendarItems['bookings'][number];
type Session = CalendarItems['sessions'][number];
type Employee = Awaited<ReturnType<typeof listEmployeeSummariesByName>>[number];

interface Column {
  key: string;
  /** Header text. */
  title: string;
  employee: Employee;
  /** The local day this column shows. */
  day: DateTime;
  hours: CalendarColumnHours;
  today: boolean;
}

const overlaps = (list: Interval[], from: number, to: number) => list.some(([s, e]) => s < to && e > from);
/** What can mark a cell, with its class and words. */
const MARKS: Array<[string, string, (h: CalendarColumnHours) => Interval[]]> = [
  ['closed', 'Closed', (h) => h.closures],
  ['off', 'Time off', (h) => h.timeOff],
  ['away', 'Busy (outside calendar)', (h) => h.externalBusy],
];
const clip = (list: Interval[], from: number, to: number): Interval[] =>
  list.filter(([s, e]) => s < to && e > from).map(([s, e]) => [Math.max(s, from), Math.min(e, to)]);

/** "09:00–17:00, 18:00–20:00" of a local day ("24:00" for the day's end); "Not working". */
function hoursText(list: Interval[], day: DateTime, zone: string, none = 'Not working'): string {
  const start = day.toMillis();
  const end = dayEnd(day);
  const parts = clip(list, start, end).map(
    ([s, e]) => `${clockTime(s, zone)}–${e === end ? '24:00' : clockTime(e, zone)}`,
  );
  return parts.length ? parts.join(', ') : none;
}
/** The next local midnight after a day's start (a page asks for the same few days many times). */
// eslint-disable-next-line no-restricted-syntax -- process state: admin formats
const dayEnds = new Map<string, number>();
function dayEnd(day: DateTime): number {
  const key = `${day.zoneName} ${day.toMillis()}`;
  let end = dayEnds.get(key);
  if (end === undefined) {
    if (dayEnds.size >= 10_000) dayEnds.clear();
    end = day.plus({ days: 1 }).startOf('day').toMillis();
    dayEnds.set(key, end);
  }
  return end;
}

const hourOf = (at: number, zone: string) => Number(clockTime(at, zone).slice(0, 2));

function parseQuery(q: Record<string, string>, employees: Employee[]) {
  const view = q.view || 'day';
  if (view !== 'day' && view !== 'week') throw AppError.validation([{ path: 'view', message: 'must be day or week' }]);
  const date = q.date || null;
  if (date !== null && (!/^\d{4}-\d{2}-\d{2}$/.test(date) || !DateTime.fromISO(date).isValid))
    throw AppError.validation([{ path: 'date', message: 'must be a date, YYYY-MM-DD' }]);
  const employee = q.employee ? employees.find((e) => e.id === q.employee) : null;
  if (employee === undefined)
    throw AppError.validation([{ path: 'employee', message: 'is not a staff member of this company' }]);
  return { view, date, employee, page: pageParam(q.page) };
}

/** Items by staff member, so each cell looks at its own column's few instead of the whole day's. */
function byEmployee<T extends { employeeId: string }>(list: T[]): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const x of list) {
    const mine = map.get(x.employeeId);
    if (mine) mine.push(x);
    else map.set(x.employeeId, [x]);
  }
  return map;
}

/**
 * The grid's rows: each a label and, per column, the span of time it covers (null: that
 * wall-clock time does not exist on the column's day). `days`: one local day per column.
 */
function gridRows(
  days: DateTime[],
  shared: boolean,
  zone: string,
  extent: Interval[],
): Array<{ label: string; spans: Array<Interval | null> }> {
  // The hours shown: 08:00–18:00, widened to whole hours around anything on screen.
  let first = DEFAULT_FIRST_HOUR * 60;
  let last = DEFAULT_LAST_HOUR * 60;
  for (const d of days) {
    const start = d.toMillis();
    const end = dayEnd(d);
    for (const [s, e] of clip(extent, start, end)) {
      first = Math.min(first, hourOf(s, zone) * 60);
      last = Math.max(last, e >= end ? 24 * 60 : (hourOf(e - 1, zone) + 1) * 60);
    }
  }
  if (shared) {
    // One day for every column: rows are instants, so a 23 or 25-hour day has that many hours.
    const d = days[0]!;
    const end = dayEnd(d);
    const wall = (m: number) => d.set({ hour: Math.floor(m / 60), minute: m % 60 }).toMillis();
    const from = first === 0 ? d.toMillis() : wall(first);
    const to = last === 24 * 60 ? end : wall(last);
    const odd = end - d.toMillis() !== 24 * 60 * MINUTE;
    const rows = [];
    for (let t = from; t < to; t += STEP_MINUTES * MINUTE) {
      const label = odd ? DateTime.fromMillis(t, { zone }).toFormat('HH:mm ZZZZ') : clockTime(t, zone);
      const span: Interval = [t, Math.min(t + STEP_MINUTES * MINUTE, to)];
      rows.push({ label, spans: days.map(() => span) });
    }
    return rows;
  }
  // A day per column: rows are wall-clock times, each cell from its time to the next row's. On a
  // day of one UTC offset a wall-clock time is the day's start plus its minutes; only the days
  // the clocks change go through Luxon.
  const starts = days.map((d) => d.toMillis());
  const ends = days.map((d) => dayEnd(d));
  const plain = days.map(
    (d, i) =>
      ends[i]! - starts[i]! === 24 * 60 * MINUTE && d.offset === DateTime.fromMillis(ends[i]! - 1, { zone }).offset,
  );
  const wallTime = (i: number, minutes: number) =>
    minutes >= 24 * 60 ? ends[i]! : plain[i] ? starts[i]! + minutes * MINUTE : at(days[i]!, minutes);
  const rows = [];
  for (let m = first; m < last; m += STEP_MINUTES) {
    const label = `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
    rows.push({
      label,
      spans: days.map((_, i): Interval | null => {
        const s = wallTime(i, m);
        const e = wallTime(i, m + STEP_MINUTES);
        return s === null ? null : [s, e ?? s];
      }),
    });
  }
  return rows;
}

/** The instant of a local wall-clock time (minutes after midnight) of a day; null when the clocks skip it. */
function at(day: DateTime, minutes: number): number | null {
  const t = day.set({ hour: Math.floor(minutes / 60), minute: minutes % 60, second: 0, millisecond: 0 });
  return t.hour * 60 + t.minute === minutes ? t.toMillis() : null;
}

export function registerCalendarRoutes(app: FastifyInstance, services: Services): void {
  const pages = companyRoutes(app, services, 'calendar');
  // The old week list's URL: its links (?week=…&employee=…) open the same week in the calendar.
  pages.get('/:mode/companies/:companyId/bookings', async (s, req, reply) => {
    const q = queryOf(req);
    const params = new URLSearchParams();
    if (q.week) {
      params.set('view', 'week');
      params.set('date', q.week);
    }
    if (q.employee) params.set('employee', q.employee);
    const query = params.toString();
    return reply.redirect(companyPath(s.company, `/calendar${query ? `?${query}` : ''}`), 301);
  });

  pages.get('/:mode/companies/:companyId/calendar', async (s, req, reply) => {
    const q = queryOf(req);
    // Staff see their own employee's calendar only: another employee's is not theirs (404).
    if (s.role === 'staff' && q.employee && q.employee !== s.staffEmployeeId) throw new AdminNotFound('employee');
    // A viewer reads: no links to booking forms they could not post.
    const writer = mayWrite(s.ctx);
    const now = (await domainNow(s.db, s.company)).getTime();
    // Everything the page shows besides the company's data (its report versions) and the time.
    const key = JSON.stringify([
      s.company.timezone,
      s.role,
      s.role === 'staff' ? s.staffEmployeeId : null,
      writer,
      q.view ?? '',
      q.date ?? '',
      q.employee ?? '',
      q.page ?? '',
    ]);
    const page = await keptCalendars(
      s.db,
      s.company.id,
      key,
      () => renderCalendar(s, q, writer, now),
      (c) => c.validFrom < now && now <= c.validUntil,
    );
    return sendAdmin(reply, 200, adminPage(s.ctx, 'Calendar', page));
  });
}

/**
 * A rendered calendar, kept (keptByReportVersion) while the company's data is unchanged and the
 * time is in (validFrom, validUntil]: the same day, and no free cell's start passed.
 */
interface RenderedCalendar extends RenderedBody {
  validFrom: number;
  validUntil: number;
}
/** A few dozen views of each mode's companies (see docs/performance.md, "Kept calendars"). */
const keptCalendars = keptByReportVersion<RenderedCalendar>(64);

async function renderCalendar(
  s: CompanyScope,
  q: Record<string, string>,
  writer: boolean,
  now: number,
): Promise<RenderedCalendar> {
  const zone = s.company.timezone;
  const all = await listEmployeeSummariesByName(s.db, s.company.id);
  const employees = s.role === 'staff' ? all.filter((e) => e.id === s.staffEmployeeId) : all;
  const { view, date, employee, page } = parseQuery(q, employees);
  const today = DateTime.fromMillis(now, { zone }).startOf('day');
  const day = date ? DateTime.fromISO(date, { zone }).startOf('day') : today;
  const first = view === 'week' ? day.startOf('week') : day; // ISO weeks start on Monday
  const days = view === 'week' ? Array.from({ length: 7 }, (_, i) => first.plus({ days: i })) : [day];
  const from = days[0]!;
  const to = days[days.length - 1]!.plus({ days: 1 }).startOf('day');
  // Week view: one staff member (the chosen one, else the first active one).
  const weekOf = view === 'week' ? (employee ?? employees.find((e) => e.active) ?? employees[0] ?? null) : null;
  const loaded = view === 'week' ? (weekOf ? [weekOf] : []) : employee ? [employee] : employees;
  const window = { companyId: s.company.id, zone, from: from.toJSDate(), to: to.toJSDate() };
  // Day view: the active staff, and an inactive one only when something of theirs is on the
  // day; a page of them at a time.
  const inactive = view === 'week' ? [] : loaded.filter((e) => !e.active && e.id !== employee?.id);
  const inactiveBusy = await employeesWithItems(s.db, { ...window, employeeIds: inactive.map((e) => e.id) });
  const shown =
    view === 'week' ? [] : loaded.filter((e) => e.active || e.id === employee?.id || inactiveBusy.has(e.id));
  const paged = staffPage(shown, page, COLUMNS_PER_PAGE);
  const { current, items: onPage } = paged;
  // What the columns on screen show, and nothing of the other staff.
  const columnIds = (view === 'week' ? loaded : onPage).map((e) => e.id);
  const [data, hours] = await Promise.all([
    loadCalendarItems(s.db, { ...window, employeeIds: columnIds }),
    loadCalendarHours(s.db, { ...window, employeeIds: columnIds }),
  ]);
  const bookingsBy = byEmployee(data.bookings);
  const sessionsBy = byEmployee(data.sessions);
  const hoursOf = new Map(hours.map((h) => [h.employeeId, h]));
  const todayDate = today.toISODate();
  const columns: Column[] =
    view === 'week'
      ? (weekOf ? days : []).map((d) => ({
          key: d.toISODate()!,
          title: d.toFormat('ccc d LLL'),
          employee: weekOf!,
          day: d,
          hours: hoursOf.get(weekOf!.id)!,
          today: d.toISODate() === todayDate,
        }))
      : onPage.map((e) => ({
          key: e.id,
          title: e.active ? e.name : `${e.name} (inactive)`,
          employee: e,
          day,
          hours: hoursOf.get(e.id)!,
          today: false,
        }));
  const columnCount = columns.length;
  const extent: Interval[] = [
    ...columns.flatMap((c) => c.hours.hours),
    ...columns
      .flatMap((c) => bookingsBy.get(c.employee.id) ?? [])
      .map((b): Interval => [b.startTime.getTime(), b.endTime.getTime()]),
    ...columns
      .flatMap((c) => sessionsBy.get(c.employee.id) ?? [])
      .map((x): Interval => [x.startTime.getTime(), x.endTime.getTime()]),
  ];
  // No staff (or none to show): no grid, a sentence instead.
  const rows =
    columns.length === 0
      ? []
      : gridRows(
          columns.map((c) => c.day),
          view === 'day',
          zone,
          extent,
        );
  const base = companyPath(s.company, '/calendar');
  // A day of all staff keeps its page of columns from day to day.
  const link = (v: string, d: DateTime, e: Employee | null = employee, p = current) =>
    `${base}?view=${v}&date=${d.toISODate()}${e ? `&employee=${e.id}` : ''}${v === 'day' && !e && p > 1 ? `&page=${p}` : ''}`;
  const unit = view === 'week' ? { weeks: 1 } : { days: 1 };
  const bookingsOf = (c: Column, lo: number, hi: number) =>
    (bookingsBy.get(c.employee.id) ?? []).filter((b) => b.startTime.getTime() >= lo && b.startTime.getTime() < hi);
  const sessionsOf = (c: Column, lo: number, hi: number) =>
    (sessionsBy.get(c.employee.id) ?? []).filter((x) => x.startTime.getTime() >= lo && x.startTime.getTime() < hi);
  const held = (c: Column, lo: number, hi: number) =>
    (bookingsBy.get(c.employee.id) ?? []).some(
      (b) => HOLDING.has(b.status) && b.startTime.getTime() < hi && b.endTime.getTime() > lo,
    ) ||
    (sessionsBy.get(c.employee.id) ?? []).some(
      (x) => x.status === 'scheduled' && x.startTime.getTime() < hi && x.endTime.getTime() > lo,
    );
  const heading =
    view === 'week'
      ? `Week of ${from.toFormat('d LLLL yyyy')}${weekOf ? ` · ${weekOf.name}` : ''}`
      : day.toFormat('cccc d LLLL yyyy');

  // A cell says what it is for in its row (a `tr` with the instant, in the day view) and its
  // column (a header with the staff member); only a week view's cell, a day of its own, names
  // its instant. A free cell is a link to book that start (relative to this page,
  // …/companies/:id/calendar), its words for screen readers in one text. (A day of twelve columns is some 400 cells: each element and attribute a cell does not
  // need is paid 400 times in rendering, bytes and garbage.)
  // The page holds while the time stays on today and on the same side of every cell's start
  // (a free cell is one whose start is not past).
  let validFrom = today.toMillis() - 1;
  let validUntil = dayEnd(today) - 1;
  const cell = (c: Column, span: Interval | null, prev: Interval | null, rowLabel: string, startIso: string) => {
    if (!span) {
      return (
        <td class="skipped">
          <span class="muted">Clocks change</span>
        </td>
      );
    }
    const [lo, hi] = span;
    const h = c.hours;
    // The first working interval that overlaps the cell: where a free cell's booking starts.
    let start: number | undefined;
    for (const [ws, we] of h.hours) {
      if (ws < hi && we > lo) {
        start = Math.max(ws, lo);
        break;
      }
    }
    if (start !== undefined) {
      if (start >= now) validUntil = Math.min(validUntil, start);
      else validFrom = Math.max(validFrom, start);
    }
    const on = MARKS.filter(([, , of]) => overlaps(of(h), lo, hi));
    const busy = held(c, lo, hi);
    const free = writer && start !== undefined && on.length === 0 && !busy && start >= now;
    let classes = start === undefined ? 'closed-hours' : 'working';
    if (busy) classes += ' busy';
    if (c.today) classes += ' today';
    for (const [k] of on) classes += ` ${k}`;
    const sessions = sessionsOf(c, lo, hi);
    const bookings = bookingsOf(c, lo, hi);
    const at = start === lo ? startIso : new Date(start ?? lo).toISOString();
    return (
      <td class={classes} data-start={view === 'week' ? startIso : undefined}>
        {on.map(([, label, of]) =>
          // The label once at the start of a run (and at the top of the grid); the cells under it say it to screen readers.
          prev && overlaps(of(h), prev[0], prev[1]) ? (
            <span class="sr-only">{label}</span>
          ) : (
            <span class="mark">{label}</span>
          ),
        )}
        {sessions.length > 0 &&
          sessions.map((x) => <ClassItem session={x} zone={zone} href={companyPath(s.company, `/classes/${x.id}`)} />)}
        {bookings.length > 0 &&
          bookings.map((b) => (
            <BookingItem booking={b} zone={zone} href={companyPath(s.company, `/bookings/${b.id}`)} />
          ))}
        {free && (
          <a class="free" href={`bookings/new?employeeId=${c.employee.id}&start=${at}`}>
            Free
            <span class="sr-only">{` – new booking with ${c.employee.name}, ${view === 'week' ? `${c.title} ${rowLabel}` : rowLabel}`}</span>
          </a>
        )}
      </td>
    );
  };

  const body = (
    <>
      <h1>Calendar</h1>
      <nav class="inline cal-nav" aria-label="Calendar">
        <a class="button" href={link(view, first.minus(unit))}>
          ← Previous {view}
        </a>
        <a
          class="button"
          href={link(view, today)}
          aria-current={days.some((d) => d.toISODate() === todayDate) ? 'date' : undefined}
        >
          Today
        </a>
        <a class="button" href={link(view, first.plus(unit))}>
          Next {view} →
        </a>
        <a class="button" href={link('day', day)} aria-current={view === 'day' ? 'page' : undefined}>
          Day
        </a>
        <a
          class="button"
          href={link('week', day, employee ?? weekOf)}
          aria-current={view === 'week' ? 'page' : undefined}
        >
          Week
        </a>
      </nav>
      <form method="get" action={base} class="inline cal-form">
        <input type="hidden" name="view" value={view} />
        {view === 'day' && current > 1 && <input type="hidden" name="page" value={String(current)} />}
        <div>
          <label for="cal-date">Date</label>
          <br />
          <input id="cal-date" type="date" name="date" value={day.toISODate() ?? ''} required />
        </div>
        <div>
          <label for="cal-employee">Staff member</label>
          <br />
          <select id="cal-employee" name="employee">
            {view === 'day' && <option value="">All staff</option>}
            {employees.map((e) => (
              <option value={e.id} selected={e.id === (employee ?? weekOf)?.id}>
                {e.active ? e.name : `${e.name} (inactive)`}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Show</button>
      </form>
      <h2>
        {heading} <span class="muted">({zone})</span>
      </h2>
      <p class="legend">
        <span class="key working">Working hours (shaded)</span>
        <span class="key">Status in words: {STATUSES.map((st) => STATUS_LABELS[st]).join(', ')}</span>
      </p>
      {data.truncated && (
        <p class="notice warn" role="status">
          There are too many bookings to show them all here; choose one staff member or a day.
        </p>
      )}
      <StaffPages label="Staff pages" paged={paged} href={(p) => link('day', day, null, p)} />
      {columnCount === 0 ? (
        <p class="empty">
          This company has no staff yet. <a href={companyPath(s.company, '/staff')}>Add a staff member</a> and their
          weekly hours: the calendar shows one column each.
        </p>
      ) : (
        <>
          <div class="cal-grid">
            <ScrollTable label={`Calendar grid, ${heading}`}>
              <table class={`calendar ${view}`}>
                <thead>
                  <tr>
                    <th scope="col">Time</th>
                    {columns.map((c) => (
                      <th scope="col" class={c.today ? 'today' : undefined} data-employee={c.employee.id}>
                        {view === 'week' ? (
                          <a href={link('day', c.day, c.employee)}>{c.title}</a>
                        ) : (
                          <a href={link('week', c.day, c.employee)}>{c.title}</a>
                        )}
                        <br />
                        <span class="hours">{hoursText(c.hours.hours, c.day, zone)}</span>
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {rows.map((r, i) => {
                    // A day view's row is one instant for every column: named once, on the row.
                    const shared = view === 'day' && r.spans[0] ? new Date(r.spans[0][0]).toISOString() : undefined;
                    return (
                      <tr data-start={shared}>
                        <th scope="row">{r.label}</th>
                        {columns.map((c, j) => {
                          const span = r.spans[j] ?? null;
                          return cell(
                            c,
                            span,
                            i > 0 ? (rows[i - 1]!.spans[j] ?? null) : null,
                            r.label,
                            shared ?? (span ? new Date(span[0]).toISOString() : ''),
                          );
                        })}
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </ScrollTable>
          </div>
          <div class="cal-agenda">
            {columns.map((c) => (
              <Agenda
                title={view === 'week' ? c.day.toFormat('cccc d LLLL') : c.title}
                column={c}
                zone={zone}
                bookings={bookingsOf(c, c.day.toMillis(), dayEnd(c.day))}
                sessions={sessionsOf(c, c.day.toMillis(), dayEnd(c.day))}
                bookingHref={(id) => companyPath(s.company, `/bookings/${id}`)}
                classHref={(id) => companyPath(s.company, `/classes/${id}`)}
                newHref={writer ? companyPath(s.company, `/bookings/new?employeeId=${c.employee.id}`) : null}
              />
            ))}
          </div>
        </>
      )}
    </>
  );
  return { html: renderFragment(body), validFrom, validUntil };
}

function BookingItem({ booking: b, zone, href }: { booking: Booking; zone: string; href: string }) {
  return (
    <a class={`booking ${b.status}`} href={href}>
      {clockTime(b.startTime.getTime(), zone)}–{clockTime(b.endTime.getTime(), zone)} {b.customer.name}
      <br />
      <span class="muted">
        {b.service.name} · {STATUS_LABELS[b.status] ?? b.status}
      </span>
    </a>
  );
}

function ClassItem({ session: x, zone, href }: { session: Session; zone: string; href: string }) {
  return (
    <a class={`booking class-session ${x.status}`} href={href}>
      {clockTime(x.startTime.getTime(), zone)}–{clockTime(x.endTime.getTime(), zone)} {x.service.name}
      <br />
      <span class="muted">
        Class · {x.bookedCount}/{x.capacity} booked{x.status === 'cancelled' ? ' · Cancelled' : ''}
      </span>
    </a>
  );
}

/** The phone's form of a column: its day as a list, in time order. */
function Agenda(p: {
  title: string;
  column: Column;
  zone: string;
  bookings: Booking[];
  sessions: Session[];
  bookingHref: (id: string) => string;
  classHref: (id: string) => string;
  newHref: string | null;
}) {
  const { column: c, zone } = p;
  const items: Array<[number, ComponentChildren]> = [
    ...p.sessions.map((x): [number, ComponentChildren] => [
      x.startTime.getTime(),
      <ClassItem session={x} zone={zone} href={p.classHref(x.id)} />,
    ]),
    ...p.bookings.map((b): [number, ComponentChildren] => [
      b.startTime.getTime(),
      <BookingItem booking={b} zone={zone} href={p.bookingHref(b.id)} />,
    ]),
  ].sort((a, b) => a[0] - b[0]);
  const marks: Array<[string, Interval[]]> = [
    ['Closed', c.hours.closures],
    ['Time off', c.hours.timeOff],
    ['Busy (outside calendar)', c.hours.externalBusy],
  ];
  return (
    <section class="agenda-day">
      <h3>{p.title}</h3>
      <p class="muted">Working hours: {hoursText(c.hours.hours, c.day, zone)}</p>
      {marks.map(([label, list]) => {
        const text = hoursText(list, c.day, zone, '');
        return text ? (
          <p class="mark">
            {label}: {text}
          </p>
        ) : null;
      })}
      {items.length === 0 ? (
        <p class="empty">Nothing booked.</p>
      ) : (
        <ul class="cal-list">
          {items.map(([, item]) => (
            <li>{item}</li>
          ))}
        </ul>
      )}
      {p.newHref && (
        <p>
          <a href={p.newHref}>New booking with {c.employee.name}</a>
        </p>
      )}
    </section>
  );
}
