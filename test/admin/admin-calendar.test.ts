// The admin calendar (src/admin/routes/calendar.tsx, docs/admin.md): what each cell of the grid
// shows (a booking in its staff member's column at its start, effective working hours shaded,
// time off and closures marked, class fill), the hours of a day the clocks change, tenants and
// modes, bad input, the old URL, one statement per kind of thing whatever the number of
// bookings; and in Chromium the page at desktop and phone widths with axe, and a free cell
// leading to the new-booking page with its staff member and start.
import type { AddressInfo } from 'node:net';
import { DateTime } from 'luxon';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { openDatabases, type SentQuery } from '../../src/db/databases.js';
import { setReportCache } from '../../src/schema/reports/index.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { axeFindings } from '../helpers/axe.js';
import { createTestDatabases, embedded } from '../helpers/db.js';
import { ALL_DAY, blankCompany, ok, post, WEEK_9_TO_17 } from '../helpers/domain.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { injectSignIn, launchChromium, shot, signIn } from './admin-helpers.js';

const ZONE = 'Europe/Berlin';
let t: TestApp;
let origin: string;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let co: Awaited<ReturnType<typeof blankCompany>>;
let cookie: string;
let recording: SentQuery[] | null = null;
// A Wednesday two weeks ahead: every booking made for it is in the future.
const day = DateTime.now().setZone(ZONE).startOf('week').plus({ weeks: 2, days: 2 });
const D = day.toISODate()!;
const local = (hhmm: string, d = day) => DateTime.fromISO(`${d.toISODate()}T${hhmm}`, { zone: ZONE });
const iso = (hhmm: string, d = day) => local(hhmm, d).toUTC().toISO()!;
let anna: { _id: string };
let ben: { _id: string };
let booking: { _id: string; status: string };

