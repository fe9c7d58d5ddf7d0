// The views of Company > Customers (routes/customers.tsx holds the handlers, the search and
// the staff gate): one customer's page with their bookings, payments, notes, metadata and the
// edit form, and the erase confirmation's counts.
import type { ComponentChildren } from 'preact';
import type { Customer } from '../../generated/prisma/client.js';
import { customerOverview, type ErasurePreview } from '../../schema/customers/index.js';
import { DataTable } from '../components/data-table.js';
import { bookingStatus, paymentKind, paymentStatus } from '../words.js';
import { money, TimeTag } from '../http.js';
import { fieldsOf, FormError, TextArea } from '../components/fields.js';
import { adminPage, companyPath, CsrfField, MetadataFields } from '../layout.js';
import { type CompanyScope } from '../scope.js';

export const CUSTOMERS_DONE = {
  updated: 'Customer saved.',
  erased: 'Customer erased: their personal data was replaced everywhere it was held. This cannot be undone.',
};
export const crumbs = 'Customers';
export const EDITABLE = ['name', 'email', 'phone', 'notes'] as const;

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function ErasedBadge({ c }: { c: Customer }) {
  return c.erasedAt ? (
    <>
      {' '}
      <span class="badge cancelled">Erased</span>
    </>
  ) : null;
}

type Overview = Awaited<ReturnType<typeof customerOverview>>;
type Booking = Overview['upcoming'][number];

function BookingTable({ s, label, rows, empty }: { s: CompanyScope; label: string; rows: Booking[]; empty: string }) {
  const zone = s.company.timezone;
  return (
    <DataTable
      label={label}
      rows={rows}
      empty={empty}
      columns={[
        {
          label: 'When',
          cell: (b) => (
            <a href={companyPath(s.company, `/bookings/${b.id}`)}>
              <TimeTag at={b.startTime} zone={zone} />
            </a>
          ),
        },
        { label: 'Service', cell: (b) => b.service.name },
        { label: 'Staff', cell: (b) => b.employee.name },
        { label: 'Status', cell: (b) => <span class={`badge ${b.status}`}>{bookingStatus(b.status)}</span> },
        { label: 'Price', cell: (b) => money(b.price, b.currency) },
      ]}
    />
  );
}

const shownCount = (shown: number, all: number) =>
  all > shown ? (
    <p class="muted">
      The {shown} nearest of {all}; the export holds them all.
    </p>
  ) : null;

