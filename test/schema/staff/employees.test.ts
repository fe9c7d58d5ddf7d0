// Employees CRUD, working hours validation, time off, deactivation, scopes and isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createAccountWithKeys } from '../../helpers/factories.js';
import type { TestApp } from '../../helpers/app.js';
import {
  blankCompany,
  createDomainApp,
  futureHour,
  ok,
  post,
  salon,
  WEEK_9_TO_17,
  type World,
} from '../../helpers/domain.js';

let t: TestApp;
let w: World;
let auth: Record<string, string>;

beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
  auth = bearer(w.testKey.key);
});
afterAll(async () => {
  await t?.close();
});

describe('employees', () => {
  it('creates, reads, updates and deactivates an employee', async () => {
    const created = ok(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/employees',
        headers: auth,
        payload: {
          name: 'Anna Schmidt',
          email: 'Anna@Example.com',
          phone: '+49 30 1234567',
          workingHours: {
            ...WEEK_9_TO_17,
            monday: [
              { start: '13:00', end: '17:00' },
              { start: '08:00', end: '12:00' },
            ],
          },
        },
      }),
    );
    expect(created).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      name: 'Anna Schmidt',
      email: 'anna@example.com',
      phone: '+49301234567',
      workingHours: {
        ...WEEK_9_TO_17,
        monday: [
          { start: '08:00', end: '12:00' },
          { start: '13:00', end: '17:00' },
        ],
      },
      serviceIds: [],
      active: true,
      metadata: {},
      externalCalendars: [],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const got = ok(await t.app.inject({ method: 'GET', url: `/api/v1/employees/${created._id}`, headers: auth }));
    expect(got).toEqual(created);
    const patched = ok(
      await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/employees/${created._id}`,
        headers: auth,
        payload: { name: 'Anna S.', phone: null },
      }),
    );
    expect(patched).toMatchObject({ name: 'Anna S.', phone: null, email: 'anna@example.com' });
    const deactivated = ok(
      await t.app.inject({ method: 'DELETE', url: `/api/v1/employees/${created._id}`, headers: auth }),
    );
    expect(deactivated.active).toBe(false);
    const still = ok(await t.app.inject({ method: 'GET', url: `/api/v1/employees/${created._id}`, headers: auth }));
    expect(still.active).toBe(false);
  });
});

describe('time off, availability and class cancellation', () => {
  it('time off removes slots; deleting it gives them back', async () => {
    const c = await blankCompany(t.dbs, w);
    const { employee, service } = await salon(t.app, c.auth);
    const from = futureHour(4, 8);
    const to = futureHour(4, 12);
    const slots = async () =>
      ok(
        await t.app.inject({
          method: 'GET',
          url: `/api/v1/availability?serviceId=${service._id}&from=${from}&to=${to}`,
          headers: c.auth,
        }),
      ).slots.map((s: any) => s.startTime);
    expect(await slots()).toHaveLength(16);
    const off = await post(t.app, `/api/v1/employees/${employee._id}/time-off`, c.auth, {
      startTime: futureHour(4, 9),
      endTime: futureHour(4, 10),
      reason: 'Dentist',
    });
    expect(off).toEqual({
      _id: expect.any(String),
      employeeId: employee._id,
      startTime: futureHour(4, 9),
      endTime: futureHour(4, 10),
      reason: 'Dentist',
      createdAt: expect.any(String),
    });
    // 60-minute appointments: starts from 08:15 to 09:45 overlap 09:00–10:00.
    expect(await slots()).toHaveLength(16 - 7);
    const list = await t.app.inject({
      method: 'GET',
      url: `/api/v1/employees/${employee._id}/time-off`,
      headers: c.auth,
    });
    expect(list.json().data).toEqual([off]);
    const taken = await t.app.inject({
      method: 'POST',
      url: '/api/v1/bookings',
      headers: c.auth,
      payload: {
        serviceId: service._id,
        employeeId: employee._id,
        startTime: futureHour(4, 9),
        customer: { name: 'A', email: 'a@example.com' },
      },
    });
    expect(taken.json().error.code).toBe('SLOT_UNAVAILABLE');
    ok(
      await t.app.inject({
        method: 'DELETE',
        url: `/api/v1/employees/${employee._id}/time-off/${off._id}`,
        headers: c.auth,
      }),
    );
    expect(await slots()).toHaveLength(16);
    // A deactivated employee is not offered.
    ok(await t.app.inject({ method: 'DELETE', url: `/api/v1/employees/${employee._id}`, headers: c.auth }));
    expect(await slots()).toHaveLength(0);
  });

  it('cancelling a class cancels its bookings and emits class.cancelled and booking.cancelled', async () => {
    const c = await blankCompany(t.dbs, w);
    const { employee } = await salon(t.app, c.auth);
    const yoga = await post(t.app, '/api/v1/services', c.auth, {
      name: 'Yoga',
      kind: 'class',
      durationMinutes: 45,
      employeeIds: [employee._id],
    });
    const session = await post(t.app, '/api/v1/classes', c.auth, {
      serviceId: yoga._id,
      employeeId: employee._id,
      startTime: futureHour(6),
      capacity: 3,
    });
    expect(session).toMatchObject({
      endTime: new Date(Date.parse(futureHour(6)) + 45 * 60_000).toISOString(),
      bookedCount: 0,
      status: 'scheduled',
    });
    const b1 = await post(t.app, '/api/v1/bookings', c.auth, {
      serviceId: yoga._id,
      classId: session._id,
      customer: { name: 'A', email: 'a@example.com' },
    });
    const b2 = await post(t.app, '/api/v1/bookings', c.auth, {
      serviceId: yoga._id,
      classId: session._id,
      customer: { name: 'B', email: 'b@example.com' },
    });
    const av = ok(
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/availability?serviceId=${yoga._id}&from=${futureHour(5)}&to=${futureHour(7)}`,
        headers: c.auth,
      }),
    );
    expect(av).toEqual({
      sessions: [
        {
          classId: session._id,
          startTime: session.startTime,
          endTime: session.endTime,
          employeeId: employee._id,
          capacity: 3,
          spotsLeft: 1,
        },
      ],
    });
    // Cancelling one booking gives its place back.
    ok(await t.app.inject({ method: 'POST', url: `/api/v1/bookings/${b2._id}/cancel`, headers: c.auth }));
    expect(
      ok(await t.app.inject({ method: 'GET', url: `/api/v1/classes/${session._id}`, headers: c.auth })).bookedCount,
    ).toBe(1);
    const cancelled = ok(
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/classes/${session._id}/cancel`,
        headers: c.auth,
        payload: { reason: 'Instructor ill' },
      }),
    );
    expect(cancelled.status).toBe('cancelled');
    expect(ok(await t.app.inject({ method: 'GET', url: `/api/v1/bookings/${b1._id}`, headers: c.auth })).status).toBe(
      'cancelled',
    );
    const events = ok(await t.app.inject({ method: 'GET', url: '/api/v1/events?limit=2', headers: c.auth }));
    expect(events.map((e: any) => e.type)).toEqual(['class.cancelled', 'booking.cancelled']);
    expect(events[1].data).toMatchObject({
      bookingId: b1._id,
      status: 'cancelled',
      reason: 'Instructor ill',
      classId: session._id,
    });
    expect(events[0].data).toMatchObject({ classId: session._id, cancelledBookingIds: [b1._id] });
    const one = ok(await t.app.inject({ method: 'GET', url: `/api/v1/events/${events[0]._id}`, headers: c.auth }));
    expect(one).toEqual(events[0]);
    const again = await t.app.inject({ method: 'POST', url: `/api/v1/classes/${session._id}/cancel`, headers: c.auth });
    expect(again.json().error).toMatchObject({
      code: 'INVALID_STATE_TRANSITION',
      details: { from: 'cancelled', to: 'cancelled' },
    });
    const late = await t.app.inject({
      method: 'POST',
      url: '/api/v1/bookings',
      headers: c.auth,
      payload: { serviceId: yoga._id, classId: session._id, customer: { name: 'C', email: 'c@example.com' } },
    });
    expect(late.json().error.code).toBe('SLOT_UNAVAILABLE');
  });
});
