// One booking of a company (docs/admin.md) with everything about it: its fields, customer, payments and refunds,
// reminders, e-mails, events (the same events the API and webhooks carry) and answers, with the
// buttons of the actions its state allows (booking-actions.tsx; a new booking: booking-new.tsx).
import type { FastifyInstance } from 'fastify';
import { DateTime } from 'luxon';
import type { ComponentChildren } from 'preact';
import { domainNow } from '../../schema/domain-time.js';
import { listBookingEmails } from '../../schema/emails/index.js';
import { listBookingEvents } from '../../schema/bookings/index.js';
import { listBookingNotifications } from '../../schema/notifications/index.js';
import type { Services } from '../../services.js';
import { formatTime, money, sendAdmin, TimeTag } from '../http.js';
import { DoneNotice } from '../components/fields.js';
import { DataTable, EventTable } from '../components/data-table.js';
import { bookingStatus, paymentKind, paymentStatus, reminderReason, reminderStatus } from '../words.js';
import { adminPage, companyPath, FieldRows, maySee, mayWrite, MetadataFields } from '../layout.js';
import { paramsOf, queryOf, companyRoutes } from '../scope.js';
import { allowedActions, BOOKING_DONE, bookingOf, refundable, registerBookingActionRoutes } from './booking-actions.js';
import { STATUS_LABELS } from './booking-forms.js';
import { registerNewBookingRoutes } from './booking-new.js';

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

