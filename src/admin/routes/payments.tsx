// Company > Payments (docs/admin.md, Payments): the company's payments newest first, filtered by
// status and by the days they were made (listPayments, keyset pages); one payment with what it
// paid for, its card, its refunds so far and its events (paymentDetails); and a refund, full or
// partial, behind a confirmation that says how much goes back to which card (refundPayment, the
// use case of POST /api/v1/payments/:id/refund, with its events and e-mails). Refusals are the
// use case's own, said in words.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DateTime } from 'luxon';
import type { ComponentChildren } from 'preact';
import type { Payment, PaymentStatus } from '../../generated/prisma/client.js';
import { isAppError } from '../../errors.js';
import { listPayments, paymentDetails, PAYMENT_STATUSES, refundPayment } from '../../schema/payments/index.js';
import { REFUNDABLE } from '../../schema/core/index.js';
import type { Services } from '../../services.js';
import { ConfirmForm } from '../components/action-form.js';
import { DataTable, EventTable } from '../components/data-table.js';
import { fieldErrors, money, sendAdmin, TimeTag } from '../http.js';
import { describedBy, DoneNotice, ErrorText, HintText } from '../components/fields.js';
import { digitsOf, parseAmount } from '../forms.js';
import { adminPage, companyPath, FieldRows, MetadataFields } from '../layout.js';
import { companyScope, formOf, paramsOf, queryOf, type CompanyScope, companyRoutes } from '../scope.js';
import { KIND_LABELS, PAYMENT_STATUS_LABELS } from '../words.js';
export { PAYMENT_STATUS_LABELS };

const PAGE_SIZE = 25;
const crumbs = 'Payments';
const DONE = { refunded: 'Refund made. The customer is told by e-mail, and payment.refunded is sent.' };

export const PaymentBadge = ({ status }: { status: PaymentStatus }) => (
  <span class={`badge ${status}`}>{PAYMENT_STATUS_LABELS[status]}</span>
);

const card = (p: Pick<Payment, 'brand' | 'last4'>) => (p.brand ? `${p.brand} ending ${p.last4}` : '—');
const left = (p: Payment) => p.amount - p.amountRefunded;

type ListedPayment = Awaited<ReturnType<typeof listPayments>>['data'][number];

/** What a payment was for (a booking or a visit) and whose it is. */
function PaidFor({ s, p }: { s: CompanyScope; p: ListedPayment }) {
  const who = p.booking?.customer ?? p.visit?.customer;
  return (
    <>
      {p.bookingId ? 'Booking' : 'Visit'}
      {who && (
        <>
          {' · '}
          <a href={companyPath(s.company, `/customers/${who.id}`)}>{who.name}</a>
        </>
      )}
    </>
  );
}

/** A YYYY-MM-DD day of the company's zone, or null when absent; `bad` when it is not a date. */
function dayOf(value: string | undefined, zone: string): DateTime | null | 'bad' {
  if (!value) return null;
  const d = /^\d{4}-\d{2}-\d{2}$/.test(value) ? DateTime.fromISO(value, { zone }) : null;
  return d?.isValid ? d.startOf('day') : 'bad';
}

