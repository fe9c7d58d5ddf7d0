// The booking domain's resources through /api/v1 (docs/api.md, docs/webhooks.md): availability minus existing
// bookings and their buffers, never in the past; the booking list's filters; services and
// customers read, changed and deleted; the data of customer.* and booking.created events; and
// the event log's type and from filters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountWithKeys } from '../../helpers/factories.js';
import type { TestApp } from '../../helpers/app.js';
import { blankCompany, createDomainApp, expectError, futureHour, ok, post, type World } from '../../helpers/domain.js';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
});
afterAll(async () => t?.close());

type Auth = Record<string, string>;
const get = async (auth: Auth, url: string) => ok(await t.app.inject({ method: 'GET', url, headers: auth }));
const patch = async (auth: Auth, url: string, payload: object) =>
  ok(await t.app.inject({ method: 'PATCH', url, headers: auth, payload }));
const del = async (auth: Auth, url: string) => ok(await t.app.inject({ method: 'DELETE', url, headers: auth }));
const at = (iso: string, minutes: number) => new Date(Date.parse(iso) + minutes * 60_000).toISOString();
const EVERY_DAY = (start: string, end: string) =>
  Object.fromEntries(
    ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [d, [{ start, end }]]),
  );

describe('availability', () => {
  it('leaves out the slots whose block (buffers included) overlaps a pending or confirmed booking', async () => {
    const c = await blankCompany(t.dbs, w, { timezone: 'UTC' });
    const e = await post(t.app, '/api/v1/employees', c.auth, { name: 'Mo', workingHours: EVERY_DAY('09:00', '13:00') });
    const s = await post(t.app, '/api/v1/services', c.auth, {
      name: 'Cut',
      durationMinutes: 60,
      bufferBeforeMinutes: 15,
      bufferAfterMinutes: 15,
      employeeIds: [e._id],
    });
    const day = futureHour(3, 0);
    const url = `/api/v1/availability?serviceId=${s._id}&from=${day}&to=${at(day, 24 * 60)}`;
    const starts = async () => (await get(c.auth, url)).slots.map((x: { startTime: string }) => x.startTime);
    const grid = (fromMin: number, toMin: number) =>
      Array.from({ length: (toMin - fromMin) / 15 + 1 }, (_, i) => at(day, fromMin + i * 15));
    expect(await starts()).toEqual(grid(9 * 60, 12 * 60));
    // 10:00-11:00 blocks 09:45-11:15: a start s is free only if [s-15, s+75) misses it.
    const b = await post(t.app, '/api/v1/bookings', c.auth, {
      serviceId: s._id,
      startTime: at(day, 10 * 60),
      customer: { name: 'A', email: 'a@example.com' },
    });
    expect(await starts()).toEqual(grid(11 * 60 + 30, 12 * 60));
    ok(await t.app.inject({ method: 'POST', url: `/api/v1/bookings/${b._id}/cancel`, headers: c.auth }));
    expect(await starts()).toEqual(grid(9 * 60, 12 * 60));
    // A pending (unpaid) booking holds its slot too; a 30-minute service without buffers
    // next to it is still offered right up to its buffer.
    const paid = await post(t.app, '/api/v1/services', c.auth, {
      name: 'Colour',
      durationMinutes: 60,
      price: 100,
      requiresPayment: true,
      employeeIds: [e._id],
    });
    const pending = await post(t.app, '/api/v1/bookings', c.auth, {
      serviceId: paid._id,
      startTime: at(day, 11 * 60),
      customer: { name: 'B', email: 'b@example.com' },
    });
    expect(pending.status).toBe('pending');
    expect(await starts()).toEqual(grid(9 * 60, 9 * 60 + 45));
    const quick = await post(t.app, '/api/v1/services', c.auth, {
      name: 'Fringe',
      durationMinutes: 30,
      employeeIds: [e._id],
    });
    const quickStarts = (
      await get(c.auth, `/api/v1/availability?serviceId=${quick._id}&from=${day}&to=${at(day, 24 * 60)}`)
    ).slots.map((x: { startTime: string }) => x.startTime);
    expect(quickStarts).toEqual([...grid(9 * 60, 10 * 60 + 30), ...grid(12 * 60, 12 * 60 + 30)]);
  });

  it('never offers a slot in the past, whatever from says', async () => {
    const c = await blankCompany(t.dbs, w, { timezone: 'UTC' });
    const e = await post(t.app, '/api/v1/employees', c.auth, { name: 'Mo', workingHours: EVERY_DAY('00:00', '24:00') });
    const s = await post(t.app, '/api/v1/services', c.auth, { name: 'Cut', durationMinutes: 30, employeeIds: [e._id] });
    const from = new Date(Date.now() - 2 * 86_400_000).toISOString();
    const to = new Date(Date.now() + 3600_000).toISOString();
    const { slots } = await get(c.auth, `/api/v1/availability?serviceId=${s._id}&from=${from}&to=${to}`);
    const now = Date.now();
    expect(slots.length).toBeGreaterThanOrEqual(3);
    for (const slot of slots) expect(Date.parse(slot.startTime)).toBeGreaterThan(now - 5_000);
    // A window wholly in the past is empty, not an error.
    const past = await get(
      c.auth,
      `/api/v1/availability?serviceId=${s._id}&from=${from}&to=${new Date(now - 86_400_000).toISOString()}`,
    );
    expect(past.slots).toEqual([]);
  });
});

