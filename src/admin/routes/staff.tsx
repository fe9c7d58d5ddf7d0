// Company > Staff (docs/admin.md): the company's employees, and each one's external calendars
// (docs/api.md, External calendars) with their name, redacted URL, last successful fetch and last
// error; an operator adds or removes one. Adding appends to the set and removing deletes one,
// each under the employee's lock (addExternalCalendar, removeExternalCalendar: two at once
// keep each other's work), with the URL rules and limits of the API's employee update, and the
// URL is never shown again after it is saved.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ComponentChildren } from 'preact';
import type { Employee } from '../../generated/prisma/client.js';
import { findEmployee } from '../../schema/find-records.js';
import {
  addExternalCalendar,
  listEmployeesByName,
  listExternalCalendars,
  removeExternalCalendar,
} from '../../schema/staff/index.js';
import type { Services } from '../../services.js';
import { DoneNotice, Field, fieldErrors, FormError, ScrollTable, sendAdmin, TimeTag } from '../http.js';
import { adminPage, companyPath, CsrfField } from '../layout.js';
import { feedPanel, registerCalendarFeedRoutes } from './calendar-feeds.js';
import { companyScope, formOf, paramsOf, queryOf, type CompanyScope } from '../scope.js';

const DONE = {
  added: 'Calendar added: it is fetched within a few seconds; reload to see the result.',
  removed: 'Calendar removed, with its busy times.',
  feed: 'Calendar feed ready: subscribe to the URL below. Any earlier URL no longer works.',
};
const crumbs = 'Staff';

