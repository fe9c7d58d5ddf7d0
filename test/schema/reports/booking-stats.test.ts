// bookingStats over GraphQL (docs/graphql.md, "Reports"): local days of the company's zone
// across DST, revenue net of a refund, utilisation as worked out by hand, the revenue scope,
// and hostile arguments.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { createAccountWithKeys } from '../../helpers/factories.js';
import { createDomainApp, post, ok, ALL_DAY, blankCompany, type World } from '../../helpers/domain.js';
import { EXPECTED, FALL, reportWorld, utc, WINDOW, YEAR } from '../../helpers/report-world.js';
import { createBooking } from '../../../src/schema/bookings/create-booking.js';
import { applyTransition, transitionBooking } from '../../../src/schema/bookings/transition-booking.js';
import { BookingStatus } from '../../../src/generated/prisma/enums.js';

let t: TestApp;
let w: World;
let r: Awaited<ReturnType<typeof reportWorld>>;
beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
  r = await reportWorld(t, w);
});
afterAll(async () => t?.close());

const GROUP = `key name counts { total pending confirmed cancelled completed noShow expired waitlisted offered } noShowRate
  revenue { currency collected refunded net } bookedMinutes availableMinutes utilisation`;
const QUERY = `query($from: DateTime!, $to: DateTime!, $groupBy: BookingStatsGroupBy!) {
  bookingStats(from: $from, to: $to, groupBy: $groupBy) { from to groupBy timeZone groups { ${GROUP} } totals { ${GROUP} } } }`;

async function gql(headers: Record<string, string>, variables: Record<string, unknown>, query = QUERY) {
  const res = await t.app.inject({ method: 'POST', url: '/graphql', headers, payload: { query, variables } });
  return res.json<{ data: any; errors?: Array<{ message: string; path?: unknown[]; extensions: any }> }>();
}

describe('bookingStats by DAY', () => {
  it("groups by the company's local day across the spring-forward night, with revenue and utilisation", async () => {
    const body = await gql(r.auth, { ...WINDOW, groupBy: 'DAY' });
    expect(body.errors).toBeUndefined();
    expect(body.data.bookingStats).toEqual({
      from: WINDOW.from,
      to: WINDOW.to,
      groupBy: 'DAY',
      timeZone: 'Europe/Berlin',
      // b1 starts on a UTC Saturday but a Berlin Sunday: it counts on Sunday.
      groups: [EXPECTED.saturday, EXPECTED.sunday],
      totals: EXPECTED.totals,
    });
  });

  it('makes the fall-back Sunday 25 hours long, and puts a booking at 00:30 on Monday though it is Sunday in UTC', async () => {
    const { company, auth } = await blankCompany(t.dbs, w, { timezone: 'Europe/Berlin' });
    const db = t.dbs.test.prisma;
    const staff = await post(t.app, '/api/v1/employees', auth, { name: 'Sam', workingHours: ALL_DAY });
    const service = await post(t.app, '/api/v1/services', auth, {
      name: 'Cut',
      durationMinutes: 30,
      price: 0,
      employeeIds: [staff._id],
    });
    const book = (start: Date) =>
      createBooking(db, {
        company,
        input: {
          serviceId: service._id,
          startTime: start.toISOString(),
          customer: { name: 'Dana', email: 'd@example.com' },
        },
      });
    await book(utc(10, FALL, 0, 30)); // 02:30 CEST Sunday (the first 02:30)
    await book(utc(10, FALL, 1, 30)); // 02:30 CET Sunday (the repeated 02:30)
    await book(utc(10, FALL, 23, 30)); // 00:30 CET Monday
    const body = await gql(auth, {
      from: utc(10, FALL - 1, 22).toISOString(), // Sunday 00:00 CEST
      to: utc(10, FALL + 1, 23).toISOString(), // Tuesday 00:00 CET
      groupBy: 'DAY',
    });
    expect(body.errors).toBeUndefined();
    const days = body.data.bookingStats.groups.map((g: any) => [
      g.key,
      g.counts.total,
      g.bookedMinutes,
      g.availableMinutes,
    ]);
    expect(days).toEqual([
      [`${YEAR}-10-${FALL}`, 2, 60, 25 * 60],
      [
        utc(10, FALL + 1, 12)
          .toISOString()
          .slice(0, 10),
        1,
        30,
        24 * 60,
      ],
    ]);
  });
});

