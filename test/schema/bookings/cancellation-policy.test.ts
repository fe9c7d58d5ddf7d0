// Cancellation policy and deposits (docs/api.md, Cancellation and deposits): the fee at the
// free-until boundary and one minute inside it, with a full payment and with a deposit; the
// quote equals what the cancel then does; customer against business cancels; waiveFee; the
// booking.cancelled and payment.refunded payloads; and hostile policy and deposit input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../../src/generated/prisma/client.js';
import { cancelBooking, quoteCancellation } from '../../../src/schema/bookings/index.js';
import { startWorkers, type Workers } from '../../../src/workers/runtime.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { createAccountWithKeys } from '../../helpers/factories.js';
import { blankCompany, expectError, futureHour, ok, post, salon } from '../../helpers/domain.js';
import { FAST_WORKERS, waitFor } from '../../helpers/receiver.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let workers: Workers;
let co: Awaited<ReturnType<typeof blankCompany>>;
let company: Company;
let hour = 0;

beforeAll(async () => {
  t = await createTestApp({ env: { ...FAST_WORKERS, RATE_LIMIT_PER_SECOND: '1000000' } });
  w = await createAccountWithKeys(t.dbs);
  workers = await startWorkers(t.services);
  co = await blankCompany(t.dbs, w, { timezone: 'UTC' });
  company = await t.dbs.test.prisma.company.findUniqueOrThrow({ where: { id: co.company.id } });
});
afterAll(async () => {
  await workers?.stop();
  await t?.close();
});

const MIN = 60_000;
const card = { number: '4242424242424242', expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvc: '123' };

/** A service of its own with the given money fields, and a booking of it three days ahead. */
async function booked(service: Record<string, unknown>) {
  const { service: svc, employee } = await salon(t.app, co.auth, { requiresPayment: true, ...service });
  const booking = await post(t.app, '/api/v1/bookings', co.auth, {
    serviceId: svc._id,
    employeeId: employee._id,
    startTime: futureHour(3, hour++ % 24),
    customer: { name: 'Dana', email: `dana${hour}@example.com` },
  });
  return { service: svc, booking, start: new Date(booking.startTime as string) };
}

/** POST /payments with the succeeding test card, then waits for the worker to settle it. */
async function pay(bookingId: string) {
  const created = await post(t.app, '/api/v1/payments', co.auth, { bookingId, card });
  return waitFor(
    async () => {
      const p = await t.dbs.test.prisma.payment.findUnique({ where: { id: created._id } });
      return p?.status === 'succeeded' ? p : null;
    },
    { what: 'the payment to succeed' },
  );
}

const db = () => t.dbs.test.prisma;
const quote = (bookingId: string, cancelledBy: 'business' | 'customer', now: Date) =>
  quoteCancellation(db(), { company, bookingId, input: { cancelledBy }, now });
const cancel = (bookingId: string, input: Record<string, unknown>, now: Date) =>
  cancelBooking(db(), { company, mode: 'test', config: t.config, bookingId, input, now });
const eventsOf = async (type: string, key: string, value: string) =>
  (await db().event.findMany({ where: { companyId: company.id, type }, orderBy: { id: 'asc' } }))
    .map((e) => e.data as Record<string, unknown>)
    .filter((d) => d[key] === value);

const percentPolicy = { freeUntilMinutesBefore: 1440, lateFee: { percent: 50 } };

