// The booking rules (docs/api.md, Booking rules) and the one rule that says why a time is not
// available (refusals.ts): each rule at its boundary, in two zones across a DST change, through
// explain, /availability and booking alike (the use cases with a fixed "now"); skipRules; the
// daily limit under concurrent requests; the explain route, its reasons and its scope.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../../src/generated/prisma/client.js';
import { AppError } from '../../../src/errors.js';
import { explainAvailability, findAvailability } from '../../../src/schema/availability/index.js';
import { createBooking, rescheduleBooking } from '../../../src/schema/bookings/index.js';
import type { TestApp } from '../../helpers/app.js';
import { createAccountWithKeys } from '../../helpers/factories.js';
import {
  ALL_DAY,
  blankCompany,
  createDomainApp,
  expectError,
  futureHour,
  ok,
  post,
  salon,
  tokenWithScopes,
  type World,
} from '../../helpers/domain.js';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
});
afterAll(async () => t?.close());

const MIN = 60_000;
const DAY = 86_400_000;
const db = () => t.dbs.test.prisma;
const iso = (ms: number) => new Date(ms).toISOString();
const EMPTY = { monday: [], tuesday: [], wednesday: [], thursday: [], friday: [], saturday: [], sunday: [] };

/** A fresh company in `zone` with rules, one employee (hours given) and a 30-minute service. */
async function world(zone: string, rules: Record<string, unknown>, hours: object = ALL_DAY, service: object = {}) {
  const c = await blankCompany(t.dbs, w, { timezone: zone });
  ok(await t.app.inject({ method: 'PATCH', url: '/api/v1/me', headers: c.auth, payload: { bookingRules: rules } }));
  const employee = await post(t.app, '/api/v1/employees', c.auth, { name: 'Ana', workingHours: hours });
  const svc = await post(t.app, '/api/v1/services', c.auth, {
    name: 'Trim',
    durationMinutes: 30,
    employeeIds: [employee._id],
    ...service,
  });
  const company = await db().company.findUniqueOrThrow({ where: { id: c.company.id } });
  return { ...c, company, employee, service: svc };
}

type W = Awaited<ReturnType<typeof world>>;
let n = 0;

/** The three answers for one start at `now`: explain, whether /availability offers it, and booking's outcome. */
async function ask(x: W, start: number, now: number, extra: Record<string, unknown> = {}) {
  const company: Company = x.company;
  const explained = await explainAvailability(db(), {
    company,
    input: { serviceId: x.service._id, startTime: new Date(start) },
    now: new Date(now),
  });
  const found = await findAvailability(db(), {
    company,
    input: { serviceId: x.service._id, from: new Date(start - 60 * MIN), to: new Date(start + 60 * MIN) },
    now: new Date(now),
  });
  const offered = found.kind === 'appointment' && found.slots.some((s) => s.startTime.getTime() === start);
  let booked: { ok: true; id: string } | { ok: false; code: string; reasons: unknown };
  try {
    const b = await createBooking(db(), {
      company,
      input: {
        serviceId: x.service._id,
        startTime: iso(start),
        customer: { name: 'Cy', email: `cy${n++}@example.com` },
        ...extra,
      },
      now: new Date(now),
    });
    booked = { ok: true, id: b.id };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    booked = { ok: false, code: err.code, reasons: (err.details as { reasons?: unknown })?.reasons ?? [] };
  }
  return { explained, offered, booked, codes: explained.reasons.map((r) => r.code) };
}

/** Refused everywhere with these codes, and booking's reasons equal explain's. */
function refused(a: Awaited<ReturnType<typeof ask>>, codes: string[]) {
  expect(a.explained.available).toBe(false);
  expect(a.codes).toEqual(codes);
  expect(a.offered).toBe(false);
  expect(a.booked).toMatchObject({ ok: false, code: 'SLOT_UNAVAILABLE' });
  expect(JSON.parse(JSON.stringify((a.booked as { reasons: unknown }).reasons))).toEqual(
    JSON.parse(JSON.stringify(a.explained.reasons)),
  );
}
function accepted(a: Awaited<ReturnType<typeof ask>>, offered = true) {
  expect(a.explained).toMatchObject({ available: true, reasons: [] });
  expect(a.offered).toBe(offered);
  expect(a.booked.ok).toBe(true);
}