describe('bookingStats by EMPLOYEE and SERVICE', () => {
  it('gives each employee their own counts and working time, an employee without working time no utilisation', async () => {
    const body = await gql(r.auth, { ...WINDOW, groupBy: 'EMPLOYEE' });
    expect(body.errors).toBeUndefined();
    const byKey = Object.fromEntries(body.data.bookingStats.groups.map((g: any) => [g.key, g]));
    expect(Object.keys(byKey).sort()).toEqual([r.alex._id, r.kim._id].sort());
    expect(byKey[r.alex._id]).toEqual({ ...EXPECTED.totals, key: r.alex._id, name: 'Alex' });
    expect(byKey[r.kim._id]).toEqual({
      ...EXPECTED.totals,
      key: r.kim._id,
      name: 'Kim',
      counts: {
        total: 0,
        pending: 0,
        confirmed: 0,
        cancelled: 0,
        completed: 0,
        noShow: 0,
        expired: 0,
        waitlisted: 0,
        offered: 0,
      },
      noShowRate: null,
      revenue: [],
      bookedMinutes: 0,
      availableMinutes: 0, // Monday to Friday only
      utilisation: null,
    });
    expect(body.data.bookingStats.totals).toEqual(EXPECTED.totals);
  });

  it("divides a service's minutes by the working time of the employees who perform it", async () => {
    const body = await gql(r.auth, { ...WINDOW, groupBy: 'SERVICE' });
    expect(body.errors).toBeUndefined();
    expect(body.data.bookingStats.groups).toEqual([{ ...EXPECTED.totals, key: r.service._id, name: 'Cut' }]);
  });
});

