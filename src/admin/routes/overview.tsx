// Company > Overview (docs/admin.md, Overview): the day and the month at a glance. Today's
// bookings per staff member; the next 7 days' load; this week's and this month's revenue; the
// month's no-show rate, cancellation rate and utilisation; small charts drawn on the server as
// SVG, each with its figures in a table beside it; and CSV exports of bookings, customers and
// payments for a range of days. Every figure is computeBookingStats' (the use case of
// GET /api/v1/reports/bookings and GraphQL bookingStats), over the company's local days and
// domain time (a sandbox test clock moves "today"), so the page and the API never disagree.
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DateTime } from 'luxon';
import { stringify } from 'csv-stringify';
import type { Company } from '../../generated/prisma/client.js';
import { renderFragment } from '../../auth/pages/html.js';
import { countBookingsStartingByEmployee, listBookingsStarting } from '../../schema/bookings/index.js';
import { domainNow } from '../../schema/domain-time.js';
import {
  bookingsForExport,
  checkExportWindow,
  customersForExport,
  EXPORT_KINDS,
  exportKind,
  paymentsForExport,
  type BookingStats,
  type ExportKind,
  type ExportWindow,
  keptByReportVersion,
  overviewFigures,
  type Revenue,
  type StatsGroup,
} from '../../schema/reports/index.js';
import { listServicesByName } from '../../schema/services/index.js';
import type { Services } from '../../services.js';
import { DataTable } from '../components/data-table.js';
import { clockTime, fieldErrors, money, pageParam, sendAdmin, staffPage, StaffPages } from '../http.js';
import { describedBy, ErrorText, HintText } from '../components/fields.js';
import { adminPage, companyPath, type RenderedBody } from '../layout.js';
import { companyScope, queryOf, type CompanyScope, companyRoutes } from '../scope.js';
import { STATUS_LABELS } from '../words.js';

const EXPORT_LABELS: Record<ExportKind, string> = {
  bookings: 'Bookings (by start)',
  customers: 'Customers (by the day they were added)',
  payments: 'Payments (by the day they were made)',
};

const WEEKDAY_NAMES = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** A report's day key (YYYY-MM-DD, a local date) in words, `Sat 28` or `Sat 28 Nov`, without a Luxon date per day. */
function dayName(key: string, withMonth = false): string {
  const [y, m, d] = key.split('-').map(Number) as [number, number, number];
  const weekday = WEEKDAY_NAMES[new Date(Date.UTC(y, m - 1, d)).getUTCDay()]!;
  return withMonth ? `${weekday} ${d} ${MONTH_NAMES[m - 1]!}` : `${weekday} ${d}`;
}

const percent = (r: number | null) => (r === null ? '—' : `${(r * 100).toFixed(1)}%`);
/** Revenue as money, in the company's currency when there is none ("€0.00", never "None"). */
const revenueText = (list: Revenue[] | null, currency: string) =>
  !list?.length ? money(0, currency) : list.map((r) => money(r.net, r.currency)).join(' + ');
const cancellationRate = (g: StatsGroup) => (g.counts.total ? g.counts.cancelled / g.counts.total : null);
const held = (g: StatsGroup) => g.counts.pending + g.counts.confirmed;

/**
 * A bar chart drawn as SVG: one bar per entry, scaled to the largest. role="img" with a title;
 * the figures themselves are in the table the caller puts beside it, which is what a screen
 * reader reads, so the drawing is one image with a name rather than 30 unlabelled shapes.
 */
