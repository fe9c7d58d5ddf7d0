// A closure that cancels paid bookings (cancelBookings: true) is the business cancelling
// (docs/api.md, Cancellation and deposits): no fee, and what was paid goes back in full, through
// the same refund as any cancel; booking.cancelled says so.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startWorkers, type Workers } from '../../../src/workers/runtime.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { bookThroughUseCase } from '../../helpers/bookings.js';
import { ok } from '../../helpers/domain.js';
import { bearer, createAccountWithKeys } from '../../helpers/factories.js';
import { FAST_WORKERS, waitFor } from '../../helpers/receiver.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let workers: Workers;

beforeAll(async () => {
  t = await createTestApp({ env: { ...FAST_WORKERS, RATE_LIMIT_PER_SECOND: '1000000' } });
  w = await createAccountWithKeys(t.dbs);
  workers = await startWorkers(t.services);
});
afterAll(async () => {
  await workers?.stop();
  await t?.close();
});

const card = { number: '4242424242424242', expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvc: '123' };

it('refunds in full the payments of the bookings it cancels, with no fee', async () => {
  const db = t.dbs.test.prisma;
  const { booking } = await bookThroughUseCase(db, w.test, { price: 6000 });
  const auth = bearer(w.testKey.key);
  const paid = ok(
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/payments',
      headers: auth,
      payload: { bookingId: booking.id, card },
    }),
  );
  await waitFor(async () => (await db.payment.findUnique({ where: { id: paid._id } }))?.status === 'succeeded', {
    what: 'the payment to succeed',
  });

  ok(
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/closures',
      headers: auth,
      payload: {
        startTime: booking.startTime.toISOString(),
        endTime: booking.endTime.toISOString(),
        reason: 'Flooded',
        employeeIds: [booking.employeeId],
        cancelBookings: true,
      },
    }),
  );

  const payment = await db.payment.findUniqueOrThrow({ where: { id: paid._id } });
  expect([payment.status, payment.amountRefunded]).toEqual(['refunded', 6000]);
  const after = await db.booking.findUniqueOrThrow({ where: { id: booking.id } });
  expect([after.status, after.cancelledBy, after.cancellationFee]).toEqual(['cancelled', 'business', 0]);
  const cancelled = await db.event.findFirstOrThrow({ where: { type: 'booking.cancelled', companyId: w.test.id } });
  expect(cancelled.data).toMatchObject({ reason: 'Flooded', cancelledBy: 'business', refundAmount: 6000 });
  const refunded = await db.event.findFirstOrThrow({ where: { type: 'payment.refunded', companyId: w.test.id } });
  expect(refunded.data).toMatchObject({ amount: 6000, amountRefunded: 6000 });
});
