// A booking's actions in the admin area (docs/admin.md, Bookings): confirm, complete, no-show,
// cancel and reschedule (a payment's refund is the payment page's, routes/payments.tsx). Each is a
// confirmation page (GET, saying what will happen) and a POST that calls the use case the API
// calls for the same verb (transitionBooking, cancelBooking, rescheduleBooking), so the events,
// e-mails and refusals are the API's. Done, it
// redirects to the booking with a fixed notice; refused, the confirmation page comes back with the
// refusal in words and the use case's 4xx status.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DateTime } from 'luxon';
import type { ComponentChildren } from 'preact';
import { isAppError } from '../../errors.js';
import { findBookingWithDetails, findService } from '../../schema/find-records.js';
import { domainNow } from '../../schema/domain-time.js';
import {
  cancelBooking,
  quoteCancellation,
  rescheduleBooking,
  transitionBooking,
  type BookingAction,
  type CancellationQuote,
} from '../../schema/bookings/index.js';
import { REFUNDABLE } from '../../schema/core/index.js';
import { listEmployeesByName } from '../../schema/staff/index.js';
import type { Services } from '../../services.js';
import { AdminNotFound, formatTime, money, sendAdmin, TimeTag } from '../http.js';
import { describedBy, ErrorText, TextArea } from '../components/fields.js';
import { adminPage, companyPath, CsrfField } from '../layout.js';
import { companyScope, formOf, paramsOf, queryOf, type CompanyScope } from '../scope.js';
import {
  choicesOfDay,
  DayChooser,
  dayOf,
  errorsByPath,
  Refused,
  refusalWords,
  SlotPicker,
  STATUS_LABELS,
} from './booking-forms.js';

export type BookingDetails = Awaited<ReturnType<typeof findBookingWithDetails>>;
type Payment = BookingDetails['payments'][number];

/** The fixed notices of the booking page after an action (?done=…). */
export const BOOKING_DONE = {
  created: 'Booking made.',
  confirmed: 'Booking confirmed.',
  completed: 'Booking marked completed.',
  no_show: 'Booking marked as a no-show.',
  cancelled: 'Booking cancelled.',
  rescheduled: 'Booking moved.',
};

interface Simple {
  action: Exclude<BookingAction, 'cancel' | 'expire' | 'lapse'>;
  title: string;
  button: string;
  done: keyof typeof BOOKING_DONE;
  what: string;
}

/** The transitions without a form of their own, by their path (as the API's). */
const SIMPLE: Record<'confirm' | 'complete' | 'no-show', Simple> = {
  confirm: {
    action: 'confirm',
    title: 'Confirm the booking',
    button: 'Confirm booking',
    done: 'confirmed',
    what: 'It becomes confirmed. A booking.confirmed event goes to your webhooks, and the customer is e-mailed the confirmation with a calendar invitation.',
  },
  complete: {
    action: 'complete',
    title: 'Mark the booking completed',
    button: 'Mark completed',
    done: 'completed',
    what: 'It becomes completed: the appointment took place. A booking.completed event goes to your webhooks and reminders still planned are withdrawn. The customer is not e-mailed.',
  },
  'no-show': {
    action: 'no_show',
    title: 'Mark the booking as a no-show',
    button: 'Mark as no-show',
    done: 'no_show',
    what: 'It becomes a no-show: the customer did not come. A booking.no_show event goes to your webhooks and reminders still planned are withdrawn. Nothing is refunded and the customer is not e-mailed.',
  },
};

export type ActionName = keyof typeof SIMPLE | 'cancel' | 'reschedule';

/**
 * The actions the booking's state allows now (the state machine of docs/api.md): the booking
 * page shows only these buttons. A POST of another is still refused by the use case.
 */