describe('a full payment', () => {
  it('a cancel that agreed to a fee (a quote shown) is refused when the free period ended meanwhile', async () => {
    const { booking, start } = await booked({ price: 10_000, cancellationPolicy: percentPolicy });
    const payment = await pay(booking._id);
    const shown = await quote(booking._id, 'customer', new Date(start.getTime() - 1441 * MIN));
    expect(shown.fee).toBe(0);
    // The customer confirms a minute after the free period ended: a 50 % fee they never saw.
    const late = new Date(start.getTime() - 1439 * MIN);
    const refused = await cancelBooking(db(), {
      company,
      mode: 'test',
      config: t.config,
      bookingId: booking._id,
      input: { cancelledBy: 'customer' },
      now: late,
      acceptedFee: shown.fee,
    }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'CONFLICT', details: { fee: 5000, acceptedFee: 0 } });
    expect(await db().booking.findUniqueOrThrow({ where: { id: booking._id } })).toMatchObject({
      status: 'confirmed',
      cancellationFee: null,
    });
    expect(await db().payment.findUniqueOrThrow({ where: { id: payment.id } })).toMatchObject({ amountRefunded: 0 });
    // Agreeing to the fee now shown, it goes through.
    const { booking: after } = await cancelBooking(db(), {
      company,
      mode: 'test',
      config: t.config,
      bookingId: booking._id,
      input: { cancelledBy: 'customer' },
      now: late,
      acceptedFee: 5000,
    });
    expect(after).toMatchObject({ status: 'cancelled', cancellationFee: 5000 });
  });

  it('exactly at freeUntil a customer cancel is free: the whole payment is refunded', async () => {
    const { booking, start } = await booked({ price: 10_000, cancellationPolicy: percentPolicy });
    const payment = await pay(booking._id);
    expect(payment).toMatchObject({ kind: 'full', amount: 10_000 });
    const now = new Date(start.getTime() - 1440 * MIN);
    const q = await quote(booking._id, 'customer', now);
    expect(q).toEqual({ fee: 0, refundAmount: 10_000, freeUntil: now, allowed: true, deadline: start });
    const { booking: after } = await cancel(booking._id, { cancelledBy: 'customer' }, now);
    expect(after).toMatchObject({ status: 'cancelled', cancelledBy: 'customer', cancellationFee: 0 });
    expect(await db().payment.findUniqueOrThrow({ where: { id: payment.id } })).toMatchObject({
      status: 'refunded',
      amountRefunded: 10_000,
    });
  });

  it('one minute inside, the late fee is kept and the rest refunded (a partial refund); the quote said so', async () => {
    const { booking, start } = await booked({ price: 10_000, cancellationPolicy: percentPolicy });
    const payment = await pay(booking._id);
    const now = new Date(start.getTime() - 1439 * MIN);
    const q = await quote(booking._id, 'customer', now);
    expect(q).toMatchObject({ fee: 5000, refundAmount: 5000, allowed: true });
    // The quote changed nothing.
    expect(await db().booking.findUniqueOrThrow({ where: { id: booking._id } })).toMatchObject({
      status: 'confirmed',
      cancellationFee: null,
    });
    const { booking: after, refunds } = await cancel(booking._id, { cancelledBy: 'customer', reason: 'ill' }, now);
    expect(after).toMatchObject({ status: 'cancelled', cancelledBy: 'customer', cancellationFee: q.fee });
    expect(refunds).toEqual([{ paymentId: payment.id, amount: q.refundAmount, outcome: 'refunded' }]);
    expect(await db().payment.findUniqueOrThrow({ where: { id: payment.id } })).toMatchObject({
      status: 'partially_refunded',
      amountRefunded: 5000,
    });
    const [cancelled] = await eventsOf('booking.cancelled', 'bookingId', booking._id);
    expect(cancelled).toMatchObject({
      status: 'cancelled',
      reason: 'ill',
      cancelledBy: 'customer',
      cancellationFee: 5000,
      refundAmount: 5000,
    });
    const refundsSeen = await eventsOf('payment.refunded', 'paymentId', payment.id);
    expect(refundsSeen).toEqual([
      expect.objectContaining({
        amount: 5000,
        amountRefunded: 5000,
        paymentAmount: 10_000,
        status: 'partially_refunded',
      }),
    ]);
  });

  it('a business cancel inside the window refunds in full; waiveFee spares a customer the fee', async () => {
    const a = await booked({ price: 10_000, cancellationPolicy: percentPolicy });
    const b = await booked({ price: 10_000, cancellationPolicy: percentPolicy });
    const pa = await pay(a.booking._id);
    const pb = await pay(b.booking._id);
    const late = (start: Date) => new Date(start.getTime() - 10 * MIN);
    expect(await quote(a.booking._id, 'business', late(a.start))).toMatchObject({
      fee: 0,
      refundAmount: 10_000,
      deadline: null,
    });
    const byBusiness = await cancel(a.booking._id, {}, late(a.start));
    expect(byBusiness.booking).toMatchObject({ cancelledBy: 'business', cancellationFee: 0 });
    const waived = await cancel(b.booking._id, { cancelledBy: 'customer', waiveFee: true }, late(b.start));
    expect(waived.booking).toMatchObject({ cancelledBy: 'customer', cancellationFee: 0 });
    for (const p of [pa, pb])
      expect(await db().payment.findUniqueOrThrow({ where: { id: p.id } })).toMatchObject({
        status: 'refunded',
        amountRefunded: 10_000,
      });
  });

  it('an unpaid booking costs nothing to cancel: the fee never exceeds what was paid', async () => {
    const { booking, start } = await booked({
      price: 10_000,
      cancellationPolicy: percentPolicy,
      requiresPayment: false,
    });
    const now = new Date(start.getTime() - 5 * MIN);
    expect(await quote(booking._id, 'customer', now)).toMatchObject({ fee: 0, refundAmount: 0, allowed: true });
    expect((await cancel(booking._id, { cancelledBy: 'customer' }, now)).booking).toMatchObject({
      cancellationFee: 0,
    });
  });
});

