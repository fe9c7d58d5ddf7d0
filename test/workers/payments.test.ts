// Payments (docs/api.md): the sandbox simulator's three test cards, hostile card input, refunds,
// a succeeded payment confirming its pending booking, unpaid bookings expiring, and live
// payments through the real `stripe` client against a local stand-in of the processor.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkers, type Workers } from '../../src/workers/runtime.js';
import { PROCESSOR_ATTEMPTS } from '../../src/workers/settle-payment.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { bearer, createAccountWithKeys, scopedToken } from '../helpers/factories.js';
import { bookThroughUseCase, cancelledBooking, minutesAgo } from '../helpers/bookings.js';
import { FAST_WORKERS, waitFor } from '../helpers/receiver.js';
import { startStripeStandIn } from '../helpers/stripe-stand-in.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let workers: Workers;
let stripe: Awaited<ReturnType<typeof startStripeStandIn>>;

beforeAll(async () => {
  stripe = await startStripeStandIn();
  t = await createTestApp({
    env: { ...FAST_WORKERS, STRIPE_SECRET_KEY: 'sk_test_standin', STRIPE_API_URL: stripe.url },
  });
  w = await createAccountWithKeys(t.dbs);
  workers = await startWorkers(t.services);
});
afterAll(async () => {
  await workers?.stop();
  await t?.close();
  await stripe?.close();
});

const card = (number: string, extra: Record<string, unknown> = {}) => ({
  number,
  expMonth: 12,
  expYear: new Date().getUTCFullYear() + 2,
  cvc: '123',
  ...extra,
});
const pay = (key: string, payload: unknown) =>
  t.app.inject({ method: 'POST', url: '/api/v1/payments', headers: bearer(key), payload: payload as object });
const settled = (db: 'test' | 'live', id: string) =>
  waitFor(
    async () => {
      const p = await t.dbs[db].prisma.payment.findUnique({ where: { id } });
      return p && p.status !== 'processing' ? p : null;
    },
    { what: 'the payment to settle' },
  );
const eventsOf = async (db: 'test' | 'live', companyId: string) =>
  (await t.dbs[db].prisma.event.findMany({ where: { companyId }, orderBy: { id: 'asc' } })).map((e) => ({
    type: e.type,
    data: e.data,
  }));

describe('sandbox test cards', () => {
  it('4242424242424242 succeeds, confirms the pending booking, and emits payment.succeeded then booking.confirmed', async () => {
    const { booking } = await bookThroughUseCase(t.dbs.test.prisma, w.test, { price: 4500 });
    const res = await pay(w.testKey.key, { bookingId: booking.id, card: card('4242424242424242') });
    expect(res.statusCode).toBe(200);
    const created = res.json().data;
    expect(created).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      bookingId: booking.id,
      visitId: null,
      amount: 4500,
      currency: 'EUR',
      status: 'processing',
      kind: 'full',
      amountRefunded: 0,
      failureCode: null,
      failureMessage: null,
      brand: 'visa',
      last4: '4242',
      refundedAt: null,
      metadata: {},
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const payment = await settled('test', created._id);
    expect(payment).toMatchObject({ status: 'succeeded', failureCode: null });
    expect((await t.dbs.test.prisma.booking.findUniqueOrThrow({ where: { id: booking.id } })).status).toBe('confirmed');
    const events = (await eventsOf('test', w.test.id)).filter(
      (e) => (e.data as { bookingId?: string }).bookingId === booking.id,
    );
    expect(events.map((e) => e.type)).toEqual(['booking.created', 'payment.succeeded', 'booking.confirmed']);
    expect(events[0]!.data).toMatchObject({ bookingId: booking.id, status: 'pending' });
    expect(events[1]!.data).toEqual({
      paymentId: created._id,
      bookingId: booking.id,
      amount: 4500,
      currency: 'EUR',
      status: 'succeeded',
      kind: 'full',
      amountRefunded: 0,
      metadata: {},
    });
    expect(events[2]!.data).toMatchObject({
      bookingId: booking.id,
      status: 'confirmed',
      customerId: booking.customerId,
    });
    // Only brand and last4: the number is nowhere in the database.
    const row = JSON.stringify(await t.dbs.test.prisma.payment.findUnique({ where: { id: created._id } }));
    expect(row).not.toContain('4242424242424242');
    const got = await t.app.inject({
      method: 'GET',
      url: `/api/v1/payments/${created._id}`,
      headers: bearer(w.testKey.key),
    });
    expect(got.json().data).toMatchObject({ status: 'succeeded', last4: '4242' });
  });

  it.each([
    ['4000000000000002', 'card_declined'],
    ['4000000000009995', 'insufficient_funds'],
  ])('%s fails with %s and leaves the booking pending', async (number, code) => {
    const { booking } = await bookThroughUseCase(t.dbs.test.prisma, w.test);
    const res = await pay(w.testKey.key, { bookingId: booking.id, card: card(number) });
    const payment = await settled('test', res.json().data._id);
    expect(payment).toMatchObject({
      status: 'failed',
      failureCode: code,
      failureMessage: expect.stringMatching(/^Your card (was declined|has insufficient funds)\.$/),
      last4: number.slice(-4),
    });
    expect((await t.dbs.test.prisma.booking.findUniqueOrThrow({ where: { id: booking.id } })).status).toBe('pending');
    const failed = (await eventsOf('test', w.test.id)).find(
      (e) => (e.data as { paymentId?: string }).paymentId === payment.id,
    );
    expect(failed).toEqual({
      type: 'payment.failed',
      data: {
        paymentId: payment.id,
        bookingId: booking.id,
        amount: 4500,
        currency: 'EUR',
        status: 'failed',
        kind: 'full',
        amountRefunded: 0,
        failureCode: code,
        metadata: {},
      },
    });
    // A failed payment does not block a second try.
    const again = await pay(w.testKey.key, { bookingId: booking.id, card: card('4242424242424242') });
    expect(again.statusCode).toBe(200);
  });
});

