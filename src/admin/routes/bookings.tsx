// One booking of a company with its events (docs/admin.md; the same events the API and webhooks
// carry). The week view of all bookings is src/admin/routes/calendar.tsx.
import type { FastifyInstance } from 'fastify';
import { DateTime } from 'luxon';
import type { ComponentChildren } from 'preact';
import { findBookingWithDetails } from '../../schema/find-records.js';
import { listBookingEvents } from '../../schema/bookings/index.js';
import { listBookingNotifications } from '../../schema/notifications/index.js';
import type { Services } from '../../services.js';
import { AdminNotFound, formatTime, money, ScrollTable, sendAdmin, TimeTag } from '../http.js';
import { adminPage, companyPath, MetadataFields } from '../layout.js';
import { companyScope, paramsOf } from '../scope.js';

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
  app.get('/:mode/companies/:companyId/bookings/:bookingId', { schema: { hide: true } }, async (req, reply) => {
    const s = await companyScope(services, req, 'bookings');
    const id = paramsOf(req).bookingId;
    const b = await findBookingWithDetails(s.db, s.company.id, id);
    // Staff: another employee's booking is not theirs to see.
    if (s.staffEmployeeId && b.employeeId !== s.staffEmployeeId) throw new AdminNotFound('booking');
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