describe('a deposit', () => {
  const depositService = {
    price: 10_000,
    depositAmount: 3000,
    cancellationPolicy: { freeUntilMinutesBefore: 60, lateFee: { amount: 4000 } },
  };

  it('the first payment is the deposit and confirms the booking; the next pays the balance; a third is 409', async () => {
    const { booking } = await booked(depositService);
    expect(booking).toMatchObject({ status: 'pending', depositAmount: 3000 });
    const deposit = await pay(booking._id);
    expect(deposit).toMatchObject({ kind: 'deposit', amount: 3000 });
    expect(await db().booking.findUniqueOrThrow({ where: { id: booking._id } })).toMatchObject({ status: 'confirmed' });
    const balance = await pay(booking._id);
    expect(balance).toMatchObject({ kind: 'balance', amount: 7000 });
    expectError(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/payments',
        headers: co.auth,
        payload: { bookingId: booking._id, card },
      }),
      409,
      'CONFLICT',
    );
  });

  it('exactly at freeUntil the deposit is refunded in full', async () => {
    const { booking, start } = await booked(depositService);
    const deposit = await pay(booking._id);
    const now = new Date(start.getTime() - 60 * MIN);
    const q = await quote(booking._id, 'customer', now);
    expect(q).toMatchObject({ fee: 0, refundAmount: 3000 });
    await cancel(booking._id, { cancelledBy: 'customer' }, now);
    expect(await db().payment.findUniqueOrThrow({ where: { id: deposit.id } })).toMatchObject({
      status: 'refunded',
      amountRefunded: 3000,
    });
  });

  it('one minute inside, the fee is capped at the deposit paid: nothing is refunded', async () => {
    const { booking, start } = await booked(depositService);
    const deposit = await pay(booking._id);
    const now = new Date(start.getTime() - 59 * MIN);
    const q = await quote(booking._id, 'customer', now);
    expect(q).toMatchObject({ fee: 3000, refundAmount: 0, allowed: true });
    const { booking: after, refunds } = await cancel(booking._id, { cancelledBy: 'customer' }, now);
    expect([after.cancellationFee, refunds]).toEqual([q.fee, []]);
    expect(await db().payment.findUniqueOrThrow({ where: { id: deposit.id } })).toMatchObject({
      status: 'succeeded',
      amountRefunded: 0,
    });
  });

  it('deposit and balance paid, one minute inside: the fee is kept and the balance refunded first', async () => {
    const { booking, start } = await booked(depositService);
    const deposit = await pay(booking._id);
    const balance = await pay(booking._id);
    const now = new Date(start.getTime() - 59 * MIN);
    const q = await quote(booking._id, 'customer', now);
    expect(q).toMatchObject({ fee: 4000, refundAmount: 6000 });
    const { refunds } = await cancel(booking._id, { cancelledBy: 'customer' }, now);
    expect(refunds).toEqual([{ paymentId: balance.id, amount: 6000, outcome: 'refunded' }]);
    const rows = await db().payment.findMany({ where: { id: { in: [deposit.id, balance.id] } } });
    expect(Object.fromEntries(rows.map((p) => [p.kind, [p.status, p.amountRefunded]]))).toEqual({
      deposit: ['succeeded', 0],
      balance: ['partially_refunded', 6000],
    });
  });
});

