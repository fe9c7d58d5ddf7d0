// Company > Customers (docs/admin.md; issue 21 §3): the customers, searched by the start of a name,
// e-mail or phone number (searchCustomers, the API's keyset pages); one customer with their
// upcoming bookings, history, payments, notes and metadata (customerOverview); the edit form
// (changeCustomer: updateCustomer, as PATCH /api/v1/customers/:id, with the row before); the export (the JSON of
// GET /api/v1/customers/:id/export, as a download); and the erase, behind a confirmation that
// counts what it replaces and what it keeps (erasurePreview, then eraseCustomer, as
// POST /api/v1/customers/:id/erase). Errors are the use cases' own, said in words. The pages
// are views/customers.tsx.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Company, Customer } from '../../generated/prisma/client.js';
import { isAppError } from '../../errors.js';
import {
  changeCustomer,
  customerOverview,
  erasurePreview,
  eraseCustomer,
  searchCustomers,
} from '../../schema/customers/index.js';
import type { Services } from '../../services.js';
import { Refused } from './booking-forms.js';
import { ConfirmForm } from '../components/action-form.js';
import { DataTable } from '../components/data-table.js';
import { fieldErrors, sendAdmin, TimeTag } from '../http.js';
import { DoneNotice } from '../components/fields.js';
import { CustomerSearch } from '../forms.js';
import { adminPage, companyPath } from '../layout.js';
import { formOf, paramsOf, queryOf, type CompanyScope, companyRoutes } from '../scope.js';

import { crumbs, CUSTOMERS_DONE as DONE, customerPage, EDITABLE, ErasedBadge, ErasePanel } from '../views/customers.js';
/** The API's export for a company's customer (src/rest/v1/customer-privacy.ts, via src/app.ts). */
export type CustomerExportAnswer = (company: Company, customerId: string, requestId: string) => Promise<unknown>;

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

/** Staff act only on customers with a booking with their employee: any other is a 404. */
async function staffGate(s: CompanyScope, customerId: string): Promise<void> {
  if (s.staffEmployeeId)
    await customerOverview(s.db, { company: s.company, customerId, employeeId: s.staffEmployeeId });
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
        return sendAdmin(
          reply,
          409,
          await customerPage(s, idOf(req), { top: <Refused message={`${err.message}.`} /> }),
        );
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
      return sendAdmin(reply, 409, await customerPage(s, idOf(req), { top: <Refused message={`${err.message}.`} /> }));
    }
    req.log.info({ companyId: s.company.id, customerId: idOf(req) }, 'admin erased a customer');
    return reply.redirect(companyPath(s.company, `/customers/${idOf(req)}?done=erased`), 303);
  });
}
