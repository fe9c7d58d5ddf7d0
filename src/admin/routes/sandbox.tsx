// Sandbox tools (docs/sandbox.md): the account's test companies,
// creating one from a template or blank, restoring the samples, and "Wipe test data". Whatever
// deletes (the wipe, and restoring with "reset") goes through a confirmation page that names
// every company and counts what goes; the confirmation carries those companies' ids and exactly
// they are deleted, so a company created meanwhile (another tab, the API) is left alone. The
// deleting itself is the CLI's: wipeSandbox and restoreSampleCompanies, on the sandbox
// database only; live data cannot be reached from here.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Company } from '../../generated/prisma/client.js';
import { isId } from '../../ids.js';
import { restoreSampleCompanies, countCompanyContents, listAccountCompanies } from '../../schema/companies/index.js';
import { SAMPLE_ORDER, wipeSandbox } from '../../schema/sandbox/index.js';
import type { Services } from '../../services.js';
import { ConfirmForm } from '../components/action-form.js';
import { DataTable } from '../components/data-table.js';
import { sendAdmin } from '../http.js';
import { DoneNotice } from '../components/fields.js';
import { adminPage, companyPath, CsrfField } from '../layout.js';
import { activeSession, formList, formOf, layoutFor, queryOf } from '../scope.js';
import { CreateCompanyForm, TEMPLATE_LABELS } from './companies.js';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** One list item per company with the counts of what goes with it. */
async function whatGoes(services: Services, companies: Company[]) {
  const counts = await countCompanyContents(services.dbs, { mode: 'test', companyIds: companies.map((c) => c.id) });
  return companies.map((c) => {
    const n = counts.get(c.id);
    const count = (k: number | undefined, one: string) => plural(k ?? 0, one, `${one}s`);
    return (
      <li>
        <strong>{c.name}</strong>: {count(n?.bookings, 'booking')}, {count(n?.customers, 'customer')},{' '}
        {count(n?.apiKeys, 'test key')}, {count(n?.webhookEndpoints, 'webhook endpoint')},{' '}
        {count(n?.emails, 'logged e-mail')}, and its staff, services and events
      </li>
    );
  });
}

/** The ids a confirmation page named (hidden `company` fields). */
function namedIds(req: FastifyRequest): string[] {
  return [...new Set(formList(req, 'company').filter(isId))].slice(0, 1000);
}

const NamedFields = ({ companies }: { companies: Company[] }) => (
  <>
    {companies.map((c) => (
      <input type="hidden" name="company" value={c.id} />
    ))}
  </>
);