function Bars({ title, bars, max }: { title: string; bars: Array<{ label: string; value: number }>; max?: number }) {
  const top = Math.max(max ?? 0, ...bars.map((b) => b.value), 1);
  const w = 28;
  const gap = 8;
  const h = 90;
  const width = bars.length * (w + gap) + gap;
  const id = `chart-${title.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <svg
      class="chart"
      viewBox={`0 0 ${width} ${h + 18}`}
      width={width}
      height={h + 18}
      role="img"
      aria-labelledby={id}
      preserveAspectRatio="xMinYMin meet"
    >
      <title id={id}>{title}</title>
      <line x1="0" y1={h} x2={width} y2={h} class="axis" />
      {bars.map((b, i) => {
        const bh = Math.round((b.value / top) * (h - 4));
        const x = gap + i * (w + gap);
        return (
          <>
            <rect x={x} y={h - bh} width={w} height={bh} class="bar" />
            <text x={x + w / 2} y={h + 14} text-anchor="middle" class="tick">
              {b.label}
            </text>
          </>
        );
      })}
    </svg>
  );
}

interface ExportForm {
  kind?: string;
  from?: string;
  to?: string;
}

/** Staff members on one page of today's list (a big team's day is paged, as the calendar's day view is). */
export const TODAY_STAFF_PER_PAGE = 12;

/**
 * The overview as a reload shows it (no export form's errors), kept (keptByReportVersion) while
 * the company's data is unchanged and the time is in the same minute (the page says it).
 */
interface RenderedOverview extends RenderedBody {
  minute: string;
}
const keptOverviews = keptByReportVersion<RenderedOverview>(64);

async function overviewPage(
  s: CompanyScope,
  o: { errors?: Record<string, string>; form?: ExportForm; page?: number } = {},
): Promise<string> {
  const now = DateTime.fromJSDate(await domainNow(s.db, s.company)).setZone(s.company.timezone);
  if (o.errors || o.form) return adminPage(s.ctx, 'Overview', await overviewBody(s, now, o));
  const minute = now.toFormat('yyyy-MM-dd HH:mm');
  const key = JSON.stringify(['overview', s.company.timezone, s.role, s.staffEmployeeId ?? null, o.page ?? 1]);
  const kept = await keptOverviews(
    s.db,
    s.company.id,
    key,
    async () => ({ html: renderFragment(await overviewBody(s, now, o)), minute }),
    (v) => v.minute === minute,
  );
  return adminPage(s.ctx, 'Overview', kept);
}

async function overviewBody(
  s: CompanyScope,
  now: DateTime,
  o: { errors?: Record<string, string>; form?: ExportForm; page?: number },
) {
  const zone = s.company.timezone;
  const today = now.startOf('day');
  const day = { companyId: s.company.id, from: today.toJSDate(), to: today.plus({ days: 1 }).toJSDate() };
  const [counts, { week, month, next7, thisWeek, thisMonth, employees }, services] = await Promise.all([
    countBookingsStartingByEmployee(s.db, day),
    // The reports and the staff by name, kept while nothing they are made of changes.
    overviewFigures(s.db, s.company, now.toJSDate()),
    listServicesByName(s.db, s.company.id),
  ]);
  // Today: the staff with bookings, by name, a page of them at a time.
  const busy = employees.filter((e) => counts.has(e.id));
  const bookedToday = [...counts.values()].reduce((a, b) => a + b, 0);
  const paged = staffPage(busy, o.page ?? 1, TODAY_STAFF_PER_PAGE);
  const onPage = paged.items;
  const todays = onPage.length
    ? await listBookingsStarting(s.db, { ...day, employeeIds: onPage.map((e) => e.id), limit: 500 })
    : [];
  const byEmployee = new Map<string, typeof todays>();
  for (const b of todays) {
    const list = byEmployee.get(b.employeeId);
    if (list) list.push(b);
    else byEmployee.set(b.employeeId, [b]);
  }
  const base = companyPath(s.company);
  const m = thisMonth.totals;
  const errors = o.errors ?? {};
  const form = o.form ?? {};
  const figures: Array<[string, string, string]> = [
    [
      'Revenue this week',
      revenueText(thisWeek.totals.revenue, s.company.currency),
      `${week.toFormat('d LLL')} – ${week.plus({ days: 6 }).toFormat('d LLL')}`,
    ],
    ['Revenue this month', revenueText(m.revenue, s.company.currency), month.toFormat('LLLL yyyy')],
    [
      'No-show rate',
      percent(m.noShowRate),
      `${m.counts.noShow} of ${m.counts.completed + m.counts.noShow} served or missed`,
    ],
    ['Cancellation rate', percent(cancellationRate(m)), `${m.counts.cancelled} of ${m.counts.total} bookings`],
    [
      'Utilisation',
      percent(m.utilisation),
      `${Math.round(m.bookedMinutes / 60)} of ${Math.round(m.availableMinutes / 60)} working hours booked`,
    ],
  ];
  const body = (
    <>
      <h1>Overview</h1>
      <p class="muted">
        {now.toFormat('cccc d LLLL yyyy, HH:mm')} ({zone}). Revenue is the net of payments for bookings that start in
        the period, as in the bookings report.
      </p>
      <GettingStarted s={s} services={services.length} staff={employees.length} />
      <ul class="cards figures" aria-label="This week and month">
        {figures.map(([label, value, note]) => (
          <li class="panel">
            <span class="figure-label">{label}</span>
            <strong class="figure">{value}</strong>
            <span class="muted">{note}</span>
          </li>
        ))}
      </ul>

      <h2>Today</h2>
      {bookedToday === 0 ? (
        <p class="empty">No bookings today.</p>
      ) : (
        <p class="muted">
          {bookedToday} {bookedToday === 1 ? 'booking' : 'bookings'} with {busy.length}{' '}
          {busy.length === 1 ? 'staff member' : 'staff members'}.
        </p>
      )}
      <StaffPages label="Staff pages of today" paged={paged} href={(p) => `${base}/overview?page=${p}`} />
      {onPage
        .filter((e) => byEmployee.has(e.id))
        .map((e) => (
          <section aria-label={`Today: ${e.name}`}>
            <h3>
              {e.name} <span class="muted">({byEmployee.get(e.id)!.length})</span>
            </h3>
            <ul class="agenda">
              {byEmployee.get(e.id)!.map((b) => (
                <li>
                  <a href={companyPath(s.company, `/bookings/${b.id}`)}>
                    <time datetime={b.startTime.toISOString()}>{clockTime(b.startTime, zone)}</time> {b.service.name} ·{' '}
                    {b.customer.name}
                  </a>{' '}
                  <span class={`badge ${b.status}`}>{STATUS_LABELS[b.status] ?? b.status}</span>
                </li>
              ))}
            </ul>
          </section>
        ))}

      <h2>The next 7 days</h2>
      <div class="chart-pair">
        <Bars
          title="Utilisation of the next 7 days, per day"
          bars={next7.groups.map((g) => ({ label: dayName(g.key), value: g.utilisation ?? 0 }))}
          max={1}
        />
        <DataTable
          label="The next 7 days"
          rows={next7.groups}
          empty=""
          columns={[
            { label: 'Day', rowHeader: true, cell: (g) => dayName(g.key) },
            { label: 'Booked', cell: held },
            { label: 'Booked hours', cell: (g) => (g.bookedMinutes / 60).toFixed(1) },
            { label: 'Utilisation', cell: (g) => percent(g.utilisation) },
          ]}
        />
      </div>

      <h2>{month.toFormat('LLLL')}, day by day</h2>
      <MonthChart stats={thisMonth} currency={s.company.currency} />

      <h2>Export</h2>
      <p>
        A CSV file (UTF-8, a header row, comma-separated) of the records of a range of days in {zone}, both days counted
        whole, at most 366 days. Spreadsheet formulas in texts are neutralised.
      </p>
      <form method="get" action={`${base}/overview/export`} class="filters">
        <div>
          <label for="f-kind">What</label>
          <select id="f-kind" name="kind" {...describedBy('f-kind', { error: errors.kind })}>
            {EXPORT_KINDS.map((k) => (
              <option value={k} selected={k === (form.kind ?? 'bookings')}>
                {EXPORT_LABELS[k]}
              </option>
            ))}
          </select>
          <ErrorText id="f-kind" error={errors.kind && `What ${errors.kind}.`} />
        </div>
        <div>
          <label for="f-from">First day</label>
          <input
            id="f-from"
            name="from"
            type="date"
            required
            value={form.from ?? month.toISODate()!}
            {...describedBy('f-from', { error: errors.from })}
          />
          <ErrorText id="f-from" error={errors.from && `The first day ${errors.from}.`} />
        </div>
        <div>
          <label for="f-to">Last day</label>
          <HintText id="f-to" hint="Counted whole." />
          <input
            id="f-to"
            name="to"
            type="date"
            required
            value={form.to ?? month.endOf('month').toISODate()!}
            {...describedBy('f-to', { hint: 'Counted whole.', error: errors.to })}
          />
          <ErrorText id="f-to" error={errors.to && `The last day ${errors.to}.`} />
        </div>
        <button type="submit">Download CSV</button>
      </form>
    </>
  );
  return body;
}

/**
 * A company with no services or no staff yet (a new live company): how to begin, in words, each
 * step a link to the page that does it and marked once done.
 */
function GettingStarted({ s, services, staff }: { s: CompanyScope; services: number; staff: number }) {
  if (services > 0 && staff > 0) return null;
  const step = (done: boolean, href: string, link: string, rest: string) => (
    <li>
      {done && <span class="badge enabled">Done</span>} <a href={companyPath(s.company, href)}>{link}</a> {rest}
    </li>
  );
  return (
    <section class="panel" aria-labelledby="begin">
      <h2 id="begin">How to begin</h2>
      <p>
        {s.company.name} takes bookings once it has a service and someone to do it. Three steps, each a few minutes:
      </p>
      <ol>
        {step(services > 0, '/services', 'Add a service', 'you offer: its name, how long it takes and its price.')}
        {step(staff > 0, '/staff', 'Add a staff member', 'and set their weekly hours and the services they do.')}
        {step(false, '/bookings/new', 'Make a first booking', 'to see it in the calendar.')}
      </ol>
      {s.mode === 'live' && (
        <p class="muted">
          To try things first, switch on Test mode at the top: the same pages over sample companies, with nothing real
          sent.
        </p>
      )}
    </section>
  );
}

function MonthChart({ stats: st, currency }: { stats: BookingStats; currency: string }) {
  const bars = st.groups.map((g) => ({ label: String(Number(g.key.slice(8))), value: g.counts.total }));
  return (
    <div class="chart-pair">
      <Bars title="Bookings per day this month, every state" bars={bars} />
      <DataTable
        label="This month, day by day"
        rows={st.groups.filter((g) => g.counts.total > 0)}
        empty="No bookings this month."
        columns={[
          { label: 'Day', rowHeader: true, cell: (g) => dayName(g.key, true) },
          { label: 'Bookings', cell: (g) => g.counts.total },
          { label: 'Cancelled', cell: (g) => g.counts.cancelled },
          { label: 'No-shows', cell: (g) => g.counts.noShow },
          { label: 'Net revenue', cell: (g) => revenueText(g.revenue, currency) },
        ]}
      />
    </div>
  );
}

/** The export's window: two local days of the company's zone, the last counted whole. */
function exportWindow(company: Company, q: ExportForm): { window: ExportWindow } | { errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const day = (v: string | undefined, field: string) => {
    const d = v && /^\d{4}-\d{2}-\d{2}$/.test(v) ? DateTime.fromISO(v, { zone: company.timezone }) : null;
    if (!d?.isValid) errors[field] = 'must be a date';
    return d?.isValid ? d : null;
  };
  const from = day(q.from, 'from');
  const to = day(q.to, 'to');
  try {
    exportKind(q.kind);
  } catch {
    errors.kind = `must be one of ${EXPORT_KINDS.join(', ')}`;
  }
  if (!from || !to || Object.keys(errors).length) return { errors };
  return { window: { companyId: company.id, from: from.toJSDate(), to: to.plus({ days: 1 }).toJSDate() } };
}

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : '');

/** The rows of one export as CSV, streamed batch by batch. */
function csvStream(s: CompanyScope, kind: ExportKind, w: ExportWindow): Readable {
  const zone = s.company.timezone;
  const local = (d: Date) => DateTime.fromJSDate(d).setZone(zone).toFormat('yyyy-MM-dd HH:mm');
  async function* rows(): AsyncGenerator<Record<string, unknown>> {
    if (kind === 'bookings') {
      for await (const batch of bookingsForExport(s.db, w))
        for (const b of batch)
          yield {
            id: b.id,
            status: b.status,
            start: iso(b.startTime),
            end: iso(b.endTime),
            start_local: local(b.startTime),
            service: b.service.name,
            employee: b.employee.name,
            customer_id: b.customerId,
            customer_name: b.customer.name,
            customer_email: b.customer.email,
            customer_phone: b.customer.phone ?? '',
            price: b.price,
            currency: b.currency,
            cancelled_by: b.cancelledBy ?? '',
            created_at: iso(b.createdAt),
          };
    } else if (kind === 'customers') {
      for await (const batch of customersForExport(s.db, w))
        for (const c of batch)
          yield {
            id: c.id,
            name: c.name,
            email: c.erasedAt ? '' : c.email,
            phone: c.phone ?? '',
            notes: c.notes ?? '',
            erased_at: iso(c.erasedAt),
            created_at: iso(c.createdAt),
          };
    } else {
      for await (const batch of paymentsForExport(s.db, w))
        for (const p of batch) {
          const who = p.booking?.customer ?? p.visit?.customer;
          yield {
            id: p.id,
            status: p.status,
            kind: p.kind,
            amount: p.amount,
            amount_refunded: p.amountRefunded,
            currency: p.currency,
            booking_id: p.bookingId ?? '',
            visit_id: p.visitId ?? '',
            customer_id: who?.id ?? '',
            customer_name: who?.name ?? '',
            card: p.brand ? `${p.brand} ${p.last4}` : '',
            created_at: iso(p.createdAt),
          };
        }
    }
  }
  // Amounts are in minor units, as in the API; times are UTC ISO 8601 (start_local: the zone's wall clock).
  return Readable.from(rows()).pipe(stringify({ header: true, escape_formulas: true }));
}

export function registerOverviewRoutes(app: FastifyInstance, services: Services): void {
  const pages = companyRoutes(app, services, 'overview');
  const base = '/:mode/companies/:companyId/overview';

  pages.get(base, async (s, req, reply) => {
    return sendAdmin(reply, 200, await overviewPage(s, { page: pageParam(queryOf(req).page) }));
  });

  app.get(`${base}/export`, { schema: { hide: true } }, async (req: FastifyRequest, reply: FastifyReply) => {
    const s = await companyScope(services, req, 'overview');
    const q = queryOf(req);
    const form = { kind: q.kind, from: q.from, to: q.to };
    const parsed = exportWindow(s.company, form);
    if ('errors' in parsed) return sendAdmin(reply, 400, await overviewPage(s, { errors: parsed.errors, form }));
    const w = parsed.window;
    const kind = exportKind(q.kind);
    try {
      // The window's own rule (the last day not before the first, at most 366 days), before the first byte.
      checkExportWindow(w);
    } catch (err) {
      if (!fieldErrors(err)) throw err;
      const to =
        w.to.getTime() <= w.from.getTime()
          ? 'must be on or after the first day'
          : 'must be at most 366 days after the first day';
      return sendAdmin(reply, 400, await overviewPage(s, { errors: { to }, form }));
    }
    req.log.info({ companyId: s.company.id, kind }, 'admin exported CSV');
    const name = `${kind}-${q.from}-to-${q.to}.csv`;
    return reply
      .status(200)
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${name}"`)
      .send(csvStream(s, kind, w));
  });
}
