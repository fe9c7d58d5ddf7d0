// Every (from, to) pair of the booking state machine (docs/api.md): the allowed ones work and
// emit their event, every other one is 409 INVALID_STATE_TRANSITION with details { from, to }
// and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountWithKeys } from '../../helpers/factories.js';
import type { TestApp } from '../../helpers/app.js';
import {
  blankCompany,
  createDomainApp,
  expectError,
  futureHour,
  ok,
  post,
  salon,
  type World,
} from '../../helpers/domain.js';
import { expirePendingBookings } from '../../../src/schema/bookings/expire-pending-bookings.js';
import { transitionBooking } from '../../../src/schema/bookings/transition-booking.js';

let t: TestApp;
let w: World;
let c: Awaited<ReturnType<typeof blankCompany>>;
let paid: any;
let free: any;
let slot = 0;

beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
  c = await blankCompany(t.dbs, w);
  // Bookings here reach 400 days ahead: past the default maximum advance (365 days).
  ok(
    await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/me',
      headers: c.auth,
      payload: { bookingRules: { maxAdvanceDays: 730 } },
    }),
  );
  const s = await salon(t.app, c.auth, {}, 1);
  free = s.service;
  paid = await post(t.app, '/api/v1/services', c.auth, {
    name: 'Colour',
    durationMinutes: 60,
    price: 9000,
    requiresPayment: true,
    employeeIds: [s.employee._id],
  });
});
afterAll(async () => t?.close());

type State = 'pending' | 'confirmed' | 'cancelled' | 'completed' | 'no_show' | 'expired';
const STATES: State[] = ['pending', 'confirmed', 'cancelled', 'completed', 'no_show', 'expired'];

const db = () => t.dbs.test.prisma;

/** Moves a booking's times into the past (a fixture: the API never books the past). */
async function moveToPast(id: string) {
  slot++;
  const start = new Date(Date.now() - slot * 86_400_000 - 3600_000);
  const end = new Date(start.getTime() + 3600_000);
  await db().booking.update({
    where: { id },
    data: { startTime: start, endTime: end, blockStart: start, blockEnd: end },
  });
}

async function bookingIn(state: State) {
  slot++;
  const service = state === 'pending' || state === 'expired' ? paid : free;
  const b = await post(t.app, '/api/v1/bookings', c.auth, {
    serviceId: service._id,
    startTime: futureHour(2 + slot),
    customer: { name: 'Ann', email: 'ann@example.com' },
  });
  if (state === 'cancelled')
    ok(await t.app.inject({ method: 'POST', url: `/api/v1/bookings/${b._id}/cancel`, headers: c.auth }));
  if (state === 'confirmed' || state === 'completed' || state === 'no_show') await moveToPast(b._id);
  if (state === 'completed')
    ok(await t.app.inject({ method: 'POST', url: `/api/v1/bookings/${b._id}/complete`, headers: c.auth }));
  if (state === 'no_show')
    ok(await t.app.inject({ method: 'POST', url: `/api/v1/bookings/${b._id}/no-show`, headers: c.auth }));
  if (state === 'expired') {
    await db().booking.update({ where: { id: b._id }, data: { holdExpiresAt: new Date(Date.now() - 1000) } });
    const { expired } = await expirePendingBookings(db());
    expect(expired).toContain(b._id);
  }
  const row = await db().booking.findUniqueOrThrow({ where: { id: b._id } });
  expect(row.status).toBe(state);
  return row;
}

type Action = 'confirm' | 'cancel' | 'reschedule' | 'complete' | 'no-show' | 'expire';
const TARGET: Record<Action, State> = {
  confirm: 'confirmed',
  cancel: 'cancelled',
  reschedule: 'confirmed',
  complete: 'completed',
  'no-show': 'no_show',
  expire: 'expired',
};
const EVENT: Record<Action, string> = {
  confirm: 'booking.confirmed',
  cancel: 'booking.cancelled',
  reschedule: 'booking.rescheduled',
  complete: 'booking.completed',
  'no-show': 'booking.no_show',
  expire: 'booking.expired',
};
const ALLOWED = new Set([
  'pending:confirm',
  'pending:cancel',
  'pending:expire',
  'confirmed:cancel',
  'confirmed:reschedule',
  'confirmed:complete',
  'confirmed:no-show',
]);