beforeAll(async () => {
  const base = await createTestDatabases();
  // The same database, observed: the statements each page sends.
  const dbs = embedded()
    ? base.dbs
    : await openDatabases(
        { DATABASE_URL: base.url!, SANDBOX_SCHEMA: 'sandbox', DATABASE_POOL_SIZE: 10, DATA_DIR: '.data' },
        { onQuery: (q) => recording?.push(q) },
      );
  t = await createTestApp({
    env: { RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000', RATE_LIMIT_PER_SECOND: '100000' },
    db: {
      dbs,
      url: base.url,
      drop: async () => {
        if (dbs !== base.dbs) await dbs.close();
        await base.drop();
      },
    },
  });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  w = await createAccountWithKeys(t.dbs);
  co = await blankCompany(t.dbs, w, { timezone: ZONE });
  cookie = await injectSignIn(t.app, w);
  const auth = co.auth;
  anna = await post(t.app, '/api/v1/employees', auth, { name: 'Anna', workingHours: WEEK_9_TO_17 });
  ben = await post(t.app, '/api/v1/employees', auth, { name: 'Ben', workingHours: WEEK_9_TO_17 });
  // Ben works 10:00–14:00 that day only (a date override replaces his weekly hours).
  ok(
    await t.app.inject({
      method: 'PUT',
      url: `/api/v1/employees/${ben._id}/date-overrides/${D}`,
      headers: auth,
      payload: { intervals: [{ start: '10:00', end: '14:00' }] },
    }),
  );
  const cut = await post(t.app, '/api/v1/services', auth, {
    name: 'Cut',
    durationMinutes: 60,
    price: 4500,
    employeeIds: [anna._id, ben._id],
  });
  booking = await post(t.app, '/api/v1/bookings', auth, {
    serviceId: cut._id,
    employeeId: anna._id,
    startTime: iso('11:00'),
    customer: { name: 'Cleo Customer', email: 'cleo-cal@example.com' },
  });
  await post(t.app, `/api/v1/employees/${anna._id}/time-off`, auth, {
    startTime: iso('14:00'),
    endTime: iso('15:00'),
    reason: 'Dentist',
  });
  await post(t.app, '/api/v1/closures', auth, {
    startTime: iso('16:00'),
    endTime: iso('17:00'),
    reason: 'Team meeting',
  });
  const yoga = await post(t.app, '/api/v1/services', auth, {
    name: 'Yoga',
    kind: 'class',
    durationMinutes: 60,
    price: 1500,
    employeeIds: [ben._id],
  });
  const session = await post(t.app, '/api/v1/classes', auth, {
    serviceId: yoga._id,
    employeeId: ben._id,
    startTime: iso('12:00'),
    capacity: 12,
  });
  for (const name of ['Dee', 'Eve'])
    await post(t.app, '/api/v1/bookings', auth, {
      serviceId: yoga._id,
      classId: session._id,
      customer: { name, email: `${name.toLowerCase()}-cal@example.com` },
    });
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const page = (path: string, query = '') =>
  t.app.inject({
    method: 'GET',
    url: `/admin/test/companies/${co.company.id}${path}${query}`,
    cookies: { svc_session: cookie },
  });

/**
 * The grid's cell of a staff member at an instant (its opening tag to its close): a column's
 * header names its staff member; a day view's row names its instant, a week view's cell its own.
 */
function cellOf(html: string, employeeId: string, start: string): string {
  const headers = [
    ...html.slice(0, html.indexOf('<tbody>')).matchAll(/<th scope="col"[^>]*?(?: data-employee="([^"]+)")?>/g),
  ].map((m) => m[1]);
  expect(headers, `a column of ${employeeId}`).toContain(employeeId);
  const row = new RegExp(`<tr data-start="${start}">([\\s\\S]*?)</tr>`).exec(html);
  if (row) return row[1]!.match(/<td[^>]*>[\s\S]*?<\/td>/g)![headers.indexOf(employeeId) - 1]!;
  const at = html.indexOf(` data-start="${start}"`);
  expect(at, `a cell of ${employeeId} at ${start}`).toBeGreaterThan(0);
  const open = html.lastIndexOf('<td', at);
  return html.slice(open, html.indexOf('</td>', at) + 5);
}
const classOf = (cell: string) => /^<td class="([^"]*)"/.exec(cell)![1]!.split(' ');
/** The grid only (the phone's agenda repeats the day as a list). */
const gridOf = (html: string) =>
  html.slice(html.indexOf('<div class="cal-grid">'), html.indexOf('<div class="cal-agenda">'));

describe('admin calendar: day view', () => {
  it('draws each thing in its cell: booking, shaded hours, time off, closure, class fill, free cells', async () => {
    const res = await page('/calendar', `?view=day&date=${D}`);
    expect(res.statusCode).toBe(200);
    const html = gridOf(res.body);
    // The booking: in Anna's column at 11:00, linked, with its status in words; not in Ben's.
    const eleven = cellOf(html, anna._id, iso('11:00'));
    expect(eleven).toContain(`href="/admin/test/companies/${co.company.id}/bookings/${booking._id}"`);
    expect(eleven).toContain('Cleo Customer');
    expect(eleven).toMatch(/Cut · (Confirmed|Pending)/);
    expect(cellOf(html, ben._id, iso('11:00'))).not.toContain('Cleo Customer');
    // It holds 11:00–12:00: the next half hour is busy, not free.
    expect(classOf(cellOf(html, anna._id, iso('11:30')))).toContain('busy');
    expect(cellOf(html, anna._id, iso('11:30'))).not.toContain('class="free"');
    // Working hours shaded, each one's own: Anna 9–17 (weekly), Ben 10–14 (that day's override).
    expect(classOf(cellOf(html, anna._id, iso('08:30')))).toContain('closed-hours');
    expect(classOf(cellOf(html, anna._id, iso('09:00')))).toContain('working');
    expect(classOf(cellOf(html, ben._id, iso('09:00')))).toContain('closed-hours');
    expect(classOf(cellOf(html, ben._id, iso('10:00')))).toContain('working');
    expect(classOf(cellOf(html, ben._id, iso('14:00')))).toContain('closed-hours');
    expect(html).toContain('09:00–17:00');
    expect(html).toContain('10:00–14:00');
    // Time off (Anna 14–15) and the company's closure (16–17, everyone) in words.
    const off = cellOf(html, anna._id, iso('14:00'));
    expect(classOf(off)).toContain('off');
    expect(off).toContain('<span class="mark">Time off</span>');
    expect(cellOf(html, anna._id, iso('14:30'))).toContain('Time off');
    expect(classOf(cellOf(html, anna._id, iso('15:00')))).not.toContain('off');
    for (const e of [anna, ben]) expect(cellOf(html, e._id, iso('16:00'))).toContain('Closed');
    expect(cellOf(html, anna._id, iso('16:00'))).not.toContain('class="free"');
    // Ben's class at 12:00 with its fill.
    const yoga = cellOf(html, ben._id, iso('12:00'));
    expect(yoga).toContain('Yoga');
    expect(yoga).toContain('2/12 booked');
    // A free working cell links to the new-booking page with the staff member and the start
    // (relative to the calendar's own path, …/companies/:id/calendar).
    const free = cellOf(html, anna._id, iso('09:30'));
    expect(free).toContain(`href="bookings/new?employeeId=${anna._id}&amp;start=${iso('09:30')}"`);
    expect(
      new URL(`bookings/new?employeeId=${anna._id}`, `http://x/admin/test/companies/${co.company.id}/calendar?view=day`)
        .pathname,
    ).toBe(`/admin/test/companies/${co.company.id}/bookings/new`);
    // Outside working hours: no link.
    expect(cellOf(html, anna._id, iso('08:30'))).not.toContain('class="free"');
    // The phone's agenda says the same in a list.
    const agenda = res.body.slice(res.body.indexOf('<div class="cal-agenda">'));
    expect(agenda).toContain('Time off: 14:00–15:00');
    expect(agenda).toContain('Closed: 16:00–17:00');
    expect(agenda).toContain('2/12 booked');
    expect(agenda).toContain('Cleo Customer');
  });

  it('the week view: one staff member, one column per day, the booking on its day', async () => {
    const res = await page('/calendar', `?view=week&date=${D}&employee=${anna._id}`);
    expect(res.statusCode).toBe(200);
    const html = gridOf(res.body);
    expect([...html.matchAll(/<th scope="col"/g)]).toHaveLength(8); // time + 7 days
    expect(cellOf(html, anna._id, iso('11:00'))).toContain('Cleo Customer');
    // The day before at 11:00: Anna's, working, free.
    const before = cellOf(html, anna._id, iso('11:00', day.minus({ days: 1 })));
    expect(before).toContain('class="free"');
    // Saturday: she does not work.
    expect(classOf(cellOf(html, anna._id, iso('11:00', day.plus({ days: 3 }))))).toContain('closed-hours');
    expect(html).not.toContain(`data-employee="${ben._id}"`);
  });

  it('renders the right hours on the days the clocks change (23 and 25 hours)', async () => {
    const night = await post(t.app, '/api/v1/employees', co.auth, { name: 'Night Nurse', workingHours: ALL_DAY });
    const spring = DateTime.fromISO('2027-03-28', { zone: ZONE });
    const autumn = DateTime.fromISO('2027-10-31', { zone: ZONE });
    await post(t.app, `/api/v1/employees/${night._id}/time-off`, co.auth, {
      startTime: iso('03:00', spring),
      endTime: iso('04:00', spring),
    });
    const rowsOf = async (d: DateTime, view = 'day') => {
      const res = await page('/calendar', `?view=${view}&date=${d.toISODate()}&employee=${night._id}`);
      expect(res.statusCode).toBe(200);
      const html = gridOf(res.body);
      return { html, labels: [...html.matchAll(/<th scope="row">([^<]*)<\/th>/g)].map((m) => m[1]) };
    };
    const s = await rowsOf(spring);
    expect(s.labels).toHaveLength(46); // 23 hours, every half hour
    expect(s.labels.slice(3, 5)).toEqual(['01:30 GMT+1', '03:00 GMT+2']);
    expect(s.labels.some((l) => l!.startsWith('02:'))).toBe(false);
    // The time off from 03:00 local is in the row right after the gap (01:00 UTC).
    expect(cellOf(s.html, night._id, '2027-03-28T01:00:00.000Z')).toContain('Time off');
    const a = await rowsOf(autumn);
    expect(a.labels).toHaveLength(50); // 25 hours
    expect(a.labels.slice(4, 8)).toEqual(['02:00 GMT+2', '02:30 GMT+2', '02:00 GMT+1', '02:30 GMT+1']);
    expect(cellOf(a.html, night._id, '2027-10-31T00:00:00.000Z')).toContain('02:00');
    // The week view keeps wall-clock rows: Sunday's 02:00 and 02:30 do not exist in spring.
    const week = await rowsOf(spring, 'week');
    expect(week.labels).toHaveLength(48);
    expect([...week.html.matchAll(/Clocks change/g)]).toHaveLength(2);
  });

  it('another account’s company and the other mode are 404; bad parameters are 400 naming the field', async () => {
    const other = await createAccountWithKeys(t.dbs);
    const url = (mode: string, id: string) => `/admin/${mode}/companies/${id}/calendar`;
    for (const u of [url('test', other.test.id), url('live', co.company.id), url('test', w.live.id)]) {
      const res = await t.app.inject({ method: 'GET', url: u, cookies: { svc_session: cookie } });
      expect(res.statusCode, u).toBe(404);
    }
    const foreign = await post(
      t.app,
      '/api/v1/employees',
      { authorization: `Bearer ${other.testKey.key}` },
      {
        name: 'Not yours',
        workingHours: WEEK_9_TO_17,
      },
    );
    for (const [q, field] of [
      ['?view=month', 'view'],
      ['?date=2026-02-30', 'date'],
      ['?date=tomorrow', 'date'],
      [`?employee=${foreign._id}`, 'employee'],
      ['?page=0', 'page'],
      ['?page=two', 'page'],
    ] as const) {
      const res = await page('/calendar', q);
      expect(res.statusCode, q).toBe(400);
      expect(res.body, q).toContain(`${field}: `);
      expect(res.body).not.toContain('Not yours');
    }
  });

  it('the old /bookings URL redirects to the calendar, keeping its week and employee; no staff, no grid', async () => {
    const res = await page('/bookings', `?week=${D}&employee=${anna._id}`);
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toBe(
      `/admin/test/companies/${co.company.id}/calendar?view=week&date=${D}&employee=${anna._id}`,
    );
    // A company without staff: the page says so, no grid.
    const empty = await blankCompany(t.dbs, w, { timezone: ZONE });
    for (const view of ['day', 'week']) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/admin/test/companies/${empty.company.id}/calendar?view=${view}`,
        cookies: { svc_session: cookie },
      });
      expect(res.statusCode, view).toBe(200);
      expect(res.body).toContain('This company has no staff yet.');
    }
    const plain = await page('/bookings');
    expect(plain.headers.location).toBe(`/admin/test/companies/${co.company.id}/calendar`);
    // The navigation says Calendar.
    const cal = await page('/calendar');
    expect(cal.body).toMatch(/<a href="[^"]*\/calendar" aria-current="page">Calendar<\/a>/);
  });

  it('pages a big team’s day, twelve staff members at a time, keeping the page from day to day', async () => {
    const big = await blankCompany(t.dbs, w, { timezone: ZONE });
    const staff: Array<{ _id: string }> = [];
    for (let i = 0; i < 14; i++)
      staff.push(
        await post(t.app, '/api/v1/employees', big.auth, {
          name: `Stylist ${String(i).padStart(2, '0')}`,
          workingHours: WEEK_9_TO_17,
        }),
      );
    const cut = await post(t.app, '/api/v1/services', big.auth, {
      name: 'Cut',
      durationMinutes: 60,
      price: 4500,
      employeeIds: [staff[13]!._id],
    });
    const late = await post(t.app, '/api/v1/bookings', big.auth, {
      serviceId: cut._id,
      employeeId: staff[13]!._id,
      startTime: iso('10:00'),
      customer: { name: 'Paged Customer', email: 'paged-cal@example.com' },
    });
    const open = async (q: string) => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/admin/test/companies/${big.company.id}/calendar${q}`,
        cookies: { svc_session: cookie },
      });
      expect(res.statusCode, q).toBe(200);
      return res.body;
    };
    const columnsOf = (html: string) => [
      ...new Set([...gridOf(html).matchAll(/data-employee="([^"]+)"/g)].map((m) => m[1])),
    ];
    const first = await open(`?view=day&date=${D}`);
    expect(columnsOf(first)).toEqual(staff.slice(0, 12).map((e) => e._id));
    expect(first).toContain('Staff 1–12 of 14');
    expect(first).not.toContain('Paged Customer');
    const next = /<a class="button" href="([^"]+)">Next staff →<\/a>/.exec(first)![1]!.replaceAll('&amp;', '&');
    expect(next).toContain('page=2');
    const second = await open(next.slice(next.indexOf('?')));
    expect(columnsOf(second)).toEqual([staff[12]!._id, staff[13]!._id]);
    expect(second).toContain('Staff 13–14 of 14');
    expect(second).toContain('Paged Customer');
    expect(second).toContain(`/bookings/${late._id}`);
    expect(second).toContain('← Previous staff');
    expect(second).not.toContain('Next staff →');
    // The next day keeps the page; a page past the end shows the last one.
    expect(second).toMatch(new RegExp(`date=${day.plus({ days: 1 }).toISODate()}&amp;page=2">Next day`));
    expect(columnsOf(await open(`?view=day&date=${D}&page=9`))).toEqual([staff[12]!._id, staff[13]!._id]);
  });

  it.skipIf(embedded())('sends one statement per kind of thing, whatever the number of bookings', async () => {
    // Each page drawn afresh (a kept one reads none of it: "kept calendar" below).
    setReportCache([t.dbs.live.prisma, t.dbs.test.prisma], false);
    onTestFinished(() => setReportCache([t.dbs.live.prisma, t.dbs.test.prisma], true));
    const count = async () => {
      // The request log's batch of the API requests before is written now, not in the middle of
      // the page's statements (it is not the page's).
      await t.app.requestLogs?.flush();
      recording = [];
      const res = await page('/calendar', `?view=day&date=${D}`);
      expect(res.statusCode).toBe(200);
      const sent = recording.filter((q) => q.mode === 'test');
      recording = null;
      return sent;
    };
    const before = await count();
    // Twenty more bookings that day (Anna and Ben, 9:00 onwards, an hour each where free).
    const cut = ok(
      await t.app.inject({ method: 'GET', url: '/api/v1/services?kind=appointment', headers: co.auth }),
    )[0];
    let made = 0;
    for (const e of [anna, ben])
      for (const hh of ['09:00', '10:00', '13:00', '15:00']) {
        const r = await t.app.inject({
          method: 'POST',
          url: '/api/v1/bookings',
          headers: co.auth,
          payload: {
            serviceId: cut._id,
            employeeId: e._id,
            startTime: iso(hh),
            customer: { name: `C ${made}`, email: `c${made}-cal@example.com` },
          },
        });
        if (r.statusCode === 200) made++;
      }
    expect(made).toBeGreaterThan(3);
    const after = await count();
    expect(after.length).toBe(before.length);
    // Bookings are read once, narrowed to the day on screen.
    const reads = after.filter((q) => /FROM "[^"]*"?\.?"?bookings"/.test(q.text) && /start_time/.test(q.text));
    expect(reads.length).toBeGreaterThan(0);
    expect(after.length).toBeLessThan(20);
  });
});

