// A new booking in the admin area (docs/admin.md, Bookings): the service, employee and day are
// chosen with a GET form (the calendar's free cells link here with employeeId, start and serviceId),
// the customer found with the customer search use case (GET /api/v1/customers?q=) or entered as a
// new one, and the time picked among the day's free starts or class sessions (the availability use
// case of GET /api/v1/availability). The POST calls createBooking, the use case of
// POST /api/v1/bookings: the same events, e-mails and refusals, said in words on this page.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isAppError } from '../../errors.js';
import type { Customer } from '../../generated/prisma/client.js';
import { createBooking } from '../../schema/bookings/index.js';
import { searchCustomers } from '../../schema/customers/index.js';
import { findCustomer } from '../../schema/find-records.js';
import { listServicesByName } from '../../schema/services/index.js';
import { listEmployeesByName } from '../../schema/staff/index.js';
import type { Services } from '../../services.js';
import { money, sendAdmin } from '../http.js';
import { describedBy, ErrorText, Field, TextArea } from '../components/fields.js';
import { CustomerSearch } from '../forms.js';
import { adminPage, companyPath, CsrfField } from '../layout.js';
import { companyScope, formOf, queryOf, type CompanyScope, companyRoutes } from '../scope.js';
import {
  choicesOfDay,
  DayChooser,
  dayOf,
  errorsByPath,
  instantOf,
  Refused,
  refusalWords,
  SlotPicker,
} from './booking-forms.js';
import { employeeOf } from './booking-actions.js';

/** The query (or a re-shown form's) fields the page is drawn from. */
type Values = Record<string, string>;

async function newBookingPage(
  s: CompanyScope,
  given: Values,
  extra: { refusal?: string; errors?: Record<string, string> } = {},
): Promise<string> {
  const zone = s.company.timezone;
  const base = companyPath(s.company, '/bookings/new');
  let v = given;
  // Staff book for their own employee only, and find customers only by their e-mail (a new
  // customer's e-mail books the existing customer): the search would show every customer.
  const staff = s.staffEmployeeId;
  const [services, everyone] = [
    await listServicesByName(s.db, s.company.id),
    await listEmployeesByName(s.db, s.company.id),
  ];
  const employees = staff ? everyone.filter((e) => e.id === staff) : everyone;
  if (staff) v = { ...v, employeeId: staff, q: '', customerId: '' };
  const offered = services.filter((x) => x.active || x.id === v.serviceId);
  const service = offered.find((x) => x.id === v.serviceId) ?? null;
  const qualified = service ? employees.filter((e) => service.employees.some((l) => l.employeeId === e.id)) : [];
  const employeeId = qualified.some((e) => e.id === v.employeeId) ? v.employeeId! : null;
  const asked = instantOf(v.start);
  const day = dayOf(zone, v.date, asked);
  const choices = service ? await choicesOfDay(s.db, s.company, { serviceId: service.id, employeeId, day }) : null;
  const errors = extra.errors ?? {};

  // The customers to choose from: the one asked for (the customer page's link), and the search's.
  const search = (v.q ?? '').trim();
  let found: Customer[] = [];
  let searchError: string | undefined;
  if (search) {
    try {
      found = (await searchCustomers(s.db, { companyId: s.company.id, q: search, limit: 10 })).data;
    } catch (err) {
      const words = refusalWords(err, []);
      if (words === null) throw err;
      searchError = words;
    }
  }
  const prefilled =
    v.customerId && v.customerId !== 'new'
      ? await findCustomer(s.db, s.company.id, v.customerId).catch(() => null)
      : null;
  const customers = [...(prefilled ? [prefilled] : []), ...found.filter((c) => c.id !== prefilled?.id && !c.erasedAt)];
  const chosen = v.customerId === 'new' || customers.length === 0 ? 'new' : (prefilled?.id ?? v.customerId ?? '');
  const keep = { serviceId: service?.id, employeeId, date: day.toISODate(), start: v.start, customerId: prefilled?.id };
  const searchHint = 'The start of a name, an e-mail address or a phone number.';
  const notesHint = 'Your own notes about the booking; the API shows them as notes.';
  const customerError = errors.customerId ?? errors.customer;

  const body = (
    <>
      <h1>New booking</h1>
      <p>
        <a href={companyPath(s.company, '/bookings')}>← Bookings</a>
      </p>
      {extra.refusal && <Refused message={extra.refusal} />}
      <h2>1. Service and day</h2>
      <DayChooser
        action={base}
        day={day}
        keep={{ start: v.start, customerId: prefilled?.id, q: search }}
        employees={service ? qualified : employees}
        employeeId={employeeId ?? (service ? null : v.employeeId)}
      >
        <div>
          <label for="f-service">Service</label>
          <br />
          <select id="f-service" name="serviceId" required>
            <option value="">Choose…</option>
            {offered.map((x) => (
              <option value={x.id} selected={x.id === service?.id}>
                {`${x.name} (${x.kind === 'class' ? 'class' : `${x.durationMinutes} min`}, ${money(x.price, s.company.currency)})`}
              </option>
            ))}
          </select>
        </div>
      </DayChooser>
      <h2>2. Find the customer</h2>
      {staff ? (
        <p class="muted">Give the customer's e-mail below: a customer who has it already is booked.</p>
      ) : (
        <CustomerSearch action={base} search={search} hint={searchHint} error={searchError} keep={keep} />
      )}
      {search && !searchError && found.length === 0 && (
        <p class="empty">{`No customer's name, e-mail or phone starts with “${search}”.`}</p>
      )}
      <h2>3. Book</h2>
      {!service ? (
        <p class="empty">Choose a service and a day first, then show the free times.</p>
      ) : (
        <form method="post" action={base} class="stack panel">
          {Object.keys(errors).length > 0 && (
            <p class="notice error" role="alert">
              Please correct the form.
            </p>
          )}
          <CsrfField token={s.ctx.csrfToken} />
          <input type="hidden" name="serviceId" value={service.id} />
          <input type="hidden" name="date" value={day.toISODate() ?? ''} />
          {employeeId && <input type="hidden" name="employeeId" value={employeeId} />}
          {v.start && <input type="hidden" name="start" value={v.start} />}
          {search && <input type="hidden" name="q" value={search} />}
          <p>
            <strong>{service.name}</strong>
            {employeeId ? ` with ${employees.find((e) => e.id === employeeId)?.name}` : ', anyone free'}
          </p>
          <SlotPicker
            choices={choices!}
            day={day}
            zone={zone}
            selected={v.startTime ?? v.classId}
            asked={asked}
            error={errors.startTime ?? errors.classId}
            employees={employees}
          />
          <fieldset {...describedBy('f-customer', { error: customerError })}>
            <legend>Customer</legend>
            {customers.map((c) => (
              <label>
                <input type="radio" name="customerId" value={c.id} checked={chosen === c.id} />
                {`${c.name} <${c.email}>${c.phone ? `, ${c.phone}` : ''}`}
              </label>
            ))}
            <label>
              <input type="radio" name="customerId" value="new" checked={chosen === 'new'} /> A new customer (below)
            </label>
            <ErrorText id="f-customer" error={customerError} />
          </fieldset>
          <fieldset>
            <legend>New customer</legend>
            <Field name="name" label="Name" value={v.name} maxlength={200} error={errors['customer.name']} />
            <Field
              name="email"
              label="E-mail"
              type="email"
              value={v.email}
              maxlength={254}
              hint="An existing customer with this e-mail is booked instead."
              error={errors['customer.email']}
            />
            <Field
              name="phone"
              label="Phone"
              type="tel"
              value={v.phone}
              maxlength={32}
              hint="International format, e.g. +14155550123; optional."
              error={errors['customer.phone']}
            />
          </fieldset>
          <TextArea name="notes" label="Notes" value={v.notes} hint={notesHint} error={errors.notes} maxlength={5000} />
          <p class="muted">
            Booking it sends a booking.created event to your webhooks and, once it is confirmed, the customer a
            confirmation e-mail with a calendar invitation; a service paid for up front stays pending until it is paid.
          </p>
          <button type="submit" class="primary">
            Book
          </button>
        </form>
      )}
    </>
  );
  return adminPage(s.ctx, 'New booking', body, { crumbs: 'Bookings' });
}

