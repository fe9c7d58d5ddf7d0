// Cut-offs (docs/api.md, Booking rules): company defaults on PATCH /me { bookingRules }, service
// overrides where null inherits, and a customer's cancel or reschedule refused with 409
// CUTOFF_PASSED and details.deadline one minute past the cut-off, accepted exactly at it; a
// business is not bound.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../../src/generated/prisma/client.js';
import { AppError } from '../../../src/errors.js';
import { cancelBooking, quoteCancellation, rescheduleBooking } from '../../../src/schema/bookings/index.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { createAccountWithKeys } from '../../helpers/factories.js';
import { blankCompany, expectError, futureHour, ok, post, salon } from '../../helpers/domain.js';

let t: TestApp;
let co: Awaited<ReturnType<typeof blankCompany>>;
let company: Company;
let hour = 0;

beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_PER_SECOND: '1000000' } });
  const w = await createAccountWithKeys(t.dbs);
  co = await blankCompany(t.dbs, w, { timezone: 'UTC' });
});
afterAll(async () => {
  await t?.close();
});

const MIN = 60_000;
/** The rules beside the cut-offs, at their defaults (a company) or inherited (a service). */
const OTHER_DEFAULTS = {
  minNoticeMinutes: 0,
  maxAdvanceDays: 365,
  slotIntervalMinutes: null,
  dailyLimitPerEmployee: null,
};
const OTHER_INHERITED = {
  minNoticeMinutes: null,
  maxAdvanceDays: null,
  slotIntervalMinutes: null,
  dailyLimitPerEmployee: null,
};
const db = () => t.dbs.test.prisma;
const patch = (url: string, payload: object) => t.app.inject({ method: 'PATCH', url, headers: co.auth, payload });

async function booked(service: Record<string, unknown> = {}) {
  const { service: svc, employee } = await salon(t.app, co.auth, service);
  const booking = await post(t.app, '/api/v1/bookings', co.auth, {
    serviceId: svc._id,
    employeeId: employee._id,
    startTime: futureHour(4, hour++ % 20),
    customer: { name: 'Dana', email: `dana${hour}@example.com` },
  });
  return { service: svc, booking, start: new Date(booking.startTime as string) };
}

/** The thrown AppError's code and details, or 'ok'. */
async function outcome(p: Promise<unknown>) {
  try {
    await p;
    return 'ok';
  } catch (err) {
    if (err instanceof AppError) return { code: err.code, status: err.status, details: err.details };
    throw err;
  }
}

describe('booking rules on the company and its services', () => {
  it('PATCH /me { bookingRules } sets company defaults (0 unless set); other rules stay; null resets', async () => {
    expect(ok(await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: co.auth })).bookingRules).toEqual({
      ...OTHER_DEFAULTS,
      cancellationCutoffMinutes: 0,
      rescheduleCutoffMinutes: 0,
    });
    ok(await patch('/api/v1/me', { bookingRules: { cancellationCutoffMinutes: 120 } }));
    const me = ok(await patch('/api/v1/me', { bookingRules: { rescheduleCutoffMinutes: 30 } }));
    expect(me.bookingRules).toEqual({ ...OTHER_DEFAULTS, cancellationCutoffMinutes: 120, rescheduleCutoffMinutes: 30 });
    const reset = ok(await patch('/api/v1/me', { bookingRules: { rescheduleCutoffMinutes: null } }));
    expect(reset.bookingRules).toEqual({
      ...OTHER_DEFAULTS,
      cancellationCutoffMinutes: 120,
      rescheduleCutoffMinutes: 0,
    });
    for (const bad of [{ cancellationCutoffMinutes: -1 }, { cancellationCutoffMinutes: 525_601 }, { cutoff: 5 }]) {
      const body = expectError(await patch('/api/v1/me', { bookingRules: bad }), 400, 'VALIDATION_ERROR');
      expect(JSON.stringify(body.error.details)).toContain('bookingRules');
    }
    company = await db().company.findUniqueOrThrow({ where: { id: co.company.id } });
    expect(company.bookingRules).toEqual({ cancellationCutoffMinutes: 120 });
  });

  it('a service overrides a rule, null fields inherit', async () => {
    const { service } = await booked({ bookingRules: { rescheduleCutoffMinutes: 60 } });
    expect(service.bookingRules).toEqual({
      ...OTHER_INHERITED,
      cancellationCutoffMinutes: null,
      rescheduleCutoffMinutes: 60,
    });
    const changed = ok(
      await patch(`/api/v1/services/${service._id}`, { bookingRules: { cancellationCutoffMinutes: 10 } }),
    );
    expect(changed.bookingRules).toEqual({
      ...OTHER_INHERITED,
      cancellationCutoffMinutes: 10,
      rescheduleCutoffMinutes: 60,
    });
    const inherits = ok(
      await patch(`/api/v1/services/${service._id}`, { bookingRules: { cancellationCutoffMinutes: null } }),
    );
    expect(inherits.bookingRules).toEqual({
      ...OTHER_INHERITED,
      cancellationCutoffMinutes: null,
      rescheduleCutoffMinutes: 60,
    });
  });
});

