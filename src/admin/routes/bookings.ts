// Bookings of a company as a week view (docs/admin.md): one row per employee, one column per day
// of the week in the company's time zone (DST-correct through luxon), each booking coloured by
// status; and one booking with its events (the same events the API and webhooks carry).
import type { FastifyInstance } from 'fastify';
import { DateTime } from 'luxon';
import { esc } from '../../auth/pages/html.js';
import { isId } from '../../ids.js';
import { findBookingWithDetails } from '../../schema/find-records.js';
import { listBookingEvents, listBookingsStarting } from '../../schema/bookings/index.js';
import { listBookingNotifications } from '../../schema/notifications/index.js';
import { listEmployeesByName } from '../../schema/staff/index.js';
import type { Services } from '../../services.js';
import { formatTime, money, sendAdmin, timeTag } from '../http.js';
import { adminPage, companyPath } from '../layout.js';
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
function answersPanel(answers: unknown): string {
  const list = Array.isArray(answers) ? (answers as Array<{ label: string; value: unknown }>) : [];
  if (list.length === 0) return '';
  const shown = (v: unknown) =>
    typeof v === 'boolean' ? (v ? 'Yes' : 'No') : Array.isArray(v) ? v.join(', ') : String(v);
  return `<h2>Answers</h2><div class="panel"><dl class="fields">${list.map((a) => `<dt>${esc(a.label)}</dt><dd>${esc(shown(a.value))}</dd>`).join('')}</dl></div>`;
}