// Last but the browser's: it changes the day's data and puts the company on a test clock. A
// rendered calendar is kept per process and served again while the company's report versions
// are unchanged and the time has not passed a free cell's start; every write below goes straight
// into the database, as another instance or a plain SQL session would.
describe('kept calendar', () => {
  const db = () => t.dbs.test.prisma;
  const untracked = (text: string) =>
    db().$transaction([
      db().$executeRawUnsafe(`SET LOCAL session_replication_role = replica`),
      db().$executeRawUnsafe(text),
    ]);
  const sql = (text: string) => db().$executeRawUnsafe(text);
  const grid = async () => {
    const res = await page('/calendar', `?view=day&date=${D}`);
    expect(res.statusCode).toBe(200);
    return gridOf(res.body);
  };
  const rename = (name: string) =>
    untracked(
      `UPDATE customers SET name = '${name}' WHERE id = (SELECT customer_id FROM bookings WHERE id = '${booking._id}')`,
    );
  const cleo = async () => /(Cleo[^<]*)<br/.exec(cellOf(await grid(), anna._id, iso('11:00')))?.[1]?.trim();

  it('is served again while nothing it shows changed, and drawn again after any write that did', async () => {
    const first = await cleo();
    // A write the triggers do not see (replica role: no triggers fire) is not shown: the page
    // really serves what it kept…
    await rename('Cleo Untracked');
    expect(await cleo()).toBe(first);
    // …until a write to any kind of row it shows is committed, whichever: each draws it again.
    const company = co.company.id;
    const writes: Array<[string, string]> = [
      ['customers', `UPDATE customers SET email = email WHERE company_id = '${company}'`],
      ['date_overrides', `UPDATE date_overrides SET intervals = intervals WHERE company_id = '${company}'`],
      ['closures', `UPDATE closures SET reason = reason WHERE company_id = '${company}'`],
      [
        'locations',
        `INSERT INTO locations (id, company_id, name, address, time_zone, updated_at)
         VALUES ('loc_kept_calendar', '${company}', 'Annex', '1 Side St', '${ZONE}', now())`,
      ],
      ['bookings', `UPDATE bookings SET notes = notes WHERE company_id = '${company}'`],
      ['employees', `UPDATE employees SET name = name WHERE company_id = '${company}'`],
      ['time_off', `UPDATE time_off SET reason = reason WHERE company_id = '${company}'`],
      ['class_sessions', `UPDATE class_sessions SET capacity = capacity WHERE company_id = '${company}'`],
      ['services', `UPDATE services SET name = name WHERE company_id = '${company}'`],
    ];
    for (const [i, [table, write]] of writes.entries()) {
      await rename(`Cleo ${i}`);
      expect(await cleo(), `before ${table}`).toBe(i === 0 ? first : `Cleo ${i - 1}`);
      await sql(write);
      expect(await cleo(), `after ${table}`).toBe(`Cleo ${i}`);
    }
    // A busy time from an outside calendar, at once in Anna's 09:00 cell.
    await untracked(
      `INSERT INTO external_calendars (id, company_id, employee_id, slot, name, url_enc, url_redacted, updated_at)
       VALUES ('cal_kept_calendar', '${company}', '${anna._id}', 1, 'Home', 'x', 'https://example.com/…', now())`,
    );
    expect(cellOf(await grid(), anna._id, iso('09:00'))).not.toContain('Busy (outside calendar)');
    await sql(
      `INSERT INTO external_busy (company_id, employee_id, calendar_id, start_time, end_time)
       VALUES ('${company}', '${anna._id}', 'cal_kept_calendar', '${iso('09:00')}', '${iso('09:30')}')`,
    );
    const nine = cellOf(await grid(), anna._id, iso('09:00'));
    expect(nine).toContain('Busy (outside calendar)');
    expect(nine).not.toContain('class="free"');
  });

  it('draws the day again once the time passes a free cell’s start, and not before', async () => {
    const clock = await post(t.app, '/api/v1/test-clocks', co.auth, { frozenTime: iso('12:10') });
    const attach = async (testClockId: string | null) =>
      ok(await t.app.inject({ method: 'PATCH', url: '/api/v1/me', headers: co.auth, payload: { testClockId } }));
    const advance = async (to: string) =>
      ok(
        await t.app.inject({
          method: 'POST',
          url: `/api/v1/test-clocks/${clock._id}/advance`,
          headers: co.auth,
          payload: { to },
        }),
      );
    const freeAt = async (hhmm: string) => cellOf(await grid(), anna._id, iso(hhmm)).includes('class="free"');
    try {
      await attach(clock._id);
      // 12:10: the 12:30 cell is free, the 12:00 one (started) is not.
      expect(await freeAt('12:30')).toBe(true);
      expect(await freeAt('12:00')).toBe(false);
      await rename('Cleo Kept');
      // Still before 12:30: the kept page is served (the untracked name is not shown)…
      await advance(iso('12:25'));
      expect(await cleo()).not.toBe('Cleo Kept');
      expect(await freeAt('12:30')).toBe(true);
      // …and once 12:30 has passed, the page is drawn again: the 12:30 cell is no longer free.
      await advance(iso('12:35'));
      expect(await freeAt('12:30')).toBe(false);
      expect(await cleo()).toBe('Cleo Kept');
    } finally {
      await attach(null);
    }
  });

  it.skipIf(embedded())('a kept page reads none of the day’s data', async () => {
    await grid();
    await t.app.requestLogs?.flush();
    recording = [];
    await grid();
    const sent = recording.filter((q) => q.mode === 'test');
    recording = null;
    expect(sent.filter((q) => /bookings|employees|class_sessions|time_off/.test(q.text))).toEqual([]);
    expect(sent.some((q) => /report_versions/.test(q.text))).toBe(true);
  });

  it.skipIf(embedded())('is drawn once for the people who open it together after a write', async () => {
    const reads = async (loads: number) => {
      await sql(`UPDATE services SET name = name WHERE company_id = '${co.company.id}'`);
      await t.app.requestLogs?.flush();
      recording = [];
      const pages = await Promise.all(Array.from({ length: loads }, () => grid()));
      const sent = recording.filter((q) => q.mode === 'test' && /FROM "?bookings"? b/.test(q.text));
      recording = null;
      expect(new Set(pages).size).toBe(1);
      return sent.length;
    };
    const one = await reads(1);
    expect(one).toBeGreaterThan(0);
    expect(await reads(4)).toBe(one);
  });
});