describe('booking rules: values and validation', () => {
  it('company defaults, service overrides (null inherits), and a 400 naming each bad field', async () => {
    const c = await blankCompany(t.dbs, w);
    const me = ok(await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: c.auth }));
    expect(me.bookingRules).toMatchObject({
      minNoticeMinutes: 0,
      maxAdvanceDays: 365,
      slotIntervalMinutes: null,
      dailyLimitPerEmployee: null,
    });
    const bad: Array<[string, unknown]> = [
      ['minNoticeMinutes', -1],
      ['minNoticeMinutes', 525_601],
      ['maxAdvanceDays', 0],
      ['maxAdvanceDays', 731],
      ['slotIntervalMinutes', 4],
      ['slotIntervalMinutes', 241],
      ['slotIntervalMinutes', 7.5],
      ['dailyLimitPerEmployee', 0],
      ['dailyLimitPerEmployee', 'two'],
    ];
    for (const [field, value] of bad) {
      for (const url of ['/api/v1/me', '/api/v1/services']) {
        const payload =
          url === '/api/v1/me'
            ? { bookingRules: { [field]: value } }
            : { name: 'X', durationMinutes: 30, bookingRules: { [field]: value } };
        const method = url === '/api/v1/me' ? 'PATCH' : 'POST';
        const body = expectError(
          await t.app.inject({ method, url, headers: c.auth, payload }),
          400,
          'VALIDATION_ERROR',
        );
        expect(JSON.stringify(body.error.details)).toContain(field);
      }
    }
    expect(await db().service.count({ where: { companyId: c.company.id } })).toBe(0);
    const after = ok(await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: c.auth }));
    expect(after.bookingRules).toEqual(me.bookingRules);
    const set = ok(
      await t.app.inject({
        method: 'PATCH',
        url: '/api/v1/me',
        headers: c.auth,
        payload: { bookingRules: { minNoticeMinutes: 60, slotIntervalMinutes: 30, dailyLimitPerEmployee: 4 } },
      }),
    );
    expect(set.bookingRules).toMatchObject({ minNoticeMinutes: 60, slotIntervalMinutes: 30, dailyLimitPerEmployee: 4 });
    const svc = await post(t.app, '/api/v1/services', c.auth, {
      name: 'Y',
      durationMinutes: 30,
      bookingRules: { maxAdvanceDays: 30 },
    });
    expect(svc.bookingRules).toMatchObject({ maxAdvanceDays: 30, minNoticeMinutes: null, slotIntervalMinutes: null });
    const reset = ok(
      await t.app.inject({
        method: 'PATCH',
        url: '/api/v1/me',
        headers: c.auth,
        payload: { bookingRules: { slotIntervalMinutes: null } },
      }),
    );
    expect(reset.bookingRules).toMatchObject({ minNoticeMinutes: 60, slotIntervalMinutes: null });
  });
});

