// The admin overview (src/admin/routes/overview.tsx; docs/admin.md, Overview): an owner's month
// on a test clock frozen on a Wednesday in March (Berlin). Today's bookings per staff member, the
// month's no-show and cancellation rates and revenue equal a SQL count over the same rows and
// the API's bookings report; the CSV exports parse back to exactly the rows SQL selects, with
// formulas neutralised; a bad range is refused in words naming the field.
import { parse } from 'csv-parse/sync';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { createTestApp } from '../helpers/app.js';
import { ALL_DAY, blankCompany, ok, post } from '../helpers/domain.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { injectSignIn } from './admin-helpers.js';
import { MARCH, marchBySql, ownersMonth, pct } from './owners-month.js';

let t: TestApp;
let auth: Record<string, string>;
let companyId: string;
let cookie: string;

beforeAll(async () => {
  t = await createTestApp({
    env: { RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000', RATE_LIMIT_PER_SECOND: '100000' },
  });
  const w = await createAccountWithKeys(t.dbs);
  ({ auth, companyId } = await ownersMonth(t, w));
  cookie = await injectSignIn(t.app, w);
}, 60_000);
afterAll(async () => t?.close());

const base = () => `/admin/test/companies/${companyId}/overview`;
const get = (url: string) => t.app.inject({ method: 'GET', url, cookies: { svc_session: cookie } });
const db = () => t.dbs.test.prisma;
/** The figure card labelled `label`. */
const figure = (html: string, label: string) =>
  new RegExp(`<span class="figure-label">${label}</span><strong class="figure">([^<]+)</strong>`).exec(html)?.[1];

describe('admin overview', () => {
  it("shows today's bookings per staff member, in the company's zone", async () => {
    const page = await get(base());
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('aria-current="page">Overview</a>');
    expect(page.body).toContain('Wednesday 3 March 2027, 14:30 (Europe/Berlin)');
    const today = (who: string) =>
      [
        ...(new RegExp(`aria-label="Today: ${who}">([\\s\\S]*?)</section>`).exec(page.body)?.[1] ?? '').matchAll(
          /<time[^>]*>([^<]+)<\/time> Cut · ([^<]+)<\/a>/g,
        ),
      ].map((m) => `${m[1]} ${m[2]}`);
    expect(today('Anna')).toEqual(['09:00 Cleo Served', '11:00 Dag Missed']);
    expect(today('Ben')).toEqual(['13:00 Eva Later']);
  });

  it("the month's figures equal a SQL count over the same bookings, and the API's report", async () => {
    const n = await marchBySql(t, companyId);
    // The data is what the test made, so the SQL is not vacuous.
    expect(n).toEqual({ total: 5, cancelled: 1, completed: 1, no_show: 1, net: 3000 });
    const page = (await get(base())).body;
    expect(figure(page, 'No-show rate')).toBe(pct(n.no_show, n.completed + n.no_show));
    expect(figure(page, 'Cancellation rate')).toBe(pct(n.cancelled, n.total));
    expect(figure(page, 'Revenue this month')).toMatch(/^EUR\s30\.00$/);
    expect(figure(page, 'Revenue this week')).toMatch(/^EUR\s30\.00$/);
    const report = ok(
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/reports/bookings?from=${MARCH.from}&to=${MARCH.to}&groupBy=day`,
        headers: auth,
      }),
    );
    expect(figure(page, 'Utilisation')).toBe(`${(report.totals.utilisation * 100).toFixed(1)}%`);
    // The month table lists the days with bookings, with the report's counts.
    expect(page).toMatch(/data-label="Day">\s*Wed 3 Mar\s*<\/th><td data-label="Bookings">3<\/td>/);
  });

  it('exports bookings, customers and payments as CSV, parsed back to the rows SQL selects', async () => {
    const csv = async (kind: string, from = '2027-03-01', to = '2027-03-31') => {
      const res = await get(`${base()}/export?kind=${kind}&from=${from}&to=${to}`);
      expect(res.statusCode, kind).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toBe(`attachment; filename="${kind}-${from}-to-${to}.csv"`);
      return parse<Record<string, string>>(res.body, { columns: true });
    };
    const bookings = await csv('bookings');
    const inMarch = await db().booking.findMany({
      where: { companyId, startTime: { gte: new Date(MARCH.from), lt: new Date(MARCH.to) } },
      orderBy: [{ startTime: 'asc' }, { id: 'asc' }],
    });
    expect(bookings.map((b) => b.id)).toEqual(inMarch.map((b) => b.id));
    expect(bookings.map((b) => b.status)).toEqual(['completed', 'no_show', 'confirmed', 'cancelled', 'confirmed']);
    expect(bookings[0]).toMatchObject({
      start: '2027-03-03T08:00:00.000Z',
      start_local: '2027-03-03 09:00',
      service: 'Cut',
      employee: 'Anna',
      customer_name: 'Cleo Served',
      price: '4000',
      currency: 'EUR',
    });
    // A text a spreadsheet would run as a formula is written with a leading apostrophe.
    expect(bookings[4]!.customer_name).toBe(`'=HYPERLINK("http://evil.example")`);

    // Customers are added and payments made in real time (a test clock moves domain time only),
    // so they were created around now: the Berlin days from yesterday to tomorrow hold them all.
    const now = DateTime.now().setZone('Europe/Berlin');
    const [yesterday, tomorrow] = [now.minus({ days: 1 }).toISODate()!, now.plus({ days: 1 }).toISODate()!];
    const customers = await csv('customers', yesterday, tomorrow);
    expect(customers.map((c) => c.id).sort()).toEqual(
      (await db().customer.findMany({ where: { companyId } })).map((c) => c.id).sort(),
    );
    const payments = await csv('payments', yesterday, tomorrow);
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({ amount: '4000', amount_refunded: '1000', status: 'partially_refunded' });
    expect(await csv('payments', '2020-01-01', '2020-01-31')).toEqual([]);
  });

  it('refuses a bad export in words, naming the field', async () => {
    for (const [query, words] of [
      ['kind=bookings&from=2027-03-10&to=2027-03-01', 'The last day must be on or after the first day.'],
      ['kind=bookings&from=2026-01-01&to=2027-03-01', 'The last day must be at most 366 days after the first day.'],
      ['kind=bookings&from=March&to=2027-03-01', 'The first day must be a date.'],
      ['kind=everything&from=2027-03-01&to=2027-03-02', 'What must be one of bookings, customers, payments.'],
    ]) {
      const res = await get(`${base()}/export?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.headers['content-type']).toContain('text/html');
      expect(res.body).toContain(words);
      expect(res.body).toContain('aria-invalid="true"');
    }
  });

  it("another account's company and the other mode are 404", async () => {
    const other = await createAccountWithKeys(t.dbs);
    const theirs = await blankCompany(t.dbs, other);
    expect((await get(`/admin/test/companies/${theirs.company.id}/overview`)).statusCode).toBe(404);
    expect(
      (
        await get(
          `/admin/test/companies/${theirs.company.id}/overview/export?kind=bookings&from=2027-03-01&to=2027-03-02`,
        )
      ).statusCode,
    ).toBe(404);
    expect((await get(`/admin/live/companies/${companyId}/overview`)).statusCode).toBe(404);
  });
});

// Last: it changes the month's data. The figures are kept per process (overviewFigures) and served
// again while the company's report versions are unchanged; every write below goes straight into the
// database, as another instance or a plain SQL session would, never through this instance's code.
describe('kept figures', () => {
  const page = async () => (await get(base())).body;
  const untracked = (sql: string) =>
    db().$transaction([
      db().$executeRawUnsafe(`SET LOCAL session_replication_role = replica`),
      db().$executeRawUnsafe(sql),
    ]);
  const sql = (text: string) => db().$executeRawUnsafe(text);

  it('are served again while nothing they are made of changed, and computed again after any write that did', async () => {
    expect(figure(await page(), 'Revenue this month')).toMatch(/^EUR\s30\.00$/);
    // A write the triggers do not see (replica role: no triggers fire) is not shown: the page
    // really serves what it kept…
    await untracked(`UPDATE payments SET amount_refunded = 2000 WHERE company_id = '${companyId}'`);
    expect(figure(await page(), 'Revenue this month')).toMatch(/^EUR\s30\.00$/);
    // …until any write they are made of is committed: then all of it is read again.
    await sql(`UPDATE services SET name = name WHERE company_id = '${companyId}'`);
    expect(figure(await page(), 'Revenue this month')).toMatch(/^EUR\s20\.00$/);

    // Each kind of row the figures are made of, written in plain SQL.
    await sql(`UPDATE payments SET amount_refunded = 3000 WHERE company_id = '${companyId}'`);
    expect(figure(await page(), 'Revenue this month')).toMatch(/^EUR\s10\.00$/);
    await sql(
      `UPDATE bookings SET status = 'cancelled' WHERE company_id = '${companyId}' AND start_time = '2027-03-20T09:00:00Z'`,
    );
    const n = await marchBySql(t, companyId);
    expect(n.cancelled).toBe(2);
    expect(figure(await page(), 'Cancellation rate')).toBe(pct(n.cancelled, n.total));
    await sql(`UPDATE employees SET name = 'Anna K' WHERE company_id = '${companyId}' AND name = 'Anna'`);
    expect(await page()).toContain('aria-label="Today: Anna K"');
    // The working hours the utilisation divides by (a whole-day week makes the rate itself move little).
    const hours = async () =>
      /<span class="figure-label">Utilisation<\/span><strong class="figure">[^<]+<\/strong><span class="muted">\d+ of (\d+) working hours booked/.exec(
        await page(),
      )?.[1];
    const before = await hours();
    await sql(
      `INSERT INTO time_off (id, company_id, employee_id, start_time, end_time, created_at)
       SELECT 'to' || substr(md5(random()::text), 1, 22), company_id, id, '2027-03-10T00:00:00Z', '2027-03-12T00:00:00Z', now()
       FROM employees WHERE company_id = '${companyId}' AND name = 'Ben'`,
    );
    const report = ok(
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/reports/bookings?from=${MARCH.from}&to=${MARCH.to}&groupBy=day`,
        headers: auth,
      }),
    );
    expect(figure(await page(), 'Utilisation')).toBe(`${(report.totals.utilisation * 100).toFixed(1)}%`);
    expect(Number(await hours())).toBe(Number(before) - 48);
    expect(await hours()).toBe(String(Math.round(report.totals.availableMinutes / 60)));
  });
});

// After the kept figures: it moves the clock a minute on. The page itself is kept too, for the
// minute it says.
describe('kept page', () => {
  it('is served again within its minute and drawn again in the next', async () => {
    const clocks = ok(await t.app.inject({ method: 'GET', url: '/api/v1/test-clocks', headers: auth }));
    const clock = (clocks as Array<{ _id: string; frozenTime: string }>)[0]!;
    const advance = async (to: string) =>
      ok(
        await t.app.inject({
          method: 'POST',
          url: `/api/v1/test-clocks/${clock._id}/advance`,
          headers: auth,
          payload: { to },
        }),
      );
    const at = DateTime.fromISO(clock.frozenTime, { zone: 'utc' });
    expect(at.second).toBe(0);
    const first = (await get(base())).body;
    const name = /<\/time> [^·<]+ · ([^<]+)<\/a>/.exec(first)![1]!;
    // A rename the triggers do not see: not on the page while the minute lasts…
    await db().$transaction([
      db().$executeRawUnsafe(`SET LOCAL session_replication_role = replica`),
      db().$executeRawUnsafe(
        `UPDATE customers SET name = 'Kept Minute' WHERE company_id = '${companyId}' AND name = '${name}'`,
      ),
    ]);
    await advance(at.plus({ seconds: 30 }).toISO()!);
    const same = (await get(base())).body;
    expect(same).toContain(`· ${name}</a>`);
    expect(same).not.toContain('Kept Minute');
    // …and the next minute's page is drawn again (with the new time on it).
    await advance(at.plus({ minutes: 1 }).toISO()!);
    const next = (await get(base())).body;
    expect(next).toContain('· Kept Minute</a>');
    expect(next).toContain(at.plus({ minutes: 1 }).setZone('Europe/Berlin').toFormat('HH:mm'));
  });
});

// Last: it adds staff and bookings. A big team's day is listed a page of staff at a time.
describe("today's list of a big team", () => {
  const sections = (html: string) => [...html.matchAll(/<section aria-label="Today: ([^"]+)">/g)].map((m) => m[1]);

  it('lists a page of 12 staff members with bookings, by name, with the whole day counted', async () => {
    const service = await db().service.findFirstOrThrow({ where: { companyId } });
    for (let i = 1; i <= 12; i++) {
      const name = `Staff ${String(i).padStart(2, '0')}`;
      const e = await post(t.app, '/api/v1/employees', auth, { name, workingHours: ALL_DAY, serviceIds: [service.id] });
      await post(t.app, '/api/v1/bookings', auth, {
        serviceId: service.id,
        employeeId: e._id,
        startTime: '2027-03-03T15:00:00Z',
        customer: { name: `Guest ${i}`, email: `guest${i}@example.com` },
      });
    }
    // Anna (two today), Ben (one) and the twelve: 14 staff members, 15 bookings.
    const first = (await get(base())).body;
    expect(first).toContain('15 bookings with 14 staff members.');
    expect(sections(first)).toEqual([
      'Anna K',
      'Ben',
      ...Array.from({ length: 10 }, (_, i) => `Staff ${String(i + 1).padStart(2, '0')}`),
    ]);
    expect(first).toMatch(/Staff 1–12 of\s*14/);
    expect(first).toContain(`href="${base()}?page=2"`);
    expect(first).not.toContain('← Previous staff');
    const second = (await get(`${base()}?page=2`)).body;
    expect(sections(second)).toEqual(['Staff 11', 'Staff 12']);
    expect(second).toMatch(/Staff 13–14 of\s*14/);
    expect(second).toContain(`href="${base()}?page=1"`);
    expect(second).not.toContain('Next staff →');
    expect(second).toMatch(/<time[^>]*>16:00<\/time> Cut · Guest 12<\/a>/);
    // Past the last page: the last page.
    expect(sections((await get(`${base()}?page=9`)).body)).toEqual(['Staff 11', 'Staff 12']);
  });

  it('refuses a page that is not a whole number from 1, naming it', async () => {
    for (const page of ['0', 'two', '1.5', '-1']) {
      const res = await get(`${base()}?page=${page}`);
      expect(res.statusCode, page).toBe(400);
      expect(res.body, page).toContain('page: must be a whole number from 1');
    }
  });
});