describe('admin calendar in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => browser?.close());

  it('passes axe at 1280 and 390 px without widening the page; a free cell opens the new booking', async () => {
    const url = `${origin}/admin/test/companies/${co.company.id}/calendar?view=day&date=${D}`;
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const p = await context.newPage();
    await signIn(p, origin, w.email, w.password, `/admin/test/companies/${co.company.id}/calendar?view=day&date=${D}`);
    for (const width of [1280, 390]) {
      await p.setViewportSize({ width, height: 860 });
      await p.goto(url);
      await shot(p, `calendar-day-${width}`);
      expect(await axeFindings(p), `${width} px`).toEqual([]);
      expect(await p.evaluate(() => document.documentElement.scrollWidth), `${width} px`).toBeLessThanOrEqual(width);
      // The grid on a wide screen, the agenda on a phone.
      expect(await p.locator('.cal-grid').isVisible()).toBe(width > 760);
      expect(await p.locator('.cal-agenda').isVisible()).toBe(width <= 760);
    }
    await p.setViewportSize({ width: 1280, height: 860 });
    await p.goto(url);
    await p.getByRole('link', { name: /new booking with Anna, 12:30/ }).click();
    await p.waitForURL((u) => u.pathname.endsWith('/bookings/new'));
    const got = new URL(p.url());
    expect(got.searchParams.get('employeeId')).toBe(anna._id);
    expect(got.searchParams.get('start')).toBe(iso('12:30'));
    await context.close();
  }, 120_000);
});
