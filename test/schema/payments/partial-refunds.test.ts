// Partial refunds (docs/api.md, Payments): POST /payments/:id/refund { amount? }, amountRefunded
// and partially_refunded, payment.refunded with this refund's amount and the total, hostile
// amounts, and concurrent refunds over real sockets that never return more than was paid.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { startWorkers, type Workers } from '../../../src/workers/runtime.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { bookThroughUseCase } from '../../helpers/bookings.js';
import { bearer, createAccountWithKeys } from '../../helpers/factories.js';
import { expectError, ok } from '../../helpers/domain.js';
import { FAST_WORKERS, waitFor } from '../../helpers/receiver.js';
import { startStripeStandIn } from '../../helpers/stripe-stand-in.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let workers: Workers;
let stripe: Awaited<ReturnType<typeof startStripeStandIn>>;

beforeAll(async () => {
  stripe = await startStripeStandIn();
  t = await createTestApp({
    env: {
      ...FAST_WORKERS,
      RATE_LIMIT_PER_SECOND: '1000000',
      STRIPE_SECRET_KEY: 'sk_test_standin',
      STRIPE_API_URL: stripe.url,
    },
  });
  w = await createAccountWithKeys(t.dbs);
  workers = await startWorkers(t.services);
});
afterAll(async () => {
  await workers?.stop();
  await t?.close();
  await stripe?.close();
});

const card = { number: '4242424242424242', expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvc: '123' };

/** A booking of `price` paid in the sandbox, its payment settled succeeded. */
async function paidPayment(price: number) {
  const { booking } = await bookThroughUseCase(t.dbs.test.prisma, w.test, { price });
  const created = ok(
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/payments',
      headers: bearer(w.testKey.key),
      payload: { bookingId: booking.id, card },
    }),
  );
  await waitFor(
    async () => {
      const p = await t.dbs.test.prisma.payment.findUnique({ where: { id: created._id } });
      return p?.status === 'succeeded' ? p : null;
    },
    { what: 'the payment to succeed' },
  );
  return created._id as string;
}

const refund = (id: string, payload?: object) =>
  t.app.inject({
    method: 'POST',
    url: `/api/v1/payments/${id}/refund`,
    headers: bearer(w.testKey.key),
    ...(payload ? { payload } : {}),
  });

const refundEvents = async (paymentId: string) =>
  (
    await t.dbs.test.prisma.event.findMany({
      where: { companyId: w.test.id, type: 'payment.refunded' },
      orderBy: { id: 'asc' },
    })
  )
    .map((e) => e.data as Record<string, unknown>)
    .filter((d) => d.paymentId === paymentId);