describe('hostile payment input: 400 and nothing written', () => {
  let bookingId: string;
  beforeAll(async () => {
    bookingId = (await bookThroughUseCase(t.dbs.test.prisma, w.test)).booking.id;
  });
  const year = new Date().getUTCFullYear();
  const lastMonth = new Date(Date.UTC(year, new Date().getUTCMonth() - 1, 1));
  it.each([
    [{ card: card('4111111111111111') }, 'card.number'],
    [{ card: card('5555555555554444') }, 'card.number'],
    [{ card: card('42424242424242424242') }, 'card.number'],
    [{ card: card('4242 4242 4242 4242') }, 'card.number'],
    [{ card: { ...card('4242424242424242'), number: 4242424242424242 } }, 'card.number'],
    [
      {
        card: card('4242424242424242', { expYear: lastMonth.getUTCFullYear(), expMonth: lastMonth.getUTCMonth() + 1 }),
      },
      'card.expYear',
    ],
    [{ card: card('4242424242424242', { expYear: year - 1 }) }, 'card.expYear'],
    [{ card: card('4242424242424242', { expYear: 26 }) }, 'card.expYear'],
    [{ card: card('4242424242424242', { expMonth: 13 }) }, 'card.expMonth'],
    [{ card: card('4242424242424242', { expMonth: '12' }) }, 'card.expMonth'],
    [{ card: card('4242424242424242', { cvc: '12' }) }, 'card.cvc'],
    [{ card: card('4242424242424242', { cvc: '1234' }) }, 'card.cvc'],
    [{ card: card('4242424242424242', { cvc: 123 }) }, 'card.cvc'],
    [{ card: card('4242424242424242', { name: 'x' }) }, 'card.name'],
    [{}, 'card'],
    [{ paymentMethod: 'pm_card_visa' }, 'paymentMethod'],
    [{ card: card('4242424242424242'), amount: 1 }, 'amount'],
  ])('%j → 400 naming %s', async (extra, path) => {
    const before = await t.dbs.test.prisma.payment.count();
    const res = await pay(w.testKey.key, { bookingId, ...extra });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect(res.json().error.details.map((d: { path: string }) => d.path)).toContain(path);
    // The number sent is never echoed (the hint names only the published test cards).
    expect(JSON.stringify(res.json())).not.toMatch(/4111111111111111|5555555555554444/);
    expect(await t.dbs.test.prisma.payment.count()).toBe(before);
  });

  it('an unknown booking, another company’s and a live one are NOT_FOUND; a cancelled one is 409', async () => {
    const other = await createAccountWithKeys(t.dbs);
    const theirs = (await bookThroughUseCase(t.dbs.test.prisma, other.test)).booking.id;
    const live = (await bookThroughUseCase(t.dbs.live.prisma, w.live)).booking.id;
    for (const id of ['0123456789abcdef01234567', theirs, live]) {
      const res = await pay(w.testKey.key, { bookingId: id, card: card('4242424242424242') });
      expect([id, res.statusCode, res.json().error.code]).toEqual([id, 404, 'NOT_FOUND']);
    }
    const cancelled = (await cancelledBooking(t.dbs.test.prisma, w.test)).booking.id;
    const res = await pay(w.testKey.key, { bookingId: cancelled, card: card('4242424242424242') });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({
      code: 'INVALID_STATE_TRANSITION',
      details: { from: 'cancelled', to: 'paid' },
    });
  });

  it('two concurrent payments for one booking: one is taken, the other is a CONFLICT', async () => {
    const { booking } = await bookThroughUseCase(t.dbs.test.prisma, w.test);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => pay(w.testKey.key, { bookingId: booking.id, card: card('4242424242424242') })),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409, 409, 409, 409]);
    expect(await t.dbs.test.prisma.payment.count({ where: { bookingId: booking.id } })).toBe(1);
  });

  it('needs payments:write to pay and payments:read to read', async () => {
    const readOnly = await scopedToken(t.dbs, {
      accountId: w.account.id,
      companyId: w.test.id,
      mode: 'test',
      scope: 'payments:read',
    });
    const res = await pay(readOnly, { bookingId, card: card('4242424242424242') });
    expect([res.statusCode, res.json().error.details]).toEqual([403, { requiredScope: 'payments:write' }]);
    const none = await scopedToken(t.dbs, {
      accountId: w.account.id,
      companyId: w.test.id,
      mode: 'test',
      scope: 'bookings:read',
    });
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/payments', headers: bearer(none) });
    expect([list.statusCode, list.json().error.details]).toEqual([403, { requiredScope: 'payments:read' }]);
  });
});

