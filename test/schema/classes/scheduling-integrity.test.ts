// An employee is never in two places (docs/api.md), class sessions included: a session overlapping
// the instructor's appointments (buffers included), another session they teach or their time
// off is 409 SLOT_UNAVAILABLE, on create and on PATCH; changing a session's instructor or times
// moves its bookings with a booking.rescheduled event each; a session cannot move into the
// past. Also: /confirm after the hold, the slot grid, impossible dates, deleting customers.
// (The concurrent versions of these races are in concurrency.test.ts, on real PostgreSQL.)
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { toAppError } from '../../../src/errors.js';
import { isForeignKeyViolation } from '../../../src/schema/db-errors.js';
import { createAccountWithKeys } from '../../helpers/factories.js';
import type { TestApp } from '../../helpers/app.js';
import {
  ALL_DAY,
  blankCompany,
  createDomainApp,
  expectError,
  futureHour,
  ok,
  post,
  salon,
  WEEK_9_TO_17,
  type World,
} from '../../helpers/domain.js';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
});
afterAll(async () => t?.close());

const db = () => t.dbs.test.prisma;
const at = (iso: string, minutes: number) => new Date(Date.parse(iso) + minutes * 60_000).toISOString();

/** A company with one all-day instructor who does a 60-minute appointment (15 min buffer after) and a yoga class. */
async function studio() {
  const c = await blankCompany(t.dbs, w);
  const { staff, service } = await salon(t.app, c.auth, { bufferAfterMinutes: 15 }, 2);
  const [ann, bob] = staff as Array<{ _id: string }>;
  const yoga = await post(t.app, '/api/v1/services', c.auth, {
    name: 'Yoga',
    kind: 'class',
    durationMinutes: 60,
    employeeIds: [ann!._id, bob!._id],
  });
  return { c, ann: ann!, bob: bob!, service, yoga };
}

const inject = (
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  headers: Record<string, string>,
  payload?: object,
) => t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

