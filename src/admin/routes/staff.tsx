// Company > Staff (docs/admin.md): the route handlers; the pages are views/staff.tsx. Staff are
// added by name and e-mail (createEmployee, as POST /api/v1/employees); each one's page saves
// name, e-mail, phone and active (updateEmployee, as PATCH /api/v1/employees/:id), the services
// they perform (the same update's serviceIds), the weekly hours as one text field per weekday
// ("09:00-12:00, 13:00-18:00", parsed here, judged by the update's rules), time off and date
// overrides (the use cases of the API's time-off and date-override routes), the external
// calendars and the calendar feed. Adding an external calendar appends to the set and removing
// deletes one, each under the employee's lock (addExternalCalendar, removeExternalCalendar: two
// at once keep each other's work), with the URL rules and limits of the API's employee update,
// and the URL is never shown again after it is saved. A refusal is shown next to its field,
// nothing changed.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isAppError } from '../../errors.js';
import { findEmployee } from '../../schema/find-records.js';
import {
  addExternalCalendar,
  createEmployee,
  createTimeOff,
  deleteDateOverride,
  deleteTimeOff,
  putDateOverride,
  readWorkingHours,
  removeExternalCalendar,
  updateEmployee,
  WEEKDAYS,
} from '../../schema/staff/index.js';
import type { Services } from '../../services.js';
import { fieldErrors, messagePage, sendAdmin } from '../http.js';
import { DoneNotice } from '../components/fields.js';
import { detailErrors, localInstant, parseIntervals } from '../forms.js';
import { companyPath } from '../layout.js';
import {
  employeePage,
  staffListPage as listPage,
  STAFF_DONE as DONE,
  type EmployeeWithServices,
  type FormName,
  type PageExtra,
} from '../views/staff.js';
import { feedPanel, registerCalendarFeedRoutes } from './calendar-feeds.js';
import { companyScope, formList, formOf, paramsOf, queryOf, type CompanyScope, companyRoutes } from '../scope.js';