describe('refunds', () => {
  it('refunds a succeeded payment once, with payment.refunded; other states are 409', async () => {
    const { booking } = await bookThroughUseCase(t.dbs.test.prisma, w.test);
    const id = (await pay(w.testKey.key, { bookingId: booking.id, card: card('4242424242424242') })).json().data._id;
    await settled('test', id);
    const refund = () =>
      t.app.inject({ method: 'POST', url: `/api/v1/payments/${id}/refund`, headers: bearer(w.testKey.key) });
    const res = await refund();
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ _id: id, status: 'refunded', refundedAt: expect.any(String) });
    const again = await refund();
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toMatchObject({
      code: 'INVALID_STATE_TRANSITION',
      details: { from: 'refunded', to: 'refunded' },
    });
    const events = (await eventsOf('test', w.test.id)).filter(
      (e) => e.type === 'payment.refunded' && (e.data as { paymentId: string }).paymentId === id,
    );
    expect(events).toHaveLength(1);
  });
});

describe('the hold', () => {
  it('an unpaid pending booking past its hold expires with booking.expired; a paid one does not', async () => {
    // Booked 16 minutes ago by the use case's clock: its 15-minute hold ended a minute ago.
    const unpaid = (await bookThroughUseCase(t.dbs.test.prisma, w.test, { bookedAt: minutesAgo(16) })).booking;
    const fresh = (await bookThroughUseCase(t.dbs.test.prisma, w.test)).booking;
    await workers.queue.enqueue('expire-bookings', { bucket: Date.now() });
    await waitFor(
      async () =>
        (await t.dbs.test.prisma.booking.findUniqueOrThrow({ where: { id: unpaid.id } })).status === 'expired',
      { what: 'the hold to expire' },
    );
    expect((await t.dbs.test.prisma.booking.findUniqueOrThrow({ where: { id: fresh.id } })).status).toBe('pending');
    const expired = (await eventsOf('test', w.test.id)).filter((e) => e.type === 'booking.expired');
    expect(expired.map((e) => (e.data as { bookingId: string }).bookingId)).toEqual([unpaid.id]);
    const res = await pay(w.testKey.key, { bookingId: unpaid.id, card: card('4242424242424242') });
    expect(res.statusCode).toBe(409);
  });
});