describe('bookingStats: every status', () => {
  it('counts every booking status under its own key, so the counts add up to total in every group', async () => {
    const { company, auth } = await blankCompany(t.dbs, w, { timezone: 'Europe/Berlin' });
    const db = t.dbs.test.prisma;
    const staff = await post(t.app, '/api/v1/employees', auth, { name: 'Sam', workingHours: ALL_DAY });
    const cut = await post(t.app, '/api/v1/services', auth, {
      name: 'Cut',
      durationMinutes: 30,
      price: 0,
      employeeIds: [staff._id],
    });
    const paid = await post(t.app, '/api/v1/services', auth, {
      name: 'Colour',
      durationMinutes: 30,
      price: 5000,
      requiresPayment: true,
      employeeIds: [staff._id],
    });
    const day = Math.ceil(Date.now() / 86_400_000) * 86_400_000 + 2 * 86_400_000;
    const book = (serviceId: string, hour: number) =>
      createBooking(db, {
        company,
        input: {
          serviceId,
          startTime: new Date(day + hour * 3_600_000).toISOString(),
          customer: { name: 'Dana', email: 'd@example.com' },
        },
      });
    const after = new Date(day + 20 * 3_600_000);
    const move = (bookingId: string, action: 'complete' | 'no_show' | 'cancel') =>
      transitionBooking(db, { companyId: company.id, bookingId, action, now: after });
    await book(cut._id, 8); // confirmed
    await move((await book(cut._id, 9)).id, 'complete');
    await move((await book(cut._id, 10)).id, 'no_show');
    await move((await book(cut._id, 11)).id, 'cancel');
    await book(paid._id, 12); // pending
    const lapsed = await book(paid._id, 13);
    await db.$transaction((tx) => applyTransition(tx, lapsed, 'expire', { now: after }));
    // A full class of one in offer mode: a cancel offers the place to the first of two waiting.
    const coach = await post(t.app, '/api/v1/employees', auth, { name: 'Coach' });
    const spin = await post(t.app, '/api/v1/services', auth, {
      name: 'Spin',
      kind: 'class',
      durationMinutes: 45,
      price: 0,
      employeeIds: [coach._id],
      waitlist: { enabled: true, offerMode: 'offer' },
    });
    const session = await post(t.app, '/api/v1/classes', auth, {
      serviceId: spin._id,
      employeeId: coach._id,
      startTime: new Date(day + 15 * 3_600_000).toISOString(),
      capacity: 1,
    });
    const joined = [];
    for (const n of [1, 2, 3])
      joined.push(
        await post(t.app, '/api/v1/bookings', auth, {
          serviceId: spin._id,
          classId: session._id,
          customer: { name: `C${n}`, email: `c${n}@example.com` },
          ...(n > 1 ? { waitlist: true } : {}),
        }),
      );
    ok(await t.app.inject({ method: 'POST', url: `/api/v1/bookings/${joined[0]._id}/cancel`, headers: auth }));

    const window = { from: new Date(day).toISOString(), to: new Date(day + 86_400_000).toISOString() };
    const query = `query($from: DateTime!, $to: DateTime!, $groupBy: BookingStatsGroupBy!) {
      bookingStats(from: $from, to: $to, groupBy: $groupBy) {
        groups { counts { total pending confirmed cancelled completed noShow expired waitlisted offered } }
        totals { counts { total pending confirmed cancelled completed noShow expired waitlisted offered } } } }`;
    const keyOf = (status: string) => status.replace(/_(\w)/g, (_m, c: string) => c.toUpperCase());
    for (const groupBy of ['DAY', 'EMPLOYEE', 'SERVICE']) {
      const body = await gql(auth, { ...window, groupBy }, query);
      expect(body.errors).toBeUndefined();
      const { groups, totals } = body.data.bookingStats;
      // Every status the database knows has its key, and nothing else besides total.
      expect(Object.keys(totals.counts).sort()).toEqual(['total', ...Object.values(BookingStatus).map(keyOf)].sort());
      for (const g of [...groups, totals]) {
        const { total, ...byStatus } = g.counts;
        expect(Object.values(byStatus).reduce((a: number, b) => a + (b as number), 0)).toBe(total);
      }
      expect(totals.counts).toEqual({
        total: 9,
        pending: 1,
        confirmed: 1,
        cancelled: 2,
        completed: 1,
        noShow: 1,
        expired: 1,
        waitlisted: 1,
        offered: 1,
      });
    }
    // REST gives the same keys.
    const rest = ok(
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/reports/bookings?from=${window.from}&to=${window.to}&groupBy=day`,
        headers: auth,
      }),
    );
    expect(rest.totals.counts.waitlisted).toBe(1);
    expect(rest.totals.counts.offered).toBe(1);
  });
});

describe('bookingStats: scopes', () => {
  it('answers everything but revenue to a bookings:read token, with INSUFFICIENT_SCOPE on each revenue field', async () => {
    const body = await gql(await r.token('bookings:read'), { ...WINDOW, groupBy: 'DAY' });
    const stats = body.data.bookingStats;
    expect(stats.groups.map((g: any) => g.revenue)).toEqual([null, null]);
    expect(stats.totals.revenue).toBeNull();
    expect(stats.groups[1]).toEqual({ ...EXPECTED.sunday, revenue: null });
    expect(body.errors!.map((e) => [e.extensions.code, e.extensions.details, e.path])).toEqual([
      ['INSUFFICIENT_SCOPE', { requiredScope: 'payments:read' }, ['bookingStats', 'groups', 0, 'revenue']],
      ['INSUFFICIENT_SCOPE', { requiredScope: 'payments:read' }, ['bookingStats', 'groups', 1, 'revenue']],
      ['INSUFFICIENT_SCOPE', { requiredScope: 'payments:read' }, ['bookingStats', 'totals', 'revenue']],
    ]);
  });

  it('answers revenue to a token with bookings:read and payments:read', async () => {
    const body = await gql(await r.token('bookings:read payments:read'), { ...WINDOW, groupBy: 'DAY' });
    expect(body.errors).toBeUndefined();
    expect(body.data.bookingStats.totals).toEqual(EXPECTED.totals);
  });

  it('refuses the whole query without bookings:read', async () => {
    const body = await gql(await r.token('payments:read'), { ...WINDOW, groupBy: 'DAY' });
    expect(body.data).toBeNull();
    expect(body.errors![0]!.extensions).toEqual({
      code: 'INSUFFICIENT_SCOPE',
      details: { requiredScope: 'bookings:read' },
    });
  });
});

describe('bookingStats: hostile arguments', () => {
  const day = 86_400_000;
  const at = (ms: number) => new Date(ms).toISOString();
  const from = Date.parse(WINDOW.from);
  it.each([
    ['to equal to from', { from: at(from), to: at(from) }, 'to', 'must be after from'],
    ['to before from', { from: at(from), to: at(from - day) }, 'to', 'must be after from'],
    [
      'more than 366 days',
      { from: at(from), to: at(from + 366 * day + 1) },
      'to',
      'must be at most 366 days after from',
    ],
    [
      'a year before 2000',
      { from: '1999-12-31T00:00:00Z', to: at(from) },
      'from',
      'must be between the years 2000 and 2099',
    ],
  ])('refuses %s with VALIDATION_ERROR naming the field', async (_name, range, path, message) => {
    const body = await gql(r.auth, { ...range, groupBy: 'DAY' });
    expect(body.data).toBeNull();
    expect(body.errors![0]!.extensions).toEqual({ code: 'VALIDATION_ERROR', details: [{ path, message }] });
  });

  it('takes exactly 366 days', async () => {
    const body = await gql(r.auth, { from: at(from), to: at(from + 366 * day), groupBy: 'DAY' });
    expect(body.errors).toBeUndefined();
    expect(body.data.bookingStats.groups).toHaveLength(367); // the local days the window touches
  });

  it('refuses an unknown grouping and an impossible time before running', async () => {
    const week = await gql(r.auth, { ...WINDOW, groupBy: 'WEEK' });
    expect(week.errors![0]!.message).toContain('groupBy');
    const bad = await gql(r.auth, { ...WINDOW, from: `${YEAR}-02-30T00:00:00Z`, groupBy: 'DAY' });
    expect(bad.errors![0]!.extensions.code).toBe('VALIDATION_ERROR');
    expect(bad.errors![0]!.extensions.details[0].path).toBe('from');
  });
});