export async function customerPage(
  s: CompanyScope,
  customerId: string,
  extra: { top?: ComponentChildren; values?: Record<string, string>; errors?: Record<string, string> | null } = {},
): Promise<string> {
  const o = await customerOverview(s.db, { company: s.company, customerId, employeeId: s.staffEmployeeId });
  const c = o.customer;
  const base = companyPath(s.company, `/customers/${c.id}`);
  const zone = s.company.timezone;
  const errors = extra.errors ?? null;
  const values = extra.values ?? {
    name: c.name,
    email: c.email,
    phone: c.phone ?? '',
    notes: c.notes ?? '',
  };
  const field = fieldsOf(values, errors);
  const none = <span class="muted">—</span>;
  const metadata = Object.entries((c.metadata ?? {}) as Record<string, unknown>);
  const notesHint = 'Your own notes about the customer; they are not shown to them.';
  const body = (
    <>
      <h1>
        {c.name}
        <ErasedBadge c={c} />
      </h1>
      <p>
        <a href={companyPath(s.company, '/customers')}>← All customers</a>
      </p>
      {extra.top}
      <div class="panel">
        <dl class="fields">
          <dt>E-mail</dt>
          <dd>{c.email}</dd>
          <dt>Phone</dt>
          <dd>{c.phone ?? none}</dd>
          <dt>Notes</dt>
          <dd>{c.notes ?? none}</dd>
          <dt>Customer id</dt>
          <dd>
            <code>{c.id}</code>
          </dd>
          <dt>Created</dt>
          <dd>
            <TimeTag at={c.createdAt} zone={zone} />
          </dd>
          <dt>Last changed</dt>
          <dd>
            <TimeTag at={c.updatedAt} zone={zone} />
          </dd>
          {c.erasedAt && (
            <>
              <dt>Erased</dt>
              <dd>
                <TimeTag at={c.erasedAt} zone={zone} />
              </dd>
            </>
          )}
        </dl>
      </div>
      <div class="inline">
        <form method="get" action={`${base}/export`}>
          <button type="submit">Export (JSON)</button>
        </form>
        {!c.erasedAt && (
          <a class="button danger" href={`${base}/erase`}>
            Erase…
          </a>
        )}
      </div>
      <h2>Metadata</h2>
      {metadata.length === 0 ? <p class="empty">No metadata.</p> : <MetadataFields entries={metadata} />}
      <h2>Upcoming bookings</h2>
      <BookingTable s={s} label="Upcoming bookings" rows={o.upcoming} empty="No upcoming bookings." />
      {shownCount(o.upcoming.length, o.upcomingCount)}
      <h2>History</h2>
      <BookingTable s={s} label="History" rows={o.history} empty="No past or cancelled bookings." />
      {shownCount(o.history.length, o.historyCount)}
      <h2>Payments</h2>
      <DataTable
        label="Payments"
        rows={o.payments}
        empty="No payments."
        columns={[
          { label: 'Amount', cell: (p) => money(p.amount, p.currency) },
          { label: 'Kind', cell: (p) => paymentKind(p.kind) },
          { label: 'Refunded', cell: (p) => (p.amountRefunded ? money(p.amountRefunded, p.currency) : '—') },
          { label: 'Status', cell: (p) => <span class={`badge ${p.status}`}>{paymentStatus(p.status)}</span> },
          { label: 'Card', cell: (p) => (p.brand ? `${p.brand} …${p.last4}` : '—') },
          {
            label: 'Booking',
            cell: (p) => (
              <a href={companyPath(s.company, `/bookings/${p.bookingId}`)} aria-label={`Booking of payment ${p.id}`}>
                <code>{p.bookingId}</code>
              </a>
            ),
          },
          { label: 'Created', cell: (p) => <TimeTag at={p.createdAt} zone={zone} /> },
        ]}
      />
      {shownCount(o.payments.length, o.paymentCount)}
      <h2>Edit</h2>
      {c.erasedAt ? (
        <p class="muted">An erased customer cannot be changed.</p>
      ) : (
        <form method="post" action={base} class="stack panel">
          <FormError errors={errors} known={[...EDITABLE]} />
          <CsrfField token={s.ctx.csrfToken} />
          {field('name', 'Name', { required: true, maxlength: 200 })}
          {field('email', 'E-mail', { type: 'email', required: true, maxlength: 254, hint: 'Unique in the company' })}
          {field('phone', 'Phone', {
            type: 'tel',
            maxlength: 32,
            hint: 'International format, e.g. +14155550123; leave empty for none',
          })}
          <TextArea
            name="notes"
            label="Notes"
            value={values.notes}
            hint={notesHint}
            error={errors?.notes}
            maxlength={5000}
          />
          <button type="submit" class="primary">
            Save customer
          </button>
        </form>
      )}
    </>
  );
  return adminPage(s.ctx, c.name, body, { crumbs });
}

export function ErasePanel({ p }: { p: ErasurePreview }) {
  const c = p.customer;
  return (
    <>
      <h2>What is replaced</h2>
      <ul>
        <li>
          Their name (<strong>{c.name}</strong>), e-mail (<strong>{c.email}</strong>)
          {c.phone ? (
            <>
              , phone (<strong>{c.phone}</strong>)
            </>
          ) : null}
          , notes and metadata.
        </li>
        <li>
          Notes, answers, cancel reasons and time zones of {plural(p.bookingsWithText, 'booking')}, and their manage
          links stop working.
        </li>
        <li>{plural(p.events, 'event')} about them: their name, e-mail, phone and anything they typed.</li>
        <li>
          {plural(p.emails, 'e-mail')} to them or about their bookings: recipient, subject and text
          {p.emailsQueued > 0 ? `; ${p.emailsQueued} still queued will not be sent` : ''}.
        </li>
        {p.remindersPlanned > 0 && <li>{plural(p.remindersPlanned, 'e-mail reminder')} still planned: withdrawn.</li>}
        {p.paymentsMentioning > 0 && (
          <li>Metadata and error texts of {plural(p.paymentsMentioning, 'payment')} that mention them.</li>
        )}
        {p.webhookAttempts > 0 && <li>{plural(p.webhookAttempts, 'recorded webhook answer')} or error about them.</li>}
        <li>Request-log bodies and replayable API answers that mention them.</li>
      </ul>
      <h2>What is kept</h2>
      <ul>
        <li>{plural(p.bookings, 'booking')}, anonymous: times, services, employees, status and prices.</li>
        <li>{plural(p.payments, 'payment')}: amounts, states, refunds, card brand and last four digits.</li>
      </ul>
    </>
  );
}