export function allowedActions(b: BookingDetails, now: Date): Set<ActionName> {
  const out = new Set<ActionName>();
  const started = b.startTime.getTime() <= now.getTime();
  if (b.status === 'pending') out.add('confirm');
  if (b.status === 'confirmed' && started) out.add('complete').add('no-show');
  if (['pending', 'confirmed', 'waitlisted', 'offered'].includes(b.status)) out.add('cancel');
  if (b.status === 'confirmed' && !b.classSessionId) out.add('reschedule');
  return out;
}

export const refundable = (p: Payment) => REFUNDABLE.includes(p.status) && p.amount > p.amountRefunded;

/** One line saying which booking this is. */
function Summary({ s, b }: { s: CompanyScope; b: BookingDetails }) {
  const zone = s.company.timezone;
  return (
    <div class="panel">
      <dl class="fields">
        <dt>Booking</dt>
        <dd>
          {b.service.name} for <a href={companyPath(s.company, `/customers/${b.customer.id}`)}>{b.customer.name}</a>{' '}
          with {b.employee.name}
        </dd>
        <dt>When</dt>
        <dd>
          {formatTime(b.startTime, zone)} – {DateTime.fromJSDate(b.endTime).setZone(zone).toFormat('HH:mm')}{' '}
          <span class="muted">({zone})</span>
        </dd>
        <dt>Status</dt>
        <dd>
          <span class={`badge ${b.status}`}>{STATUS_LABELS[b.status] ?? b.status}</span>
        </dd>
      </dl>
    </div>
  );
}

function actionPage(s: CompanyScope, b: BookingDetails, title: string, body: ComponentChildren): string {
  const back = companyPath(s.company, `/bookings/${b.id}`);
  return adminPage(
    s.ctx,
    title,
    <>
      <h1>{title}</h1>
      <p>
        <a href={back}>← Back to the booking</a>
      </p>
      <Summary s={s} b={b} />
      {body}
    </>,
    { crumbs: 'Bookings' },
  );
}

const KeepLink = ({ href, label = 'Back without changing anything' }: { href: string; label?: string }) => (
  <a class="button" href={href}>
    {label}
  </a>
);

/** A use case's 4xx in words, or the error thrown on (a 5xx, or not the use case's). */
function refusalOf(err: unknown, employees: Array<{ id: string; name: string }>): { status: number; words: string } {
  const words = refusalWords(err, employees);
  if (words === null || !isAppError(err)) throw err;
  return { status: err.status, words };
}

