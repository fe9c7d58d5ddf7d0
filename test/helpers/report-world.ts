// A company in Europe/Berlin with bookings around next year's spring-forward night (the last
// Sunday of March: 02:00 CET → 03:00 CEST, 01:00Z), for the reports tests (GraphQL bookingStats
// and GET /reports/bookings). Made through the use cases and routes the API uses; only the
// payments' settlement (a worker's job) is written as its row. The expected figures are worked
// out by hand in the comments, from the zone's known offsets, not by the code under test.
import type { TestApp } from './app.js';
import { newId } from '../../src/ids.js';
import { createBooking } from '../../src/schema/bookings/create-booking.js';
import { transitionBooking } from '../../src/schema/bookings/transition-booking.js';
import { ALL_DAY, blankCompany, ok, post, WEEK_9_TO_17, type World } from './domain.js';
import { bearer, scopedToken, unique } from './factories.js';

export const YEAR = new Date().getUTCFullYear() + 1;
const lastSunday = (month: number) => {
  for (let d = 31; ; d--) {
    const dt = new Date(Date.UTC(YEAR, month - 1, d));
    if (dt.getUTCMonth() === month - 1 && dt.getUTCDay() === 0) return d;
  }
};
/** The spring-forward Sunday (23 hours long in Berlin) and the fall-back one (25 hours). */
export const SPRING = lastSunday(3);
export const FALL = lastSunday(10);
export const utc = (month: number, day: number, hour: number, minute = 0) =>
  new Date(Date.UTC(YEAR, month - 1, day, hour, minute));
const date = (month: number, day: number) =>
  `${YEAR}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
export const SATURDAY = date(3, SPRING - 1);
export const SUNDAY = date(3, SPRING);

/**
 * The window: Saturday 00:00 CET (Friday 23:00Z) to Monday 00:00 CEST (Sunday 22:00Z), two
 * local days. Bookings (60 minutes, 45.00 EUR):
 *   b1 Sunday 00:30 CET   = Saturday 23:30Z (a UTC Saturday, a local Sunday)  completed, paid
 *   b2 Saturday 23:30 CET = Saturday 22:30Z                                    no_show, payment failed
 *   b3 Sunday 03:30 CEST  = Sunday 01:30Z (just after the missing hour)        confirmed, paid then refunded
 *   b4 Sunday 10:00 CEST  = Sunday 08:00Z                                      cancelled
 * Alex works all day every day, with time off on Saturday 12:00–14:00 (120 minutes); Kim works
 * 09:00–17:00 Monday to Friday, so not in this window. Both perform the service.
 */
export const WINDOW = { from: utc(3, SPRING - 2, 23).toISOString(), to: utc(3, SPRING, 22).toISOString() };

export async function reportWorld(t: TestApp, w: World) {
  const { company, auth } = await blankCompany(t.dbs, w, { timezone: 'Europe/Berlin', currency: 'EUR' });
  const db = t.dbs.test.prisma;
  const alex = await post(t.app, '/api/v1/employees', auth, { name: 'Alex', workingHours: ALL_DAY });
  const kim = await post(t.app, '/api/v1/employees', auth, { name: 'Kim', workingHours: WEEK_9_TO_17 });
  await post(t.app, `/api/v1/employees/${alex._id}/time-off`, auth, {
    startTime: utc(3, SPRING - 1, 11).toISOString(), // 12:00 CET
    endTime: utc(3, SPRING - 1, 13).toISOString(), // 14:00 CET
  });
  const service = await post(t.app, '/api/v1/services', auth, {
    name: 'Cut',
    durationMinutes: 60,
    price: 4500,
    employeeIds: [alex._id, kim._id],
    // Next year's autumn can be more than the default 365 days ahead.
    bookingRules: { maxAdvanceDays: 730 },
  });
  const book = (start: Date) =>
    createBooking(db, {
      company,
      input: {
        serviceId: service._id,
        employeeId: alex._id,
        startTime: start.toISOString(),
        customer: { name: 'Dana', email: `dana-${unique()}@example.com` },
      },
    });
  const b1 = await book(utc(3, SPRING - 1, 23, 30));
  const b2 = await book(utc(3, SPRING - 1, 22, 30));
  const b3 = await book(utc(3, SPRING, 1, 30));
  const b4 = await book(utc(3, SPRING, 8));
  // Completing and marking a no-show need the booking to have started: the use case's clock.
  const after = new Date(utc(3, SPRING, 12).getTime());
  const transition = (bookingId: string, action: 'complete' | 'no_show' | 'cancel') =>
    transitionBooking(db, { companyId: company.id, bookingId, action, now: after });
  await transition(b1.id, 'complete');
  await transition(b2.id, 'no_show');
  await transition(b4.id, 'cancel');
  const payment = (bookingId: string, status: 'succeeded' | 'failed') =>
    db.payment.create({
      data: { id: newId(), companyId: company.id, bookingId, amount: 4500, currency: 'EUR', status },
    });
  await payment(b1.id, 'succeeded');
  await payment(b2.id, 'failed');
  const refunded = await payment(b3.id, 'succeeded');
  ok(await t.app.inject({ method: 'POST', url: `/api/v1/payments/${refunded.id}/refund`, headers: auth }));

  const token = async (scope: string) =>
    bearer(await scopedToken(t.dbs, { accountId: w.account.id, companyId: company.id, mode: 'test', scope }));
  return { company, auth, alex, kim, service, bookings: { b1, b2, b3, b4 }, token };
}

const counts = (c: Partial<Record<string, number>>) => ({
  total: 0,
  pending: 0,
  confirmed: 0,
  cancelled: 0,
  completed: 0,
  noShow: 0,
  expired: 0,
  waitlisted: 0,
  offered: 0,
  ...c,
});

/** Worked out by hand from the bookings above. */
export const EXPECTED = {
  // Saturday: b2 (no-show, its payment failed). Alex's 24 h less 2 h off = 1320 minutes.
  saturday: {
    key: SATURDAY,
    name: null,
    counts: counts({ total: 1, noShow: 1 }),
    noShowRate: 1,
    revenue: [],
    bookedMinutes: 60,
    availableMinutes: 1320,
    utilisation: 0.0455, // 60 / 1320 = 0.04545…
  },
  // Sunday, 23 hours long: b1, b3, b4. b1 and b3 hold 60 minutes each; b4 is cancelled.
  sunday: {
    key: SUNDAY,
    name: null,
    counts: counts({ total: 3, completed: 1, confirmed: 1, cancelled: 1 }),
    noShowRate: 0,
    revenue: [{ currency: 'EUR', collected: 9000, refunded: 4500, net: 4500 }],
    bookedMinutes: 120,
    availableMinutes: 1380,
    utilisation: 0.087, // 120 / 1380 = 0.08695…
  },
  totals: {
    key: 'total',
    name: null,
    counts: counts({ total: 4, completed: 1, confirmed: 1, cancelled: 1, noShow: 1 }),
    noShowRate: 0.5,
    revenue: [{ currency: 'EUR', collected: 9000, refunded: 4500, net: 4500 }],
    bookedMinutes: 180,
    availableMinutes: 2700,
    utilisation: 0.0667, // 180 / 2700
  },
};
