// Company > Staff (docs/admin.md): the company's employees, added by name and e-mail
// (createEmployee, as POST /api/v1/employees), and each one's page: name, e-mail, phone and
// active (updateEmployee, as PATCH /api/v1/employees/:id), the services they perform (the same
// update's serviceIds), the weekly hours as one text field per weekday ("09:00-12:00,
// 13:00-18:00", parsed here, judged by the update's rules), time off and date overrides (the
// use cases of the API's time-off and date-override routes), the external calendars and the
// calendar feed. Adding an external calendar appends to the set and removing deletes one, each
// under the employee's lock (addExternalCalendar, removeExternalCalendar: two at once keep each
// other's work), with the URL rules and limits of the API's employee update, and the URL is never
// shown again after it is saved. A refusal is shown next to its field, nothing changed.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DateTime } from 'luxon';
import type { ComponentChildren } from 'preact';
import { isAppError } from '../../errors.js';
import type { Employee } from '../../generated/prisma/client.js';
import { domainNow } from '../../schema/domain-time.js';
import { findEmployee } from '../../schema/find-records.js';
import { listServicesByName } from '../../schema/services/index.js';
import {
  addExternalCalendar,
  createEmployee,
  createTimeOff,
  deleteDateOverride,
  deleteTimeOff,
  listCurrentTimeOff,
  listDateOverridesFrom,
  listEmployeeSummariesByName,
  listExternalCalendars,
  putDateOverride,
  readDayRanges,
  readWorkingHours,
  removeExternalCalendar,
  updateEmployee,
  WEEKDAYS,
} from '../../schema/staff/index.js';
import type { Services } from '../../services.js';
import {
  DoneNotice,
  ErrorText,
  Field,
  fieldErrors,
  FormError,
  messagePage,
  ScrollTable,
  sendAdmin,
  TimeTag,
} from '../http.js';
import { Check, detailErrors, errorAt, formatIntervals, localInstant, localValue, parseIntervals } from '../forms.js';
import { adminPage, companyPath, CsrfField, mayWrite } from '../layout.js';
import { feedPanel, registerCalendarFeedRoutes } from './calendar-feeds.js';
import { companyScope, formList, formOf, paramsOf, queryOf, type CompanyScope } from '../scope.js';

const DONE = {
  created: 'Employee added. Set their hours and services below.',
  updated: 'Details saved.',
  services: 'Services saved.',
  hours: 'Weekly hours saved.',
  'time-off-added': 'Time off added. Bookings already in it are kept: cancel or move them if needed.',
  'time-off-removed': 'Time off removed.',
  'override-set': 'Hours of that day saved.',
  'override-removed': 'Date override removed: the weekly hours apply that day again.',
  added: 'Calendar added: it is fetched within a few seconds; reload to see the result.',
  removed: 'Calendar removed, with its busy times.',
  feed: 'Calendar feed ready: subscribe to the URL below. Any earlier URL no longer works.',
};
const crumbs = 'Staff';
const DAY_LABEL: Record<string, string> = {
  monday: 'Monday',
  tuesday: 'Tuesday',
  wednesday: 'Wednesday',
  thursday: 'Thursday',
  friday: 'Friday',
  saturday: 'Saturday',
  sunday: 'Sunday',
};

/** Which form of the employee page a refusal belongs to (only that one shows its summary). */
type FormName = 'details' | 'services' | 'hours' | 'time-off' | 'override' | 'calendar';

interface PageExtra {
  top?: ComponentChildren;
  form?: FormName;
  values?: Record<string, string>;
  errors?: Record<string, string> | null;
  /** The services ticked when the services form is shown again. */
  serviceIds?: string[];
}