export function registerBookingActionRoutes(app: FastifyInstance, services: Services): void {
  const base = '/:mode/companies/:companyId/bookings/:bookingId';
  const load = async (req: FastifyRequest) => {
    const s = await companyScope(services, req, 'bookings');
    const b = await bookingOf(s, paramsOf(req).bookingId);
    return { s, b, page: companyPath(s.company, `/bookings/${b.id}`) };
  };
  const done = (reply: FastifyReply, page: string, what: keyof typeof BOOKING_DONE) =>
    reply.redirect(`${page}?done=${what}`, 303);

  // Confirm, complete, no-show: one page each, one button.
  for (const [path, a] of Object.entries(SIMPLE)) {
    const render = async (s: CompanyScope, b: BookingDetails, page: string, refusal?: string) => {
      const allowed = allowedActions(b, await domainNow(s.db, s.company)).has(path as ActionName);
      return actionPage(
        s,
        b,
        a.title,
        <>
          {refusal && <Refused message={refusal} />}
          {!refusal && !allowed && (
            <p class="notice warn" role="status">
              The booking's state does not allow this now; the service will refuse it.
            </p>
          )}
          <p>{a.what}</p>
          <form method="post" action={`${page}/${path}`} class="inline">
            <CsrfField token={s.ctx.csrfToken} />
            <button type="submit" class="primary">
              {a.button}
            </button>
            <KeepLink href={page} />
          </form>
        </>,
      );
    };
    app.get(`${base}/${path}`, { schema: { hide: true } }, async (req, reply) => {
      const { s, b, page } = await load(req);
      return sendAdmin(reply, 200, await render(s, b, page));
    });
    app.post(`${base}/${path}`, { schema: { hide: true } }, async (req, reply) => {
      const { s, b, page } = await load(req);
      try {
        await transitionBooking(s.db, { companyId: s.company.id, bookingId: b.id, action: a.action });
      } catch (err) {
        const { status, words } = refusalOf(err, [b.employee]);
        const now = await findBookingWithDetails(s.db, s.company.id, b.id);
        return sendAdmin(reply, status, await render(s, now, page, words));
      }
      req.log.info({ companyId: s.company.id, bookingId: b.id, action: a.action }, 'admin changed a booking');
      return done(reply, page, a.done);
    });
  }

  // Cancel: the reason, who cancels, the fee the service's policy would keep, waiving it.
  const cancelPage = async (
    s: CompanyScope,
    b: BookingDetails,
    page: string,
    extra: { refusal?: string; errors?: Record<string, string>; values?: Record<string, string> } = {},
  ) => {
    const quote = async (by: 'business' | 'customer') =>
      quoteCancellation(s.db, { company: s.company, bookingId: b.id, input: { cancelledBy: by } }).catch(
        (err: unknown) => {
          if (isAppError(err) && err.status < 500) return null;
          throw err;
        },
      );
    const [business, customer] = [await quote('business'), await quote('customer')];
    const v = extra.values ?? {};
    const by = v.cancelledBy === 'customer' ? 'customer' : 'business';
    const errors = extra.errors ?? {};
    const paid = b.payments.reduce((n, p) => n + (REFUNDABLE.includes(p.status) ? p.amount - p.amountRefunded : 0), 0);
    const zone = s.company.timezone;
    const reasonHint = 'Optional; the customer sees it in the cancellation e-mail.';
    const allowed = allowedActions(b, await domainNow(s.db, s.company)).has('cancel');
    const body = (
      <>
        {extra.refusal && <Refused message={extra.refusal} />}
        {!extra.refusal && !allowed && (
          <p class="notice warn" role="status">
            A {STATUS_LABELS[b.status]?.toLowerCase()} booking cannot be cancelled; the service will refuse it.
          </p>
        )}
        <p>
          The booking becomes cancelled and its time is free again. A booking.cancelled event goes to your webhooks, the
          customer is e-mailed that it is cancelled (with a calendar cancellation), and reminders still planned are
          withdrawn.
          {paid > 0
            ? ` What was paid (${money(paid, b.currency)}) is refunded to the customer's card, minus the cancellation fee when the customer cancels late.`
            : ' Nothing was paid, so nothing is refunded.'}
        </p>
        <h2>What it costs</h2>
        <QuoteList business={business} customer={customer} currency={b.currency} zone={zone} />
        <form method="post" action={`${page}/cancel`} class="stack panel">
          {Object.keys(errors).length > 0 && (
            <p class="notice error" role="alert">
              Please correct the form.
            </p>
          )}
          <CsrfField token={s.ctx.csrfToken} />
          <TextArea
            name="reason"
            label="Reason"
            value={v.reason}
            hint={reasonHint}
            error={errors.reason}
            maxlength={500}
          />
          <fieldset {...describedBy('f-cancelledBy', { error: errors.cancelledBy })}>
            <legend>Who cancels</legend>
            <label>
              <input type="radio" name="cancelledBy" value="business" checked={by === 'business'} /> The business: a
              full refund, no cut-off
            </label>
            <label>
              <input type="radio" name="cancelledBy" value="customer" checked={by === 'customer'} /> The customer: the
              cut-off and the cancellation fee apply
            </label>
            <ErrorText id="f-cancelledBy" error={errors.cancelledBy} />
          </fieldset>
          <label class="check">
            <input type="checkbox" name="waiveFee" value="true" checked={v.waiveFee === 'true'} /> Waive the
            cancellation fee (for a customer's cancel: a full refund)
          </label>
          <div class="inline">
            <button type="submit" class="danger">
              Cancel booking
            </button>
            <KeepLink href={page} label="Keep the booking" />
          </div>
        </form>
      </>
    );
    return actionPage(s, b, 'Cancel the booking', body);
  };

  app.get(`${base}/cancel`, { schema: { hide: true } }, async (req, reply) => {
    const { s, b, page } = await load(req);
    return sendAdmin(reply, 200, await cancelPage(s, b, page));
  });
  app.post(`${base}/cancel`, { schema: { hide: true } }, async (req, reply) => {
    const { s, b, page } = await load(req);
    const form = formOf(req);
    const values = { reason: form.reason ?? '', cancelledBy: form.cancelledBy ?? '', waiveFee: form.waiveFee ?? '' };
    const input = {
      reason: values.reason.trim() || null,
      ...(values.cancelledBy ? { cancelledBy: values.cancelledBy } : {}),
      ...(values.waiveFee === 'true' ? { waiveFee: true } : {}),
    };
    try {
      await cancelBooking(s.db, {
        company: s.company,
        mode: s.company.mode,
        config: services.config,
        bookingId: b.id,
        input,
      });
    } catch (err) {
      if (isAppError(err) && err.code === 'VALIDATION_ERROR')
        return sendAdmin(reply, 400, await cancelPage(s, b, page, { values, errors: errorsByPath(err) }));
      const { status, words } = refusalOf(err, [b.employee]);
      const now = await findBookingWithDetails(s.db, s.company.id, b.id);
      return sendAdmin(reply, status, await cancelPage(s, now, page, { values, refusal: words }));
    }
    req.log.info({ companyId: s.company.id, bookingId: b.id, action: 'cancel' }, 'admin changed a booking');
    return done(reply, page, 'cancelled');
  });

  // Reschedule: the day's free times of the service, as GET /api/v1/availability lists them.
  const reschedulePage = async (
    s: CompanyScope,
    b: BookingDetails,
    page: string,
    q: Record<string, string>,
    extra: { refusal?: string; error?: string; status?: number } = {},
  ) => {
    const zone = s.company.timezone;
    const all = await listEmployeesByName(s.db, s.company.id);
    const qualified = await qualifiedEmployees(s, b.serviceId, all);
    const employeeId = qualified.some((e) => e.id === q.employeeId) ? q.employeeId! : null;
    const day = dayOf(zone, q.date, b.startTime);
    const choices = await choicesOfDay(s.db, s.company, { serviceId: b.serviceId, employeeId, day });
    const allowed = allowedActions(b, await domainNow(s.db, s.company)).has('reschedule');
    const body = (
      <>
        {extra.refusal && <Refused message={extra.refusal} />}
        {!extra.refusal && !allowed && (
          <p class="notice warn" role="status">
            Only a confirmed appointment can be moved; the service will refuse it.
          </p>
        )}
        <p>
          The booking moves to the time you choose{employeeId ? ' with the employee you chose' : ''}. A
          booking.rescheduled event goes to your webhooks, the customer is e-mailed the new time with an updated
          calendar invitation, and its reminders are planned again for the new time.
        </p>
        <DayChooser action={`${page}/reschedule`} day={day} keep={{}} employees={qualified} employeeId={employeeId} />
        <form method="post" action={`${page}/reschedule`} class="stack panel">
          <CsrfField token={s.ctx.csrfToken} />
          <input type="hidden" name="date" value={day.toISODate() ?? ''} />
          {employeeId && <input type="hidden" name="employeeId" value={employeeId} />}
          <SlotPicker
            choices={choices}
            day={day}
            zone={zone}
            selected={q.startTime}
            error={extra.error}
            employees={all}
          />
          <div class="inline">
            <button type="submit" class="primary">
              Move booking
            </button>
            <KeepLink href={page} />
          </div>
        </form>
      </>
    );
    return actionPage(s, b, 'Move the booking', body);
  };

  app.get(`${base}/reschedule`, { schema: { hide: true } }, async (req, reply) => {
    const { s, b, page } = await load(req);
    return sendAdmin(reply, 200, await reschedulePage(s, b, page, queryOf(req)));
  });
  app.post(`${base}/reschedule`, { schema: { hide: true } }, async (req, reply) => {
    const { s, b, page } = await load(req);
    const form = formOf(req);
    try {
      await rescheduleBooking(s.db, {
        company: s.company,
        bookingId: b.id,
        // Staff move their own employee's bookings only, never to another employee.
        input: { startTime: form.startTime ?? null, ...(employeeOf(s, form.employeeId) ?? {}) },
      });
    } catch (err) {
      const employees = await listEmployeesByName(s.db, s.company.id);
      if (isAppError(err) && err.code === 'VALIDATION_ERROR') {
        const errors = errorsByPath(err);
        const picked = errors.startTime ? { error: `Choose a time: the start ${errors.startTime}.` } : {};
        const rest = Object.entries(errors).filter(([k]) => k !== 'startTime');
        const refusal = rest.length ? rest.map(([k, m]) => `${k === '_' ? '' : `${k} `}${m}.`).join(' ') : undefined;
        return sendAdmin(reply, 400, await reschedulePage(s, b, page, form, { ...picked, refusal }));
      }
      const { status, words } = refusalOf(err, employees);
      const now = await findBookingWithDetails(s.db, s.company.id, b.id);
      return sendAdmin(reply, status, await reschedulePage(s, now, page, form, { refusal: words }));
    }
    req.log.info({ companyId: s.company.id, bookingId: b.id, action: 'reschedule' }, 'admin changed a booking');
    return done(reply, page, 'rescheduled');
  });
}

/**
 * The booking with what its pages show; for staff, only their employee's (another's is a 404,
 * like one that does not exist).
 */
/** The employeeId a form may send: staff always their own, anyone else the one chosen (or none). */
export function employeeOf(s: CompanyScope, chosen: string | undefined): { employeeId: string } | null {
  const id = s.staffEmployeeId ?? chosen;
  return id ? { employeeId: id } : null;
}

export async function bookingOf(s: CompanyScope, id: string | undefined): Promise<BookingDetails> {
  const b = await findBookingWithDetails(s.db, s.company.id, id);
  if (s.staffEmployeeId && b.employeeId !== s.staffEmployeeId) throw new AdminNotFound('booking');
  return b;
}

/** The employees who perform the service, in the order given; for staff, only their own employee. */
export async function qualifiedEmployees<E extends { id: string }>(
  s: CompanyScope,
  serviceId: string,
  all: E[],
): Promise<E[]> {
  const service = await findService(s.db, s.company.id, serviceId);
  const ids = new Set(service.employees.map((l) => l.employeeId));
  return all.filter((e) => ids.has(e.id) && (!s.staffEmployeeId || e.id === s.staffEmployeeId));
}

/** The two cancellation quotes: as the business, and as the customer (the policy's fee and cut-off). */
function QuoteList({
  business,
  customer,
  currency,
  zone,
}: {
  business: CancellationQuote | null;
  customer: CancellationQuote | null;
  currency: string;
  zone: string;
}) {
  const line = (q: CancellationQuote) =>
    q.fee > 0
      ? `a fee of ${money(q.fee, currency)} is kept and ${money(q.refundAmount, currency)} refunded`
      : q.refundAmount > 0
        ? `no fee; ${money(q.refundAmount, currency)} refunded`
        : 'no fee';
  return (
    <ul>
      {business && <li>Cancelled by the business now: {line(business)}.</li>}
      {customer && (
        <li>
          Cancelled by the customer now: {customer.allowed ? line(customer) : 'refused, the cut-off has passed'}
          {customer.freeUntil ? (
            <>
              {' '}
              (free until <TimeTag at={customer.freeUntil} zone={zone} />)
            </>
          ) : (
            ' (no cancellation policy applies)'
          )}
          {customer.deadline && !customer.allowed ? (
            <>
              ; the cut-off was <TimeTag at={customer.deadline} zone={zone} />
            </>
          ) : null}
          . Waiving the fee refunds everything paid.
        </li>
      )}
    </ul>
  );
}