describe('live payments through the stripe client', () => {
  it('refuses a raw card number with VALIDATION_ERROR and writes nothing', async () => {
    const { booking } = await bookThroughUseCase(t.dbs.live.prisma, w.live);
    const res = await pay(w.liveKey.key, { bookingId: booking.id, card: card('4242424242424242') });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ path: 'card', message: expect.stringMatching(/live mode/) }],
    });
    expect(await t.dbs.live.prisma.payment.count()).toBe(0);
    expect(stripe.calls).toHaveLength(0);
  });

  // A card number where the token belongs would be stored and sent to the processor in clear.
  it.each([
    '4242424242424242',
    '4242 4242 4242 4242',
    '4242-4242-4242-4242',
    '378282246310005',
    '6011111111111117',
    '123456789012',
    'pm_4242424242424242',
    'tok_4000056655665556',
    'x4111111111111111x',
  ])('refuses a card number as paymentMethod (%s) over REST and GraphQL, and keeps nothing', async (number) => {
    const { booking } = await bookThroughUseCase(t.dbs.live.prisma, w.live);
    const callsBefore = stripe.calls.length;
    const rest = await pay(w.liveKey.key, { bookingId: booking.id, paymentMethod: number });
    const gql = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: bearer(w.liveKey.key),
      payload: {
        query: 'mutation($input: CreatePaymentInput!) { createPayment(input: $input) { _id } }',
        variables: { input: { bookingId: booking.id, paymentMethod: number } },
      },
    });
    expect([rest.statusCode, rest.json().error.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(rest.json().error.details.map((d: { path: string }) => d.path)).toEqual(['paymentMethod']);
    expect(gql.json().errors[0].extensions).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ path: 'paymentMethod', message: expect.stringMatching(/card number/) }],
    });
    const digits = number.replace(/\D/g, '');
    for (const body of [rest.body, gql.body]) expect(body.replace(/\D/g, '')).not.toContain(digits);
    expect(await t.dbs.live.prisma.payment.count({ where: { bookingId: booking.id } })).toBe(0);
    expect(stripe.calls.length).toBe(callsBefore);
  });

  it.each(['card_visa', 'pm_', 'pm_card visa', 'PM_card_visa', 'src_123', 'pm_card_visa\n'])(
    'refuses %j, which is no payment-method token',
    async (token) => {
      const { booking } = await bookThroughUseCase(t.dbs.live.prisma, w.live);
      const res = await pay(w.liveKey.key, { bookingId: booking.id, paymentMethod: token });
      expect([res.statusCode, res.json().error.code, res.json().error.details[0].path]).toEqual([
        400,
        'VALIDATION_ERROR',
        'paymentMethod',
      ]);
      expect(await t.dbs.live.prisma.payment.count({ where: { bookingId: booking.id } })).toBe(0);
    },
  );

  it('charges a card token (tok_...) through a PaymentMethod made from it', async () => {
    const { booking } = await bookThroughUseCase(t.dbs.live.prisma, w.live);
    const res = await pay(w.liveKey.key, { bookingId: booking.id, paymentMethod: 'tok_visa' });
    const payment = await settled('live', res.json().data._id);
    expect(payment).toMatchObject({ status: 'succeeded', brand: 'visa', last4: '4242' });
    const made = stripe.calls.find(
      (c) => c.path === '/v1/payment_methods' && c.headers['idempotency-key'] === `payment-method-${payment.id}`,
    )!;
    expect(Object.fromEntries(made.form)).toEqual({ type: 'card', 'card[token]': 'tok_visa' });
    const charge = stripe.calls.find(
      (c) => c.path === '/v1/payment_intents' && c.headers['idempotency-key'] === `payment-${payment.id}`,
    )!;
    expect(charge.form.get('payment_method')).toMatch(/^pm_\d+_from_tok_visa$/);
  });

  it('charges a payment-method token once (idempotency key), stores brand and last4, confirms the booking, and refunds', async () => {
    const { booking } = await bookThroughUseCase(t.dbs.live.prisma, w.live, { price: 12_000 });
    const res = await pay(w.liveKey.key, { bookingId: booking.id, paymentMethod: 'pm_card_visa' });
    expect(res.json().data).toMatchObject({ status: 'processing', brand: null, last4: null, amount: 12_000 });
    const payment = await settled('live', res.json().data._id);
    expect(payment).toMatchObject({
      status: 'succeeded',
      brand: 'visa',
      last4: '4242',
      processorRef: expect.stringMatching(/^pi_/),
    });
    const call = stripe.calls.find(
      (c) => c.path === '/v1/payment_intents' && c.form.get('metadata[paymentId]') === payment.id,
    )!;
    expect(call.headers.authorization).toBe('Bearer sk_test_standin');
    expect(call.headers['idempotency-key']).toBe(`payment-${payment.id}`);
    expect(Object.fromEntries(call.form)).toMatchObject({
      amount: '12000',
      currency: 'eur',
      payment_method: 'pm_card_visa',
      confirm: 'true',
    });
    expect((await t.dbs.live.prisma.booking.findUniqueOrThrow({ where: { id: booking.id } })).status).toBe('confirmed');

    const refund = await t.app.inject({
      method: 'POST',
      url: `/api/v1/payments/${payment.id}/refund`,
      headers: bearer(w.liveKey.key),
    });
    expect(refund.json().data.status).toBe('refunded');
    const r = stripe.calls.find((c) => c.path === '/v1/refunds')!;
    expect(r.form.get('payment_intent')).toBe(payment.processorRef);
    expect(r.headers['idempotency-key']).toBe(`refund-${payment.id}`);
  });

  it('a charge the processor has refunded already (in its dashboard) is refunded here too, as the worker’s refund treats it', async () => {
    const { booking } = await bookThroughUseCase(t.dbs.live.prisma, w.live);
    const payment = await settled(
      'live',
      (await pay(w.liveKey.key, { bookingId: booking.id, paymentMethod: 'pm_card_visa' })).json().data._id,
    );
    expect(payment.status).toBe('succeeded');
    stripe.failNext(1, 'already_refunded', '/v1/refunds');
    const refund = await t.app.inject({
      method: 'POST',
      url: `/api/v1/payments/${payment.id}/refund`,
      headers: bearer(w.liveKey.key),
    });
    expect([refund.statusCode, refund.json().data?.status]).toEqual([200, 'refunded']);
    const events = (await eventsOf('live', w.live.id)).filter(
      (e) => (e.data as { paymentId?: string }).paymentId === payment.id,
    );
    expect(events.map((e) => e.type)).toEqual(['payment.succeeded', 'payment.refunded']);
  });

  it('a refund the processor cannot answer is a 503 with Retry-After and changes nothing', async () => {
    const { booking } = await bookThroughUseCase(t.dbs.live.prisma, w.live);
    const payment = await settled(
      'live',
      (await pay(w.liveKey.key, { bookingId: booking.id, paymentMethod: 'pm_card_visa' })).json().data._id,
    );
    // Three 500s: the client's own two retries give up.
    stripe.failNext(3, 'outage', '/v1/refunds');
    const refund = await t.app.inject({
      method: 'POST',
      url: `/api/v1/payments/${payment.id}/refund`,
      headers: bearer(w.liveKey.key),
    });
    expect([refund.statusCode, refund.json().error.code, refund.headers['retry-after']]).toEqual([
      503,
      'SERVICE_UNAVAILABLE',
      '5',
    ]);
    expect(await t.dbs.live.prisma.payment.findUniqueOrThrow({ where: { id: payment.id } })).toMatchObject({
      status: 'succeeded',
      refundedAt: null,
    });
    const again = await t.app.inject({
      method: 'POST',
      url: `/api/v1/payments/${payment.id}/refund`,
      headers: bearer(w.liveKey.key),
    });
    expect(again.json().data.status).toBe('refunded');
  });

  it('a declined token fails with the processor’s code; a processor outage is retried, not failed', async () => {
    const a = (await bookThroughUseCase(t.dbs.live.prisma, w.live)).booking;
    const declined = await settled(
      'live',
      (
        await pay(w.liveKey.key, { bookingId: a.id, paymentMethod: 'pm_card_visa_chargeDeclinedInsufficientFunds' })
      ).json().data._id,
    );
    expect(declined).toMatchObject({ status: 'failed', failureCode: 'insufficient_funds' });
    // Four 500s: the client's own two retries use three, then the job's retry gets through.
    stripe.failNext(4);
    const b = (await bookThroughUseCase(t.dbs.live.prisma, w.live)).booking;
    const res = await pay(w.liveKey.key, { bookingId: b.id, paymentMethod: 'pm_card_visa' });
    const settledB = await waitFor(
      async () => {
        const p = await t.dbs.live.prisma.payment.findUnique({ where: { id: res.json().data._id } });
        return p && p.status !== 'processing' ? p : null;
      },
      { timeoutMs: 25_000, what: 'the payment to settle after the outage' },
    );
    expect(settledB).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it('an unknown payment method fails at once with the processor’s invalid_request_error; the booking can be paid again', async () => {
    const { booking } = await bookThroughUseCase(t.dbs.live.prisma, w.live);
    const res = await pay(w.liveKey.key, { bookingId: booking.id, paymentMethod: 'pm_unknown_42' });
    const payment = await settled('live', res.json().data._id);
    expect(payment).toMatchObject({
      status: 'failed',
      failureCode: 'resource_missing',
      failureMessage: "No such PaymentMethod: 'pm_unknown_42'",
      attempts: 0,
    });
    // A 4xx is the processor's answer, not an outage: asked once, never again.
    expect(stripe.calls.filter((c) => c.form.get('metadata[paymentId]') === payment.id)).toHaveLength(1);
    const events = (await eventsOf('live', w.live.id)).filter(
      (e) => (e.data as { paymentId?: string }).paymentId === payment.id,
    );
    expect(events).toEqual([
      {
        type: 'payment.failed',
        data: {
          paymentId: payment.id,
          bookingId: booking.id,
          amount: 4500,
          currency: 'EUR',
          status: 'failed',
          kind: 'full',
          amountRefunded: 0,
          failureCode: 'resource_missing',
          metadata: {},
        },
      },
    ]);
    const got = await t.app.inject({
      method: 'GET',
      url: `/api/v1/payments/${payment.id}`,
      headers: bearer(w.liveKey.key),
    });
    expect(got.json().data).toMatchObject({
      status: 'failed',
      failureCode: 'resource_missing',
      failureMessage: "No such PaymentMethod: 'pm_unknown_42'",
    });
    // The failed payment no longer holds the booking's one live payment.
    const again = await pay(w.liveKey.key, { bookingId: booking.id, paymentMethod: 'pm_card_visa' });
    expect(again.statusCode).toBe(200);
    expect(await settled('live', again.json().data._id)).toMatchObject({ status: 'succeeded' });
    expect((await t.dbs.live.prisma.booking.findUniqueOrThrow({ where: { id: booking.id } })).status).toBe('confirmed');
  });

  it('a 429 lock_timeout is no verdict: the attempt is counted and retried, and the payment succeeds', async () => {
    stripe.failNext(1, 'lock_timeout');
    const { booking } = await bookThroughUseCase(t.dbs.live.prisma, w.live);
    const res = await pay(w.liveKey.key, { bookingId: booking.id, paymentMethod: 'pm_card_visa' });
    const payment = await waitFor(
      async () => {
        const p = await t.dbs.live.prisma.payment.findUnique({ where: { id: res.json().data._id } });
        return p && p.status !== 'processing' ? p : null;
      },
      { timeoutMs: 20_000, what: 'the payment to settle after the lock timeout' },
    );
    expect(payment).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      lastError: expect.stringMatching(/cannot be accessed right now/),
    });
  });

  it('a processor refusing our own key (401) fails the payment at once, without passing on the key fragment Stripe quotes', async () => {
    stripe.failNext(1, 'unauthorized');
    const { booking } = await bookThroughUseCase(t.dbs.live.prisma, w.live);
    const res = await pay(w.liveKey.key, { bookingId: booking.id, paymentMethod: 'pm_card_visa' });
    const payment = await settled('live', res.json().data._id);
    expect(payment).toMatchObject({ status: 'failed', failureCode: 'processor_authentication_error', attempts: 0 });
    // Asked once: the same key gets the same answer, so it is not retried.
    expect(stripe.calls.filter((c) => c.form.get('metadata[paymentId]') === payment.id)).toHaveLength(1);
    const got = await t.app.inject({
      method: 'GET',
      url: `/api/v1/payments/${payment.id}`,
      headers: bearer(w.liveKey.key),
    });
    expect(got.json().data).toMatchObject({ status: 'failed', failureCode: 'processor_authentication_error' });
    expect(JSON.stringify(got.json()) + JSON.stringify(payment)).not.toMatch(/sk_test|ndin|Invalid API Key/);
    // The booking is free to be paid again once the key is fixed.
    const again = await pay(w.liveKey.key, { bookingId: booking.id, paymentMethod: 'pm_card_visa' });
    expect(await settled('live', again.json().data._id)).toMatchObject({ status: 'succeeded' });
  });

  it(`a processor that never answers fails the payment processor_unavailable after ${PROCESSOR_ATTEMPTS} attempts`, async () => {
    stripe.failNext(1_000_000);
    try {
      const { booking } = await bookThroughUseCase(t.dbs.live.prisma, w.live);
      const id = (await pay(w.liveKey.key, { bookingId: booking.id, paymentMethod: 'pm_card_visa' })).json().data._id;
      // Skip ahead: all but the last two attempts go exactly like these.
      await t.dbs.live.prisma.payment.update({ where: { id }, data: { attempts: PROCESSOR_ATTEMPTS - 2 } });
      const payment = await waitFor(
        async () => {
          const p = await t.dbs.live.prisma.payment.findUnique({ where: { id } });
          return p && p.status !== 'processing' ? p : null;
        },
        { timeoutMs: 40_000, what: 'the payment to give up' },
      );
      expect(payment).toMatchObject({
        status: 'failed',
        failureCode: 'processor_unavailable',
        attempts: PROCESSOR_ATTEMPTS,
        lastError: 'stand-in outage',
        failureMessage: expect.stringMatching(/no answer after \d+ attempts/),
      });
      const events = (await eventsOf('live', w.live.id)).filter(
        (e) => (e.data as { paymentId?: string }).paymentId === id,
      );
      expect(events.map((e) => [e.type, (e.data as { failureCode?: string }).failureCode])).toEqual([
        ['payment.failed', 'processor_unavailable'],
      ]);
      stripe.failNext(0);
      const again = await pay(w.liveKey.key, { bookingId: booking.id, paymentMethod: 'pm_card_visa' });
      expect(again.statusCode).toBe(200);
      expect(await settled('live', again.json().data._id)).toMatchObject({ status: 'succeeded' });
    } finally {
      stripe.failNext(0);
    }
  }, 60_000);
});