export function registerBookingRoutes(app: FastifyInstance, services: Services): void {
  const pages = companyRoutes(app, services, 'bookings');
  // Before /bookings/:bookingId is matched: the new-booking page and the actions' pages.
  registerNewBookingRoutes(app, services);
  registerBookingActionRoutes(app, services);

  pages.get('/:mode/companies/:companyId/bookings/:bookingId', async (s, req, reply) => {
    const id = paramsOf(req).bookingId;
    const b = await bookingOf(s, id);
    const events = await listBookingEvents(s.db, { companyId: s.company.id, bookingId: b.id, limit: 200 });
    const reminders = await listBookingNotifications(s.db, { companyId: s.company.id, bookingId: b.id, limit: 200 });
    const emails = await listBookingEmails(s.db, {
      companyId: s.company.id,
      eventIds: events.map((e) => e.id),
      notificationIds: reminders.map((n) => n.id),
      limit: 200,
    });
    const now = await domainNow(s.db, s.company);
    // A viewer reads only: no action buttons (the guard refuses their posts too).
    const allowed = mayWrite(s.ctx) ? allowedActions(b, now) : new Set<string>();
    const refunds = mayWrite(s.ctx) && maySee(s.ctx, 'payments');
    const zone = s.company.timezone;
    const page = companyPath(s.company, `/bookings/${b.id}`);
    const week = DateTime.fromJSDate(b.startTime).setZone(zone).toISODate();
    const none = <span class="muted">—</span>;
    const code = (v: string | null) => (v ? <code>{v}</code> : none);
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
      b.customer.phone ? ['Phone', b.customer.phone] : null,
      ['Service', b.service.name],
      ['Staff', <a href={companyPath(s.company, `/staff/${b.employee.id}`)}>{b.employee.name}</a>],
      b.location ? ['Location', b.location.name] : null,
      b.resourceHolds.length > 0
        ? ['Rooms and equipment', b.resourceHolds.map((h) => h.resource.name).join(', ')]
        : null,
      b.classSessionId
        ? ['Class session', <a href={companyPath(s.company, `/classes/${b.classSessionId}`)}>{b.classSessionId}</a>]
        : null,
      ['Price', money(b.price, b.currency)],
      ['Notes', b.notes || none],
      b.depositAmount != null ? ['Deposit', money(b.depositAmount, b.currency)] : null,
      b.cancelledBy ? ['Cancelled by', b.cancelledBy === 'customer' ? 'The customer' : 'The business'] : null,
      b.cancellationFee != null ? ['Cancellation fee', money(b.cancellationFee, b.currency)] : null,
      b.cancelReason ? ['Cancel reason', b.cancelReason] : null,
      b.holdExpiresAt ? ['Hold expires', <TimeTag at={b.holdExpiresAt} zone={zone} />] : null,
      b.waitlistPosition != null ? ['Place on the waitlist', String(b.waitlistPosition)] : null,
      b.offerExpiresAt ? ['Offer expires', <TimeTag at={b.offerExpiresAt} zone={zone} />] : null,
      b.expiredReason
        ? ['Why it expired', b.expiredReason === 'hold_lapsed' ? 'Not paid in time' : 'Offer not taken in time']
        : null,
      ['Customer time zone', b.customerTimeZone ?? none],
      b.seriesId ? ['Series', code(b.seriesId)] : null,
      b.visitId ? ['Visit', code(b.visitId)] : null,
      ['Booking id', <code>{b.id}</code>],
      ['Created', <TimeTag at={b.createdAt} zone={zone} />],
      ['Last changed', <TimeTag at={b.updatedAt} zone={zone} />],
    ];
    const body = (
      <>
        <h1>
          Booking <span class={`badge ${b.status}`}>{STATUS_LABELS[b.status]}</span>
        </h1>
        <p>
          <a href={companyPath(s.company, `/bookings?week=${week}`)}>← Back to the week</a>
        </p>
        <DoneNotice done={queryOf(req).done} table={BOOKING_DONE} />
        <FieldRows rows={rows} />
        {allowed.size > 0 && (
          <nav class="inline" aria-label="Booking actions">
            {allowed.has('confirm') && (
              <a class="button primary" href={`${page}/confirm`}>
                Confirm…
              </a>
            )}
            {allowed.has('complete') && (
              <a class="button" href={`${page}/complete`}>
                Mark completed…
              </a>
            )}
            {allowed.has('no-show') && (
              <a class="button" href={`${page}/no-show`}>
                Mark as no-show…
              </a>
            )}
            {allowed.has('reschedule') && (
              <a class="button" href={`${page}/reschedule`}>
                Move…
              </a>
            )}
            {allowed.has('cancel') && (
              <a class="button danger" href={`${page}/cancel`}>
                Cancel…
              </a>
            )}
          </nav>
        )}
        <AnswersPanel answers={b.answers} />
        <MetadataPanel metadata={b.metadata} />
        <h2>Payments</h2>
        <DataTable
          label="Payments"
          rows={b.payments}
          empty="No payments."
          columns={[
            { label: 'Amount', cell: (p) => money(p.amount, p.currency) },
            { label: 'Kind', cell: (p) => paymentKind(p.kind) },
            {
              label: 'Refunded',
              cell: (p) =>
                p.amountRefunded ? (
                  <>
                    {money(p.amountRefunded, p.currency)}
                    {p.refundedAt && (
                      <>
                        {' '}
                        <span class="muted">
                          (last <TimeTag at={p.refundedAt} zone={zone} />)
                        </span>
                      </>
                    )}
                  </>
                ) : (
                  '—'
                ),
            },
            { label: 'Status', cell: (p) => <span class={`badge ${p.status}`}>{paymentStatus(p.status)}</span> },
            { label: 'Card', cell: (p) => (p.brand ? `${p.brand} …${p.last4}` : '—') },
            { label: 'Created', cell: (p) => <TimeTag at={p.createdAt} zone={zone} /> },
            {
              label: 'Refund',
              cell: (p) =>
                refunds && refundable(p) ? (
                  <a
                    href={companyPath(s.company, `/payments/${p.id}#f-amount`)}
                    aria-label={`Refund the payment of ${money(p.amount, p.currency)}`}
                  >
                    Refund…
                  </a>
                ) : (
                  '—'
                ),
            },
          ]}
        />
        <h2>Reminders</h2>
        <DataTable
          label="Reminders"
          rows={reminders}
          empty="No reminders planned."
          columns={[
            { label: 'Due', cell: (n) => <TimeTag at={n.dueAt} zone={zone} /> },
            { label: 'Before the start', cell: (n) => beforeStart(n.offsetMinutes) },
            { label: 'Channel', cell: (n) => (n.channel === 'email' ? 'E-mail' : 'Webhook') },
            { label: 'Status', cell: (n) => <span class={`badge ${n.status}`}>{reminderStatus(n.status)}</span> },
            { label: 'Sent', cell: (n) => (n.sentAt ? <TimeTag at={n.sentAt} zone={zone} /> : '—') },
            { label: 'Why', cell: (n) => reminderReason(n.reason) },
          ]}
        />
        <h2>E-mails</h2>
        <DataTable
          label="E-mails"
          rows={emails}
          empty="No e-mails about this booking yet."
          columns={[
            { label: 'Created', cell: (m) => <TimeTag at={m.createdAt} zone={zone} /> },
            { label: 'To', cell: (m) => m.to },
            { label: 'Subject', cell: (m) => <a href={companyPath(s.company, `/emails/${m.id}`)}>{m.subject}</a> },
            { label: 'Status', cell: (m) => <span class={`badge ${m.status}`}>{m.status}</span> },
          ]}
        />
        <h2>Events</h2>
        <EventTable
          events={events}
          zone={zone}
          then={{
            label: 'Status then',
            cell: (e) => {
              const status = (e.data as { status?: string }).status ?? '';
              return e.type.startsWith('payment.') ? paymentStatus(status) : bookingStatus(status);
            },
          }}
        />
      </>
    );
    return sendAdmin(reply, 200, adminPage(s.ctx, 'Booking', body, { crumbs: 'Bookings' }));
  });
}
