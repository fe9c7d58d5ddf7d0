// A customer is never charged for a booking that does not hold its slot (docs/api.md). A pending
// booking whose payment is processing is not expired by the 15-minute job until the payment
// settles; a payment cannot start once the hold has ended; and a charge that succeeds for a
// booking cancelled (or expired) meanwhile confirms nothing and is refunded at once, through
// the same processor. The payments worker and the expiry job are run by hand here (no worker
// process), so a payment stays processing exactly as long as the test wants.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expirePendingBookings } from '../../src/schema/bookings/expire-pending-bookings.js';
import type { JobContext } from '../../src/workers/job-types.js';
import { settlePayment } from '../../src/workers/settle-payment.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';
import { bookThroughUseCase, minutesAgo } from '../helpers/bookings.js';
import { startStripeStandIn } from '../helpers/stripe-stand-in.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let stripe: Awaited<ReturnType<typeof startStripeStandIn>>;
let ctx: JobContext;

beforeAll(async () => {
  stripe = await startStripeStandIn();
  t = await createTestApp({ env: { STRIPE_SECRET_KEY: 'sk_test_standin', STRIPE_API_URL: stripe.url } });
  w = await createAccountWithKeys(t.dbs);
  ctx = { services: t.services, enqueue: async () => {}, signal: new AbortController().signal };
});
afterAll(async () => {
  await t?.close();
  await stripe?.close();
});

type Mode = 'test' | 'live';
const card = (number: string) => ({ number, expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvc: '123' });
const key = (mode: Mode) => (mode === 'test' ? w.testKey.key : w.liveKey.key);
const companyOf = (mode: Mode) => (mode === 'test' ? w.test : w.live);
const company = (mode: Mode) => companyOf(mode).id;
const pay = (mode: Mode, payload: object) =>
  t.app.inject({ method: 'POST', url: '/api/v1/payments', headers: bearer(key(mode)), payload });
const bookingOf = (mode: Mode, id: string) => t.dbs[mode].prisma.booking.findUniqueOrThrow({ where: { id } });
const paymentOf = (mode: Mode, id: string) => t.dbs[mode].prisma.payment.findUniqueOrThrow({ where: { id } });
const eventsFor = async (mode: Mode, bookingId: string, paymentId?: string) =>
  (await t.dbs[mode].prisma.event.findMany({ where: { companyId: company(mode) }, orderBy: { id: 'asc' } }))
    .filter((e) => {
      const d = e.data as { bookingId?: string; paymentId?: string };
      return d.bookingId === bookingId || (paymentId !== undefined && d.paymentId === paymentId);
    })
    .map((e) => e.type);

/** A pending booking with a processing payment, whose hold has since run out. */
async function processingPastHold(mode: Mode, payload: Record<string, unknown>) {
  const { booking } = await bookThroughUseCase(t.dbs[mode].prisma, companyOf(mode));
  const res = await pay(mode, { bookingId: booking.id, ...payload });
  expect(res.statusCode).toBe(200);
  // The hold runs out while the payment processes: moved by hand, as 15 minutes passing would.
  await t.dbs[mode].prisma.booking.update({
    where: { id: booking.id },
    data: { holdExpiresAt: new Date(Date.now() - 60_000) },
  });
  return { booking, paymentId: res.json().data._id as string };
}