describe('the cancellation cut-off (the company: 120 minutes)', () => {
  const cancel = (bookingId: string, input: object, now: Date) =>
    cancelBooking(db(), { company, mode: 'test', config: t.config, bookingId, input, now });

  it('a customer may cancel exactly at the cut-off; one minute later it is 409 CUTOFF_PASSED with the deadline', async () => {
    const a = await booked();
    const b = await booked();
    const at = (start: Date, minutes: number) => new Date(start.getTime() - minutes * MIN);
    expect(await outcome(cancel(a.booking._id, { cancelledBy: 'customer' }, at(a.start, 120)))).toBe('ok');
    const late = at(b.start, 119);
    expect(
      await quoteCancellation(db(), {
        company,
        bookingId: b.booking._id,
        input: { cancelledBy: 'customer' },
        now: late,
      }),
    ).toMatchObject({
      allowed: false,
      deadline: at(b.start, 120),
    });
    expect(await outcome(cancel(b.booking._id, { cancelledBy: 'customer' }, late))).toEqual({
      code: 'CUTOFF_PASSED',
      status: 409,
      details: { deadline: at(b.start, 120).toISOString() },
    });
    expect(await db().booking.findUniqueOrThrow({ where: { id: b.booking._id } })).toMatchObject({
      status: 'confirmed',
    });
    // The business is not bound by it.
    expect(await outcome(cancel(b.booking._id, {}, late))).toBe('ok');
  });

  it('over REST a customer cancel past the cut-off is 409 CUTOFF_PASSED', async () => {
    // A service whose cut-off reaches past now: a booking four days ahead is already inside it.
    const { booking } = await booked({ bookingRules: { cancellationCutoffMinutes: 525_600 } });
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/bookings/${booking._id}/cancel`,
      headers: co.auth,
      payload: { cancelledBy: 'customer' },
    });
    const body = expectError(res, 409, 'CUTOFF_PASSED');
    expect(body.error.details).toEqual({
      deadline: new Date(Date.parse(booking.startTime) - 525_600 * MIN).toISOString(),
    });
  });
});

describe('the reschedule cut-off (the service: 60 minutes)', () => {
  const reschedule = (bookingId: string, startTime: Date, rescheduledBy: string | undefined, now: Date) =>
    rescheduleBooking(db(), {
      company,
      bookingId,
      input: { startTime: startTime.toISOString(), ...(rescheduledBy ? { rescheduledBy } : {}) },
      now,
    });

  it('a customer may reschedule exactly at the cut-off; one minute later 409 CUTOFF_PASSED; a business may', async () => {
    const { booking, start } = await booked({ bookingRules: { rescheduleCutoffMinutes: 60 } });
    const later = new Date(start.getTime() + 24 * 60 * MIN);
    const at = new Date(start.getTime() - 60 * MIN);
    const past = new Date(start.getTime() - 59 * MIN);
    expect(await outcome(reschedule(booking._id, later, 'customer', past))).toEqual({
      code: 'CUTOFF_PASSED',
      status: 409,
      details: { deadline: at.toISOString() },
    });
    expect(await outcome(reschedule(booking._id, later, 'customer', at))).toBe('ok');
    const events = await db().event.findMany({ where: { companyId: company.id, type: 'booking.rescheduled' } });
    expect(events.map((e) => (e.data as { rescheduledBy: string }).rescheduledBy)).toEqual(['customer']);
    // From the new start, the business moves it back one minute past the customer's cut-off.
    const pastAgain = new Date(later.getTime() - 59 * MIN);
    expect(await outcome(reschedule(booking._id, new Date(later.getTime() + 60 * MIN), undefined, pastAgain))).toBe(
      'ok',
    );
  });

  it('over REST rescheduledBy is business or customer, anything else a 400 naming it', async () => {
    const { booking } = await booked();
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/bookings/${booking._id}/reschedule`,
      headers: co.auth,
      payload: { startTime: futureHour(6, 10), rescheduledBy: 'robot' },
    });
    expect(JSON.stringify(expectError(res, 400, 'VALIDATION_ERROR').error.details)).toContain('rescheduledBy');
    const moved = await post(t.app, `/api/v1/bookings/${booking._id}/reschedule`, co.auth, {
      startTime: futureHour(6, 10),
      rescheduledBy: 'customer',
    });
    expect(moved.startTime).toBe(futureHour(6, 10));
  });
});
