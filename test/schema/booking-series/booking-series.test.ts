// Booking series (docs/api.md, Booking series): an appointment at every occurrence of an RRULE,
// all or none (a 409 listing the occurrences that failed), or partly with allowPartial; the
// wall-clock time kept across a DST change; cancel from an instant; hostile rules refused.
import type { AddressInfo } from 'node:net';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { createAccountWithKeys } from '../../helpers/factories.js';
import { embedded } from '../../helpers/db.js';
import {
  ALL_DAY,
  blankCompany,
  createDomainApp,
  expectError,
  futureHour,
  ok,
  post,
  type World,
} from '../../helpers/domain.js';

let t: TestApp;
let w: World;
const WEEK = 7 * 86_400_000;
const ZONE = 'Europe/Berlin';

beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
});
afterAll(() => t?.close());

const db = () => t.dbs.test.prisma;
const customer = { name: 'Paula Physio', email: 'paula@example.com' };

async function clinic() {
  const c = await blankCompany(t.dbs, w, { timezone: ZONE });
  const therapist = await post(t.app, '/api/v1/employees', c.auth, { name: 'Theo', workingHours: ALL_DAY });
  const physio = await post(t.app, '/api/v1/services', c.auth, {
    name: 'Physiotherapy',
    durationMinutes: 45,
    price: 6000,
    employeeIds: [therapist._id],
  });
  return { ...c, therapist, physio };
}

async function counts(companyId: string) {
  return {
    series: await db().bookingSeries.count({ where: { companyId } }),
    bookings: await db().booking.count({ where: { companyId } }),
    customers: await db().customer.count({ where: { companyId } }),
    events: await db().event.count({ where: { companyId } }),
  };
}

/** 09:00 Berlin on a day at least `days` ahead. */
const nineLocal = (days: number) =>
  DateTime.now().setZone(ZONE).plus({ days }).set({ hour: 9, minute: 0, second: 0, millisecond: 0 }).toUTC().toISO()!;

