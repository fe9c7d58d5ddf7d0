// Bookings of a company as a week view (docs/admin.md): one row per employee, one column per day
// of the week in the company's time zone (DST-correct through luxon), each booking coloured by
// status; and one booking with its events (the same events the API and webhooks carry).
import type { FastifyInstance } from 'fastify';
import { DateTime } from 'luxon';
import type { ComponentChildren } from 'preact';
import { isId } from '../../ids.js';
import { findBookingWithDetails } from '../../schema/find-records.js';
import { listBookingEvents, listBookingsStarting } from '../../schema/bookings/index.js';
import { listBookingNotifications } from '../../schema/notifications/index.js';
import { listEmployeesByName } from '../../schema/staff/index.js';
import type { Services } from '../../services.js';
import { formatTime, money, ScrollTable, sendAdmin, TimeTag } from '../http.js';
import { adminPage, companyPath, MetadataFields } from '../layout.js';
import { companyScope, paramsOf, queryOf } from '../scope.js';

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

/** "24 h", "1 h 30 min", "45 min": how long before the start a reminder is due. */
function beforeStart(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return [h ? `${h} h` : '', m ? `${m} min` : ''].filter(Boolean).join(' ');
}

function weekStart(param: unknown, zone: string): DateTime {
  const given =
    typeof param === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(param) ? DateTime.fromISO(param, { zone }) : null;
  const day = given?.isValid ? given : DateTime.now().setZone(zone);
  return day.startOf('week'); // ISO weeks start on Monday
}

/** The answers to the service's questions, labelled as they were asked (docs/admin.md). */
function AnswersPanel({ answers }: { answers: unknown }) {
  const list = Array.isArray(answers) ? (answers as Array<{ label: string; value: unknown }>) : [];
  if (list.length === 0) return null;
  const shown = (v: unknown) =>
    typeof v === 'boolean' ? (v ? 'Yes' : 'No') : Array.isArray(v) ? v.join(', ') : String(v);
  return (
    <>
      <h2>Answers</h2>
      <div class="panel">
        <dl class="fields">
          {list.map((a) => (
            <>
              <dt>{a.label}</dt>
              <dd>{shown(a.value)}</dd>
            </>
          ))}
        </dl>
      </div>
    </>
  );
}