async function listPage(s: CompanyScope, top: ComponentChildren, feed: ComponentChildren): Promise<string> {
  const employees = await listEmployeesByName(s.db, s.company.id);
  const none = <span class="muted">—</span>;
  const body = (
    <>
      <h1>Staff</h1>
      {top}
      {employees.length ? (
        <ScrollTable label="Employees">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">E-mail</th>
              </tr>
            </thead>
            <tbody>
              {employees.map((e) => (
                <tr>
                  <td>
                    <a href={companyPath(s.company, `/staff/${e.id}`)}>{e.name}</a>
                  </td>
                  <td>
                    {e.active ? (
                      <span class="badge enabled">Active</span>
                    ) : (
                      <span class="badge disabled">Inactive</span>
                    )}
                  </td>
                  <td>{e.email || none}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      ) : (
        <p class="empty">
          No employees yet. Add them with the API (<code>POST /api/v1/employees</code>).
        </p>
      )}
      {feed}
    </>
  );
  return adminPage(s.ctx, 'Staff', body);
}

async function employeePage(
  s: CompanyScope,
  e: Employee,
  extra: {
    top?: ComponentChildren;
    values?: Record<string, string>;
    errors?: Record<string, string> | null;
    /** The employee's calendar feed section (calendar-feeds.tsx). */
    feed?: ComponentChildren;
  } = {},
): Promise<string> {
  const calendars = await listExternalCalendars(s.db, { companyId: s.company.id, employeeId: e.id });
  const base = companyPath(s.company, `/staff/${e.id}`);
  const zone = s.company.timezone;
  const errors = extra.errors ?? null;
  // An error about the list as a whole (e.g. five already) is the URL field's to show.
  const urlError = errors?.url ?? errors?.externalCalendars;
  const full = calendars.length >= 5;
  const body = (
    <>
      <h1>{e.name}</h1>
      {extra.top}
      <h2>External calendars</h2>
      <p class="muted">
        Busy times in these calendars block bookings like time off. Fetched every few minutes; a failing calendar keeps
        its last good copy. URLs are secret and shown only by their host.
      </p>
      {calendars.length ? (
        <ScrollTable label="External calendars">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">URL</th>
                <th scope="col">Last fetched</th>
                <th scope="col">Last error</th>
                <th scope="col">
                  <span class="muted">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {calendars.map((c) => (
                <tr>
                  <td>{c.name}</td>
                  <td>
                    <code>{c.urlRedacted}</code>
                  </td>
                  <td>
                    {c.lastSuccessAt ? (
                      <TimeTag at={c.lastSuccessAt} zone={zone} />
                    ) : (
                      <span class="muted">not yet</span>
                    )}
                  </td>
                  <td>
                    {c.lastError ? (
                      <>
                        <span class="badge failed">Failing</span> {c.lastError}
                        <br />
                        <span class="muted">
                          <TimeTag at={c.lastErrorAt} zone={zone} />
                        </span>
                      </>
                    ) : (
                      <span class="muted">—</span>
                    )}
                  </td>
                  <td class="actions">
                    <form method="post" action={`${base}/external-calendars/${c.id}/remove`}>
                      <CsrfField token={s.ctx.csrfToken} />
                      <button type="submit" class="danger" aria-label={`Remove calendar ${c.name}`}>
                        Remove
                      </button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      ) : (
        <p class="empty">No external calendars.</p>
      )}
      {full ? (
        <p class="muted">An employee can have at most 5 external calendars.</p>
      ) : (
        <form method="post" action={`${base}/external-calendars`} class="stack panel">
          <h2>Add a calendar</h2>
          <FormError errors={errors} known={['url', 'name', 'externalCalendars']} />
          <CsrfField token={s.ctx.csrfToken} />
          <Field name="name" label="Name" value={extra.values?.name} required maxlength={100} error={errors?.name} />
          <Field
            name="url"
            label="ICS URL"
            type="url"
            value=""
            required
            maxlength={2048}
            hint={
              s.mode === 'live'
                ? "https, public address (e.g. Google Calendar's secret address in iCal format)"
                : 'https, or http for local testing'
            }
            error={urlError}
          />
          <button type="submit" class="primary">
            Add calendar
          </button>
        </form>
      )}
      {extra.feed}
    </>
  );
  return adminPage(s.ctx, e.name, body, { crumbs });
}

export function registerStaffRoutes(app: FastifyInstance, services: Services): void {
  registerCalendarFeedRoutes(app, services);
  const base = '/:mode/companies/:companyId/staff';
  const employeeOf = (s: CompanyScope, req: FastifyRequest) =>
    findEmployee(s.db, s.company.id, paramsOf(req).employeeId ?? '');
  const urls = (s: CompanyScope) => ({ mode: s.mode, config: services.config });

  app.get(base, { schema: { hide: true } }, async (req, reply) => {
    const s = await companyScope(services, req, 'staff');
    const feed = await feedPanel(s, services, null);
    return sendAdmin(reply, 200, await listPage(s, <DoneNotice done={queryOf(req).done} table={DONE} />, feed));
  });

  app.get(`${base}/:employeeId`, { schema: { hide: true } }, async (req, reply) => {
    const s = await companyScope(services, req, 'staff');
    const e = await employeeOf(s, req);
    const feed = await feedPanel(s, services, e.id);
    return sendAdmin(
      reply,
      200,
      await employeePage(s, e, { top: <DoneNotice done={queryOf(req).done} table={DONE} />, feed }),
    );
  });

  app.post(`${base}/:employeeId/external-calendars`, { schema: { hide: true } }, async (req, reply) => {
    const s = await companyScope(services, req, 'staff');
    const e = await employeeOf(s, req);
    const form = formOf(req);
    try {
      // Appended under the employee's lock: two adds at once keep both.
      await addExternalCalendar(s.db, {
        companyId: s.company.id,
        employeeId: e.id,
        urls: urls(s),
        url: (form.url ?? '').trim(),
        name: (form.name ?? '').trim(),
      });
    } catch (err) {
      const found = fieldErrors(err);
      if (!found) throw err;
      // The use case names the entry's field (externalCalendars.N.url): the form's is its last part.
      const errors: Record<string, string> = {};
      const details = ((err as { details?: unknown }).details ?? []) as Array<{ path?: string; message?: string }>;
      for (const d of details) {
        const key = /\.(url|name)$/.exec(d.path ?? '')?.[1] ?? 'externalCalendars';
        errors[key] ??= d.message ?? 'is invalid';
      }
      return sendAdmin(reply, 400, await employeePage(s, e, { values: { name: form.name ?? '' }, errors }));
    }
    req.log.info({ companyId: s.company.id, employeeId: e.id }, 'admin added an external calendar');
    return reply.redirect(companyPath(s.company, `/staff/${e.id}?done=added`), 303);
  });

  app.post(
    `${base}/:employeeId/external-calendars/:calendarId/remove`,
    { schema: { hide: true } },
    async (req, reply) => {
      const s = await companyScope(services, req, 'staff');
      const e = await employeeOf(s, req);
      const calendarId = paramsOf(req).calendarId ?? '';
      const removed = await removeExternalCalendar(s.db, { companyId: s.company.id, employeeId: e.id, calendarId });
      if (!removed) return reply.callNotFound();
      return reply.redirect(companyPath(s.company, `/staff/${e.id}?done=removed`), 303);
    },
  );
}
