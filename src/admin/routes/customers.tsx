// Company > Customers (docs/admin.md; issue 21 §3): the customers, searched by the start of a name,
// e-mail or phone number (searchCustomers, the API's keyset pages); one customer with their
// upcoming bookings, history, payments, notes and metadata (customerOverview); the edit form
// (changeCustomer: updateCustomer, as PATCH /api/v1/customers/:id, with the row before); the export (the JSON of
// GET /api/v1/customers/:id/export, as a download); and the erase, behind a confirmation that
// counts what it replaces and what it keeps (erasurePreview, then eraseCustomer, as
// POST /api/v1/customers/:id/erase). Errors are the use cases' own, said in words.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ComponentChildren } from 'preact';
import type { Company, Customer } from '../../generated/prisma/client.js';
import { isAppError } from '../../errors.js';
import {
  changeCustomer,
  customerOverview,
  erasurePreview,
  eraseCustomer,
  searchCustomers,
  type ErasurePreview,
} from '../../schema/customers/index.js';
import type { Services } from '../../services.js';
import { ConfirmForm } from '../components/action-form.js';
import { DataTable } from '../components/data-table.js';
import { bookingStatus, paymentKind, paymentStatus } from '../words.js';
import { fieldErrors, money, sendAdmin, TimeTag } from '../http.js';
import { DoneNotice, fieldsOf, FormError, TextArea } from '../components/fields.js';
import { CustomerSearch } from '../forms.js';
import { adminPage, companyPath, CsrfField, MetadataFields } from '../layout.js';
import { formOf, paramsOf, queryOf, type CompanyScope, companyRoutes } from '../scope.js';

/** The API's export for a company's customer (src/rest/v1/customer-privacy.ts, via src/app.ts). */
export type CustomerExportAnswer = (company: Company, customerId: string, requestId: string) => Promise<unknown>;

const DONE = {
  updated: 'Customer saved.',
  erased: 'Customer erased: their personal data was replaced everywhere it was held. This cannot be undone.',
};
const crumbs = 'Customers';
const EDITABLE = ['name', 'email', 'phone', 'notes'] as const;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function ErasedBadge({ c }: { c: Customer }) {
  return c.erasedAt ? (
    <>
      {' '}
      <span class="badge cancelled">Erased</span>
    </>
  ) : null;
}