describe('partial refunds', () => {
  it('refunds in parts: partially_refunded until nothing is left, then refunded; each refund an event', async () => {
    const id = await paidPayment(100);
    const first = ok(await refund(id, { amount: 30 }));
    expect(first).toMatchObject({ _id: id, status: 'partially_refunded', amount: 100, amountRefunded: 30 });
    expect(first.refundedAt).toEqual(expect.any(String));
    const second = ok(await refund(id, { amount: 50 }));
    expect(second).toMatchObject({ status: 'partially_refunded', amountRefunded: 80 });
    // No amount: all that is left.
    const rest = ok(await refund(id));
    expect(rest).toMatchObject({ status: 'refunded', amountRefunded: 100 });
    const again = expectError(await refund(id, { amount: 1 }), 409, 'INVALID_STATE_TRANSITION');
    expect(again.error.details).toEqual({ from: 'refunded', to: 'refunded' });
    const events = await refundEvents(id);
    expect(events.map((e) => [e.amount, e.amountRefunded, e.status, e.paymentAmount])).toEqual([
      [30, 30, 'partially_refunded', 100],
      [50, 80, 'partially_refunded', 100],
      [20, 100, 'refunded', 100],
    ]);
    expect(events[0]).toEqual({
      paymentId: id,
      bookingId: expect.any(String),
      amount: 30,
      paymentAmount: 100,
      amountRefunded: 30,
      currency: 'EUR',
      status: 'partially_refunded',
      kind: 'full',
      metadata: {},
    });
  });

  it('a refund over what is left is 409 CONFLICT with the amount left, and changes nothing', async () => {
    const id = await paidPayment(100);
    ok(await refund(id, { amount: 70 }));
    const res = expectError(await refund(id, { amount: 31 }), 409, 'CONFLICT');
    expect(res.error.details).toEqual({ amount: 100, amountRefunded: 70, refundable: 30 });
    expect(await t.dbs.test.prisma.payment.findUniqueOrThrow({ where: { id } })).toMatchObject({
      status: 'partially_refunded',
      amountRefunded: 70,
    });
    expect(await refundEvents(id)).toHaveLength(1);
  });

  it.each([
    ['negative', { amount: -5 }],
    ['zero', { amount: 0 }],
    ['more than the payment', { amount: 101 }],
    ['not an integer', { amount: 10.5 }],
    ['a string', { amount: '10' }],
    ['an unknown field', { amount: 10, reason: 'x' }],
  ])('an amount that is %s is a 400 naming the field, and nothing is refunded', async (_what, payload) => {
    const id = await paidPayment(100);
    const body = expectError(await refund(id, payload), 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(body.error.details)).toMatch(/amount|reason/);
    expect(await t.dbs.test.prisma.payment.findUniqueOrThrow({ where: { id } })).toMatchObject({
      status: 'succeeded',
      amountRefunded: 0,
    });
    expect(await refundEvents(id)).toHaveLength(0);
  });

  it('the database refuses more refunded than paid, whatever the code above it does', async () => {
    const id = await paidPayment(100);
    await expect(t.dbs.test.prisma.payment.update({ where: { id }, data: { amountRefunded: 101 } })).rejects.toThrow(
      /payments_refund_within_amount/,
    );
  });

  it('20 concurrent refunds of 30 on a payment of 100 over real sockets: exactly 3 succeed, the rest 409, 90 refunded', async () => {
    const id = await paidPayment(100);
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (t.app.server.address() as AddressInfo).port;
    expect(address).toContain(String(port));
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`http://127.0.0.1:${port}/api/v1/payments/${id}/refund`, {
          method: 'POST',
          headers: { ...bearer(w.testKey.key), 'content-type': 'application/json' },
          body: JSON.stringify({ amount: 30 }),
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as { error?: { code: string } } })),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 409)).toHaveLength(17);
    expect(new Set(answers.filter((a) => a.status === 409).map((a) => a.body.error!.code))).toEqual(
      new Set(['CONFLICT']),
    );
    expect(await t.dbs.test.prisma.payment.findUniqueOrThrow({ where: { id } })).toMatchObject({
      status: 'partially_refunded',
      amountRefunded: 90,
    });
    const events = await refundEvents(id);
    expect(events.map((e) => e.amountRefunded)).toEqual([30, 60, 90]);
  });

  it('a live payment is refunded in parts at the processor: each refund with its amount, under the key of the total it reaches', async () => {
    const { booking } = await bookThroughUseCase(t.dbs.live.prisma, w.live, { price: 12_000 });
    const created = ok(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/payments',
        headers: bearer(w.liveKey.key),
        payload: { bookingId: booking.id, paymentMethod: 'pm_card_visa' },
      }),
    );
    const payment = await waitFor(
      async () => {
        const p = await t.dbs.live.prisma.payment.findUnique({ where: { id: created._id } });
        return p?.status === 'succeeded' ? p : null;
      },
      { what: 'the live payment to succeed' },
    );
    const liveRefund = (payload?: object) =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/payments/${payment.id}/refund`,
        headers: bearer(w.liveKey.key),
        ...(payload ? { payload } : {}),
      });
    expect(ok(await liveRefund({ amount: 2000 }))).toMatchObject({
      status: 'partially_refunded',
      amountRefunded: 2000,
    });
    // No answer from the processor: 503, and the payment is as it was.
    stripe.failNext(3, 'outage', '/v1/refunds');
    expectError(await liveRefund({ amount: 1000 }), 503, 'SERVICE_UNAVAILABLE');
    expect(await t.dbs.live.prisma.payment.findUniqueOrThrow({ where: { id: payment.id } })).toMatchObject({
      status: 'partially_refunded',
      amountRefunded: 2000,
    });
    expect(ok(await liveRefund())).toMatchObject({ status: 'refunded', amountRefunded: 12_000 });
    const calls = stripe.calls
      .filter((c) => c.path === '/v1/refunds' && c.form.get('payment_intent') === payment.processorRef)
      .map((c) => [c.form.get('amount'), c.headers['idempotency-key']]);
    // The outage's attempts (the client retries) carry the same key, so none could refund twice.
    expect([...new Map(calls.map((c) => [c[1], c])).values()]).toEqual([
      ['2000', `refund-${payment.id}-2000`],
      ['1000', `refund-${payment.id}-3000`],
      ['10000', `refund-${payment.id}-12000`],
    ]);
  });
});
