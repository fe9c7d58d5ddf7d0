// The views of Company > Staff (routes/staff.tsx holds the handlers): the list with its add
// form, and one employee's page: details, services, weekly hours, time off, date overrides and
// external calendars, each form showing its own refusal next to its fields.
import { DateTime } from 'luxon';
import type { ComponentChildren } from 'preact';
import type { Employee } from '../../generated/prisma/client.js';
import { domainNow } from '../../schema/domain-time.js';
import { listServicesByName } from '../../schema/services/index.js';
import {
  listCurrentTimeOff,
  listDateOverridesFrom,
  listEmployeeSummariesByName,
  listExternalCalendars,
  readDayRanges,
  readWorkingHours,
  WEEKDAYS,
} from '../../schema/staff/index.js';
import { PanelForm, PostButton } from '../components/action-form.js';
import { DataTable } from '../components/data-table.js';
import { Check, ErrorText, Field } from '../components/fields.js';
import { errorAt, formatIntervals, localValue } from '../forms.js';
import { TimeTag } from '../http.js';
import { adminPage, companyPath, FieldRows, mayWrite } from '../layout.js';
import type { CompanyScope } from '../scope.js';

export const STAFF_DONE = {
  created: 'Staff member added. Set their hours and services below.',
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
const DAY_LABEL: Record<string, string> = {
  monday: 'Monday',
  tuesday: 'Tuesday',
  wednesday: 'Wednesday',
  thursday: 'Thursday',
  friday: 'Friday',
  saturday: 'Saturday',
  sunday: 'Sunday',
};
const none = <span class="muted">—</span>;

/** Which form of the employee page a refusal belongs to (only that one shows its summary). */
export type FormName = 'details' | 'services' | 'hours' | 'time-off' | 'override' | 'calendar';

export interface PageExtra {
  top?: ComponentChildren;
  form?: FormName;
  values?: Record<string, string>;
  errors?: Record<string, string> | null;
  /** The services ticked when the services form is shown again. */
  serviceIds?: string[];
  /** The employee's calendar feed section (calendar-feeds.tsx). */
  feed?: ComponentChildren;
}

export type EmployeeWithServices = Employee & { services: Array<{ serviceId: string }> };

const ActiveBadge = ({ active }: { active: boolean }) =>
  active ? <span class="badge enabled">Active</span> : <span class="badge disabled">Inactive</span>;

export async function staffListPage(
  s: CompanyScope,
  top: ComponentChildren,
  feed: ComponentChildren,
  create: { values?: Record<string, string>; errors?: Record<string, string> | null } = {},
): Promise<string> {
  const employees = await listEmployeeSummariesByName(s.db, s.company.id);
  const errors = create.errors ?? null;
  const body = (
    <>
      <h1>Staff</h1>
      {top}
      <DataTable
        label="Staff"
        rows={employees}
        empty="No staff yet. Add the first person below."
        columns={[
          {
            label: 'Name',
            sorted: 'ascending',
            cell: (e) => <a href={companyPath(s.company, `/staff/${e.id}`)}>{e.name}</a>,
          },
          { label: 'Status', cell: (e) => <ActiveBadge active={e.active} /> },
          { label: 'E-mail', cell: (e) => e.email || none },
        ]}
      />
      {mayWrite(s.ctx) && (
        <PanelForm
          action={companyPath(s.company, '/staff')}
          csrf={s.ctx.csrfToken}
          title="Add a staff member"
          errors={errors}
          known={['name', 'email']}
          button="Add staff member"
        >
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
        </PanelForm>
      )}
      {feed}
    </>
  );
  return adminPage(s.ctx, 'Staff', body);
}

export async function employeePage(s: CompanyScope, e: EmployeeWithServices, extra: PageExtra = {}): Promise<string> {
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
  const csrf = s.ctx.csrfToken;
  const mine = (form: FormName) => (extra.form === form ? (extra.errors ?? null) : null);
  const values = (form: FormName) => (extra.form === form ? (extra.values ?? {}) : null);
  // An error about the list as a whole (e.g. five already) is the URL field's to show.
  const calendarErrors = mine('calendar');
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
  const located = WEEKDAYS.some((d) => hours[d].some((r) => r.locationId));
  const offValues = values('time-off') ?? {};
  const offErrs = mine('time-off');
  const ovValues = values('override') ?? {};
  const ovErrs = mine('override');
  // Viewers read; staff on their own page keep their hours, time off and calendars, while their
  // details and services are the managers' (docs/admin.md, Team and roles).
  const write = mayWrite(s.ctx);
  const manage = write && s.role !== 'staff';
  const remove = (action: string, name: string) =>
    write && <PostButton action={`${base}${action}`} csrf={csrf} label="Remove" name={name} kind="danger" />;
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
        <PanelForm
          action={base}
          csrf={csrf}
          title="Details"
          errors={detailErrs}
          known={['name', 'email', 'phone', 'active']}
          button="Save details"
        >
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
        </PanelForm>
      ) : (
        <>
          <h2>Details</h2>
          <FieldRows
            rows={[
              ['E-mail', e.email ?? none],
              ['Phone', e.phone ?? none],
              [
                'Services',
                services
                  .filter((x) => ticked.includes(x.id))
                  .map((x) => x.name)
                  .join(', ') || none,
              ],
            ]}
          />
        </>
      )}

      {manage &&
        (services.length ? (
          <PanelForm
            action={`${base}/services`}
            csrf={csrf}
            title="Services"
            errors={mine('services')}
            known={['serviceIds']}
            button="Save services"
          >
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
          </PanelForm>
        ) : (
          <div class="panel">
            <h2>Services</h2>
            <p class="empty">
              No services yet: <a href={companyPath(s.company, '/services')}>add one</a>.
            </p>
          </div>
        ))}

      {write ? (
        <PanelForm
          action={`${base}/hours`}
          csrf={csrf}
          title="Weekly hours"
          errors={mine('hours')}
          known={[...WEEKDAYS]}
          button="Save weekly hours"
        >
          <p class="muted">
            In the company's time zone ({zone}). Several intervals a day are separated by commas, e.g.{' '}
            <code>09:00-12:00, 13:00-18:00</code>; <code>24:00</code> ends a day at midnight; empty is a day off.
            {located && ' An interval left unchanged keeps its location; locations are set through the API.'}
          </p>
          {WEEKDAYS.map((d) => (
            <Field
              id={`h-${d}`}
              name={d}
              label={DAY_LABEL[d]!}
              value={hoursValues[d]}
              maxlength={300}
              error={mine('hours')?.[d]}
            />
          ))}
        </PanelForm>
      ) : (
        <>
          <h2>Weekly hours</h2>
          <FieldRows rows={WEEKDAYS.map((d) => [DAY_LABEL[d]!, formatIntervals(hours[d]) || 'Off'])} />
        </>
      )}

      <h2>Time off</h2>
      <p class="muted">Bookings are not offered in it. Bookings already in it are kept. Times in {zone}.</p>
      <DataTable
        label="Time off"
        rows={timeOff}
        empty="No time off ahead."
        columns={[
          { label: 'From', sorted: 'ascending', cell: (o) => <TimeTag at={o.startTime} zone={zone} /> },
          { label: 'Until', cell: (o) => <TimeTag at={o.endTime} zone={zone} /> },
          { label: 'Reason', cell: (o) => o.reason ?? none },
        ]}
        actions={(o) =>
          remove(`/time-off/${o.id}/remove`, `Remove time off from ${localValue(o.startTime, zone).replace('T', ' ')}`)
        }
      />
      {write && (
        <PanelForm
          action={`${base}/time-off`}
          csrf={csrf}
          title="Add time off"
          sub
          errors={offErrs}
          known={['startTime', 'endTime', 'reason']}
          button="Add time off"
        >
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
        </PanelForm>
      )}

      <h2>Date overrides</h2>
      <p class="muted">One day's hours in place of the weekly ones (a holiday, a longer day).</p>
      <DataTable
        label="Date overrides"
        rows={overrides}
        empty="No date overrides ahead."
        columns={[
          { label: 'Date', sorted: 'ascending', cell: (o) => o.date },
          {
            label: 'Hours',
            cell: (o) => formatIntervals(readDayRanges(o.intervals)) || <span class="badge disabled">Off</span>,
          },
        ]}
        actions={(o) => remove(`/date-overrides/${o.date}/remove`, `Remove the override of ${o.date}`)}
      />
      {write && (
        <PanelForm
          action={`${base}/date-overrides`}
          csrf={csrf}
          title="Set the hours of one day"
          sub
          errors={ovErrs}
          known={['date', 'intervals']}
          button="Save the day"
        >
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
        </PanelForm>
      )}

      <h2>External calendars</h2>
      <p class="muted">
        Busy times in these calendars block bookings like time off. Fetched every few minutes; a failing calendar keeps
        its last good copy. URLs are secret and shown only by their host.
      </p>
      <DataTable
        label="External calendars"
        rows={calendars}
        empty="No external calendars."
        columns={[
          { label: 'Name', cell: (c) => c.name },
          { label: 'URL', cell: (c) => <code>{c.urlRedacted}</code> },
          {
            label: 'Last fetched',
            cell: (c) =>
              c.lastSuccessAt ? <TimeTag at={c.lastSuccessAt} zone={zone} /> : <span class="muted">not yet</span>,
          },
          {
            label: 'Last error',
            cell: (c) =>
              c.lastError ? (
                <>
                  <span class="badge failed">Failing</span> {c.lastError}
                  <br />
                  <span class="muted">
                    <TimeTag at={c.lastErrorAt} zone={zone} />
                  </span>
                </>
              ) : (
                none
              ),
          },
        ]}
        actions={(c) => remove(`/external-calendars/${c.id}/remove`, `Remove calendar ${c.name}`)}
      />
      {!write ? null : calendars.length >= 5 ? (
        <p class="muted">A staff member can have at most 5 external calendars.</p>
      ) : (
        <PanelForm
          action={`${base}/external-calendars`}
          csrf={csrf}
          title="Add a calendar"
          sub
          errors={calendarErrors}
          known={['url', 'name', 'externalCalendars']}
          button="Add calendar"
        >
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
            error={calendarErrors?.url ?? calendarErrors?.externalCalendars}
          />
        </PanelForm>
      )}
      {extra.feed}
    </>
  );
  return adminPage(s.ctx, e.name, body, { crumbs: 'Staff' });
}