export function registerStaffRoutes(app: FastifyInstance, services: Services): void {
  const pages = companyRoutes(app, services, 'staff');
  registerCalendarFeedRoutes(app, services);
  const base = '/:mode/companies/:companyId/staff';
  const employeeOf = (s: CompanyScope, req: FastifyRequest) =>
    findEmployee(s.db, s.company.id, paramsOf(req).employeeId ?? '');
  const urls = (s: CompanyScope) => ({ mode: s.mode, config: services.config });
  const done = (s: CompanyScope, e: { id: string }, what: keyof typeof DONE, reply: FastifyReply) =>
    reply.redirect(companyPath(s.company, `/staff/${e.id}?done=${what}`), 303);
  /** The page again with the form's refusal: 400 for fields, 409 for a conflict, in words. */
  const refuse = async (
    reply: FastifyReply,
    s: CompanyScope,
    e: EmployeeWithServices,
    err: unknown,
    x: PageExtra & { form: FormName },
    fieldOf: (path: string) => string = (p) => p.split(/[.[]/)[0]!,
  ) => {
    const found = detailErrors(err);
    if (found) {
      const errors: Record<string, string> = {};
      for (const [path, message] of Object.entries(found)) errors[fieldOf(path)] ??= message;
      return sendAdmin(reply, 400, await employeePage(s, e, { ...x, errors }));
    }
    if (isAppError(err) && err.code === 'CONFLICT') {
      const ids = ((err.details as { bookingIds?: string[] } | undefined)?.bookingIds ?? []).slice(0, 20);
      const top = (
        <div class="notice error" role="alert">
          {err.message}.
          {ids.length > 0 && (
            <ul>
              {ids.map((id) => (
                <li>
                  <a href={companyPath(s.company, `/bookings/${id}`)}>Booking {id}</a>
                </li>
              ))}
            </ul>
          )}
        </div>
      );
      return sendAdmin(reply, 409, await employeePage(s, e, { ...x, errors: null, top }));
    }
    throw err;
  };

  /** Staff keep their own hours, time off and calendars; their details and services are the managers'. */
  const managersOnly = (s: CompanyScope, reply: FastifyReply) =>
    sendAdmin(
      reply,
      403,
      messagePage(s.ctx, 403, 'Not allowed', 'Your role in this team (staff) does not allow this page or action.'),
    );

  pages.get(base, async (s, req, reply) => {
    const feed = await feedPanel(s, services, null);
    return sendAdmin(reply, 200, await listPage(s, <DoneNotice done={queryOf(req).done} table={DONE} />, feed));
  });

  pages.post(base, async (s, req, reply) => {
    const form = formOf(req);
    const values = { name: form.name ?? '', email: form.email ?? '' };
    const input = { name: values.name.trim(), ...(values.email.trim() ? { email: values.email.trim() } : {}) };
    let created;
    try {
      created = await createEmployee(s.db, { companyId: s.company.id, input });
    } catch (err) {
      const errors = fieldErrors(err);
      if (!errors) throw err;
      const feed = await feedPanel(s, services, null);
      return sendAdmin(reply, 400, await listPage(s, null, feed, { values, errors }));
    }
    req.log.info({ companyId: s.company.id, employeeId: created.id }, 'admin added an employee');
    return done(s, created, 'created', reply);
  });

  pages.get(`${base}/:employeeId`, async (s, req, reply) => {
    const e = await employeeOf(s, req);
    const feed = await feedPanel(s, services, e.id);
    return sendAdmin(
      reply,
      200,
      await employeePage(s, e, { top: <DoneNotice done={queryOf(req).done} table={DONE} />, feed }),
    );
  });

  // Details: PATCH /api/v1/employees/:id with name, email, phone and active (empty: none).
  pages.post(`${base}/:employeeId`, async (s, req, reply) => {
    if (s.role === 'staff') return managersOnly(s, reply);
    const e = await employeeOf(s, req);
    const form = formOf(req);
    const values = {
      name: form.name ?? '',
      email: form.email ?? '',
      phone: form.phone ?? '',
      active: form.active ? 'on' : '',
    };
    const input = {
      name: values.name.trim(),
      email: values.email.trim() || null,
      phone: values.phone.trim() || null,
      active: values.active === 'on',
    };
    try {
      await updateEmployee(s.db, { companyId: s.company.id, employeeId: e.id, input, urls: urls(s) });
    } catch (err) {
      return refuse(reply, s, e, err, { form: 'details', values });
    }
    req.log.info({ companyId: s.company.id, employeeId: e.id }, 'admin changed an employee');
    return done(s, e, 'updated', reply);
  });

  // The services performed: the update's serviceIds, replacing the set.
  pages.post(`${base}/:employeeId/services`, async (s, req, reply) => {
    if (s.role === 'staff') return managersOnly(s, reply);
    const e = await employeeOf(s, req);
    const serviceIds = formList(req, 'serviceIds');
    try {
      await updateEmployee(s.db, { companyId: s.company.id, employeeId: e.id, input: { serviceIds }, urls: urls(s) });
    } catch (err) {
      // Another company's service is not found: said next to the list, like a malformed id.
      if (isAppError(err) && err.code === 'NOT_FOUND')
        return sendAdmin(
          reply,
          400,
          await employeePage(s, e, {
            form: 'services',
            serviceIds,
            errors: { serviceIds: 'names a service that does not exist' },
          }),
        );
      return refuse(reply, s, e, err, { form: 'services', serviceIds });
    }
    req.log.info({ companyId: s.company.id, employeeId: e.id }, "admin changed an employee's services");
    return done(s, e, 'services', reply);
  });

  // The weekly hours: one text field a weekday, parsed here and judged by the update's rules.
  pages.post(`${base}/:employeeId/hours`, async (s, req, reply) => {
    const e = await employeeOf(s, req);
    const form = formOf(req);
    const values = Object.fromEntries(WEEKDAYS.map((d) => [d, form[d] ?? '']));
    const stored = readWorkingHours(e.workingHours);
    const errors: Record<string, string> = {};
    const workingHours: Record<string, Array<{ start: string; end: string; locationId?: string }>> = {};
    for (const d of WEEKDAYS) {
      const parsed = parseIntervals(values[d]!);
      if ('error' in parsed) {
        errors[d] = parsed.error;
        continue;
      }
      // An interval left as it was keeps the location it had.
      workingHours[d] = parsed.ranges.map((r) => {
        const same = stored[d].find((x) => x.start === r.start && x.end === r.end && x.locationId);
        return same?.locationId ? { ...r, locationId: same.locationId } : r;
      });
    }
    if (Object.keys(errors).length)
      return sendAdmin(reply, 400, await employeePage(s, e, { form: 'hours', values, errors }));
    try {
      await updateEmployee(s.db, {
        companyId: s.company.id,
        employeeId: e.id,
        input: { workingHours },
        urls: urls(s),
      });
    } catch (err) {
      // workingHours.monday.1.end → the Monday field.
      return refuse(reply, s, e, err, { form: 'hours', values }, (p) => /^workingHours\.(\w+)/.exec(p)?.[1] ?? p);
    }
    req.log.info({ companyId: s.company.id, employeeId: e.id }, "admin changed an employee's weekly hours");
    return done(s, e, 'hours', reply);
  });

  // Time off: POST /api/v1/employees/:id/time-off, its times typed in the company's zone.
  pages.post(`${base}/:employeeId/time-off`, async (s, req, reply) => {
    const e = await employeeOf(s, req);
    const form = formOf(req);
    const values = { startTime: form.startTime ?? '', endTime: form.endTime ?? '', reason: form.reason ?? '' };
    const zone = s.company.timezone;
    const startTime = localInstant(values.startTime, zone);
    const endTime = localInstant(values.endTime, zone);
    const errors: Record<string, string> = {};
    if (!startTime) errors.startTime = 'must be a date and time';
    if (!endTime) errors.endTime = 'must be a date and time';
    if (!startTime || !endTime)
      return sendAdmin(reply, 400, await employeePage(s, e, { form: 'time-off', values, errors }));
    try {
      await createTimeOff(s.db, {
        companyId: s.company.id,
        employeeId: e.id,
        input: {
          startTime: startTime.toISOString(),
          endTime: endTime.toISOString(),
          reason: values.reason.trim() || null,
        },
      });
    } catch (err) {
      return refuse(reply, s, e, err, { form: 'time-off', values });
    }
    req.log.info({ companyId: s.company.id, employeeId: e.id }, 'admin added time off');
    return done(s, e, 'time-off-added', reply);
  });

  pages.post(`${base}/:employeeId/time-off/:timeOffId/remove`, async (s, req, reply) => {
    const e = await employeeOf(s, req);
    await deleteTimeOff(s.db, { companyId: s.company.id, employeeId: e.id, timeOffId: paramsOf(req).timeOffId ?? '' });
    req.log.info({ companyId: s.company.id, employeeId: e.id }, 'admin removed time off');
    return done(s, e, 'time-off-removed', reply);
  });

  // A date override: PUT /api/v1/employees/:id/date-overrides/:date { intervals }.
  pages.post(`${base}/:employeeId/date-overrides`, async (s, req, reply) => {
    const e = await employeeOf(s, req);
    const form = formOf(req);
    const values = { date: form.date ?? '', intervals: form.intervals ?? '' };
    const parsed = parseIntervals(values.intervals);
    if ('error' in parsed)
      return sendAdmin(
        reply,
        400,
        await employeePage(s, e, { form: 'override', values, errors: { intervals: parsed.error } }),
      );
    try {
      await putDateOverride(s.db, {
        companyId: s.company.id,
        employeeId: e.id,
        date: values.date.trim(),
        input: { intervals: parsed.ranges },
      });
    } catch (err) {
      return refuse(reply, s, e, err, { form: 'override', values });
    }
    req.log.info({ companyId: s.company.id, employeeId: e.id }, 'admin set a date override');
    return done(s, e, 'override-set', reply);
  });

  pages.post(`${base}/:employeeId/date-overrides/:date/remove`, async (s, req, reply) => {
    const e = await employeeOf(s, req);
    try {
      await deleteDateOverride(s.db, { companyId: s.company.id, employeeId: e.id, date: paramsOf(req).date ?? '' });
    } catch (err) {
      // A malformed date in the path is no page, as a missing override.
      if (isAppError(err) && err.code === 'VALIDATION_ERROR') return reply.callNotFound();
      return refuse(reply, s, e, err, { form: 'override' });
    }
    req.log.info({ companyId: s.company.id, employeeId: e.id }, 'admin removed a date override');
    return done(s, e, 'override-removed', reply);
  });

  pages.post(`${base}/:employeeId/external-calendars`, async (s, req, reply) => {
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
      return sendAdmin(
        reply,
        400,
        await employeePage(s, e, { form: 'calendar', values: { name: form.name ?? '' }, errors }),
      );
    }
    req.log.info({ companyId: s.company.id, employeeId: e.id }, 'admin added an external calendar');
    return done(s, e, 'added', reply);
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
      return done(s, e, 'removed', reply);
    },
  );
}