async function listPage(
  s: CompanyScope,
  top: ComponentChildren,
  feed: ComponentChildren,
  create: { values?: Record<string, string>; errors?: Record<string, string> | null } = {},
): Promise<string> {
  const employees = await listEmployeeSummariesByName(s.db, s.company.id);
  const none = <span class="muted">—</span>;
  const errors = create.errors ?? null;
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
                    <ActiveBadge active={e.active} />
                  </td>
                  <td>{e.email || none}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      ) : (
        <p class="empty">No employees yet.</p>
      )}
      {mayWrite(s.ctx) && (
        <form method="post" action={companyPath(s.company, '/staff')} class="stack panel">
          <h2>Add an employee</h2>
          <FormError errors={errors} known={['name', 'email']} />
          <CsrfField token={s.ctx.csrfToken} />
          <Field name="name" label="Name" value={create.values?.name} required maxlength={200} error={errors?.name} />
          <Field
            name="email"
            label="E-mail"
            type="email"
            value={create.values?.email}
            maxlength={254}
            hint="Optional"
            error={errors?.email}
          />
          <button type="submit" class="primary">
            Add employee
          </button>
        </form>
      )}
      {feed}
    </>
  );
  return adminPage(s.ctx, 'Staff', body);
}

const ActiveBadge = ({ active }: { active: boolean }) =>
  active ? <span class="badge enabled">Active</span> : <span class="badge disabled">Inactive</span>;

/** A form's refusal summary, shown only on the form that was sent. */
const Summary = ({ x, form, known }: { x: PageExtra; form: FormName; known: string[] }) =>
  x.form === form ? <FormError errors={x.errors ?? null} known={known} /> : null;