async function listPage(s: CompanyScope, req: FastifyRequest, reply: FastifyReply) {
  const q = queryOf(req);
  const zone = s.company.timezone;
  const errors: Record<string, string> = {};
  const status = q.status && (PAYMENT_STATUSES as string[]).includes(q.status) ? (q.status as PaymentStatus) : null;
  if (q.status && !status) errors.status = 'is not a payment status';
  const from = dayOf(q.from, zone);
  const to = dayOf(q.to, zone);
  if (from === 'bad') errors.from = 'must be a date';
  if (to === 'bad') errors.to = 'must be a date';
  if (from && to && from !== 'bad' && to !== 'bad' && to < from) errors.to = 'must be on or after the first day';
  let page: Awaited<ReturnType<typeof listPayments>> | null = null;
  if (Object.keys(errors).length === 0) {
    try {
      page = await listPayments(s.db, {
        companyId: s.company.id,
        status,
        from: from && from !== 'bad' ? from.toJSDate() : null,
        // The last day counts whole: up to the start of the next one.
        to: to && to !== 'bad' ? to.plus({ days: 1 }).toJSDate() : null,
        before: q.before || null,
        limit: PAGE_SIZE,
      });
    } catch (err) {
      const found = fieldErrors(err);
      if (!found) throw err;
      errors.before = 'That page of the list does not exist; start again';
    }
  }
  const base = companyPath(s.company, '/payments');
  const keep = new URLSearchParams(
    Object.entries({ status: q.status ?? '', from: q.from ?? '', to: q.to ?? '' }).filter(([, v]) => v),
  );
  const next = page?.hasMore
    ? `${base}?${new URLSearchParams([...keep, ['before', page.data.at(-1)!.id]]).toString()}`
    : null;
  const bad = Object.keys(errors).length > 0;
  const toHint = `Days in ${zone}; the last day counts whole.`;
  const body = (
    <>
      <h1>Payments</h1>
      <form method="get" action={base} class="filters">
        <div>
          <label for="f-status">Status</label>
          <select id="f-status" name="status" {...describedBy('f-status', { error: errors.status })}>
            <option value="">Any</option>
            {PAYMENT_STATUSES.map((st) => (
              <option value={st} selected={st === status}>
                {PAYMENT_STATUS_LABELS[st]}
              </option>
            ))}
          </select>
          <ErrorText id="f-status" error={errors.status && `Status ${errors.status}.`} />
        </div>
        <div>
          <label for="f-from">Made from</label>
          <input
            id="f-from"
            name="from"
            type="date"
            value={q.from ?? ''}
            {...describedBy('f-from', { error: errors.from })}
          />
          <ErrorText id="f-from" error={errors.from && `The first day ${errors.from}.`} />
        </div>
        <div>
          <label for="f-to">Made until</label>
          <HintText id="f-to" hint={toHint} />
          <input
            id="f-to"
            name="to"
            type="date"
            value={q.to ?? ''}
            {...describedBy('f-to', { hint: toHint, error: errors.to })}
          />
          <ErrorText id="f-to" error={errors.to && `The last day ${errors.to}.`} />
        </div>
        <button type="submit">Show</button>
      </form>
      {bad && (
        <p class="notice error" role="alert">
          {errors.before ?? 'Please correct the filters.'}
        </p>
      )}
      {page && (
        <DataTable
          label="Payments"
          rows={page.data}
          empty={keep.size ? 'No payment matches these filters.' : 'No payments yet.'}
          columns={[
            {
              label: 'Made',
              cell: (p) => (
                <a href={`${base}/${p.id}`}>
                  <TimeTag at={p.createdAt} zone={zone} />
                </a>
              ),
            },
            { label: 'Amount', cell: (p) => money(p.amount, p.currency) },
            { label: 'Refunded', cell: (p) => (p.amountRefunded ? money(p.amountRefunded, p.currency) : '—') },
            { label: 'Status', cell: (p) => <PaymentBadge status={p.status} /> },
            { label: 'Kind', cell: (p) => KIND_LABELS[p.kind] ?? p.kind },
            { label: 'For', cell: (p) => <PaidFor s={s} p={p} /> },
            { label: 'Card', cell: card },
          ]}
        />
      )}
      <div class="inline">
        {q.before && (
          <a class="button" href={keep.size ? `${base}?${keep.toString()}` : base}>
            ← Newest
          </a>
        )}
        {next && (
          <a class="button" href={next}>
            Older →
          </a>
        )}
      </div>
    </>
  );
  return sendAdmin(reply, bad ? 400 : 200, adminPage(s.ctx, 'Payments', body));
}

interface PaymentPageOptions {
  top?: ComponentChildren;
  refundError?: string;
  refundValue?: string;
}