describe('booking series', () => {
  it('all or none: one blocked occurrence refuses the series, the 409 lists it with the reasons, nothing written', async () => {
    const s = await clinic();
    const startTime = nineLocal(3);
    const blocked = new Date(Date.parse(nineLocal(3 + 14))).toISOString();
    await post(t.app, '/api/v1/bookings', s.auth, {
      serviceId: s.physio._id,
      startTime: blocked,
      customer: { name: 'Other', email: 'other@example.com' },
    });
    const before = await counts(s.company.id);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/booking-series',
      headers: s.auth,
      payload: { serviceId: s.physio._id, startTime, rrule: 'FREQ=WEEKLY;COUNT=4', customer },
    });
    const body = expectError(res, 409, 'SLOT_UNAVAILABLE');
    expect(body.error.details.occurrences).toEqual([
      {
        index: 2,
        startTime: blocked,
        reasons: [expect.objectContaining({ code: 'BOOKED', employeeId: s.therapist._id })],
      },
    ]);
    expect(body.error.details.reasons[0]).toMatchObject({ code: 'BOOKED', occurrenceIndex: 2 });
    expect(await counts(s.company.id)).toEqual(before);

    // allowPartial: the three that fit are booked, the fourth reported, also on GET.
    const partial = await post(t.app, '/api/v1/booking-series', s.auth, {
      serviceId: s.physio._id,
      startTime,
      rrule: 'FREQ=WEEKLY;COUNT=4',
      customer,
      allowPartial: true,
    });
    expect(partial.bookings.map((b: any) => [b.startTime, b.seriesId, b.status])).toEqual(
      [0, 1, 3].map((i) => [new Date(Date.parse(nineLocal(3 + 7 * i))).toISOString(), partial._id, 'confirmed']),
    );
    expect(partial.skipped).toEqual([
      { index: 2, startTime: blocked, reasons: [expect.objectContaining({ code: 'BOOKED' })] },
    ]);
    expect(partial.rrule).toContain('COUNT=4');
    expect(partial.timeZone).toBe(ZONE);
    expect(
      ok(await t.app.inject({ method: 'GET', url: `/api/v1/booking-series/${partial._id}`, headers: s.auth })),
    ).toEqual(partial);
    const created = await db().event.findMany({ where: { companyId: s.company.id, type: 'booking.created' } });
    expect(created.filter((e) => (e.data as { seriesId?: string }).seriesId === partial._id)).toHaveLength(3);
  });

  it('keeps 09:00 local across a daylight-saving change', async () => {
    const s = await clinic();
    // The next change of Berlin's offset at least two weeks ahead.
    let day = DateTime.now().setZone(ZONE).plus({ days: 14 }).startOf('day');
    while (day.offset === day.plus({ days: 1 }).offset) day = day.plus({ days: 1 });
    const first = day.minus({ days: 10 }).set({ hour: 9 });
    const series = await post(t.app, '/api/v1/booking-series', s.auth, {
      serviceId: s.physio._id,
      startTime: first.toUTC().toISO(),
      rrule: 'FREQ=WEEKLY;COUNT=4',
      customer,
    });
    const local = series.bookings.map((b: any) => DateTime.fromISO(b.startTime).setZone(ZONE).toFormat('HH:mm'));
    expect(local).toEqual(['09:00', '09:00', '09:00', '09:00']);
    const offsets = series.bookings.map((b: any) => DateTime.fromISO(b.startTime).setZone(ZONE).offset);
    expect(new Set(offsets).size).toBe(2);
    // So the UTC gap between the occurrences either side of the change is a week ± an hour.
    const gaps = series.bookings
      .slice(1)
      .map((b: any, i: number) => Date.parse(b.startTime) - Date.parse(series.bookings[i].startTime));
    expect(gaps.some((g: number) => g !== WEEK)).toBe(true);
  });

  it('cancels from an instant on, then the rest; nothing left is INVALID_STATE_TRANSITION', async () => {
    const s = await clinic();
    const series = await post(t.app, '/api/v1/booking-series', s.auth, {
      serviceId: s.physio._id,
      startTime: nineLocal(4),
      rrule: 'FREQ=DAILY;INTERVAL=2;COUNT=4',
      customer,
    });
    const from = series.bookings[2].startTime;
    const after = await post(t.app, `/api/v1/booking-series/${series._id}/cancel`, s.auth, { from, reason: 'moving' });
    expect(after.bookings.map((b: any) => b.status)).toEqual(['confirmed', 'confirmed', 'cancelled', 'cancelled']);
    const all = await post(t.app, `/api/v1/booking-series/${series._id}/cancel`, s.auth, {});
    expect(all.bookings.map((b: any) => b.status)).toEqual(['cancelled', 'cancelled', 'cancelled', 'cancelled']);
    expectError(
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/booking-series/${series._id}/cancel`,
        headers: s.auth,
        payload: {},
      }),
      409,
      'INVALID_STATE_TRANSITION',
    );
    expect(await db().event.count({ where: { companyId: s.company.id, type: 'booking.cancelled' } })).toBe(4);
  });

  it('hostile rules and ids: 400 naming rrule (or the field), 404 for ids of no record or another company, nothing written', async () => {
    const s = await clinic();
    const other = await clinic();
    const startTime = nineLocal(3);
    const base = { serviceId: s.physio._id, startTime, customer };
    const cases: Array<[object, number, string]> = [
      [{ ...base, rrule: 'FREQ=WEEKLY;COUNT=53' }, 400, 'rrule'],
      [{ ...base, rrule: 'FREQ=WEEKLY' }, 400, 'rrule'],
      [{ ...base, rrule: 'FREQ=MINUTELY;COUNT=5' }, 400, 'rrule'],
      [{ ...base, rrule: 'FREQ=HOURLY;COUNT=5' }, 400, 'rrule'],
      [{ ...base, rrule: 'not a rule' }, 400, 'rrule'],
      [{ ...base, rrule: `FREQ=DAILY;UNTIL=${DateTime.now().plus({ days: 200 }).toFormat('yyyyMMdd')}` }, 400, 'rrule'],
      [{ ...base, rrule: 'FREQ=WEEKLY;COUNT=2;BYHOUR=3' }, 400, 'rrule'],
      [{ ...base, rrule: 'FREQ=WEEKLY;COUNT=0' }, 400, 'rrule'],
      [{ ...base, rrule: 'FREQ=WEEKLY;COUNT=2', serviceId: 'ab'.repeat(12) }, 404, 'serviceId'],
      [{ ...base, rrule: 'FREQ=WEEKLY;COUNT=2', serviceId: other.physio._id }, 404, 'serviceId'],
      [{ ...base, rrule: 'FREQ=WEEKLY;COUNT=2', employeeId: other.therapist._id }, 404, 'employeeId'],
      [{ ...base, rrule: 'FREQ=WEEKLY;COUNT=2', startTime: '2020-01-01T09:00:00.000Z' }, 400, 'startTime'],
      [{ ...base, rrule: 'FREQ=WEEKLY;COUNT=2', allowPartial: 'yes' }, 400, 'allowPartial'],
    ];
    for (const [payload, status, path] of cases) {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/booking-series', headers: s.auth, payload });
      const body = expectError(res, status, status === 404 ? 'NOT_FOUND' : 'VALIDATION_ERROR');
      expect(JSON.stringify(body.error), JSON.stringify(payload)).toContain(path);
    }
    expect(await counts(s.company.id)).toMatchObject({ series: 0, bookings: 0, customers: 0 });
    const mine = await post(t.app, '/api/v1/booking-series', s.auth, { ...base, rrule: 'FREQ=WEEKLY;COUNT=2' });
    expectError(
      await t.app.inject({ method: 'GET', url: `/api/v1/booking-series/${mine._id}`, headers: other.auth }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/booking-series/${mine._id}/cancel`,
        headers: s.auth,
        payload: { from: futureHour(300) },
      }),
      400,
      'VALIDATION_ERROR',
    );
  });
});

describe.skipIf(embedded())('booking series under concurrency (real PostgreSQL)', () => {
  it('concurrent series over the same times of one employee: exactly one is booked, nothing of the others', async () => {
    const s = await clinic();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/api/v1/booking-series`;
    const startTime = nineLocal(5);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        fetch(url, {
          method: 'POST',
          headers: { ...s.auth, 'content-type': 'application/json' },
          body: JSON.stringify({
            serviceId: s.physio._id,
            // Every other series starts a week later: they still share three occurrences.
            startTime: new Date(Date.parse(startTime) + (i % 2) * WEEK).toISOString(),
            rrule: 'FREQ=WEEKLY;COUNT=4',
            customer: { name: `C${i}`, email: `c${i}@example.com` },
          }),
        }).then(async (r) => ({ status: r.status, body: await r.json() })),
      ),
    );
    const codes: Record<string, number> = {};
    for (const r of results) {
      const k = r.status === 200 ? '200' : `${r.status} ${r.body.error.code}`;
      codes[k] = (codes[k] ?? 0) + 1;
    }
    expect(codes).toEqual({ '200': 1, '409 SLOT_UNAVAILABLE': 9 });
    expect(await counts(s.company.id)).toMatchObject({ series: 1, bookings: 4, customers: 1 });
  });
});
