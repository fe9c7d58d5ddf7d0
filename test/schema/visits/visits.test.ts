// Multi-service visits (docs/api.md, Visits): services back to back, all or none, moved and
// cancelled as one; hostile inputs named; concurrent visits for one employee's time: one wins.
import type { AddressInfo } from 'node:net';
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
  tokenWithScopes,
  type World,
} from '../../helpers/domain.js';

let t: TestApp;
let w: World;
const MIN = 60_000;

beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
});
afterAll(() => t?.close());

/** A company with two employees working all day and a cut (60 min, 10 after) and a colour (30 min, 5 before). */
async function studio() {
  const c = await blankCompany(t.dbs, w);
  const anna = await post(t.app, '/api/v1/employees', c.auth, { name: 'Anna', workingHours: ALL_DAY });
  const ben = await post(t.app, '/api/v1/employees', c.auth, { name: 'Ben', workingHours: ALL_DAY });
  const cut = await post(t.app, '/api/v1/services', c.auth, {
    name: 'Cut',
    durationMinutes: 60,
    price: 4000,
    bufferAfterMinutes: 10,
    employeeIds: [anna._id, ben._id],
  });
  const colour = await post(t.app, '/api/v1/services', c.auth, {
    name: 'Colour',
    durationMinutes: 30,
    price: 2500,
    bufferBeforeMinutes: 5,
    employeeIds: [anna._id, ben._id],
  });
  return { ...c, anna, ben, cut, colour };
}

const customer = { name: 'Vera Visit', email: 'vera@example.com' };
const db = () => t.dbs.test.prisma;

async function nothingWritten(companyId: string) {
  expect(await db().visit.count({ where: { companyId } })).toBe(0);
  expect(await db().booking.count({ where: { companyId } })).toBe(0);
  expect(await db().customer.count({ where: { companyId } })).toBe(0);
  expect(await db().event.count({ where: { companyId, type: { startsWith: 'booking.' } } })).toBe(0);
}