describe('the expiry job and a processing payment', () => {
  it('keeps the booking while its payment processes; a success then confirms it', async () => {
    const { booking, paymentId } = await processingPastHold('test', { card: card('4242424242424242') });
    const unpaid = (await bookThroughUseCase(t.dbs.test.prisma, w.test, { bookedAt: minutesAgo(16) })).booking;
    const { expired } = await expirePendingBookings(t.dbs.test.prisma);
    expect(expired).toContain(unpaid.id);
    expect(expired).not.toContain(booking.id);
    expect((await bookingOf('test', booking.id)).status).toBe('pending');
    await settlePayment(ctx, { mode: 'test', paymentId });
    expect(await paymentOf('test', paymentId)).toMatchObject({ status: 'succeeded' });
    // The slot was held all along, so the late success confirms it.
    expect(await bookingOf('test', booking.id)).toMatchObject({ status: 'confirmed', holdExpiresAt: null });
    expect(await eventsFor('test', booking.id)).toEqual(['booking.created', 'payment.succeeded', 'booking.confirmed']);
  });

  it('a late /confirm while the payment processes says so, and leaves the booking and payment alone', async () => {
    const { booking, paymentId } = await processingPastHold('test', { card: card('4242424242424242') });
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/bookings/${booking.id}/confirm`,
      headers: bearer(w.testKey.key),
      payload: {},
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({
      code: 'INVALID_STATE_TRANSITION',
      details: { from: 'pending', to: 'confirmed', paymentId },
    });
    expect(res.json().error.message).toMatch(/processing/);
    expect((await bookingOf('test', booking.id)).status).toBe('pending');
    expect(await paymentOf('test', paymentId)).toMatchObject({ status: 'processing' });
    expect(await eventsFor('test', booking.id)).toEqual(['booking.created']);
  });

  it('expires the booking once its payment has failed', async () => {
    const { booking, paymentId } = await processingPastHold('test', { card: card('4000000000000002') });
    expect((await expirePendingBookings(t.dbs.test.prisma)).expired).not.toContain(booking.id);
    await settlePayment(ctx, { mode: 'test', paymentId });
    expect(await paymentOf('test', paymentId)).toMatchObject({ status: 'failed', failureCode: 'card_declined' });
    expect((await expirePendingBookings(t.dbs.test.prisma)).expired).toContain(booking.id);
    expect((await bookingOf('test', booking.id)).status).toBe('expired');
    expect(await eventsFor('test', booking.id)).toEqual(['booking.created', 'payment.failed', 'booking.expired']);
  });

  it('a payment cannot start once the hold has ended, even before the job has run', async () => {
    // Booked 16 minutes ago by the use case's clock: the hold ended a minute ago.
    const { booking } = await bookThroughUseCase(t.dbs.test.prisma, w.test, { bookedAt: minutesAgo(16) });
    const res = await pay('test', { bookingId: booking.id, card: card('4242424242424242') });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({
      code: 'INVALID_STATE_TRANSITION',
      details: { from: 'expired', to: 'paid' },
    });
    expect(await t.dbs.test.prisma.payment.count({ where: { bookingId: booking.id } })).toBe(0);
  });

  it('racing the job, a payment either keeps the booking or is refused: never an expired booking with a payment', async () => {
    // Booked 14 minutes ago: a minute of hold left.
    const bookings = await Promise.all(
      Array.from(
        { length: 12 },
        async () => (await bookThroughUseCase(t.dbs.test.prisma, w.test, { bookedAt: minutesAgo(14) })).booking,
      ),
    );
    // The job runs "two minutes later" while the payments come in now.
    const [, ...payments] = await Promise.all([
      expirePendingBookings(t.dbs.test.prisma, { now: new Date(Date.now() + 120_000) }),
      ...bookings.map((b) => pay('test', { bookingId: b.id, card: card('4242424242424242') })),
    ]);
    for (const [i, b] of bookings.entries()) {
      const after = await bookingOf('test', b.id);
      const live = await t.dbs.test.prisma.payment.count({
        where: { bookingId: b.id, status: { in: ['processing', 'succeeded'] } },
      });
      if (after.status === 'expired') expect([live, payments[i]!.statusCode]).toEqual([0, 409]);
      else expect([after.status, live, payments[i]!.statusCode]).toEqual(['pending', 1, 200]);
    }
  });
});

describe('a charge for a booking that no longer holds its slot', () => {
  it('sandbox: cancelled while the payment was processing → refunded at once, booking stays cancelled', async () => {
    const { booking } = await bookThroughUseCase(t.dbs.test.prisma, w.test);
    const paymentId = (await pay('test', { bookingId: booking.id, card: card('4242424242424242') })).json().data._id;
    const cancel = await t.app.inject({
      method: 'POST',
      url: `/api/v1/bookings/${booking.id}/cancel`,
      headers: bearer(w.testKey.key),
      payload: {},
    });
    expect(cancel.statusCode).toBe(200);
    await settlePayment(ctx, { mode: 'test', paymentId });
    expect(await paymentOf('test', paymentId)).toMatchObject({ status: 'refunded', refundedAt: expect.any(Date) });
    expect((await bookingOf('test', booking.id)).status).toBe('cancelled');
    expect(await eventsFor('test', booking.id, paymentId)).toEqual([
      'booking.created',
      'booking.cancelled',
      'payment.refunded',
    ]);
  });

  it('live: an already expired booking is not confirmed, and the processor refunds the charge', async () => {
    const { booking } = await bookThroughUseCase(t.dbs.live.prisma, w.live);
    const paymentId = (await pay('live', { bookingId: booking.id, paymentMethod: 'pm_card_visa' })).json().data._id;
    // As a booking expired before this rule existed would be.
    await t.dbs.live.prisma.booking.update({
      where: { id: booking.id },
      data: { status: 'expired', holdExpiresAt: null },
    });
    // The refund's first try meets an outage (three 500s: the client's own two retries give
    // up): the job fails, and its retry finishes the refund without charging again.
    const before = stripe.calls.length;
    stripe.failNext(3, 'outage', '/v1/refunds');
    await expect(settlePayment(ctx, { mode: 'live', paymentId })).rejects.toThrow('stand-in outage');
    expect(await paymentOf('live', paymentId)).toMatchObject({
      status: 'processing',
      outcome: 'succeeded',
      processorRef: expect.stringMatching(/^pi_/),
    });
    await settlePayment(ctx, { mode: 'live', paymentId });
    const payment = await paymentOf('live', paymentId);
    expect(payment).toMatchObject({ status: 'refunded', refundedAt: expect.any(Date) });
    const mine = stripe.calls.slice(before);
    expect(mine.filter((c) => c.path === '/v1/payment_intents')).toHaveLength(1);
    const refund = mine.filter((c) => c.path === '/v1/refunds').at(-1)!;
    expect([refund.form.get('payment_intent'), refund.headers['idempotency-key']]).toEqual([
      payment.processorRef,
      `refund-${paymentId}`,
    ]);
    expect((await bookingOf('live', booking.id)).status).toBe('expired');
    expect(await eventsFor('live', booking.id, paymentId)).toEqual(['booking.created', 'payment.refunded']);
  });
});