describe('end to end through the booking API', () => {
  it('a booking that requires payment is pending, paid with 4242, confirmed; webhooks and e-mails follow', async () => {
    const { blankCompany, salon, post, futureHour } = await import('../helpers/domain.js');
    const { startReceiver } = await import('../helpers/receiver.js');
    const { company, auth } = await blankCompany(t.dbs, w, { timezone: 'America/New_York', currency: 'USD' });
    const rx = await startReceiver();
    await post(t.app, '/api/v1/webhook-endpoints', auth, {
      url: rx.url,
      events: ['booking.created', 'booking.confirmed', 'payment.succeeded'],
    });
    const { service } = await salon(t.app, auth, { requiresPayment: true, price: 6000 });
    const booking = await post(t.app, '/api/v1/bookings', auth, {
      serviceId: service._id,
      startTime: futureHour(3, 15),
      customer: { name: 'Riley', email: `riley-${Date.now()}@example.com` },
    });
    expect(booking.status).toBe('pending');
    const payment = await post(
      t.app,
      '/api/v1/payments',
      { ...auth, 'idempotency-key': `pay-${booking._id}` },
      { bookingId: booking._id, card: card('4242424242424242') },
    );
    expect(payment).toMatchObject({ status: 'processing', amount: 6000, currency: 'USD' });
    await waitFor(() => rx.received.length >= 3, { what: 'three webhooks' });
    // Deliveries run in parallel: order is not promised (receivers order by the body's timestamp).
    expect(rx.received.map((r) => r.headers['x-webhook-event']).sort()).toEqual([
      'booking.confirmed',
      'booking.created',
      'payment.succeeded',
    ]);
    const got = await t.app.inject({ method: 'GET', url: `/api/v1/bookings/${booking._id}`, headers: auth });
    expect(got.json().data.status).toBe('confirmed');
    const kinds = await waitFor(
      async () => {
        const rows = await t.dbs.test.prisma.email.findMany({
          where: { companyId: company.id },
          orderBy: { id: 'asc' },
        });
        return rows.length >= 2 ? rows.map((e) => e.kind) : null;
      },
      { what: 'the e-mails' },
    );
    expect(kinds.sort()).toEqual(['booking_confirmed', 'payment_receipt']);
    await rx.close();
  });
});