describe('class sessions never double-book their instructor', () => {
  it('a session over the instructor’s appointment (its buffer included) is SLOT_UNAVAILABLE, and nothing is written', async () => {
    const { c, ann, bob, service, yoga } = await studio();
    const start = futureHour(3, 10);
    await post(t.app, '/api/v1/bookings', c.auth, {
      serviceId: service._id,
      employeeId: ann._id,
      startTime: start,
      customer: { name: 'A', email: 'a@example.com' },
    });
    // 11:00-12:00 touches only the appointment's 15-minute buffer after 11:00.
    for (const startTime of [start, at(start, 30), at(start, 60), at(start, -45)]) {
      const res = await inject('POST', '/api/v1/classes', c.auth, {
        serviceId: yoga._id,
        employeeId: ann._id,
        startTime,
        capacity: 5,
      });
      const body = expectError(res, 409, 'SLOT_UNAVAILABLE');
      expect(body.error.details).toEqual({ employeeId: ann._id });
    }
    expect(await db().classSession.count({ where: { companyId: c.company.id } })).toBe(0);
    // Right after the buffer, or with another instructor, it fits.
    ok(
      await inject('POST', '/api/v1/classes', c.auth, {
        serviceId: yoga._id,
        employeeId: ann._id,
        startTime: at(start, 75),
        capacity: 5,
      }),
    );
    ok(
      await inject('POST', '/api/v1/classes', c.auth, {
        serviceId: yoga._id,
        employeeId: bob._id,
        startTime: start,
        capacity: 5,
      }),
    );
  });

  it('a session over another session of the instructor, or over their time off, is SLOT_UNAVAILABLE', async () => {
    const { c, ann, yoga } = await studio();
    const start = futureHour(4, 9);
    await post(t.app, '/api/v1/classes', c.auth, {
      serviceId: yoga._id,
      employeeId: ann._id,
      startTime: start,
      capacity: 5,
    });
    expectError(
      await inject('POST', '/api/v1/classes', c.auth, {
        serviceId: yoga._id,
        employeeId: ann._id,
        startTime: at(start, 30),
        capacity: 5,
      }),
      409,
      'SLOT_UNAVAILABLE',
    );
    // Back to back is fine.
    ok(
      await inject('POST', '/api/v1/classes', c.auth, {
        serviceId: yoga._id,
        employeeId: ann._id,
        startTime: at(start, 60),
        capacity: 5,
      }),
    );
    await post(t.app, `/api/v1/employees/${ann._id}/time-off`, c.auth, {
      startTime: at(start, 180),
      endTime: at(start, 240),
    });
    const off = expectError(
      await inject('POST', '/api/v1/classes', c.auth, {
        serviceId: yoga._id,
        employeeId: ann._id,
        startTime: at(start, 210),
        capacity: 5,
      }),
      409,
      'SLOT_UNAVAILABLE',
    );
    expect(off.error.message).toMatch(/off/);
    expect(await db().classSession.count({ where: { companyId: c.company.id } })).toBe(2);
  });

  it('an appointment over a session the employee teaches is SLOT_UNAVAILABLE; cancelling the session frees the time', async () => {
    const { c, ann, service, yoga } = await studio();
    const start = futureHour(5, 10);
    const session = await post(t.app, '/api/v1/classes', c.auth, {
      serviceId: yoga._id,
      employeeId: ann._id,
      startTime: start,
      capacity: 5,
    });
    const book = () =>
      inject('POST', '/api/v1/bookings', c.auth, {
        serviceId: service._id,
        employeeId: ann._id,
        startTime: at(start, -30),
        customer: { name: 'A', email: 'a@example.com' },
      });
    expectError(await book(), 409, 'SLOT_UNAVAILABLE');
    ok(await inject('POST', `/api/v1/classes/${session._id}/cancel`, c.auth));
    expect(await db().employeeBlock.count({ where: { employeeId: ann._id } })).toBe(0);
    ok(await book());
    expect(await db().employeeBlock.count({ where: { employeeId: ann._id } })).toBe(1);
  });

  it('classes may be scheduled outside the instructor’s working hours (the business puts them on the timetable)', async () => {
    const c = await blankCompany(t.dbs, w);
    const e = await post(t.app, '/api/v1/employees', c.auth, { name: 'Nine to five', workingHours: WEEK_9_TO_17 });
    const yoga = await post(t.app, '/api/v1/services', c.auth, {
      name: 'Yoga',
      kind: 'class',
      durationMinutes: 60,
      employeeIds: [e._id],
    });
    ok(
      await inject('POST', '/api/v1/classes', c.auth, {
        serviceId: yoga._id,
        employeeId: e._id,
        startTime: futureHour(6, 4),
        capacity: 5,
      }),
    );
  });

  it('PATCH: moving a session onto the instructor’s appointment, or to an instructor who is busy, is SLOT_UNAVAILABLE and changes nothing', async () => {
    const { c, ann, bob, service, yoga } = await studio();
    const start = futureHour(7, 10);
    await post(t.app, '/api/v1/bookings', c.auth, {
      serviceId: service._id,
      employeeId: ann._id,
      startTime: start,
      customer: { name: 'A', email: 'a@example.com' },
    });
    await post(t.app, '/api/v1/bookings', c.auth, {
      serviceId: service._id,
      employeeId: bob._id,
      startTime: at(start, 240),
      customer: { name: 'B', email: 'b@example.com' },
    });
    const session = await post(t.app, '/api/v1/classes', c.auth, {
      serviceId: yoga._id,
      employeeId: ann._id,
      startTime: at(start, 240),
      capacity: 5,
    });
    await post(t.app, '/api/v1/bookings', c.auth, {
      serviceId: yoga._id,
      classId: session._id,
      customer: { name: 'C', email: 'c@example.com' },
    });
    const before = await db().classSession.findUniqueOrThrow({ where: { id: session._id } });
    const events = await db().event.count({ where: { companyId: c.company.id } });
    expectError(
      await inject('PATCH', `/api/v1/classes/${session._id}`, c.auth, {
        startTime: at(start, 30),
        endTime: at(start, 90),
      }),
      409,
      'SLOT_UNAVAILABLE',
    );
    expectError(
      await inject('PATCH', `/api/v1/classes/${session._id}`, c.auth, { employeeId: bob._id }),
      409,
      'SLOT_UNAVAILABLE',
    );
    expect(await db().classSession.findUniqueOrThrow({ where: { id: session._id } })).toEqual(before);
    expect(await db().event.count({ where: { companyId: c.company.id } })).toBe(events);
  });

  it('PATCH: a new instructor moves the bookings with a booking.rescheduled event each (previousEmployeeId), in the same change', async () => {
    const { c, ann, bob, yoga } = await studio();
    const start = futureHour(8, 10);
    const session = await post(t.app, '/api/v1/classes', c.auth, {
      serviceId: yoga._id,
      employeeId: ann._id,
      startTime: start,
      capacity: 5,
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
    const patched = ok(await inject('PATCH', `/api/v1/classes/${session._id}`, c.auth, { employeeId: bob._id }));
    expect(patched.employeeId).toBe(bob._id);
    for (const b of [b1, b2])
      expect(ok(await inject('GET', `/api/v1/bookings/${b._id}`, c.auth)).employeeId).toBe(bob._id);
    const events = ok(await inject('GET', '/api/v1/events?type=booking.rescheduled', c.auth));
    expect(events.map((e: any) => e.data).sort((x: any, y: any) => x.bookingId.localeCompare(y.bookingId))).toEqual(
      [b1, b2].map((b) => ({
        bookingId: b._id,
        customerId: b.customerId,
        startTime: start,
        endTime: at(start, 60),
        status: 'confirmed',
        serviceId: yoga._id,
        employeeId: bob._id,
        classId: session._id,
        metadata: {},
        answers: [],
        previousStartTime: start,
        previousEndTime: at(start, 60),
        previousEmployeeId: ann._id,
        // Each booking's invitation is re-sent as its next revision (docs/calendars.md).
        calendarSequence: 1,
      })),
    );
    // Ann's time is free again, Bob's is taken.
    expect(
      await db().employeeBlock.findMany({ where: { classSessionId: session._id }, select: { employeeId: true } }),
    ).toEqual([{ employeeId: bob._id }]);
    // Moving it: one more event per booking, without previousEmployeeId.
    ok(
      await inject('PATCH', `/api/v1/classes/${session._id}`, c.auth, {
        startTime: at(start, 60),
        endTime: at(start, 120),
      }),
    );
    const moved = ok(await inject('GET', '/api/v1/events?type=booking.rescheduled&limit=2', c.auth));
    expect(moved.map((e: any) => e.data.previousEmployeeId)).toEqual([undefined, undefined]);
    expect(moved.map((e: any) => e.data.startTime)).toEqual([at(start, 60), at(start, 60)]);
    expect(moved.map((e: any) => e.data.previousStartTime)).toEqual([start, start]);
    expect(moved.map((e: any) => e.data.calendarSequence)).toEqual([2, 2]);
  });

  it('PATCH: a session cannot be moved into the past', async () => {
    const { c, ann, yoga } = await studio();
    const session = await post(t.app, '/api/v1/classes', c.auth, {
      serviceId: yoga._id,
      employeeId: ann._id,
      startTime: futureHour(9, 10),
      capacity: 5,
    });
    const past = new Date(Date.now() - 2 * 3600_000);
    past.setUTCMinutes(0, 0, 0);
    const res = await inject('PATCH', `/api/v1/classes/${session._id}`, c.auth, {
      startTime: past.toISOString(),
      endTime: at(past.toISOString(), 60),
    });
    const body = expectError(res, 400, 'VALIDATION_ERROR');
    expect(body.error.details[0].path).toBe('startTime');
    expect((await db().classSession.findUniqueOrThrow({ where: { id: session._id } })).startTime.toISOString()).toBe(
      futureHour(9, 10),
    );
  });
});

describe('POST /bookings/:id/confirm after the hold has ended', () => {
  it('expires the booking (booking.expired, the slot given back) and answers INVALID_STATE_TRANSITION from expired', async () => {
    const c = await blankCompany(t.dbs, w);
    const { employee } = await salon(t.app, c.auth);
    const paid = await post(t.app, '/api/v1/services', c.auth, {
      name: 'Colour',
      durationMinutes: 60,
      price: 9000,
      requiresPayment: true,
      employeeIds: [employee._id],
    });
    const startTime = futureHour(3, 14);
    const b = await post(t.app, '/api/v1/bookings', c.auth, {
      serviceId: paid._id,
      startTime,
      customer: { name: 'A', email: 'a@example.com' },
    });
    expect(b.status).toBe('pending');
    // The hold ran out a second ago; the workers' sweep has not run.
    await db().booking.update({ where: { id: b._id }, data: { holdExpiresAt: new Date(Date.now() - 1000) } });
    const body = expectError(
      await inject('POST', `/api/v1/bookings/${b._id}/confirm`, c.auth),
      409,
      'INVALID_STATE_TRANSITION',
    );
    expect(body.error.details).toEqual({ from: 'expired', to: 'confirmed' });
    expect(ok(await inject('GET', `/api/v1/bookings/${b._id}`, c.auth)).status).toBe('expired');
    const [last] = ok(await inject('GET', '/api/v1/events?limit=1', c.auth));
    expect(last).toMatchObject({ type: 'booking.expired', data: { bookingId: b._id, status: 'expired' } });
    expect(await db().event.count({ where: { companyId: c.company.id, type: 'booking.confirmed' } })).toBe(0);
    ok(
      await inject('POST', '/api/v1/bookings', c.auth, {
        serviceId: paid._id,
        startTime,
        customer: { name: 'B', email: 'b@example.com' },
      }),
    );
  });

  it('still confirms a pending booking within its hold', async () => {
    const c = await blankCompany(t.dbs, w);
    const { employee } = await salon(t.app, c.auth);
    const paid = await post(t.app, '/api/v1/services', c.auth, {
      name: 'Colour',
      durationMinutes: 60,
      price: 9000,
      requiresPayment: true,
      employeeIds: [employee._id],
    });
    const b = await post(t.app, '/api/v1/bookings', c.auth, {
      serviceId: paid._id,
      startTime: futureHour(3, 15),
      customer: { name: 'A', email: 'a@example.com' },
    });
    expect(ok(await inject('POST', `/api/v1/bookings/${b._id}/confirm`, c.auth)).status).toBe('confirmed');
  });
});

describe('the slot grid', () => {
  // Staff working round the clock have one working interval longer than a day; the grid must
  // still follow the local quarter hours, not the instant `from` names (or the clock).
  for (const zone of ['Europe/Berlin', 'America/St_Johns', 'Asia/Kathmandu']) {
    it(`round-the-clock staff in ${zone}: every slot starts on a local quarter hour, from any from`, async () => {
      const c = await blankCompany(t.dbs, w, { timezone: zone });
      const { service } = await salon(t.app, c.auth);
      const from = new Date(Date.parse(futureHour(3, 10)) + 7 * 60_000 + 23_456).toISOString();
      const to = at(futureHour(3, 10), 24 * 60);
      const { slots } = ok(
        await inject('GET', `/api/v1/availability?serviceId=${service._id}&from=${from}&to=${to}`, c.auth),
      );
      expect(slots.length).toBeGreaterThan(80);
      for (const s of slots) {
        const local = DateTime.fromISO(s.startTime, { zone });
        expect([local.minute % 15, local.second, local.millisecond]).toEqual([0, 0, 0]);
      }
      // The first slot is the first quarter hour at or after from.
      expect(slots[0].startTime).toBe(at(futureHour(3, 10), 15));
    });
  }

  it('from in the past starts at the next quarter hour after now, never in the past', async () => {
    const c = await blankCompany(t.dbs, w, { timezone: 'Europe/Berlin' });
    const { service } = await salon(t.app, c.auth);
    const from = new Date(Date.now() - 3600_000).toISOString();
    const to = new Date(Date.now() + 6 * 3600_000).toISOString();
    const { slots } = ok(
      await inject('GET', `/api/v1/availability?serviceId=${service._id}&from=${from}&to=${to}`, c.auth),
    );
    const now = Date.now();
    expect(Date.parse(slots[0].startTime)).toBeGreaterThan(now - 5_000);
    expect(Date.parse(slots[0].startTime) - now).toBeLessThanOrEqual(15 * 60_000);
    for (const s of slots) expect(Date.parse(s.startTime) % (15 * 60_000)).toBe(0);
  });

  it('a night shift across midnight offers slots that run on past midnight', async () => {
    const c = await blankCompany(t.dbs, w, { timezone: 'UTC' });
    const nights = Object.fromEntries(
      Object.keys(ALL_DAY).map((d) => [
        d,
        [
          { start: '00:00', end: '02:00' },
          { start: '22:00', end: '24:00' },
        ],
      ]),
    );
    const e = await post(t.app, '/api/v1/employees', c.auth, { name: 'Night', workingHours: nights });
    const s = await post(t.app, '/api/v1/services', c.auth, {
      name: 'Late',
      durationMinutes: 60,
      employeeIds: [e._id],
    });
    const day = futureHour(3, 0);
    const { slots } = ok(
      await inject(
        'GET',
        `/api/v1/availability?serviceId=${s._id}&from=${at(day, 21 * 60)}&to=${at(day, 26 * 60)}`,
        c.auth,
      ),
    );
    const starts = slots.map((x: any) => x.startTime);
    expect(starts[0]).toBe(at(day, 22 * 60));
    expect(starts).toContain(at(day, 23 * 60 + 45)); // runs on to 00:45
    expect(starts.at(-1)).toBe(at(day, 25 * 60)); // 01:00-02:00
    expect(starts).toHaveLength(13);
  });
});

describe('impossible dates', () => {
  it('GraphQL refuses 31 February and 24:00 as VALIDATION_ERROR (literal and variable), REST likewise', async () => {
    const c = await blankCompany(t.dbs, w);
    for (const bad of [
      '2027-02-31T10:00:00Z',
      '2027-04-31T00:00:00.000Z',
      '2027-02-28T24:00:00Z',
      '2026-02-29T10:00:00Z',
    ]) {
      // A literal fails document validation, a variable fails coercion: both with the scalar's code.
      const literal = await inject('POST', '/graphql', c.auth, {
        query: `{ bookings(from: "${bad}") { data { _id } } }`,
      });
      expect(literal.json().errors?.[0]?.extensions?.code, bad).toBe('VALIDATION_ERROR');
      expect(literal.json().errors[0].message).toMatch(/not a real date and time/);
      expect(literal.json().data ?? null).toBeNull();
      const variable = await inject('POST', '/graphql', c.auth, {
        query: 'query($from: DateTime) { bookings(from: $from) { data { _id } } }',
        variables: { from: bad },
      });
      expect(variable.json().errors?.[0]?.extensions?.code, bad).toBe('VALIDATION_ERROR');
      expectError(await inject('GET', `/api/v1/bookings?from=${bad}`, c.auth), 400, 'VALIDATION_ERROR');
    }
    // Real dates pass: a leap day, and the last millisecond of a day.
    for (const good of ['2028-02-29T10:00:00Z', '2027-12-31T23:59:59.999Z']) {
      const res = await inject('POST', '/graphql', c.auth, { query: `{ bookings(from: "${good}") { data { _id } } }` });
      expect(res.json().errors, good).toBeUndefined();
    }
  });
});

describe('deleting customers', () => {
  it('one with bookings is CONFLICT and the database refuses it too (no cascade); one without is deleted', async () => {
    const c = await blankCompany(t.dbs, w);
    const { service } = await salon(t.app, c.auth);
    const ann = await post(t.app, '/api/v1/customers', c.auth, { name: 'Ann', email: 'ann@example.com' });
    const bo = await post(t.app, '/api/v1/customers', c.auth, { name: 'Bo', email: 'bo@example.com' });
    const booking = await post(t.app, '/api/v1/bookings', c.auth, {
      serviceId: service._id,
      startTime: futureHour(3),
      customerId: ann._id,
    });
    const body = expectError(await inject('DELETE', `/api/v1/customers/${ann._id}`, c.auth), 409, 'CONFLICT');
    expect(body.error.details).toEqual({ bookings: 1 });
    // Below the use case: the foreign key itself refuses (it used to cascade to the bookings).
    const refused = await db()
      .customer.delete({ where: { id: ann._id } })
      .catch((e: unknown) => e);
    expect(isForeignKeyViolation(refused)).toBe(true);
    expect(toAppError(refused)).toMatchObject({ code: 'CONFLICT', status: 409 });
    expect(await db().booking.count({ where: { id: booking._id } })).toBe(1);
    expect(ok(await inject('DELETE', `/api/v1/customers/${bo._id}`, c.auth))).toMatchObject({ _id: bo._id });
    expectError(await inject('GET', `/api/v1/customers/${bo._id}`, c.auth), 404, 'NOT_FOUND');
  });

  it('the one error table: P2003 is 409 CONFLICT, P2028 is 503 with Retry-After', () => {
    const fk = toAppError(Object.assign(new Error('Foreign key constraint violated'), { code: 'P2003' }));
    expect([fk.code, fk.status]).toEqual(['CONFLICT', 409]);
    // PGlite's adapter reports an ON DELETE RESTRICT refusal by its SQLSTATE only.
    const restrict = toAppError(
      Object.assign(new Error('violates RESTRICT setting'), {
        code: 'P2039',
        meta: { driverAdapterError: { cause: { originalCode: '23001' } } },
      }),
    );
    expect([restrict.code, restrict.status]).toEqual(['CONFLICT', 409]);
    const busy = toAppError(
      Object.assign(new Error('Transaction API error: Unable to start a transaction in the given time.'), {
        code: 'P2028',
      }),
    );
    expect([busy.code, busy.status]).toEqual(['SERVICE_UNAVAILABLE', 503]);
    expect(busy.headers?.['retry-after']).toMatch(/^\d+$/);
    expect(busy).toBeInstanceOf(AppError);
  });
});