describe('visits', () => {
  it('books the items back to back (buffers between them), each an ordinary booking with visitId', async () => {
    const s = await studio();
    const startTime = futureHour(3);
    const v = await post(t.app, '/api/v1/visits', s.auth, {
      items: [
        { serviceId: s.cut._id, employeeId: s.anna._id },
        { serviceId: s.colour._id, employeeId: s.ben._id },
      ],
      startTime,
      customer,
    });
    const start = Date.parse(startTime);
    expect(v.startTime).toBe(startTime);
    // Cut 60 min, its 10 after, the colour's 5 before: the colour starts 75 min later.
    expect(v.bookings.map((b: any) => [b.serviceId, b.employeeId, b.startTime, b.endTime, b.visitId])).toEqual([
      [s.cut._id, s.anna._id, startTime, new Date(start + 60 * MIN).toISOString(), v._id],
      [
        s.colour._id,
        s.ben._id,
        new Date(start + 75 * MIN).toISOString(),
        new Date(start + 105 * MIN).toISOString(),
        v._id,
      ],
    ]);
    expect(v.endTime).toBe(new Date(start + 105 * MIN).toISOString());
    expect(new Set(v.bookings.map((b: any) => b.customerId))).toEqual(new Set([v.customerId]));
    expect(ok(await t.app.inject({ method: 'GET', url: `/api/v1/visits/${v._id}`, headers: s.auth }))).toEqual(v);
    const one = ok(
      await t.app.inject({ method: 'GET', url: `/api/v1/bookings/${v.bookings[1]._id}`, headers: s.auth }),
    );
    expect(one.visitId).toBe(v._id);
    const events = await db().event.findMany({ where: { companyId: s.company.id, type: 'booking.created' } });
    expect(events.map((e) => (e.data as { visitId?: string }).visitId)).toEqual([v._id, v._id]);
    // The same employee may take both items: their blocks touch, they do not overlap.
    const same = await post(t.app, '/api/v1/visits', s.auth, {
      items: [
        { serviceId: s.cut._id, employeeId: s.anna._id },
        { serviceId: s.colour._id, employeeId: s.anna._id },
      ],
      startTime: futureHour(4),
      customer,
    });
    expect(same.bookings).toHaveLength(2);
  });

  it('refuses the whole visit when the second employee is busy: 409 naming item 1 and Ben, nothing written', async () => {
    const s = await studio();
    const startTime = futureHour(3);
    const other = await blankCompany(t.dbs, w);
    void other;
    // Ben is busy when the colour would start (75 min after the cut).
    await post(t.app, '/api/v1/bookings', s.auth, {
      serviceId: s.colour._id,
      employeeId: s.ben._id,
      startTime: new Date(Date.parse(startTime) + 80 * MIN).toISOString(),
      customer: { name: 'Early', email: 'early@example.com' },
    });
    const before = {
      bookings: await db().booking.count({ where: { companyId: s.company.id } }),
      customers: await db().customer.count({ where: { companyId: s.company.id } }),
      events: await db().event.count({ where: { companyId: s.company.id } }),
    };
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/visits',
      headers: s.auth,
      payload: {
        items: [
          { serviceId: s.cut._id, employeeId: s.anna._id },
          { serviceId: s.colour._id, employeeId: s.ben._id },
        ],
        startTime,
        customer,
      },
    });
    const body = expectError(res, 409, 'SLOT_UNAVAILABLE');
    expect(body.error.details.reasons).toEqual(
      expect.arrayContaining([expect.objectContaining({ itemIndex: 1, employeeId: s.ben._id, code: 'BOOKED' })]),
    );
    expect(body.error.details.reasons.every((r: any) => r.itemIndex === 1)).toBe(true);
    expect(await db().visit.count({ where: { companyId: s.company.id } })).toBe(0);
    expect({
      bookings: await db().booking.count({ where: { companyId: s.company.id } }),
      customers: await db().customer.count({ where: { companyId: s.company.id } }),
      events: await db().event.count({ where: { companyId: s.company.id } }),
    }).toEqual(before);
  });

  it('without employees named, picks free ones per item; none free for an item: refused whole', async () => {
    const s = await studio();
    const startTime = futureHour(3);
    const v = await post(t.app, '/api/v1/visits', s.auth, {
      items: [{ serviceId: s.cut._id }, { serviceId: s.colour._id }],
      startTime,
      customer,
    });
    expect(v.bookings).toHaveLength(2);
    // Both employees now busy at the second item's time for another visit at the same start? One
    // is free for each item as long as the two employees can take them.
    const second = await post(t.app, '/api/v1/visits', s.auth, {
      items: [{ serviceId: s.cut._id }, { serviceId: s.colour._id }],
      startTime,
      customer,
    });
    expect(second.bookings.map((b: any) => b.employeeId).sort()).not.toEqual([]);
    const third = await t.app.inject({
      method: 'POST',
      url: '/api/v1/visits',
      headers: s.auth,
      payload: { items: [{ serviceId: s.cut._id }, { serviceId: s.colour._id }], startTime, customer },
    });
    const body = expectError(third, 409, 'SLOT_UNAVAILABLE');
    expect(body.error.details.reasons.some((r: any) => r.itemIndex === 0)).toBe(true);
  });

  it('an item whose room is taken refuses the whole visit with RESOURCE_BUSY; the rooms are held with the items', async () => {
    const s = await studio();
    const room = await post(t.app, '/api/v1/resources', s.auth, { name: 'Basin', kind: 'room' });
    ok(
      await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/services/${s.colour._id}`,
        headers: s.auth,
        payload: { requiredResourceIds: [room._id] },
      }),
    );
    const startTime = futureHour(3);
    const v = await post(t.app, '/api/v1/visits', s.auth, {
      items: [
        { serviceId: s.cut._id, employeeId: s.anna._id },
        { serviceId: s.colour._id, employeeId: s.anna._id },
      ],
      startTime,
      customer,
    });
    expect(await db().resourceHold.count({ where: { bookingId: v.bookings[1]._id, active: true } })).toBe(1);
    // Ben is free at the same times, but the only basin is held by the first visit's colour.
    const before = await db().booking.count({ where: { companyId: s.company.id } });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/visits',
      headers: s.auth,
      payload: {
        items: [
          { serviceId: s.cut._id, employeeId: s.ben._id },
          { serviceId: s.colour._id, employeeId: s.ben._id },
        ],
        startTime,
        customer: { name: 'Second', email: 'second@example.com' },
      },
    });
    const body = expectError(res, 409, 'SLOT_UNAVAILABLE');
    expect(body.error.details.reasons).toEqual(
      expect.arrayContaining([expect.objectContaining({ itemIndex: 1, code: 'RESOURCE_BUSY' })]),
    );
    expect(await db().booking.count({ where: { companyId: s.company.id } })).toBe(before);
    expect(await db().visit.count({ where: { companyId: s.company.id } })).toBe(1);
    // Moved, the colour holds the basin at its new time (and lets the old one go).
    const later = new Date(Date.parse(startTime) + 30 * MIN).toISOString();
    const moved = await post(t.app, `/api/v1/visits/${v._id}/reschedule`, s.auth, { startTime: later });
    const holds = await db().resourceHold.findMany({ where: { bookingId: v.bookings[1]._id, active: true } });
    expect(holds.map((h) => [h.resourceId, h.startTime.toISOString()])).toEqual([
      [room._id, new Date(Date.parse(moved.bookings[1].startTime) - 5 * MIN).toISOString()],
    ]);
  });

  it('cancels the whole visit in one go; a second cancel is INVALID_STATE_TRANSITION', async () => {
    const s = await studio();
    const v = await post(t.app, '/api/v1/visits', s.auth, {
      items: [{ serviceId: s.cut._id }, { serviceId: s.colour._id }],
      startTime: futureHour(3),
      customer,
    });
    const cancelled = await post(t.app, `/api/v1/visits/${v._id}/cancel`, s.auth, { reason: 'ill' });
    expect(cancelled.bookings.map((b: any) => [b.status, b.cancelReason])).toEqual([
      ['cancelled', 'ill'],
      ['cancelled', 'ill'],
    ]);
    expect(await db().event.count({ where: { companyId: s.company.id, type: 'booking.cancelled' } })).toBe(2);
    const again = await t.app.inject({ method: 'POST', url: `/api/v1/visits/${v._id}/cancel`, headers: s.auth });
    expectError(again, 409, 'INVALID_STATE_TRANSITION');
    // Its time is free again: the same visit books.
    await post(t.app, '/api/v1/visits', s.auth, {
      items: v.bookings.map((b: any) => ({ serviceId: b.serviceId, employeeId: b.employeeId })),
      startTime: v.startTime,
      customer,
    });
  });

  it('reschedules the whole visit (one employee, moved by less than its length), or none of it', async () => {
    const s = await studio();
    const startTime = futureHour(3);
    const v = await post(t.app, '/api/v1/visits', s.auth, {
      items: [
        { serviceId: s.cut._id, employeeId: s.anna._id },
        { serviceId: s.colour._id, employeeId: s.anna._id },
      ],
      startTime,
      customer,
    });
    const later = new Date(Date.parse(startTime) + 30 * MIN).toISOString();
    const moved = await post(t.app, `/api/v1/visits/${v._id}/reschedule`, s.auth, { startTime: later });
    expect(moved.startTime).toBe(later);
    expect(moved.bookings.map((b: any) => b.startTime)).toEqual([
      later,
      new Date(Date.parse(later) + 75 * MIN).toISOString(),
    ]);
    const earlier = new Date(Date.parse(startTime) - 15 * MIN).toISOString();
    const back = await post(t.app, `/api/v1/visits/${v._id}/reschedule`, s.auth, { startTime: earlier });
    expect(back.bookings[0].startTime).toBe(earlier);
    expect(await db().event.count({ where: { companyId: s.company.id, type: 'booking.rescheduled' } })).toBe(4);
    // Anna busy where the colour would land: refused, nothing moved.
    const target = Date.parse(futureHour(5));
    await post(t.app, '/api/v1/bookings', s.auth, {
      serviceId: s.colour._id,
      employeeId: s.anna._id,
      startTime: new Date(target + 80 * MIN).toISOString(),
      customer: { name: 'Other', email: 'other@example.com' },
    });
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/visits/${v._id}/reschedule`,
      headers: s.auth,
      payload: { startTime: new Date(target).toISOString() },
    });
    const body = expectError(res, 409, 'SLOT_UNAVAILABLE');
    expect(body.error.details.reasons[0]).toMatchObject({ itemIndex: 1, employeeId: s.anna._id });
    expect(ok(await t.app.inject({ method: 'GET', url: `/api/v1/visits/${v._id}`, headers: s.auth }))).toEqual(back);
  });

  it('hostile inputs: each a 400 or 404 naming the field, nothing written', async () => {
    const s = await studio();
    const other = await blankCompany(t.dbs, w);
    const theirs = await post(t.app, '/api/v1/employees', other.auth, { name: 'X', workingHours: ALL_DAY });
    const theirService = await post(t.app, '/api/v1/services', other.auth, {
      name: 'Theirs',
      durationMinutes: 30,
      price: 0,
      employeeIds: [theirs._id],
    });
    const yoga = await post(t.app, '/api/v1/services', s.auth, {
      name: 'Yoga',
      kind: 'class',
      durationMinutes: 60,
      price: 0,
      employeeIds: [s.anna._id],
    });
    const startTime = futureHour(3);
    const cases: Array<[object, number, string, string]> = [
      [{ items: [], startTime, customer }, 400, 'VALIDATION_ERROR', 'items'],
      [
        { items: Array.from({ length: 11 }, () => ({ serviceId: s.cut._id })), startTime, customer },
        400,
        'VALIDATION_ERROR',
        'items',
      ],
      [{ items: [{ serviceId: 'ab'.repeat(12) }], startTime, customer }, 404, 'NOT_FOUND', 'items.0.serviceId'],
      [
        { items: [{ serviceId: s.cut._id }, { serviceId: theirService._id }], startTime, customer },
        404,
        'NOT_FOUND',
        'items.1.serviceId',
      ],
      [
        { items: [{ serviceId: s.cut._id }, { serviceId: s.colour._id, employeeId: theirs._id }], startTime, customer },
        404,
        'NOT_FOUND',
        'items.1.employeeId',
      ],
      [{ items: [{ serviceId: yoga._id }], startTime, customer }, 400, 'VALIDATION_ERROR', 'items.0.serviceId'],
      [{ items: [{ serviceId: s.cut._id }], startTime, customerId: theirs._id }, 404, 'NOT_FOUND', 'customerId'],
      [{ items: [{ serviceId: s.cut._id }], startTime }, 400, 'VALIDATION_ERROR', 'customerId'],
      [
        { items: [{ serviceId: s.cut._id }], startTime: '2020-01-01T10:00:00.000Z', customer },
        400,
        'VALIDATION_ERROR',
        'startTime',
      ],
      [{ items: [{ serviceId: s.cut._id, extra: 1 }], startTime, customer }, 400, 'VALIDATION_ERROR', 'items'],
    ];
    for (const [payload, status, code, path] of cases) {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/visits', headers: s.auth, payload });
      const body = expectError(res, status, code);
      expect(JSON.stringify(body.error), JSON.stringify(payload)).toContain(path);
    }
    await nothingWritten(s.company.id);
    for (const url of [`/api/v1/visits/${'cd'.repeat(12)}`, '/api/v1/visits/nope'])
      expect([400, 404]).toContain((await t.app.inject({ method: 'GET', url, headers: s.auth })).statusCode);
    // Another company's visit is not found.
    const mine = await post(t.app, '/api/v1/visits', s.auth, {
      items: [{ serviceId: s.cut._id }],
      startTime,
      customer,
    });
    expectError(
      await t.app.inject({ method: 'GET', url: `/api/v1/visits/${mine._id}`, headers: other.auth }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await t.app.inject({ method: 'POST', url: `/api/v1/visits/${mine._id}/cancel`, headers: other.auth }),
      404,
      'NOT_FOUND',
    );
  });

  it('/availability?serviceIds= offers the starts where the whole sequence fits, and each books', async () => {
    const s = await studio();
    const day = futureHour(3, 0);
    const to = new Date(Date.parse(day) + 86_400_000).toISOString();
    // Both employees busy with a colour at 12:00-12:30 UTC (5 min buffer before).
    const noon = Date.parse(futureHour(3, 12));
    for (const e of [s.anna, s.ben])
      await post(t.app, '/api/v1/bookings', s.auth, {
        serviceId: s.colour._id,
        employeeId: e._id,
        startTime: new Date(noon).toISOString(),
        customer: { name: 'Busy', email: 'busy@example.com' },
      });
    const get = async (q: string) =>
      ok(await t.app.inject({ method: 'GET', url: `/api/v1/availability?${q}&from=${day}&to=${to}`, headers: s.auth }))
        .slots as Array<{ startTime: string; endTime: string; employeeIds: string[]; items?: any[] }>;
    const single = await get(`serviceId=${s.cut._id}`);
    expect(single[0]!.items).toBeUndefined();
    const visits = await get(`serviceIds=${s.cut._id},${s.colour._id}`);
    expect(visits.length).toBeGreaterThan(50);
    for (const v of visits) {
      const start = Date.parse(v.startTime);
      expect(v.items!.map((i) => [i.serviceId, Date.parse(i.startTime) - start])).toEqual([
        [s.cut._id, 0],
        [s.colour._id, 75 * MIN],
      ]);
      expect(Date.parse(v.endTime) - start).toBe(105 * MIN);
      expect(v.employeeIds).toEqual(v.items![0].employeeIds);
    }
    const starts = new Set(visits.map((v) => v.startTime));
    // A cut at 10:45 fits alone, but its colour (12:00) would meet the booked noon: not offered.
    const clash = new Date(noon - 75 * MIN).toISOString();
    expect(single.some((x) => x.startTime === clash)).toBe(true);
    expect(starts.has(clash)).toBe(false);
    // The colour's buffer before (5 min) may not reach into 12:30's booking either.
    expect(starts.has(new Date(noon - 45 * MIN).toISOString())).toBe(false);
    expect(starts.has(new Date(noon - 150 * MIN).toISOString())).toBe(true);
    // An offered start books.
    const pick = visits.find((v) => v.startTime === new Date(noon - 150 * MIN).toISOString())!;
    const v = await post(t.app, '/api/v1/visits', s.auth, {
      items: [{ serviceId: s.cut._id }, { serviceId: s.colour._id }],
      startTime: pick.startTime,
      customer,
    });
    expect(v.bookings).toHaveLength(2);
    // Hostile: both, neither, an unknown or foreign id, too many.
    const bad: Array<[string, number, string]> = [
      [`serviceId=${s.cut._id}&serviceIds=${s.cut._id}`, 400, 'serviceId'],
      ['', 400, 'serviceId'],
      [`serviceIds=${s.cut._id},${'ab'.repeat(12)}`, 404, 'serviceIds.1'],
      [`serviceIds=${Array.from({ length: 11 }, () => s.cut._id).join(',')}`, 400, 'serviceIds'],
      ['serviceIds=nope', 400, 'serviceIds'],
    ];
    for (const [q, status, path] of bad) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/v1/availability?${q}&from=${day}&to=${to}`,
        headers: s.auth,
      });
      const body = expectError(res, status, status === 404 ? 'NOT_FOUND' : 'VALIDATION_ERROR');
      expect(JSON.stringify(body.error), q).toContain(path);
    }
  });

  it('needs bookings:write to create and bookings:read to read', async () => {
    const read = await tokenWithScopes(t.dbs, w, 'bookings:read');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/visits',
      headers: read,
      payload: { items: [{ serviceId: 'ab'.repeat(12) }], startTime: futureHour(3), customer },
    });
    expectError(res, 403, 'INSUFFICIENT_SCOPE');
    const none = await tokenWithScopes(t.dbs, w, 'customers:read');
    expectError(
      await t.app.inject({ method: 'GET', url: `/api/v1/visits/${'ab'.repeat(12)}`, headers: none }),
      403,
      'INSUFFICIENT_SCOPE',
    );
  });
});

describe.skipIf(embedded())('visits under concurrency (real PostgreSQL)', () => {
  it('concurrent visits competing for one employee time: exactly one wins, the rest 409 with nothing left', async () => {
    const s = await studio();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/api/v1/visits`;
    const startTime = futureHour(6);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        fetch(url, {
          method: 'POST',
          headers: { ...s.auth, 'content-type': 'application/json' },
          // Each visit's first item is free with Anna or Ben; the second wants Ben only.
          body: JSON.stringify({
            items: [
              { serviceId: s.cut._id, employeeId: i % 2 ? s.anna._id : undefined },
              { serviceId: s.colour._id, employeeId: s.ben._id },
            ].map((x) => JSON.parse(JSON.stringify(x))),
            startTime,
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
    expect(codes).toEqual({ '200': 1, '409 SLOT_UNAVAILABLE': 19 });
    expect(await db().visit.count({ where: { companyId: s.company.id } })).toBe(1);
    expect(await db().booking.count({ where: { companyId: s.company.id } })).toBe(2);
    expect(await db().customer.count({ where: { companyId: s.company.id } })).toBe(1);
  });
});