describe('over REST', () => {
  it('GET /bookings/:id/cancellation-quote and POST /bookings/:id/cancel { cancelledBy }', async () => {
    const { booking } = await booked({ price: 10_000, cancellationPolicy: percentPolicy, requiresPayment: false });
    const q = ok(
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/bookings/${booking._id}/cancellation-quote?cancelledBy=customer`,
        headers: co.auth,
      }),
    );
    expect(q).toEqual({
      fee: 0,
      refundAmount: 0,
      freeUntil: new Date(Date.parse(booking.startTime) - 1440 * MIN).toISOString(),
      allowed: true,
      deadline: booking.startTime,
    });
    expectError(
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/bookings/${booking._id}/cancellation-quote?cancelledBy=someone`,
        headers: co.auth,
      }),
      400,
      'VALIDATION_ERROR',
    );
    const after = await post(t.app, `/api/v1/bookings/${booking._id}/cancel`, co.auth, { cancelledBy: 'customer' });
    expect(after).toMatchObject({ status: 'cancelled', cancelledBy: 'customer', cancellationFee: 0 });
    const again = ok(
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/bookings/${booking._id}/cancellation-quote`,
        headers: co.auth,
      }),
    );
    expect(again).toMatchObject({ allowed: false });
  });
});

describe('hostile service input', () => {
  it.each([
    ['depositAmount above the price', { price: 1000, depositAmount: 1001 }, 'depositAmount'],
    ['a zero depositAmount', { price: 1000, depositAmount: 0 }, 'depositAmount'],
    ['a negative depositAmount', { price: 1000, depositAmount: -1 }, 'depositAmount'],
    [
      'a percent above 100',
      { cancellationPolicy: { freeUntilMinutesBefore: 60, lateFee: { percent: 101 } } },
      'cancellationPolicy.lateFee.percent',
    ],
    [
      'both percent and amount',
      { cancellationPolicy: { freeUntilMinutesBefore: 60, lateFee: { percent: 10, amount: 100 } } },
      'cancellationPolicy.lateFee',
    ],
    [
      'neither percent nor amount',
      { cancellationPolicy: { freeUntilMinutesBefore: 60, lateFee: {} } },
      'cancellationPolicy.lateFee',
    ],
    [
      'a fixed fee above the price',
      { price: 1000, cancellationPolicy: { freeUntilMinutesBefore: 60, lateFee: { amount: 1001 } } },
      'cancellationPolicy.lateFee.amount',
    ],
    [
      'a negative freeUntilMinutesBefore',
      { cancellationPolicy: { freeUntilMinutesBefore: -1, lateFee: { amount: 1 } } },
      'cancellationPolicy.freeUntilMinutesBefore',
    ],
    [
      'a negative cut-off',
      { bookingRules: { cancellationCutoffMinutes: -5 } },
      'bookingRules.cancellationCutoffMinutes',
    ],
    ['an unknown rule', { bookingRules: { minNoticeMinute: 5 } }, 'bookingRules'],
  ])('%s is a 400 naming the field, and no service is written', async (_what, fields, path) => {
    const before = await db().service.count({ where: { companyId: company.id } });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/services',
      headers: co.auth,
      payload: { name: 'Cut', durationMinutes: 30, price: 1000, ...fields },
    });
    const body = expectError(res, 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(body.error.details)).toContain(path);
    expect(await db().service.count({ where: { companyId: company.id } })).toBe(before);
  });

  it('lowering the price below the deposit is a 400 naming depositAmount, and the service stays', async () => {
    const svc = await post(t.app, '/api/v1/services', co.auth, {
      name: 'Colour',
      durationMinutes: 30,
      price: 5000,
      depositAmount: 2000,
    });
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/services/${svc._id}`,
      headers: co.auth,
      payload: { price: 1999 },
    });
    expect(expectError(res, 400, 'VALIDATION_ERROR').error.details).toEqual([
      { path: 'depositAmount', message: 'must be at most the price (1999)' },
    ]);
    expect(await db().service.findUniqueOrThrow({ where: { id: svc._id } })).toMatchObject({
      price: 5000,
      depositAmount: 2000,
    });
    const cleared = ok(
      await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/services/${svc._id}`,
        headers: co.auth,
        payload: { depositAmount: null, cancellationPolicy: null, price: 1999 },
      }),
    );
    expect(cleared).toMatchObject({ price: 1999, depositAmount: null, cancellationPolicy: null });
  });
});
