// The week view of a company's bookings (docs/admin.md): one row per employee, one column per day
// of the week in the company's time zone (DST-correct through luxon), each booking coloured by
// status.
import type { FastifyInstance } from 'fastify';
import { DateTime } from 'luxon';
import { isId } from '../../ids.js';
import { listBookingsStarting } from '../../schema/bookings/index.js';
import { listEmployeesByName } from '../../schema/staff/index.js';
import type { Services } from '../../services.js';
import { ScrollTable, sendAdmin } from '../http.js';
import { adminPage, companyPath } from '../layout.js';
import { companyScope, queryOf } from '../scope.js';

const STATUSES = ['pending', 'confirmed', 'completed', 'cancelled', 'no_show', 'expired'] as const;
const STATUS_LABELS: Record<string, string> = {
  pending: 'Pending',
  confirmed: 'Confirmed',
  completed: 'Completed',
  cancelled: 'Cancelled',
  no_show: 'No-show',
  expired: 'Expired',
  waitlisted: 'Waitlisted',
  offered: 'Offered',
};

function weekStart(param: unknown, zone: string): DateTime {
  const given =
    typeof param === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(param) ? DateTime.fromISO(param, { zone }) : null;
  const day = given?.isValid ? given : DateTime.now().setZone(zone);
  return day.startOf('week'); // ISO weeks start on Monday
}

/** A table's header row. */
const Head = ({ cols }: { cols: string[] }) => (
  <thead>
    <tr>
      {cols.map((c) => (
        <th scope="col">{c}</th>
      ))}
    </tr>
  </thead>
);

export function registerCalendarRoutes(app: FastifyInstance, services: Services): void {
  app.get('/:mode/companies/:companyId/bookings', { schema: { hide: true } }, async (req, reply) => {
    const s = await companyScope(services, req, 'bookings');
    const zone = s.company.timezone;
    const q = queryOf(req);
    const start = weekStart(q.week, zone);
    const days = Array.from({ length: 7 }, (_, i) => start.plus({ days: i }));
    const end = start.plus({ weeks: 1 });
    // Staff see their own employee's week only (docs/admin.md, Team and roles).
    const employees = (await listEmployeesByName(s.db, s.company.id)).filter(
      (e) => !s.staffEmployeeId || e.id === s.staffEmployeeId,
    );
    const only =
      s.staffEmployeeId ?? (isId(q.employee) && employees.some((e) => e.id === q.employee) ? q.employee : null);
    const bookings = await listBookingsStarting(s.db, {
      companyId: s.company.id,
      from: start.toJSDate(),
      to: end.toJSDate(),
      employeeId: only,
      limit: 2000,
    });
    const today = DateTime.now().setZone(zone).toISODate();
    const shown = only ? employees.filter((e) => e.id === only) : employees;
    const base = companyPath(s.company, '/bookings');
    const keep = only ? `&employee=${only}` : '';
    const body = (
      <>
        <h1>Bookings</h1>
        <div class="inline">
          <a
            class="button"
            href={`${base}?week=${start.minus({ weeks: 1 }).toISODate()}${keep}`}
            aria-label="Previous week"
          >
            ← Previous
          </a>
          <a class="button" href={`${base}?week=${DateTime.now().setZone(zone).toISODate()}${keep}`}>
            This week
          </a>
          <a class="button" href={`${base}?week=${start.plus({ weeks: 1 }).toISODate()}${keep}`} aria-label="Next week">
            Next →
          </a>
          <form method="get" action={base} class="inline">
            <input type="hidden" name="week" value={start.toISODate() ?? ''} />
            <div>
              <label for="employee">Employee</label>
              <br />
              <select id="employee" name="employee">
                <option value="">All employees</option>
                {employees.map((e) => (
                  <option value={e.id} selected={e.id === only}>
                    {e.name}
                  </option>
                ))}
              </select>
            </div>
            <button type="submit">Show</button>
          </form>
        </div>
        <h2>
          Week of {start.toFormat('d LLLL yyyy')} <span class="muted">({zone})</span>
        </h2>
        <div class="legend" aria-label="Status colours">
          {STATUSES.map((st) => (
            <span class={`booking ${st}`}>{STATUS_LABELS[st]}</span>
          ))}
        </div>
        {employees.length === 0 ? (
          <p class="empty">This company has no employees yet.</p>
        ) : (
          <ScrollTable label="Week">
            <table class="week">
              <Head cols={['Employee', ...days.map((d) => d.toFormat('ccc d LLL'))]} />
              <tbody>
                {shown.map((e) => (
                  <tr>
                    <th scope="row">
                      {e.name}
                      {!e.active && (
                        <>
                          {' '}
                          <span class="muted">(inactive)</span>
                        </>
                      )}
                    </th>
                    {days.map((d) => {
                      const dayEnd = d.plus({ days: 1 });
                      return (
                        <td class={d.toISODate() === today ? 'today' : undefined}>
                          {bookings
                            .filter(
                              (b) =>
                                b.employeeId === e.id && b.startTime >= d.toJSDate() && b.startTime < dayEnd.toJSDate(),
                            )
                            .map((b) => (
                              <a class={`booking ${b.status}`} href={companyPath(s.company, `/bookings/${b.id}`)}>
                                {DateTime.fromJSDate(b.startTime).setZone(zone).toFormat('HH:mm')} {b.customer.name}
                                <br />
                                <span class="muted">
                                  {b.service.name} · {STATUS_LABELS[b.status]}
                                </span>
                              </a>
                            ))}
                        </td>
                      );
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollTable>
        )}
        <p class="muted">
          {bookings.length} booking{bookings.length === 1 ? '' : 's'} this week.
        </p>
      </>
    );
    return sendAdmin(reply, 200, adminPage(s.ctx, 'Bookings', body));
  });
}
