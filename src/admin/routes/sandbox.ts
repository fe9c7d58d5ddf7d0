// Sandbox tools (spec "Sandbox rules" 1 and 3, API.md §8): the account's test companies,
// creating one from a template or blank, restoring the samples, and "Wipe test data" behind a
// confirmation page that names every company and counts what will be deleted. All of it runs
// the sandbox use cases on the sandbox database only; live data cannot be reached from here.
import type { FastifyInstance } from 'fastify';
import { esc } from '../../auth/pages/html.js';
import { restoreSampleCompanies } from '../../schema/use-cases/restore-sample-companies.js';
import { wipeSandbox } from '../../schema/use-cases/wipe-sandbox.js';
import type { Services } from '../../services.js';
import { doneNotice, sendAdmin } from '../http.js';
import { adminPage, companyPath, csrfField } from '../layout.js';
import { activeSession, formOf, layoutFor } from '../scope.js';
import { createCompanyForm, TEMPLATE_LABELS } from './companies.js';

export function registerSandboxRoutes(app: FastifyInstance, services: Services): void {
  app.get('/test/sandbox', { schema: { hide: true } }, async (req, reply) => {
    const ctx = await layoutFor(services, req, 'test', 'sandbox');
    const q = req.query as { done?: string; n?: string };
    const n = /^\d{1,4}$/.test(q.n ?? '') ? Number(q.n) : 0;
    const done = doneNotice(q.done, {
      wiped: `Test data wiped: ${n} test compan${n === 1 ? 'y' : 'ies'} and everything in them deleted. Live data was not touched.`,
      restored: `Samples restored: ${n} sample compan${n === 1 ? 'y' : 'ies'} created.`,
    });
    const rows = ctx.companies.map((c) => `<tr><td><a href="${companyPath(c)}">${esc(c.name)}</a></td><td>${c.template ? esc(TEMPLATE_LABELS[c.template] ?? c.template) : '<span class="muted">Blank</span>'}</td><td>${esc(c.timezone)}</td><td class="actions"><a href="${companyPath(c, '/api-keys')}">Test keys</a> <a href="${companyPath(c, '/emails')}">E-mail log</a></td></tr>`).join('');
    const body = `<h1>Sandbox</h1>${done}
      <p class="muted">Test companies, their test keys and everything made with them live in the sandbox database. E-mails are logged, not sent; payments are simulated.</p>
      <h2>Test companies</h2>
      ${ctx.companies.length ? `<table><thead><tr><th scope="col">Name</th><th scope="col">Template</th><th scope="col">Time zone</th><th scope="col"><span class="muted">Links</span></th></tr></thead><tbody>${rows}</tbody></table>` : '<p class="empty">No test companies. Restore the samples or create one.</p>'}
      ${createCompanyForm(ctx)}
      <form method="post" action="/admin/test/sandbox/restore" class="stack panel">
        <h2>Restore the samples</h2>
        <p>Recreates any of the three sample companies (hair salon, clinic, fitness center) that is missing.</p>
        ${csrfField(ctx.csrfToken)}
        <label class="check"><input type="checkbox" name="reset" value="1"> Also reset the existing samples to their starting data (deletes their bookings and keys)</label>
        <button type="submit">Restore samples</button>
      </form>
      <div class="panel"><h2>Wipe test data</h2><p>Deletes every test company and all its data. Live data is never touched.</p>
        <a class="button danger" href="/admin/test/sandbox/wipe">Wipe test data…</a></div>`;
    return sendAdmin(reply, 200, adminPage(ctx, 'Sandbox', body));
  });

  app.post('/test/sandbox/restore', { schema: { hide: true } }, async (req, reply) => {
    const result = await restoreSampleCompanies(services.dbs, services.credentials, { accountId: activeSession(req).account.id, reset: formOf(req).reset === '1' });
    return reply.redirect(`/admin/test/sandbox?done=restored&n=${result.created}`, 303);
  });

  // The confirmation names what goes: each company with its counts, so nobody wipes blind.
  app.get('/test/sandbox/wipe', { schema: { hide: true } }, async (req, reply) => {
    const ctx = await layoutFor(services, req, 'test', 'sandbox');
    const ids = ctx.companies.map((c) => c.id);
    const db = services.dbs.test.prisma;
    const count = async (model: 'booking' | 'customer' | 'apiKey' | 'email' | 'webhookEndpoint') => {
      const rows = await (db[model] as unknown as { groupBy: (a: unknown) => Promise<Array<{ companyId: string; _count: { _all: number } }>> }).groupBy({ by: ['companyId'], where: { companyId: { in: ids } }, _count: { _all: true } });
      return new Map(rows.map((r) => [r.companyId, r._count._all]));
    };
    const [bookings, customers, keys, emails, hooks] = await Promise.all([count('booking'), count('customer'), count('apiKey'), count('email'), count('webhookEndpoint')]);
    const n = (m: Map<string, number>, id: string, one: string) => {
      const k = m.get(id) ?? 0;
      return `${k} ${one}${k === 1 ? '' : 's'}`;
    };
    const items = ctx.companies.map((c) => `<li><strong>${esc(c.name)}</strong>: ${n(bookings, c.id, 'booking')}, ${n(customers, c.id, 'customer')}, ${n(keys, c.id, 'test key')}, ${n(hooks, c.id, 'webhook endpoint')}, ${n(emails, c.id, 'logged e-mail')}, and its staff, services and events</li>`).join('');
    const body = ctx.companies.length === 0
      ? `<h1>Wipe test data</h1><p class="empty">There is no test data to wipe.</p><p><a href="/admin/test/sandbox">Back to the sandbox</a></p>`
      : `<h1>Wipe test data?</h1><div class="panel">
        <p class="notice warn" role="alert">This deletes ${ctx.companies.length} test compan${ctx.companies.length === 1 ? 'y' : 'ies'} and everything in ${ctx.companies.length === 1 ? 'it' : 'them'}. Their test keys stop working at once. This cannot be undone. Live companies and live keys are not affected.</p>
        <ul id="wipe-list">${items}</ul>
        <form method="post" action="/admin/test/sandbox/wipe">${csrfField(ctx.csrfToken)}
          <button type="submit" class="danger">Wipe all test data</button> <a class="button" href="/admin/test/sandbox">Cancel</a>
        </form></div>`;
    return sendAdmin(reply, 200, adminPage(ctx, 'Wipe test data', body));
  });

  app.post('/test/sandbox/wipe', { schema: { hide: true } }, async (req, reply) => {
    const { account } = activeSession(req);
    const result = await wipeSandbox(services.dbs, services.credentials, { accountId: account.id });
    req.log.info({ accountId: account.id, deletedCompanies: result.deletedCompanies }, 'admin wiped test data');
    return reply.redirect(`/admin/test/sandbox?done=wiped&n=${result.deletedCompanies}`, 303);
  });
}