describe('minimum notice at its boundary, across a DST change', () => {
  it('Europe/Berlin spring forward: exactly at the notice books, one minute inside is MIN_NOTICE', async () => {
    const x = await world('Europe/Berlin', { minNoticeMinutes: 60 });
    // 2027-03-28 00:30Z = 01:30 CET; an hour later is 03:30 CEST (01:30Z): the clock skipped 02:00.
    const now = Date.parse('2027-03-28T00:30:00Z');
    refused(await ask(x, Date.parse('2027-03-28T01:29:00Z'), now), ['MIN_NOTICE']);
    accepted(await ask(x, Date.parse('2027-03-28T01:30:00Z'), now));
    // A walk-in inside the notice: the business may skip the rule, not working hours.
    const walkIn = await ask(x, Date.parse('2027-03-28T00:45:00Z'), now, { skipRules: true });
    expect(walkIn.booked.ok).toBe(true);
  });

  it('America/New_York fall back: the same, an hour of local time repeated', async () => {
    const x = await world('America/New_York', { minNoticeMinutes: 120 });
    // 2027-11-07 05:00Z = 01:00 EDT; two real hours later is 07:00Z = 02:00 EST.
    const now = Date.parse('2027-11-07T05:00:00Z');
    refused(await ask(x, Date.parse('2027-11-07T06:59:00Z'), now), ['MIN_NOTICE']);
    accepted(await ask(x, Date.parse('2027-11-07T07:00:00Z'), now));
  });
});

describe('maximum advance at its edge', () => {
  it('exactly maxAdvanceDays ahead books; a slot later is MAX_ADVANCE; skipRules books it', async () => {
    const x = await world('Australia/Lord_Howe', { maxAdvanceDays: 30 });
    const now = Date.parse('2027-01-10T10:00:00Z');
    accepted(await ask(x, now + 30 * DAY, now));
    refused(await ask(x, now + 30 * DAY + 30 * MIN, now), ['MAX_ADVANCE']);
    expect((await ask(x, now + 30 * DAY + 60 * MIN, now, { skipRules: true })).booked.ok).toBe(true);
  });
});

describe('the slot interval', () => {
  it('unset: the 15-minute grid is offered, any start inside hours is accepted', async () => {
    const x = await world('Europe/Berlin', {});
    const now = Date.parse('2027-01-10T10:00:00Z');
    const a = await ask(x, Date.parse('2027-01-12T10:07:00Z'), now);
    accepted(a, false);
  });

  it('set: starts step from each working interval, off-grid is OFF_INTERVAL, in two zones across DST', async () => {
    // Berlin, the spring-forward night: 01:00–04:00 local is 00:00Z–02:00Z; a 45-minute grid.
    const x = await world(
      'Europe/Berlin',
      { slotIntervalMinutes: 45 },
      { ...EMPTY, sunday: [{ start: '01:00', end: '04:00' }] },
    );
    const now = Date.parse('2027-03-20T00:00:00Z');
    const slots = await findAvailability(db(), {
      company: x.company,
      input: { serviceId: x.service._id, from: new Date('2027-03-27T12:00:00Z'), to: new Date('2027-03-28T12:00:00Z') },
      now: new Date(now),
    });
    expect(slots.kind === 'appointment' && slots.slots.map((s) => s.startTime.toISOString())).toEqual([
      '2027-03-28T00:00:00.000Z',
      '2027-03-28T00:45:00.000Z',
      '2027-03-28T01:30:00.000Z', // 03:30 CEST, ending at 04:00
    ]);
    refused(await ask(x, Date.parse('2027-03-28T00:15:00Z'), now), ['OFF_INTERVAL']);
    accepted(await ask(x, Date.parse('2027-03-28T00:45:00Z'), now));
    expect((await ask(x, Date.parse('2027-03-28T01:20:00Z'), now, { skipRules: true })).booked.ok).toBe(true);

    // Kathmandu (+05:45), 09:00–12:00 local = 03:15Z–06:15Z, every 40 minutes.
    const k = await world(
      'Asia/Kathmandu',
      { slotIntervalMinutes: 40 },
      { ...EMPTY, monday: [{ start: '09:00', end: '12:00' }] },
    );
    accepted(await ask(k, Date.parse('2027-03-22T03:55:00Z'), now));
    refused(await ask(k, Date.parse('2027-03-22T04:30:00Z'), now), ['OFF_INTERVAL']);
  });
});