async function paymentPage(s: CompanyScope, id: string, o: PaymentPageOptions = {}): Promise<string> {
  const {
    payment: p,
    booking,
    visit,
    events,
  } = await paymentDetails(s.db, { companyId: s.company.id, id, eventLimit: 200 });
  const zone = s.company.timezone;
  const customer = booking?.customer ?? visit?.customer ?? null;
  const base = companyPath(s.company, `/payments/${p.id}`);
  const none = <span class="muted">—</span>;
  const rows: Array<[string, ComponentChildren] | null> = [
    ['Amount', money(p.amount, p.currency)],
    ['Refunded', p.amountRefunded ? money(p.amountRefunded, p.currency) : none],
    ['Status', <PaymentBadge status={p.status} />],
    ['Kind', KIND_LABELS[p.kind] ?? p.kind],
    [
      'For',
      booking ? (
        <a href={companyPath(s.company, `/bookings/${booking.id}`)}>
          {booking.service.name}, <TimeTag at={booking.startTime} zone={zone} />
        </a>
      ) : visit ? (
        <>
          A visit paid as one <code>{visit.id}</code>
        </>
      ) : (
        none
      ),
    ],
    ['Customer', customer ? <a href={companyPath(s.company, `/customers/${customer.id}`)}>{customer.name}</a> : none],
    ['Card', card(p)],
    p.failureCode ? ['Failure', `${p.failureCode}${p.failureMessage ? `: ${p.failureMessage}` : ''}`] : null,
    p.refundedAt ? ['Last refund', <TimeTag at={p.refundedAt} zone={zone} />] : null,
    ['Payment id', <code>{p.id}</code>],
    ['Made', <TimeTag at={p.createdAt} zone={zone} />],
  ];
  const metadata = Object.entries((p.metadata ?? {}) as Record<string, unknown>);
  const refundable = REFUNDABLE.includes(p.status) && left(p) > 0;
  const hint = `Leave empty to refund all that is left (${money(left(p), p.currency)}).`;
  const body = (
    <>
      <h1>
        Payment of {money(p.amount, p.currency)} <PaymentBadge status={p.status} />
      </h1>
      {o.top}
      <p>
        <a href={companyPath(s.company, '/payments')}>← All payments</a>
      </p>
      <FieldRows rows={rows} />
      {metadata.length > 0 && (
        <>
          <h2>Metadata</h2>
          <MetadataFields entries={metadata} />
        </>
      )}
      <h2>Refund</h2>
      {refundable ? (
        <form method="get" action={`${base}/refund`} class="inline">
          <div>
            <label for="f-amount">Amount to refund ({p.currency})</label>
            <HintText id="f-amount" hint={hint} />
            <input
              id="f-amount"
              name="amount"
              inputmode="decimal"
              value={o.refundValue ?? ''}
              {...describedBy('f-amount', { hint, error: o.refundError })}
            />
            <ErrorText id="f-amount" error={o.refundError && `The amount ${o.refundError}.`} />
          </div>
          <button type="submit">Review the refund…</button>
        </form>
      ) : (
        <p class="empty">
          {p.status === 'refunded'
            ? 'Refunded in full.'
            : p.status === 'processing'
              ? 'Not settled yet; a refund is possible once it has succeeded.'
              : 'Nothing to refund: the payment did not succeed.'}
        </p>
      )}
      <h2>Events</h2>
      <EventTable
        events={events}
        zone={zone}
        then={{
          label: 'Refunded then',
          cell: (e) => {
            const d = e.data as { amountRefunded?: number; currency?: string };
            return d.amountRefunded ? money(d.amountRefunded, d.currency ?? p.currency) : '—';
          },
        }}
      />
    </>
  );
  return adminPage(s.ctx, `Payment ${p.id}`, body, { crumbs });
}