/** The integration's metadata of the booking, key by key. */
function metadataPanel(metadata: unknown): string {
  const entries = metadata && typeof metadata === 'object' ? Object.entries(metadata as Record<string, unknown>) : [];
  if (entries.length === 0) return '';
  return `<h2>Metadata</h2><div class="panel"><dl class="fields">${entries.map(([k, v]) => `<dt><code>${esc(k)}</code></dt><dd>${esc(String(v))}</dd>`).join('')}</dl></div>`;
}

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
    const rows = shown.map((e) => {
      const cells = days.map((d) => {
        const dayEnd = d.plus({ days: 1 });
        const items = bookings
          .filter((b) => b.employeeId === e.id && b.startTime >= d.toJSDate() && b.startTime < dayEnd.toJSDate())
          .map((b) => {
            const t = DateTime.fromJSDate(b.startTime).setZone(zone).toFormat('HH:mm');
            return `<a class="booking ${b.status}" href="${companyPath(s.company, `/bookings/${b.id}`)}">${esc(t)} ${esc(b.customer.name)}<br><span class="muted">${esc(b.service.name)} · ${esc(STATUS_LABELS[b.status])}</span></a>`;
          });
        return `<td${d.toISODate() === today ? ' class="today"' : ''}>${items.join('')}</td>`;
      });
      return `<tr><th scope="row">${esc(e.name)}${e.active ? '' : ' <span class="muted">(inactive)</span>'}</th>${cells.join('')}</tr>`;
    });
    const base = companyPath(s.company, '/bookings');
    const keep = only ? `&employee=${only}` : '';
    const options = employees
      .map((e) => `<option value="${e.id}"${e.id === only ? ' selected' : ''}>${esc(e.name)}</option>`)
      .join('');
    const body = `<h1>Bookings</h1>
      <div class="inline">
        <a class="button" href="${base}?week=${start.minus({ weeks: 1 }).toISODate()}${keep}" aria-label="Previous week">← Previous</a>
        <a class="button" href="${base}?week=${DateTime.now().setZone(zone).toISODate()}${keep}">This week</a>
        <a class="button" href="${base}?week=${start.plus({ weeks: 1 }).toISODate()}${keep}" aria-label="Next week">Next →</a>
        <form method="get" action="${base}" class="inline">
          <input type="hidden" name="week" value="${start.toISODate()}">
          <div><label for="employee">Employee</label><br><select id="employee" name="employee"><option value="">All employees</option>${options}</select></div>
          <button type="submit">Show</button>
        </form>
      </div>
      <h2>Week of ${esc(start.toFormat('d LLLL yyyy'))} <span class="muted">(${esc(zone)})</span></h2>
      <div class="legend" aria-label="Status colours">${STATUSES.map((st) => `<span class="booking ${st}">${STATUS_LABELS[st]}</span>`).join('')}</div>
      ${
        employees.length === 0
          ? '<p class="empty">This company has no employees yet.</p>'
          : `<table class="week">
        <thead><tr><th scope="col">Employee</th>${days.map((d) => `<th scope="col">${esc(d.toFormat('ccc d LLL'))}</th>`).join('')}</tr></thead>
        <tbody>${rows.join('')}</tbody></table>`
      }
      <p class="muted">${bookings.length} booking${bookings.length === 1 ? '' : 's'} this week.</p>`;
    return sendAdmin(reply, 200, adminPage(s.ctx, 'Bookings', body));
  });

  app.get('/:mode/companies/:companyId/bookings/:bookingId', { schema: { hide: true } }, async (req, reply) => {
    const s = await companyScope(services, req, 'bookings');
    const id = paramsOf(req).bookingId;
    const b = await findBookingWithDetails(s.db, s.company.id, id);
    const events = await listBookingEvents(s.db, { companyId: s.company.id, bookingId: b.id, limit: 200 });
    const reminders = await listBookingNotifications(s.db, { companyId: s.company.id, bookingId: b.id, limit: 200 });
    const zone = s.company.timezone;
    const row = (label: string, value: string) => `<dt>${esc(label)}</dt><dd>${value}</dd>`;
    const week = DateTime.fromJSDate(b.startTime).setZone(zone).toISODate();
    const body = `<h1>Booking <span class="badge ${b.status}">${esc(STATUS_LABELS[b.status])}</span></h1>
      <p><a href="${companyPath(s.company, `/bookings?week=${week}`)}">← Back to the week</a></p>
      <div class="panel"><dl class="fields">
        ${row('When', `${esc(formatTime(b.startTime, zone))} – ${esc(DateTime.fromJSDate(b.endTime).setZone(zone).toFormat('HH:mm'))} <span class="muted">(${esc(zone)})</span>`)}
        ${row('Customer', `${esc(b.customer.name)} &lt;${esc(b.customer.email)}&gt;`)}
        ${row('Service', esc(b.service.name))}
        ${row('Employee', esc(b.employee.name))}
        ${row('Price', money(b.price, b.currency))}
        ${row('Notes', b.notes ? esc(b.notes) : '<span class="muted">—</span>')}
        ${b.depositAmount != null ? row('Deposit', money(b.depositAmount, b.currency)) : ''}
        ${b.cancelledBy ? row('Cancelled by', b.cancelledBy === 'customer' ? 'The customer' : 'The business') : ''}
        ${b.cancellationFee != null ? row('Cancellation fee', money(b.cancellationFee, b.currency)) : ''}
        ${b.cancelReason ? row('Cancel reason', esc(b.cancelReason)) : ''}
        ${b.holdExpiresAt ? row('Hold expires', timeTag(b.holdExpiresAt)) : ''}
        ${row('Booking id', `<code>${esc(b.id)}</code>`)}
        ${row('Created', timeTag(b.createdAt))}
      </dl></div>
      ${answersPanel(b.answers)}
      ${metadataPanel(b.metadata)}
      ${
        b.payments.length
          ? `<h2>Payments</h2><table><thead><tr><th scope="col">Amount</th><th scope="col">Kind</th><th scope="col">Refunded</th><th scope="col">Status</th><th scope="col">Card</th><th scope="col">Created</th></tr></thead><tbody>
        ${b.payments.map((p) => `<tr><td>${money(p.amount, p.currency)}</td><td>${esc(p.kind)}</td><td>${p.amountRefunded ? money(p.amountRefunded, p.currency) : '—'}</td><td><span class="badge ${esc(p.status)}">${esc(p.status.replace('_', ' '))}</span></td><td>${p.brand ? `${esc(p.brand)} …${esc(p.last4)}` : '—'}</td><td>${timeTag(p.createdAt)}</td></tr>`).join('')}</tbody></table>`
          : ''
      }
      <h2>Reminders</h2>
      ${
        reminders.length === 0
          ? '<p class="empty">No reminders planned.</p>'
          : `<table><thead><tr><th scope="col">Due</th><th scope="col">Before the start</th><th scope="col">Channel</th><th scope="col">Status</th><th scope="col">Sent</th><th scope="col">Reason</th></tr></thead><tbody>
        ${reminders.map((n) => `<tr><td>${timeTag(n.dueAt)}</td><td>${esc(beforeStart(n.offsetMinutes))}</td><td>${esc(n.channel === 'email' ? 'E-mail' : 'Webhook')}</td><td><span class="badge ${esc(n.status)}">${esc(n.status)}</span></td><td>${n.sentAt ? timeTag(n.sentAt) : '—'}</td><td>${n.reason ? `<code>${esc(n.reason)}</code>` : '—'}</td></tr>`).join('')}</tbody></table>`
      }
      <h2>Events</h2>
      ${
        events.length === 0
          ? '<p class="empty">No events.</p>'
          : `<table><thead><tr><th scope="col">Time</th><th scope="col">Type</th><th scope="col">Event id</th><th scope="col">Status then</th></tr></thead><tbody>
        ${events.map((e) => `<tr><td>${timeTag(e.createdAt)}</td><td><code>${esc(e.type)}</code></td><td><code>${esc(e.id)}</code></td><td>${esc((e.data as { status?: string }).status ?? '')}</td></tr>`).join('')}</tbody></table>`
      }`;
    return sendAdmin(reply, 200, adminPage(s.ctx, 'Booking', body, { crumbs: 'Bookings' }));
  });
}