describe('the daily limit per employee', () => {
  it('counts live bookings of the service on the local day; cancelled ones do not count', async () => {
    // New York: 03:00Z is still the previous local day.
    const x = await world('America/New_York', { dailyLimitPerEmployee: 2 });
    const now = Date.parse('2027-01-10T00:00:00Z');
    const day = Date.parse('2027-01-12T15:00:00Z'); // 10:00 EST, 12 January
    accepted(await ask(x, day, now));
    const second = await ask(x, day + 2 * 3_600_000, now);
    accepted(second);
    const third = await ask(x, day + 4 * 3_600_000, now);
    refused(third, ['DAILY_LIMIT']);
    expect(third.explained.reasons[0]).toMatchObject({
      employeeId: x.employee._id,
      details: { dailyLimitPerEmployee: 2, date: '2027-01-12' },
    });
    // 04:30Z on the 13th is 23:30 EST on the 12th: the same local day.
    refused(await ask(x, Date.parse('2027-01-13T04:30:00Z'), now), ['DAILY_LIMIT']);
    accepted(await ask(x, Date.parse('2027-01-13T05:00:00Z'), now)); // 00:00 EST, the 13th
    // A walk-in past the limit.
    expect((await ask(x, day + 6 * 3_600_000, now, { skipRules: true })).booked.ok).toBe(true);
    // Cancelling one frees a place... but the walk-in holds it: still full. Cancel two.
    const live = await db().booking.findMany({
      where: { companyId: x.company.id, startTime: { gte: new Date(day), lt: new Date(day + 8 * 3_600_000) } },
    });
    for (const b of live.slice(0, 2)) await db().booking.update({ where: { id: b.id }, data: { status: 'cancelled' } });
    accepted(await ask(x, day + 7 * 3_600_000, now));
  });

  it('holds under concurrent requests: of eight bookings on one day with a limit of one, one succeeds', async () => {
    const x = await world('UTC', { dailyLimitPerEmployee: 1 });
    const base = Date.parse(futureHour(5, 0));
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/bookings',
          headers: x.auth,
          payload: {
            serviceId: x.service._id,
            startTime: iso(base + (2 + i) * 3_600_000),
            customer: { name: 'Race', email: `race${i}@example.com` },
          },
        }),
      ),
    );
    const codes = results.map((r) => (r.statusCode === 200 ? 'ok' : r.json().error.code));
    expect(codes.filter((c) => c === 'ok')).toHaveLength(1);
    expect(codes.filter((c) => c === 'SLOT_UNAVAILABLE')).toHaveLength(7);
    for (const r of results.filter((x) => x.statusCode === 409))
      expect(r.json().error.details.reasons.map((x: { code: string }) => x.code)).toEqual(['DAILY_LIMIT']);
    expect(await db().booking.count({ where: { companyId: x.company.id, status: 'confirmed' } })).toBe(1);
  });

  it('a reschedule is held to the rules (its own booking not counted); a business may skip them', async () => {
    const x = await world('UTC', { dailyLimitPerEmployee: 1, minNoticeMinutes: 24 * 60 });
    const now = Date.parse('2027-01-10T00:00:00Z');
    const a = await ask(x, Date.parse('2027-01-12T09:00:00Z'), now);
    const b = await ask(x, Date.parse('2027-01-13T09:00:00Z'), now);
    const id = (a.booked as { id: string }).id;
    // Within its own day: its own booking does not count against it.
    const moved = await rescheduleBooking(db(), {
      company: x.company,
      bookingId: id,
      input: { startTime: '2027-01-12T11:00:00Z' },
      now: new Date(now),
    });
    expect(moved.startTime.toISOString()).toBe('2027-01-12T11:00:00.000Z');
    expect(b.booked.ok).toBe(true);
    const outcome = (input: object) =>
      rescheduleBooking(db(), { company: x.company, bookingId: id, input, now: new Date(now) }).then(
        () => 'ok',
        (e: AppError) => [
          e.code,
          ...((e.details as { reasons: Array<{ code: string }> }).reasons ?? []).map((r) => r.code),
        ],
      );
    expect(await outcome({ startTime: '2027-01-13T11:00:00Z' })).toEqual(['SLOT_UNAVAILABLE', 'DAILY_LIMIT']);
    expect(await outcome({ startTime: '2027-01-10T11:00:00Z' })).toEqual(['SLOT_UNAVAILABLE', 'MIN_NOTICE']);
    expect(await outcome({ startTime: '2027-01-13T11:00:00Z', skipRules: true })).toBe('ok');
    const bad = await rescheduleBooking(db(), {
      company: x.company,
      bookingId: id,
      input: { startTime: '2027-01-14T11:00:00Z', skipRules: true, rescheduledBy: 'customer' },
      now: new Date(now),
    }).catch((e: AppError) => e);
    expect(bad).toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});