/** The integration's metadata of the booking, key by key. */
function MetadataPanel({ metadata }: { metadata: unknown }) {
  const entries = metadata && typeof metadata === 'object' ? Object.entries(metadata as Record<string, unknown>) : [];
  if (entries.length === 0) return null;
  return (
    <>
      <h2>Metadata</h2>
      <MetadataFields entries={entries} />
    </>
  );
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

export function registerBookingRoutes(app: FastifyInstance, services: Services): void {
  app.get('/:mode/companies/:companyId/bookings', { schema: { hide: true } }, async (req, reply) => {
    const s = await companyScope(services, req, 'bookings');
    const zone = s.company.timezone;
    const q = queryOf(req);
    const start = weekStart(q.week, zone);
    const days = Array.from({ length: 7 }, (_, i) => start.plus({ days: i }));
    const end = start.plus({ weeks: 1 });
    const employees = await listEmployeesByName(s.db, s.company.id);
    const only = isId(q.employee) && employees.some((e) => e.id === q.employee) ? q.employee : null;
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

  app.get('/:mode/companies/:companyId/bookings/:bookingId', { schema: { hide: true } }, async (req, reply) => {
    const s = await companyScope(services, req, 'bookings');
    const id = paramsOf(req).bookingId;
    const b = await findBookingWithDetails(s.db, s.company.id, id);
    const events = await listBookingEvents(s.db, { companyId: s.company.id, bookingId: b.id, limit: 200 });
    const reminders = await listBookingNotifications(s.db, { companyId: s.company.id, bookingId: b.id, limit: 200 });
    const zone = s.company.timezone;
    const week = DateTime.fromJSDate(b.startTime).setZone(zone).toISODate();
    const none = <span class="muted">—</span>;
    const rows: Array<[string, ComponentChildren] | null> = [
      [
        'When',
        <>
          {formatTime(b.startTime, zone)} – {DateTime.fromJSDate(b.endTime).setZone(zone).toFormat('HH:mm')}{' '}
          <span class="muted">({zone})</span>
        </>,
      ],
      [
        'Customer',
        <a
          href={companyPath(s.company, `/customers/${b.customer.id}`)}
        >{`${b.customer.name} <${b.customer.email}>`}</a>,
      ],
      ['Service', b.service.name],
      ['Employee', b.employee.name],
      ['Price', money(b.price, b.currency)],
      ['Notes', b.notes || none],
      b.depositAmount != null ? ['Deposit', money(b.depositAmount, b.currency)] : null,
      b.cancelledBy ? ['Cancelled by', b.cancelledBy === 'customer' ? 'The customer' : 'The business'] : null,
      b.cancellationFee != null ? ['Cancellation fee', money(b.cancellationFee, b.currency)] : null,
      b.cancelReason ? ['Cancel reason', b.cancelReason] : null,
      b.holdExpiresAt ? ['Hold expires', <TimeTag at={b.holdExpiresAt} />] : null,
      ['Booking id', <code>{b.id}</code>],
      ['Created', <TimeTag at={b.createdAt} />],
    ];
    const body = (
      <>
        <h1>
          Booking <span class={`badge ${b.status}`}>{STATUS_LABELS[b.status]}</span>
        </h1>
        <p>
          <a href={companyPath(s.company, `/bookings?week=${week}`)}>← Back to the week</a>
        </p>
        <div class="panel">
          <dl class="fields">
            {rows.map(
              (r) =>
                r && (
                  <>
                    <dt>{r[0]}</dt>
                    <dd>{r[1]}</dd>
                  </>
                ),
            )}
          </dl>
        </div>
        <AnswersPanel answers={b.answers} />
        <MetadataPanel metadata={b.metadata} />
        {b.payments.length > 0 && (
          <>
            <h2>Payments</h2>
            <ScrollTable label="Payments">
              <table>
                <Head cols={['Amount', 'Kind', 'Refunded', 'Status', 'Card', 'Created']} />
                <tbody>
                  {b.payments.map((p) => (
                    <tr>
                      <td>{money(p.amount, p.currency)}</td>
                      <td>{p.kind}</td>
                      <td>{p.amountRefunded ? money(p.amountRefunded, p.currency) : '—'}</td>
                      <td>
                        <span class={`badge ${p.status}`}>{p.status.replace('_', ' ')}</span>
                      </td>
                      <td>{p.brand ? `${p.brand} …${p.last4}` : '—'}</td>
                      <td>
                        <TimeTag at={p.createdAt} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollTable>
          </>
        )}
        <h2>Reminders</h2>
        {reminders.length === 0 ? (
          <p class="empty">No reminders planned.</p>
        ) : (
          <ScrollTable label="Reminders">
            <table>
              <Head cols={['Due', 'Before the start', 'Channel', 'Status', 'Sent', 'Reason']} />
              <tbody>
                {reminders.map((n) => (
                  <tr>
                    <td>
                      <TimeTag at={n.dueAt} />
                    </td>
                    <td>{beforeStart(n.offsetMinutes)}</td>
                    <td>{n.channel === 'email' ? 'E-mail' : 'Webhook'}</td>
                    <td>
                      <span class={`badge ${n.status}`}>{n.status}</span>
                    </td>
                    <td>{n.sentAt ? <TimeTag at={n.sentAt} /> : '—'}</td>
                    <td>{n.reason ? <code>{n.reason}</code> : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollTable>
        )}
        <h2>Events</h2>
        {events.length === 0 ? (
          <p class="empty">No events.</p>
        ) : (
          <ScrollTable label="Events">
            <table>
              <Head cols={['Time', 'Type', 'Event id', 'Status then']} />
              <tbody>
                {events.map((e) => (
                  <tr>
                    <td>
                      <TimeTag at={e.createdAt} />
                    </td>
                    <td>
                      <code>{e.type}</code>
                    </td>
                    <td>
                      <code>{e.id}</code>
                    </td>
                    <td>{(e.data as { status?: string }).status ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollTable>
        )}
      </>
    );
    return sendAdmin(reply, 200, adminPage(s.ctx, 'Booking', body, { crumbs: 'Bookings' }));
  });
}