async function act(action: Action, id: string) {
  if (action === 'expire') {
    try {
      const b = await transitionBooking(db(), { companyId: c.company.id, bookingId: id, action: 'expire' });
      return { statusCode: 200, body: { status: true, data: { status: b.status } } };
    } catch (e: any) {
      return { statusCode: e.status, body: { status: false, error: { code: e.code, details: e.details } } };
    }
  }
  const payload =
    action === 'reschedule'
      ? { startTime: futureHour(200 + slot++) }
      : action === 'cancel'
        ? { reason: 'customer asked' }
        : undefined;
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/v1/bookings/${id}/${action}`,
    headers: c.auth,
    ...(payload ? { payload } : {}),
  });
  return { statusCode: res.statusCode, body: res.json() };
}

describe('booking state machine', () => {
  for (const from of STATES) {
    for (const action of Object.keys(TARGET) as Action[]) {
      const allowed = ALLOWED.has(`${from}:${action}`);
      it(`${from} --${action}--> ${allowed ? TARGET[action] : 'INVALID_STATE_TRANSITION'}`, async () => {
        const before = await bookingIn(from);
        const eventsBefore = await db().event.count({ where: { companyId: c.company.id } });
        const res = await act(action, before.id);
        const after = await db().booking.findUniqueOrThrow({ where: { id: before.id } });
        if (allowed) {
          expect(res.statusCode).toBe(200);
          expect(res.body.data.status).toBe(TARGET[action]);
          expect(after.status).toBe(TARGET[action]);
          const event = await db().event.findFirstOrThrow({
            where: { companyId: c.company.id },
            orderBy: { id: 'desc' },
          });
          expect(event.type).toBe(EVENT[action]);
          expect(event.data).toMatchObject({
            bookingId: before.id,
            customerId: before.customerId,
            serviceId: before.serviceId,
            employeeId: after.employeeId,
            status: TARGET[action],
            startTime: after.startTime.toISOString(),
            endTime: after.endTime.toISOString(),
          });
          if (action === 'cancel') expect(event.data).toMatchObject({ reason: 'customer asked' });
          if (action === 'reschedule')
            expect(event.data).toMatchObject({
              previousStartTime: before.startTime.toISOString(),
              previousEndTime: before.endTime.toISOString(),
            });
          if (TARGET[action] !== 'pending') expect(after.holdExpiresAt).toBeNull();
        } else {
          expect(res.statusCode).toBe(409);
          expect(res.body.error.code).toBe('INVALID_STATE_TRANSITION');
          expect(res.body.error.details).toEqual({ from, to: TARGET[action] });
          expect(after).toEqual(before);
          expect(await db().event.count({ where: { companyId: c.company.id } })).toBe(eventsBefore);
        }
      });
    }
  }

  it('complete and no-show before startTime are INVALID_STATE_TRANSITION', async () => {
    const b = await post(t.app, '/api/v1/bookings', c.auth, {
      serviceId: free._id,
      startTime: futureHour(400),
      customer: { name: 'Ann', email: 'ann@example.com' },
    });
    for (const [action, to] of [
      ['complete', 'completed'],
      ['no-show', 'no_show'],
    ] as const) {
      const res = await t.app.inject({ method: 'POST', url: `/api/v1/bookings/${b._id}/${action}`, headers: c.auth });
      const body = expectError(res, 409, 'INVALID_STATE_TRANSITION');
      expect(body.error.details).toEqual({ from: 'confirmed', to });
    }
    expect((await db().booking.findUniqueOrThrow({ where: { id: b._id } })).status).toBe('confirmed');
  });

  it('a pending booking holds its slot for 15 minutes, then expiry frees it', async () => {
    const startTime = futureHour(401);
    const b = await post(t.app, '/api/v1/bookings', c.auth, {
      serviceId: paid._id,
      startTime,
      customer: { name: 'Ann', email: 'ann@example.com' },
    });
    expect(b.status).toBe('pending');
    const hold = Date.parse(b.holdExpiresAt) - Date.parse(b.createdAt);
    expect(hold).toBeGreaterThan(14.9 * 60_000);
    expect(hold).toBeLessThan(15.1 * 60_000);
    const taken = await t.app.inject({
      method: 'POST',
      url: '/api/v1/bookings',
      headers: c.auth,
      payload: { serviceId: free._id, startTime, customer: { name: 'Bo', email: 'bo@example.com' } },
    });
    expectError(taken, 409, 'SLOT_UNAVAILABLE');
    // Not yet due: nothing expires.
    expect((await expirePendingBookings(db())).expired).not.toContain(b._id);
    const { expired } = await expirePendingBookings(db(), { now: new Date(Date.parse(b.holdExpiresAt) + 1) });
    expect(expired).toContain(b._id);
    ok(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/bookings',
        headers: c.auth,
        payload: { serviceId: free._id, startTime, customer: { name: 'Bo', email: 'bo@example.com' } },
      }),
    );
  });
});