describe('GET /availability/explain', () => {
  const explain = (auth: Record<string, string>, q: Record<string, string>) =>
    t.app.inject({ method: 'GET', url: `/api/v1/availability/explain?${new URLSearchParams(q)}`, headers: auth });

  it('names BOOKED, BUFFER and TIME_OFF apart, per employee, equal to the refusal', async () => {
    const c = await blankCompany(t.dbs, w, { timezone: 'UTC' });
    const { staff, service } = await salon(t.app, c.auth, { durationMinutes: 60, bufferAfterMinutes: 15 }, 3);
    const start = Date.parse(futureHour(3, 10));
    const [a, b, d] = staff as Array<{ _id: string }>;
    // a: booked 10:00-11:00 (block to 11:15); b: off 11:00-12:00; d: booked 09:30-10:30.
    await post(t.app, '/api/v1/bookings', c.auth, {
      serviceId: service._id,
      employeeId: a!._id,
      startTime: iso(start),
      customer: { name: 'A', email: 'a@example.com' },
    });
    await post(t.app, `/api/v1/employees/${b!._id}/time-off`, c.auth, {
      startTime: iso(start + 3_600_000),
      endTime: iso(start + 2 * 3_600_000),
    });
    await post(t.app, '/api/v1/bookings', c.auth, {
      serviceId: service._id,
      employeeId: d!._id,
      startTime: iso(start + 30 * MIN),
      customer: { name: 'D', email: 'd@example.com' },
    });
    // 11:00: a's buffer (to 11:15), b off, d booked until 11:30 (block 11:45).
    const at = start + 3_600_000;
    const e = ok(await explain(c.auth, { serviceId: service._id, startTime: iso(at) }));
    expect(e.available).toBe(false);
    expect(e.employeeIds).toEqual([]);
    const byEmployee = Object.fromEntries(
      e.reasons.map((r: { employeeId: string; code: string }) => [r.employeeId, r.code]),
    );
    expect(byEmployee).toEqual({ [a!._id]: 'BUFFER', [b!._id]: 'TIME_OFF', [d!._id]: 'BOOKED' });
    const refusal = expectError(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/bookings',
        headers: c.auth,
        payload: { serviceId: service._id, startTime: iso(at), customer: { name: 'E', email: 'e@example.com' } },
      }),
      409,
      'SLOT_UNAVAILABLE',
    );
    expect(refusal.error.details.reasons).toEqual(e.reasons);
    // One employee named; a free time: available with them, no reasons.
    const free = ok(
      await explain(c.auth, { serviceId: service._id, startTime: iso(at + 3_600_000), employeeId: a!._id }),
    );
    expect(free).toEqual({ available: true, employeeIds: [a!._id], reasons: [] });
  });

  it('SERVICE_INACTIVE, NOT_QUALIFIED, outside hours; 404 for another company; the scope', async () => {
    const c = await blankCompany(t.dbs, w, { timezone: 'Europe/Berlin' });
    const nine = await post(t.app, '/api/v1/employees', c.auth, {
      name: 'Nine',
      workingHours: { ...EMPTY, monday: [{ start: '09:00', end: '17:00' }] },
    });
    const other = await post(t.app, '/api/v1/employees', c.auth, { name: 'Other', workingHours: ALL_DAY });
    const svc = await post(t.app, '/api/v1/services', c.auth, {
      name: 'S',
      durationMinutes: 30,
      employeeIds: [nine._id],
    });
    const monday = Date.parse('2027-01-11T20:00:00Z'); // 21:00 local
    const out = ok(await explain(c.auth, { serviceId: svc._id, startTime: iso(monday) }));
    expect(out.reasons.map((r: { code: string }) => r.code)).toEqual(['OUTSIDE_WORKING_HOURS']);
    const nq = ok(await explain(c.auth, { serviceId: svc._id, startTime: iso(monday), employeeId: other._id }));
    expect(nq).toEqual({
      available: false,
      employeeIds: [],
      reasons: [expect.objectContaining({ code: 'NOT_QUALIFIED', employeeId: other._id })],
    });
    ok(
      await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/services/${svc._id}`,
        headers: c.auth,
        payload: { active: false },
      }),
    );
    const inactive = ok(await explain(c.auth, { serviceId: svc._id, startTime: iso(monday) }));
    expect(inactive.reasons.map((r: { code: string }) => r.code)).toEqual(['SERVICE_INACTIVE']);
    const stranger = await blankCompany(t.dbs, w);
    expectError(await explain(stranger.auth, { serviceId: svc._id, startTime: iso(monday) }), 404, 'NOT_FOUND');
    expectError(
      await explain(c.auth, { serviceId: svc._id, startTime: '2027-01-11T20:00:00' }),
      400,
      'VALIDATION_ERROR',
    );
    const noScope = await tokenWithScopes(t.dbs, w, 'bookings:read');
    expectError(await explain(noScope, { serviceId: svc._id, startTime: iso(monday) }), 403, 'INSUFFICIENT_SCOPE');
  });

  it('a class service: a session at that time with places, CLASS_FULL when full (equal to the refusal), NO_SESSION', async () => {
    const c = await blankCompany(t.dbs, w, { timezone: 'UTC' });
    const ann = await post(t.app, '/api/v1/employees', c.auth, { name: 'Ann', workingHours: ALL_DAY });
    const yoga = await post(t.app, '/api/v1/services', c.auth, {
      name: 'Yoga',
      kind: 'class',
      durationMinutes: 60,
      employeeIds: [ann._id],
    });
    const start = futureHour(3, 8);
    const session = await post(t.app, '/api/v1/classes', c.auth, {
      serviceId: yoga._id,
      employeeId: ann._id,
      startTime: start,
      capacity: 1,
    });
    expect(ok(await explain(c.auth, { serviceId: yoga._id, startTime: start }))).toEqual({
      available: true,
      employeeIds: [ann._id],
      reasons: [],
    });
    const none = ok(await explain(c.auth, { serviceId: yoga._id, startTime: futureHour(3, 9) }));
    expect(none.reasons.map((r: { code: string }) => r.code)).toEqual(['NO_SESSION']);
    const book = (email: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/bookings',
        headers: c.auth,
        payload: { serviceId: yoga._id, classId: session._id, customer: { name: 'Y', email } },
      });
    ok(await book('y1@example.com'));
    const full = ok(await explain(c.auth, { serviceId: yoga._id, startTime: start }));
    expect(full).toEqual({
      available: false,
      employeeIds: [],
      reasons: [
        {
          code: 'CLASS_FULL',
          message: expect.any(String),
          employeeId: ann._id,
          details: { classId: session._id, capacity: 1 },
        },
      ],
    });
    const refusal = expectError(await book('y2@example.com'), 409, 'CLASS_FULL');
    expect(refusal.error.details).toMatchObject({ classId: session._id, capacity: 1, reasons: full.reasons });
  });
});