describe('a new booking as answered', () => {
  // The booking's row, its event and its reminders are written by one statement
  // (src/schema/bookings/insert-booking.ts) whose RETURNING maps the row by hand: the answer must
  // be the booking as any later read sees it, JSON as stored included, and the event must carry it.
  it('is the booking a later read returns, and booking.created carries it', async () => {
    const c = await blankCompany(t.dbs, w);
    const e = await post(t.app, '/api/v1/employees', c.auth, {
      name: 'One',
      workingHours: EVERY_DAY('00:00', '24:00'),
    });
    const s = await post(t.app, '/api/v1/services', c.auth, { name: 'Cut', durationMinutes: 45, employeeIds: [e._id] });
    const customer = await post(t.app, '/api/v1/customers', c.auth, { name: 'Ann', email: 'ann@example.com' });
    const created = await post(t.app, '/api/v1/bookings', c.auth, {
      serviceId: s._id,
      customerId: customer._id,
      startTime: futureHour(3),
      notes: 'window seat',
      customerTimeZone: 'America/New_York',
      metadata: { zeta: 'last', a: 'first', nested: 'x' },
    });
    expect(await get(c.auth, `/api/v1/bookings/${created._id}`)).toEqual(created);
    expect(created).toMatchObject({
      status: 'confirmed',
      employeeId: e._id,
      notes: 'window seat',
      customerTimeZone: 'America/New_York',
      metadata: { zeta: 'last', a: 'first', nested: 'x' },
    });
    const events = (await get(c.auth, `/api/v1/events?type=booking.created`)) as Array<{
      type: string;
      data: Record<string, unknown>;
    }>;
    const event = events.find((x) => x.data.bookingId === created._id);
    expect(event?.data).toMatchObject({
      bookingId: created._id,
      customerId: customer._id,
      serviceId: s._id,
      employeeId: e._id,
      startTime: created.startTime,
      endTime: created.endTime,
      status: 'confirmed',
      metadata: created.metadata,
    });
  });
});