/** The amount field of a refund form: empty is "all that is left". */
function refundAmount(typed: string | undefined, p: Payment): { minor: number | undefined } | { error: string } {
  if (!typed?.trim()) return { minor: undefined };
  const minor = parseAmount(typed.replace(/[\s\u00a0]/g, ''), p.currency);
  const digits = digitsOf(p.currency);
  if (minor === null)
    return {
      error: digits
        ? `must be an amount such as 12.50, with at most ${digits} decimals`
        : 'must be a whole amount such as 1200',
    };
  if (minor <= 0) return { error: 'must be more than zero' };
  const parsed = { minor };
  if (parsed.minor > left(p)) return { error: `must be at most what is left to refund, ${money(left(p), p.currency)}` };
  return parsed;
}

export function registerPaymentRoutes(app: FastifyInstance, services: Services): void {
  const pages = companyRoutes(app, services, 'payments');
  const base = '/:mode/companies/:companyId/payments';
  const idOf = (req: FastifyRequest) => paramsOf(req).paymentId ?? '';

  app.get(base, { schema: { hide: true } }, async (req, reply) =>
    listPage(await companyScope(services, req, 'payments'), req, reply),
  );

  pages.get(`${base}/:paymentId`, async (s, req, reply) => {
    const top = <DoneNotice done={queryOf(req).done} table={DONE} />;
    return sendAdmin(reply, 200, await paymentPage(s, idOf(req), { top }));
  });

  // The confirmation: what will go back, to which card, and what it leaves.
  pages.get(`${base}/:paymentId/refund`, async (s, req, reply) => {
    const { payment: p } = await paymentDetails(s.db, { companyId: s.company.id, id: idOf(req), eventLimit: 0 });
    const typed = queryOf(req).amount ?? '';
    const amount = refundAmount(typed, p);
    if ('error' in amount)
      return sendAdmin(reply, 400, await paymentPage(s, p.id, { refundError: amount.error, refundValue: typed }));
    const minor = amount.minor ?? left(p);
    const page = companyPath(s.company, `/payments/${p.id}`);
    const body = (
      <>
        <h1>Refund {money(minor, p.currency)}?</h1>
        <p class="notice warn">
          {money(minor, p.currency)} of this {money(p.amount, p.currency)} payment goes back to {card(p)}
          {minor === left(p)
            ? ', which refunds all that is left of it.'
            : `, leaving ${money(left(p) - minor, p.currency)} that could still be refunded.`}{' '}
          The customer is told by e-mail, <code>payment.refunded</code> is sent, and it cannot be undone.
        </p>
        <ConfirmForm
          action={`${page}/refund`}
          csrf={s.ctx.csrfToken}
          button={`Refund ${money(minor, p.currency)}`}
          danger
          back={page}
        >
          <input type="hidden" name="amount" value={amount.minor === undefined ? '' : typed} />
        </ConfirmForm>
      </>
    );
    return sendAdmin(reply, 200, adminPage(s.ctx, 'Refund a payment', body, { crumbs }));
  });

  pages.post(`${base}/:paymentId/refund`, async (s, req, reply) => {
    const { payment: p } = await paymentDetails(s.db, { companyId: s.company.id, id: idOf(req), eventLimit: 0 });
    const typed = formOf(req).amount ?? '';
    const amount = refundAmount(typed, p);
    if ('error' in amount)
      return sendAdmin(reply, 400, await paymentPage(s, p.id, { refundError: amount.error, refundValue: typed }));
    try {
      await refundPayment(s.db, {
        companyId: s.company.id,
        mode: s.mode,
        config: services.config,
        id: p.id,
        input: amount.minor === undefined ? {} : { amount: amount.minor },
      });
    } catch (err) {
      // Refunded meanwhile (less is left, or nothing), or not refundable: the use case's words.
      if (!isAppError(err) || err.status >= 500) throw err;
      const top = (
        <p class="notice error" role="alert">
          The refund was refused: {err.message}.
        </p>
      );
      return sendAdmin(reply, err.status, await paymentPage(s, p.id, { top, refundValue: typed }));
    }
    req.log.info({ companyId: s.company.id, paymentId: p.id }, 'admin refunded a payment');
    return reply.redirect(companyPath(s.company, `/payments/${p.id}?done=refunded`), 303);
  });
}