/** The API's input of POST /api/v1/bookings from the form. */
function inputOf(form: Values) {
  const newCustomer = !form.customerId || form.customerId === 'new';
  return {
    serviceId: form.serviceId ?? null,
    ...(form.classId ? { classId: form.classId } : { startTime: form.startTime ?? null }),
    ...(newCustomer
      ? {
          customer: {
            name: (form.name ?? '').trim(),
            email: (form.email ?? '').trim(),
            ...(form.phone?.trim() ? { phone: form.phone.trim() } : {}),
          },
        }
      : { customerId: form.customerId }),
    ...(form.notes?.trim() ? { notes: form.notes.trim() } : {}),
  };
}

export function registerNewBookingRoutes(app: FastifyInstance, services: Services): void {
  const pages = companyRoutes(app, services, 'new-booking');
  const path = '/:mode/companies/:companyId/bookings/new';
  app.get(path, { schema: { hide: true } }, async (req: FastifyRequest, reply) => {
    const s = await companyScope(services, req, 'new-booking');
    return sendAdmin(reply, 200, await newBookingPage(s, queryOf(req)));
  });
  pages.post(path, async (s, req, reply) => {
    const form = formOf(req);
    let id: string;
    try {
      const input = { ...inputOf(form), ...(employeeOf(s, form.employeeId) ?? {}) };
      id = (await createBooking(s.db, { company: s.company, input })).id;
    } catch (err) {
      if (isAppError(err) && err.code === 'VALIDATION_ERROR') {
        const errors = errorsByPath(err);
        const known = ['startTime', 'classId', 'customerId', 'customer', 'notes'];
        const rest = Object.entries(errors).filter(([k]) => !known.includes(k) && !k.startsWith('customer.'));
        const refusal = rest.length ? rest.map(([k, m]) => `${k === '_' ? '' : `${k} `}${m}.`).join(' ') : undefined;
        return sendAdmin(reply, 400, await newBookingPage(s, form, { errors, refusal }));
      }
      const words = refusalWords(err, await listEmployeesByName(s.db, s.company.id));
      if (words === null || !isAppError(err)) throw err;
      return sendAdmin(reply, err.status, await newBookingPage(s, form, { refusal: words }));
    }
    req.log.info({ companyId: s.company.id, bookingId: id }, 'admin made a booking');
    return reply.redirect(companyPath(s.company, `/bookings/${id}?done=created`), 303);
  });
}