async function listPage(s: CompanyScope, req: FastifyRequest, reply: FastifyReply) {
  const q = queryOf(req);
  const search = (q.q ?? '').trim();
  const base = companyPath(s.company, '/customers');
  let page: Awaited<ReturnType<typeof searchCustomers>> | null = null;
  let error: string | undefined;
  try {
    page = await searchCustomers(s.db, {
      companyId: s.company.id,
      q: search,
      cursor: q.cursor || null,
      limit: 25,
      // Staff: only customers with a booking with their employee.
      employeeId: s.staffEmployeeId,
    });
  } catch (err) {
    const errors = fieldErrors(err);
    if (!errors) throw err;
    // A cursor that is not one of ours, or a query too long: said next to the search box.
    error = errors.q ? `The search ${errors.q}.` : 'That page of the list does not exist; start again.';
  }
  const hint = 'The start of a name, an e-mail address or a phone number; upper and lower case are the same.';
  const keep = search ? `q=${encodeURIComponent(search)}&` : '';
  const body = (
    <>
      <h1>Customers</h1>
      <CustomerSearch action={base} search={search} hint={hint} error={error} />
      {page && (
        <DataTable
          label="Customers"
          phone="scroll"
          rows={page.data}
          empty={search ? `No customer's name, e-mail or phone starts with “${search}”.` : 'No customers yet.'}
          columns={[
            {
              label: 'Name',
              cell: (c) => (
                <>
                  <a href={companyPath(s.company, `/customers/${c.id}`)}>{c.name}</a>
                  <ErasedBadge c={c} />
                </>
              ),
            },
            { label: 'E-mail', cell: (c) => (c.erasedAt ? <span class="muted">—</span> : c.email) },
            { label: 'Phone', cell: (c) => c.phone ?? <span class="muted">—</span> },
            { label: 'Created', cell: (c) => <TimeTag at={c.createdAt} zone={s.company.timezone} /> },
          ]}
        />
      )}
      <div class="inline">
        {q.cursor && (
          <a class="button" href={`${base}${search ? `?q=${encodeURIComponent(search)}` : ''}`}>
            First page
          </a>
        )}
        {page?.pagination.nextCursor && (
          <a class="button" href={`${base}?${keep}cursor=${page.pagination.nextCursor}`}>
            Next page →
          </a>
        )}
      </div>
    </>
  );
  return sendAdmin(reply, error ? 400 : 200, adminPage(s.ctx, 'Customers', body));
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

/** Staff act only on customers with a booking with their employee: any other is a 404. */
async function staffGate(s: CompanyScope, customerId: string): Promise<void> {
  if (s.staffEmployeeId)
    await customerOverview(s.db, { company: s.company, customerId, employeeId: s.staffEmployeeId });
}

async function customerPage(
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

/** A use case's refusal of the whole action (not of one field), in its own words. */
const Refused = ({ message }: { message: string }) => (
  <p class="notice error" role="alert">
    {message}.
  </p>
);

function ErasePanel({ p }: { p: ErasurePreview }) {
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

export function registerCustomerRoutes(
  app: FastifyInstance,
  services: Services,
  exportAnswer: CustomerExportAnswer | undefined,
): void {
  const pages = companyRoutes(app, services, 'customers');
  const base = '/:mode/companies/:companyId/customers';
  const idOf = (req: FastifyRequest) => paramsOf(req).customerId ?? '';

  pages.get(base, async (s, req, reply) => {
    return listPage(s, req, reply);
  });

  pages.get(`${base}/:customerId`, async (s, req, reply) => {
    const top = <DoneNotice done={queryOf(req).done} table={DONE} />;
    return sendAdmin(reply, 200, await customerPage(s, idOf(req), { top }));
  });

  pages.post(`${base}/:customerId`, async (s, req, reply) => {
    const form = formOf(req);
    const values = Object.fromEntries(EDITABLE.map((k) => [k, form[k] ?? '']));
    // Empty optional fields are "none", as null is in the API.
    const input = {
      name: values.name!.trim(),
      email: values.email!.trim(),
      phone: values.phone!.trim() || null,
      notes: values.notes!.trim() || null,
    };
    await staffGate(s, idOf(req));
    try {
      const { before, after } = await changeCustomer(s.db, { companyId: s.company.id, customerId: idOf(req), input });
      const shown = (c: Customer) => ({ name: c.name, email: c.email, phone: c.phone, notes: c.notes });
      req.audit({ before: shown(before), after: shown(after) });
    } catch (err) {
      const found = fieldErrors(err);
      if (found) return sendAdmin(reply, 400, await customerPage(s, idOf(req), { values, errors: found }));
      if (isAppError(err) && err.code === 'CONFLICT') {
        // The e-mail of another customer, or this customer erased meanwhile: the use case's words.
        const field = (err.details as { field?: string } | undefined)?.field;
        if (field === 'email')
          return sendAdmin(reply, 409, await customerPage(s, idOf(req), { values, errors: { email: err.message } }));
        return sendAdmin(reply, 409, await customerPage(s, idOf(req), { top: <Refused message={err.message} /> }));
      }
      throw err;
    }
    req.log.info({ companyId: s.company.id, customerId: idOf(req) }, 'admin changed a customer');
    return reply.redirect(companyPath(s.company, `/customers/${idOf(req)}?done=updated`), 303);
  });

  pages.get(`${base}/:customerId/export`, async (s, req, reply) => {
    if (!exportAnswer) return reply.callNotFound();
    await staffGate(s, idOf(req));
    const body = await exportAnswer(s.company, idOf(req), String(req.id));
    req.log.info({ companyId: s.company.id, customerId: idOf(req) }, 'admin exported a customer');
    return reply
      .status(200)
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .header('content-type', 'application/json; charset=utf-8')
      .header('content-disposition', `attachment; filename="customer-${idOf(req)}.json"`)
      .send(JSON.stringify(body, null, 2));
  });

  pages.get(`${base}/:customerId/erase`, async (s, req, reply) => {
    await staffGate(s, idOf(req));
    const p = await erasurePreview(s.db, { companyId: s.company.id, customerId: idOf(req) });
    const c = p.customer;
    const page = companyPath(s.company, `/customers/${c.id}`);
    const body = c.erasedAt ? (
      <>
        <h1>Erase a customer</h1>
        <p class="notice warn" role="status">
          This customer was erased on <TimeTag at={c.erasedAt} zone={s.company.timezone} />; there is nothing left to
          erase.
        </p>
        <p>
          <a href={page}>← Back to the customer</a>
        </p>
      </>
    ) : (
      <>
        <h1>Erase {c.name}?</h1>
        <p class="notice warn">
          Erasing replaces this customer's personal data everywhere the service holds it, as{' '}
          <code>POST /api/v1/customers/{c.id}/erase</code> does, and sends a <code>customer.erased</code> event. It
          cannot be undone. Export first if you need a copy.
        </p>
        <ErasePanel p={p} />
        <ConfirmForm
          action={`${page}/erase`}
          csrf={s.ctx.csrfToken}
          button={`Erase ${c.name} permanently`}
          danger
          back={page}
        />
      </>
    );
    return sendAdmin(reply, 200, adminPage(s.ctx, `Erase ${c.name}`, body, { crumbs }));
  });

  pages.post(`${base}/:customerId/erase`, async (s, req, reply) => {
    try {
      await staffGate(s, idOf(req));
      await eraseCustomer(s.db, { companyId: s.company.id, customerId: idOf(req) });
    } catch (err) {
      if (!isAppError(err) || err.code !== 'CONFLICT') throw err;
      // Erased already (another operator, or the API, came first): the page says so in words.
      return sendAdmin(reply, 409, await customerPage(s, idOf(req), { top: <Refused message={err.message} /> }));
    }
    req.log.info({ companyId: s.company.id, customerId: idOf(req) }, 'admin erased a customer');
    return reply.redirect(companyPath(s.company, `/customers/${idOf(req)}?done=erased`), 303);
  });
}