async function employeePage(
  s: CompanyScope,
  e: Employee & { services: Array<{ serviceId: string }> },
  extra: PageExtra & {
    /** The employee's calendar feed section (calendar-feeds.tsx). */
    feed?: ComponentChildren;
  } = {},
): Promise<string> {
  const zone = s.company.timezone;
  const now = await domainNow(s.db, s.company);
  const today = DateTime.fromJSDate(now, { zone }).toISODate()!;
  const [calendars, services, timeOff, overrides] = await Promise.all([
    listExternalCalendars(s.db, { companyId: s.company.id, employeeId: e.id }),
    listServicesByName(s.db, s.company.id),
    listCurrentTimeOff(s.db, { companyId: s.company.id, employeeId: e.id, from: now }),
    listDateOverridesFrom(s.db, { companyId: s.company.id, employeeId: e.id, from: today }),
  ]);
  const base = companyPath(s.company, `/staff/${e.id}`);
  const errors = extra.errors ?? null;
  const mine = (form: FormName) => (extra.form === form ? errors : null);
  const values = (form: FormName) => (extra.form === form ? (extra.values ?? {}) : null);
  // An error about the list as a whole (e.g. five already) is the URL field's to show.
  const calendarErrors = mine('calendar');
  const urlError = calendarErrors?.url ?? calendarErrors?.externalCalendars;
  const full = calendars.length >= 5;
  const details = values('details') ?? {
    name: e.name,
    email: e.email ?? '',
    phone: e.phone ?? '',
    active: e.active ? 'on' : '',
  };
  const detailErrs = mine('details');
  const ticked = extra.form === 'services' && extra.serviceIds ? extra.serviceIds : e.services.map((x) => x.serviceId);
  const hours = readWorkingHours(e.workingHours);
  const hoursValues = values('hours') ?? Object.fromEntries(WEEKDAYS.map((d) => [d, formatIntervals(hours[d])]));
  const hoursErrs = mine('hours');
  const located = WEEKDAYS.some((d) => hours[d].some((r) => r.locationId));
  const offValues = values('time-off') ?? {};
  const offErrs = mine('time-off');
  const ovValues = values('override') ?? {};
  const ovErrs = mine('override');
  const none = <span class="muted">—</span>;
  // Viewers read; staff on their own page keep their hours, time off and calendars, while their
  // details and services are the managers' (docs/admin.md, Team and roles).
  const write = mayWrite(s.ctx);
  const manage = write && s.role !== 'staff';
  const body = (
    <>
      <h1>
        {e.name} <ActiveBadge active={e.active} />
      </h1>
      <p>
        <a href={companyPath(s.company, '/staff')}>← All staff</a>
      </p>
      {extra.top}

      {manage ? (
        <form method="post" action={base} class="stack panel">
          <h2>Details</h2>
          <Summary x={extra} form="details" known={['name', 'email', 'phone', 'active']} />
          <CsrfField token={s.ctx.csrfToken} />
          <Field
            id="e-name"
            name="name"
            label="Name"
            value={details.name}
            required
            maxlength={200}
            error={detailErrs?.name}
          />
          <Field
            id="e-email"
            name="email"
            label="E-mail"
            type="email"
            value={details.email}
            maxlength={254}
            hint="Leave empty for none"
            error={detailErrs?.email}
          />
          <Field
            id="e-phone"
            name="phone"
            label="Phone"
            type="tel"
            value={details.phone}
            maxlength={32}
            hint="International format, e.g. +14155550123; leave empty for none"
            error={detailErrs?.phone}
          />
          <Check
            id="e-active"
            name="active"
            label="Active (offered and bookable)"
            checked={details.active === 'on'}
            error={detailErrs?.active}
          />
          <button type="submit" class="primary">
            Save details
          </button>
        </form>
      ) : (
        <div class="panel">
          <h2>Details</h2>
          <dl class="fields">
            <dt>E-mail</dt>
            <dd>{e.email ?? none}</dd>
            <dt>Phone</dt>
            <dd>{e.phone ?? none}</dd>
            <dt>Services</dt>
            <dd>
              {services
                .filter((x) => ticked.includes(x.id))
                .map((x) => x.name)
                .join(', ') || none}
            </dd>
          </dl>
        </div>
      )}

      {manage && (
        <form method="post" action={`${base}/services`} class="stack panel">
          <h2>Services</h2>
          <Summary x={extra} form="services" known={['serviceIds']} />
          <CsrfField token={s.ctx.csrfToken} />
          {services.length ? (
            <fieldset>
              <legend>Services {e.name} performs</legend>
              {services.map((svc) => (
                <label>
                  <input
                    type="checkbox"
                    name="serviceIds"
                    value={svc.id}
                    checked={ticked.includes(svc.id)}
                    aria-describedby={mine('services')?.serviceIds ? 'e-services-error' : undefined}
                  />{' '}
                  {svc.name}
                  {!svc.active && <span class="muted"> (inactive)</span>}
                </label>
              ))}
              <ErrorText id="e-services" error={errorAt(mine('services'), 'serviceIds')} />
            </fieldset>
          ) : (
            <p class="empty">
              No services yet: <a href={companyPath(s.company, '/services')}>add one</a>.
            </p>
          )}
          {services.length > 0 && (
            <button type="submit" class="primary">
              Save services
            </button>
          )}
        </form>
      )}

      {write ? (
        <form method="post" action={`${base}/hours`} class="stack panel">
          <h2>Weekly hours</h2>
          <p class="muted">
            In the company's time zone ({zone}). Several intervals a day are separated by commas, e.g.{' '}
            <code>09:00-12:00, 13:00-18:00</code>; <code>24:00</code> ends a day at midnight; empty is a day off.
            {located && ' An interval left unchanged keeps its location; locations are set through the API.'}
          </p>
          <Summary x={extra} form="hours" known={[...WEEKDAYS]} />
          <CsrfField token={s.ctx.csrfToken} />
          {WEEKDAYS.map((d) => (
            <Field
              id={`h-${d}`}
              name={d}
              label={DAY_LABEL[d]!}
              value={hoursValues[d]}
              maxlength={300}
              error={hoursErrs?.[d]}
            />
          ))}
          <button type="submit" class="primary">
            Save weekly hours
          </button>
        </form>
      ) : (
        <div class="panel">
          <h2>Weekly hours</h2>
          <dl class="fields">
            {WEEKDAYS.map((d) => (
              <>
                <dt>{DAY_LABEL[d]}</dt>
                <dd>{formatIntervals(hours[d]) || 'Off'}</dd>
              </>
            ))}
          </dl>
        </div>
      )}

      <h2>Time off</h2>
      <p class="muted">Bookings are not offered in it. Bookings already in it are kept.</p>
      {timeOff.length ? (
        <ScrollTable label="Time off">
          <table>
            <thead>
              <tr>
                <th scope="col">From</th>
                <th scope="col">Until</th>
                <th scope="col">Reason</th>
                <th scope="col">
                  <span class="muted">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {timeOff.map((o) => (
                <tr>
                  <td>
                    <TimeTag at={o.startTime} zone={zone} />
                  </td>
                  <td>
                    <TimeTag at={o.endTime} zone={zone} />
                  </td>
                  <td>{o.reason ?? none}</td>
                  <td class="actions">
                    {write && (
                      <form method="post" action={`${base}/time-off/${o.id}/remove`}>
                        <CsrfField token={s.ctx.csrfToken} />
                        <button
                          type="submit"
                          class="danger"
                          aria-label={`Remove time off from ${localValue(o.startTime, zone).replace('T', ' ')}`}
                        >
                          Remove
                        </button>
                      </form>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      ) : (
        <p class="empty">No time off ahead.</p>
      )}
      {write && (
        <form method="post" action={`${base}/time-off`} class="stack panel">
          <h3>Add time off</h3>
          <Summary x={extra} form="time-off" known={['startTime', 'endTime', 'reason']} />
          <CsrfField token={s.ctx.csrfToken} />
          <Field
            id="t-start"
            name="startTime"
            label="From"
            type="datetime-local"
            value={offValues.startTime}
            required
            hint={`Local time (${zone})`}
            error={offErrs?.startTime}
          />
          <Field
            id="t-end"
            name="endTime"
            label="Until"
            type="datetime-local"
            value={offValues.endTime}
            required
            hint={`Local time (${zone})`}
            error={offErrs?.endTime}
          />
          <Field
            id="t-reason"
            name="reason"
            label="Reason"
            value={offValues.reason}
            maxlength={500}
            hint="Optional"
            error={offErrs?.reason}
          />
          <button type="submit" class="primary">
            Add time off
          </button>
        </form>
      )}

      <h2>Date overrides</h2>
      <p class="muted">One day's hours in place of the weekly ones (a holiday, a longer day).</p>
      {overrides.length ? (
        <ScrollTable label="Date overrides">
          <table>
            <thead>
              <tr>
                <th scope="col">Date</th>
                <th scope="col">Hours</th>
                <th scope="col">
                  <span class="muted">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {overrides.map((o) => {
                const ranges = readDayRanges(o.intervals);
                return (
                  <tr>
                    <td>{o.date}</td>
                    <td>{ranges.length ? formatIntervals(ranges) : <span class="badge disabled">Off</span>}</td>
                    <td class="actions">
                      {write && (
                        <form method="post" action={`${base}/date-overrides/${o.date}/remove`}>
                          <CsrfField token={s.ctx.csrfToken} />
                          <button type="submit" class="danger" aria-label={`Remove the override of ${o.date}`}>
                            Remove
                          </button>
                        </form>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </ScrollTable>
      ) : (
        <p class="empty">No date overrides ahead.</p>
      )}
      {write && (
        <form method="post" action={`${base}/date-overrides`} class="stack panel">
          <h3>Set the hours of one day</h3>
          <Summary x={extra} form="override" known={['date', 'intervals']} />
          <CsrfField token={s.ctx.csrfToken} />
          <Field id="o-date" name="date" label="Date" type="date" value={ovValues.date} required error={ovErrs?.date} />
          <Field
            id="o-intervals"
            name="intervals"
            label="Hours that day"
            value={ovValues.intervals}
            maxlength={300}
            hint="e.g. 10:00-14:00; empty: off all day"
            error={ovErrs?.intervals}
          />
          <button type="submit" class="primary">
            Save the day
          </button>
        </form>
      )}

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
                    {write && (
                      <form method="post" action={`${base}/external-calendars/${c.id}/remove`}>
                        <CsrfField token={s.ctx.csrfToken} />
                        <button type="submit" class="danger" aria-label={`Remove calendar ${c.name}`}>
                          Remove
                        </button>
                      </form>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      ) : (
        <p class="empty">No external calendars.</p>
      )}
      {!write ? null : full ? (
        <p class="muted">An employee can have at most 5 external calendars.</p>
      ) : (
        <form method="post" action={`${base}/external-calendars`} class="stack panel">
          <h3>Add a calendar</h3>
          <Summary x={extra} form="calendar" known={['url', 'name', 'externalCalendars']} />
          <CsrfField token={s.ctx.csrfToken} />
          <Field
            name="name"
            label="Name"
            value={values('calendar')?.name}
            required
            maxlength={100}
            error={calendarErrors?.name}
          />
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
  const done = (s: CompanyScope, e: { id: string }, what: keyof typeof DONE, reply: FastifyReply) =>
    reply.redirect(companyPath(s.company, `/staff/${e.id}?done=${what}`), 303);
  /** The page again with the form's refusal: 400 for fields, 409 for a conflict, in words. */
  const refuse = async (
    reply: FastifyReply,
    s: CompanyScope,
    e: Employee & { services: Array<{ serviceId: string }> },
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

  app.get(base, { schema: { hide: true } }, async (req, reply) => {
    const s = await companyScope(services, req, 'staff');
    const feed = await feedPanel(s, services, null);
    return sendAdmin(reply, 200, await listPage(s, <DoneNotice done={queryOf(req).done} table={DONE} />, feed));
  });

  app.post(base, { schema: { hide: true } }, async (req, reply) => {
    const s = await companyScope(services, req, 'staff');
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

  // Details: PATCH /api/v1/employees/:id with name, email, phone and active (empty: none).
  app.post(`${base}/:employeeId`, { schema: { hide: true } }, async (req, reply) => {
    const s = await companyScope(services, req, 'staff');
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
  app.post(`${base}/:employeeId/services`, { schema: { hide: true } }, async (req, reply) => {
    const s = await companyScope(services, req, 'staff');
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
  app.post(`${base}/:employeeId/hours`, { schema: { hide: true } }, async (req, reply) => {
    const s = await companyScope(services, req, 'staff');
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
  app.post(`${base}/:employeeId/time-off`, { schema: { hide: true } }, async (req, reply) => {
    const s = await companyScope(services, req, 'staff');
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

  app.post(`${base}/:employeeId/time-off/:timeOffId/remove`, { schema: { hide: true } }, async (req, reply) => {
    const s = await companyScope(services, req, 'staff');
    const e = await employeeOf(s, req);
    await deleteTimeOff(s.db, { companyId: s.company.id, employeeId: e.id, timeOffId: paramsOf(req).timeOffId ?? '' });
    req.log.info({ companyId: s.company.id, employeeId: e.id }, 'admin removed time off');
    return done(s, e, 'time-off-removed', reply);
  });

  // A date override: PUT /api/v1/employees/:id/date-overrides/:date { intervals }.
  app.post(`${base}/:employeeId/date-overrides`, { schema: { hide: true } }, async (req, reply) => {
    const s = await companyScope(services, req, 'staff');
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

  app.post(`${base}/:employeeId/date-overrides/:date/remove`, { schema: { hide: true } }, async (req, reply) => {
    const s = await companyScope(services, req, 'staff');
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