export function registerSandboxRoutes(app: FastifyInstance, services: Services): void {
  app.get('/test/sandbox', { schema: { hide: true } }, async (req, reply) => {
    const ctx = await layoutFor(services, req, 'test', 'sandbox');
    const q = queryOf(req);
    const num = (v: string | undefined) => (/^\d{1,4}$/.test(v ?? '') ? Number(v) : 0);
    const [n, d, kept] = [num(q.n), num(q.d), num(q.kept)];
    const done = {
      wiped: `Test data wiped: ${plural(n, 'test company', 'test companies')} and everything in them deleted.${kept ? ` ${plural(kept, 'test company', 'test companies')} created after the confirmation ${kept === 1 ? 'was' : 'were'} left alone.` : ''} Live data was not touched.`,
      restored: `Samples restored: ${plural(n, 'sample company', 'sample companies')} created.`,
      reset: `Samples reset: ${plural(d, 'sample company', 'sample companies')} deleted, ${plural(n, 'sample company', 'sample companies')} created with their starting data.`,
    };
    const body = (
      <>
        <h1>Sandbox</h1>
        <DoneNotice done={q.done} table={done} />
        <p class="muted">
          Test companies, their test keys and everything made with them live in the sandbox database. E-mails are
          logged, not sent; payments are simulated.
        </p>
        <h2>Test companies</h2>
        <DataTable
          label="Test companies"
          rows={ctx.companies}
          empty="No test companies. Restore the samples or create one."
          columns={[
            { label: 'Name', cell: (c) => <a href={companyPath(c)}>{c.name}</a> },
            {
              label: 'Template',
              cell: (c) =>
                c.template ? (TEMPLATE_LABELS[c.template] ?? c.template) : <span class="muted">Blank</span>,
            },
            { label: 'Time zone', cell: (c) => c.timezone },
            {
              label: 'Links',
              quiet: true,
              class: 'actions',
              cell: (c) => (
                <>
                  <a href={companyPath(c, '/api-keys')}>Test keys</a> <a href={companyPath(c, '/emails')}>E-mail log</a>
                </>
              ),
            },
          ]}
        />
        <CreateCompanyForm ctx={ctx} />
        <form method="post" action="/admin/test/sandbox/restore" class="stack panel">
          <h2>Restore the samples</h2>
          <p>Recreates any of the three sample companies (hair salon, clinic, fitness center) that is missing.</p>
          <CsrfField token={ctx.csrfToken} />
          <label class="check">
            <input type="checkbox" name="reset" value="1" aria-describedby="reset-hint" /> Also reset the existing
            samples to their starting data
          </label>
          <span class="hint" id="reset-hint">
            Deletes the companies made from the templates, with their bookings, customers and keys. You confirm on the
            next page.
          </span>
          <button type="submit">Restore samples</button>
        </form>
        <div class="panel">
          <h2>Wipe test data</h2>
          <p>Deletes every test company and all its data. Live data is never touched.</p>
          <a class="button danger" href="/admin/test/sandbox/wipe">
            Wipe test data…
          </a>
        </div>
      </>
    );
    return sendAdmin(reply, 200, adminPage(ctx, 'Sandbox', body));
  });

  app.post('/test/sandbox/restore', { schema: { hide: true } }, async (req, reply) => {
    const accountId = activeSession(req).account.id;
    const form = formOf(req);
    if (form.reset === '1') {
      if (form.confirm !== '1') {
        // Resetting deletes: first a confirmation naming the samples and what goes with them.
        const ctx = await layoutFor(services, req, 'test', 'sandbox');
        const samples = ctx.companies.filter((c) => c.template && (SAMPLE_ORDER as string[]).includes(c.template));
        if (samples.length > 0) {
          const body = (
            <>
              <h1>Reset the sample companies?</h1>
              <div class="panel">
                <p class="notice warn" role="alert">
                  This deletes{' '}
                  {plural(
                    samples.length,
                    'company made from a sample template',
                    'companies made from the sample templates',
                  )}{' '}
                  and everything in {samples.length === 1 ? 'it' : 'them'}, then creates the three samples afresh with
                  their starting data. Their test keys stop working at once. This cannot be undone. Blank test companies
                  and live data are not affected.
                </p>
                <ul id="reset-list">{await whatGoes(services, samples)}</ul>
                <ConfirmForm
                  class=""
                  action="/admin/test/sandbox/restore"
                  csrf={ctx.csrfToken}
                  button="Reset the samples"
                  danger
                  back="/admin/test/sandbox"
                >
                  <input type="hidden" name="reset" value="1" />
                  <input type="hidden" name="confirm" value="1" />
                  <NamedFields companies={samples} />
                </ConfirmForm>
              </div>
            </>
          );
          return sendAdmin(reply, 200, adminPage(ctx, 'Reset the samples', body));
        }
      } else {
        // Exactly the samples the confirmation named go, and the missing ones come back, in
        // one transaction.
        const result = await restoreSampleCompanies(services.dbs, services.credentials, {
          accountId,
          reset: true,
          companyIds: namedIds(req),
          week: services,
        });
        req.log.info(
          { accountId, deletedCompanies: result.deleted, created: result.created },
          'admin reset the sample companies',
        );
        return reply.redirect(`/admin/test/sandbox?done=reset&d=${result.deleted}&n=${result.created}`, 303);
      }
    }
    const result = await restoreSampleCompanies(services.dbs, services.credentials, { accountId, week: services });
    return reply.redirect(`/admin/test/sandbox?done=restored&n=${result.created}`, 303);
  });

  // The confirmation names what goes: each company with its counts, so nobody wipes blind.
  app.get('/test/sandbox/wipe', { schema: { hide: true } }, async (req, reply) => {
    const ctx = await layoutFor(services, req, 'test', 'sandbox');
    const k = ctx.companies.length;
    const body =
      k === 0 ? (
        <>
          <h1>Wipe test data</h1>
          <p class="empty">There is no test data to wipe.</p>
          <p>
            <a href="/admin/test/sandbox">Back to the sandbox</a>
          </p>
        </>
      ) : (
        <>
          <h1>Wipe test data?</h1>
          <div class="panel">
            <p class="notice warn" role="alert">
              This deletes {plural(k, 'test company', 'test companies')} and everything in {k === 1 ? 'it' : 'them'}.
              Their test keys stop working at once. This cannot be undone. Live companies and live keys are not
              affected.
            </p>
            <ul id="wipe-list">{await whatGoes(services, ctx.companies)}</ul>
            <ConfirmForm
              class=""
              action="/admin/test/sandbox/wipe"
              csrf={ctx.csrfToken}
              button="Wipe all test data"
              danger
              back="/admin/test/sandbox"
            >
              <NamedFields companies={ctx.companies} />
            </ConfirmForm>
          </div>
        </>
      );
    return sendAdmin(reply, 200, adminPage(ctx, 'Wipe test data', body));
  });

  app.post('/test/sandbox/wipe', { schema: { hide: true } }, async (req, reply) => {
    const { account } = activeSession(req);
    const named = namedIds(req);
    // A post that names nothing (not from the confirmation page) gets that page.
    if (named.length === 0) return reply.redirect('/admin/test/sandbox/wipe', 303);
    const { deletedCompanies } = await wipeSandbox(services.dbs, services.credentials, {
      accountId: account.id,
      companyIds: named,
    });
    const kept = (await listAccountCompanies(services.dbs, { accountId: account.id, mode: 'test' })).length;
    req.log.info({ accountId: account.id, deletedCompanies, kept }, 'admin wiped test data');
    return reply.redirect(`/admin/test/sandbox?done=wiped&n=${deletedCompanies}&kept=${kept}`, 303);
  });
}