describe('booking list filters', () => {
  it('status, from, to, employeeId, customerId and serviceId each narrow the list, and combine', async () => {
    const c = await blankCompany(t.dbs, w);
    const e1 = await post(t.app, '/api/v1/employees', c.auth, {
      name: 'One',
      workingHours: EVERY_DAY('00:00', '24:00'),
    });
    const e2 = await post(t.app, '/api/v1/employees', c.auth, {
      name: 'Two',
      workingHours: EVERY_DAY('00:00', '24:00'),
    });
    const s1 = await post(t.app, '/api/v1/services', c.auth, {
      name: 'Cut',
      durationMinutes: 60,
      employeeIds: [e1._id, e2._id],
    });
    const s2 = await post(t.app, '/api/v1/services', c.auth, {
      name: 'Dye',
      durationMinutes: 60,
      employeeIds: [e1._id, e2._id],
    });
    const ann = await post(t.app, '/api/v1/customers', c.auth, { name: 'Ann', email: 'ann@example.com' });
    const bo = await post(t.app, '/api/v1/customers', c.auth, { name: 'Bo', email: 'bo@example.com' });
    const book = (serviceId: string, employeeId: string, customerId: string, days: number) =>
      post(t.app, '/api/v1/bookings', c.auth, { serviceId, employeeId, customerId, startTime: futureHour(days) });
    const b1 = await book(s1._id, e1._id, ann._id, 3);
    const b2 = await book(s2._id, e2._id, ann._id, 4);
    const b3 = await book(s1._id, e2._id, bo._id, 5);
    const b4 = await book(s2._id, e1._id, bo._id, 6);
    ok(await t.app.inject({ method: 'POST', url: `/api/v1/bookings/${b3._id}/cancel`, headers: c.auth }));
    const ids = async (query: string) =>
      (await get(c.auth, `/api/v1/bookings?${query}`)).map((b: { _id: string }) => b._id);
    // Newest first.
    expect(await ids('')).toEqual([b4._id, b3._id, b2._id, b1._id]);
    expect(await ids('status=cancelled')).toEqual([b3._id]);
    expect(await ids('status=confirmed')).toEqual([b4._id, b2._id, b1._id]);
    expect(await ids('status=pending')).toEqual([]);
    // A status's pages (read through the status's index, bookingIdsOfPage) follow the cursor.
    const page = async (query: string) => {
      const body = (await t.app.inject({ method: 'GET', url: `/api/v1/bookings?${query}`, headers: c.auth })).json<{
        data: Array<{ _id: string }>;
        meta: { pagination: { nextCursor: string | null } };
      }>();
      return { ids: body.data.map((b) => b._id), next: body.meta.pagination.nextCursor };
    };
    const first = await page('status=confirmed&limit=2');
    expect(first.ids).toEqual([b4._id, b2._id]);
    expect(await page(`status=confirmed&limit=2&cursor=${encodeURIComponent(first.next!)}`)).toEqual({
      ids: [b1._id],
      next: null,
    });
    expect(await ids(`status=confirmed&customerId=${ann._id}&serviceId=${s2._id}`)).toEqual([b2._id]);
    expect(await ids(`employeeId=${e1._id}`)).toEqual([b4._id, b1._id]);
    expect(await ids(`customerId=${bo._id}`)).toEqual([b4._id, b3._id]);
    expect(await ids(`serviceId=${s2._id}`)).toEqual([b4._id, b2._id]);
    // from is inclusive and to exclusive, both on startTime.
    expect(await ids(`from=${futureHour(4)}`)).toEqual([b4._id, b3._id, b2._id]);
    expect(await ids(`to=${futureHour(5)}`)).toEqual([b2._id, b1._id]);
    expect(await ids(`from=${futureHour(4)}&to=${futureHour(6)}`)).toEqual([b3._id, b2._id]);
    expect(await ids(`from=${futureHour(3)}&to=${futureHour(7)}&employeeId=${e2._id}&status=confirmed`)).toEqual([
      b2._id,
    ]);
    // A window's pages (ids planned with the window's values, bookingIdsOfPage) follow the cursor too.
    const windowFirst = await page(`from=${futureHour(3)}&to=${futureHour(7)}&limit=3`);
    expect(windowFirst.ids).toEqual([b4._id, b3._id, b2._id]);
    expect(
      await page(`from=${futureHour(3)}&to=${futureHour(7)}&limit=3&cursor=${encodeURIComponent(windowFirst.next!)}`),
    ).toEqual({
      ids: [b1._id],
      next: null,
    });
    expect(await ids(`customerId=${ann._id}&serviceId=${s1._id}`)).toEqual([b1._id]);
    expectError(
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/bookings?from=${futureHour(6)}&to=${futureHour(4)}`,
        headers: c.auth,
      }),
      400,
      'VALIDATION_ERROR',
    );
    // Another company's id filters to nothing.
    const other = await blankCompany(t.dbs, w);
    expect(await get(other.auth, `/api/v1/bookings?customerId=${ann._id}`)).toEqual([]);
  });
});

describe('services', () => {
  it('GET, PATCH (employeeIds replaced, not merged) and DELETE (deactivates)', async () => {
    const c = await blankCompany(t.dbs, w);
    const [e1, e2, e3] = await Promise.all(
      ['A', 'B', 'C'].map((name) =>
        post(t.app, '/api/v1/employees', c.auth, { name, workingHours: EVERY_DAY('00:00', '24:00') }),
      ),
    );
    const created = await post(t.app, '/api/v1/services', c.auth, {
      name: 'Cut',
      durationMinutes: 45,
      price: 3000,
      employeeIds: [e1._id, e2._id, e1._id],
    });
    expect(created).toMatchObject({
      name: 'Cut',
      kind: 'appointment',
      durationMinutes: 45,
      price: 3000,
      bufferBeforeMinutes: 0,
      bufferAfterMinutes: 0,
      requiresPayment: false,
      active: true,
      description: null,
    });
    expect([...created.employeeIds].sort()).toEqual([e1._id, e2._id].sort());
    expect(await get(c.auth, `/api/v1/services/${created._id}`)).toEqual(created);

    const changed = await patch(c.auth, `/api/v1/services/${created._id}`, {
      employeeIds: [e3._id],
      price: 3500,
      bufferAfterMinutes: 10,
      description: 'Wash and cut',
    });
    expect(changed).toMatchObject({
      employeeIds: [e3._id],
      price: 3500,
      bufferAfterMinutes: 10,
      description: 'Wash and cut',
      name: 'Cut',
    });
    expect(await get(c.auth, `/api/v1/services/${created._id}`)).toEqual(changed);
    expect((await get(c.auth, `/api/v1/employees/${e1._id}`)).serviceIds).toEqual([]);
    expect((await get(c.auth, `/api/v1/employees/${e3._id}`)).serviceIds).toEqual([created._id]);
    // Only e3 is offered and bookable now.
    const { slots } = await get(
      c.auth,
      `/api/v1/availability?serviceId=${created._id}&from=${futureHour(3, 9)}&to=${futureHour(3, 10)}`,
    );
    expect(slots[0].employeeIds).toEqual([e3._id]);
    expectError(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/bookings',
        headers: c.auth,
        payload: {
          serviceId: created._id,
          employeeId: e1._id,
          startTime: futureHour(3),
          customer: { name: 'A', email: 'a@example.com' },
        },
      }),
      400,
      'VALIDATION_ERROR',
    );
    // An empty list empties it; omitting employeeIds leaves them.
    expect((await patch(c.auth, `/api/v1/services/${created._id}`, { employeeIds: [] })).employeeIds).toEqual([]);
    expect(
      (await patch(c.auth, `/api/v1/services/${created._id}`, { employeeIds: [e1._id, e2._id] })).employeeIds.sort(),
    ).toEqual([e1._id, e2._id].sort());
    expect(
      (await patch(c.auth, `/api/v1/services/${created._id}`, { name: 'Cut & style' })).employeeIds.sort(),
    ).toEqual([e1._id, e2._id].sort());

    const deleted = await del(c.auth, `/api/v1/services/${created._id}`);
    expect(deleted).toMatchObject({ _id: created._id, active: false });
    expect((await get(c.auth, `/api/v1/services/${created._id}`)).active).toBe(false);
    expect((await get(c.auth, '/api/v1/services?active=false')).map((s: { _id: string }) => s._id)).toEqual([
      created._id,
    ]);
    expect(
      (
        await get(
          c.auth,
          `/api/v1/availability?serviceId=${created._id}&from=${futureHour(3, 9)}&to=${futureHour(3, 10)}`,
        )
      ).slots,
    ).toEqual([]);
    expectError(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/bookings',
        headers: c.auth,
        payload: { serviceId: created._id, startTime: futureHour(3), customer: { name: 'A', email: 'a@example.com' } },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await t.app.inject({ method: 'GET', url: `/api/v1/services/${e1._id}`, headers: c.auth }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('customers', () => {
  it('GET, PATCH (with customer.updated) and DELETE', async () => {
    const c = await blankCompany(t.dbs, w);
    const created = await post(t.app, '/api/v1/customers', c.auth, {
      name: 'Ann Lee',
      email: 'Ann.Lee@Example.com',
      phone: '+49 30 1234567',
    });
    expect(created).toMatchObject({
      name: 'Ann Lee',
      email: 'ann.lee@example.com',
      phone: '+49301234567',
      notes: null,
    });
    expect(await get(c.auth, `/api/v1/customers/${created._id}`)).toEqual(created);
    expect(
      (await get(c.auth, '/api/v1/customers?email=ANN.LEE@example.com')).map((x: { _id: string }) => x._id),
    ).toEqual([created._id]);
    const changed = await patch(c.auth, `/api/v1/customers/${created._id}`, {
      phone: null,
      notes: 'Prefers mornings',
      email: 'ann@example.org',
    });
    expect(changed).toMatchObject({
      name: 'Ann Lee',
      email: 'ann@example.org',
      phone: null,
      notes: 'Prefers mornings',
    });
    expect(await get(c.auth, `/api/v1/customers/${created._id}`)).toEqual(changed);
    expect(await del(c.auth, `/api/v1/customers/${created._id}`)).toEqual(changed);
    expectError(
      await t.app.inject({ method: 'GET', url: `/api/v1/customers/${created._id}`, headers: c.auth }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await t.app.inject({ method: 'DELETE', url: `/api/v1/customers/${created._id}`, headers: c.auth }),
      404,
      'NOT_FOUND',
    );
    // The e-mail is free again.
    await post(t.app, '/api/v1/customers', c.auth, { name: 'Ann again', email: 'ann@example.org' });
  });
});

describe('events', () => {
  it('customer.created, customer.updated and booking.created carry the data of docs/webhooks.md', async () => {
    const c = await blankCompany(t.dbs, w);
    const e = await post(t.app, '/api/v1/employees', c.auth, { name: 'Mo', workingHours: EVERY_DAY('00:00', '24:00') });
    const s = await post(t.app, '/api/v1/services', c.auth, { name: 'Cut', durationMinutes: 60, employeeIds: [e._id] });
    const ann = await post(t.app, '/api/v1/customers', c.auth, {
      name: 'Ann',
      email: 'ann@example.com',
      phone: '+4930123456',
      notes: 'private',
    });
    await patch(c.auth, `/api/v1/customers/${ann._id}`, { name: 'Ann B.' });
    const b = await post(t.app, '/api/v1/bookings', c.auth, {
      serviceId: s._id,
      startTime: futureHour(3),
      customer: { name: 'Bo', email: 'bo@example.com' },
    });
    const events = await get(c.auth, '/api/v1/events');
    expect(events.map((x: { type: string }) => x.type)).toEqual([
      'booking.created',
      'customer.created',
      'customer.updated',
      'customer.created',
    ]);
    const [created, boCreated, updated, annCreated] = events;
    expect(annCreated.data).toEqual({
      customerId: ann._id,
      name: 'Ann',
      email: 'ann@example.com',
      phone: '+4930123456',
      metadata: {},
    });
    expect(updated.data).toEqual({
      customerId: ann._id,
      name: 'Ann B.',
      email: 'ann@example.com',
      phone: '+4930123456',
      metadata: {},
    });
    expect(boCreated.data).toEqual({
      customerId: b.customerId,
      name: 'Bo',
      email: 'bo@example.com',
      phone: null,
      metadata: {},
    });
    expect(created.data).toEqual({
      bookingId: b._id,
      customerId: b.customerId,
      startTime: futureHour(3),
      endTime: at(futureHour(3), 60),
      status: 'confirmed',
      serviceId: s._id,
      employeeId: e._id,
      metadata: {},
      answers: [],
    });
    for (const ev of events) {
      expect(ev._id).toMatch(/^[0-9a-f]{24}$/);
      expect(Date.parse(ev.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    }
  });

  it('GET /events filters on type and on from (createdAt, inclusive)', async () => {
    const c = await blankCompany(t.dbs, w);
    await post(t.app, '/api/v1/customers', c.auth, { name: 'A', email: 'a@example.com' });
    const second = await post(t.app, '/api/v1/customers', c.auth, { name: 'B', email: 'b@example.com' });
    await patch(c.auth, `/api/v1/customers/${second._id}`, { name: 'B2' });
    const all = await get(c.auth, '/api/v1/events');
    expect(all).toHaveLength(3);
    const created = await get(c.auth, '/api/v1/events?type=customer.created');
    expect(created.map((x: { data: { name: string } }) => x.data.name)).toEqual(['B', 'A']);
    expect((await get(c.auth, '/api/v1/events?type=customer.updated')).map((x: { _id: string }) => x._id)).toEqual([
      all[0]._id,
    ]);
    expect(await get(c.auth, '/api/v1/events?type=booking.created')).toEqual([]);
    // from: the events created at or after an instant.
    const rows = await t.dbs.test.prisma.event.findMany({ where: { companyId: c.company.id }, orderBy: { id: 'asc' } });
    await t.dbs.test.prisma.event.update({
      where: { id: rows[0]!.id },
      data: { createdAt: new Date(Date.now() - 3600_000) },
    });
    const cut = new Date(Date.now() - 1800_000).toISOString();
    expect((await get(c.auth, `/api/v1/events?from=${cut}`)).map((x: { _id: string }) => x._id)).toEqual([
      rows[2]!.id,
      rows[1]!.id,
    ]);
    expect(
      (await get(c.auth, `/api/v1/events?from=${rows[1]!.createdAt.toISOString()}&type=customer.created`)).map(
        (x: { _id: string }) => x._id,
      ),
    ).toEqual([rows[1]!.id]);
    expect(await get(c.auth, `/api/v1/events?from=${new Date(Date.now() + 60_000).toISOString()}`)).toEqual([]);
    expectError(
      await t.app.inject({ method: 'GET', url: '/api/v1/events?from=yesterday', headers: c.auth }),
      400,
      'VALIDATION_ERROR',
    );
  });
});
