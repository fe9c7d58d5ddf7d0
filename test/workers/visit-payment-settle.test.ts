// A visit paid as one whose items are cancelled while its payment is processing (docs/api.md,
// Payments: paying a visit). The payments worker is run by hand (no worker process), so the
// payment stays processing exactly as long as the test wants: the business cancels an item,
// then settlePayment runs. The other item is confirmed and the cancelled one's share refunded;
// every item cancelled refunds the whole payment; and when earlier refunds left less of the
// payment than the shares add up to, what is left is refunded (capped), not nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobContext } from '../../src/workers/job-types.js';
import { settlePayment } from '../../src/workers/settle-payment.js';
import type { TestApp } from '../helpers/app.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { ALL_DAY, blankCompany, createDomainApp, futureHour, ok, post, type World } from '../helpers/domain.js';

let t: TestApp;
let w: World;
let ctx: JobContext;
beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
  ctx = { services: t.services, enqueue: async () => {}, signal: new AbortController().signal };
});
afterAll(async () => t?.close());

const db = () => t.dbs.test.prisma;
const card = { number: '4242424242424242', expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvc: '123' };
let day = 2;

/** A two-item visit (a cut, 4000; a colour, 2500) with its payment made and still processing. */
async function processingVisit() {
  const s = await blankCompany(t.dbs, w);
  const anna = await post(t.app, '/api/v1/employees', s.auth, { name: 'Anna', workingHours: ALL_DAY });
  const service = (name: string, price: number) =>
    post(t.app, '/api/v1/services', s.auth, {
      name,
      durationMinutes: 30,
      price,
      requiresPayment: true,
      employeeIds: [anna._id],
    });
  const cut = await service('Cut', 4000);
  const colour = await service('Colour', 2500);
  const v = await post(t.app, '/api/v1/visits', s.auth, {
    items: [
      { serviceId: cut._id, employeeId: anna._id },
      { serviceId: colour._id, employeeId: anna._id },
    ],
    startTime: futureHour(day++),
    customer: { name: 'Vera Visit', email: 'vera@example.com' },
  });
  const payment = ok(
    await t.app.inject({ method: 'POST', url: '/api/v1/payments', headers: s.auth, payload: { visitId: v._id, card } }),
  );
  expect(payment).toMatchObject({ status: 'processing', amount: 6500 });
  const cancel = async (bookingId: string) => {
    const res = ok(
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/bookings/${bookingId}/cancel`,
        headers: s.auth,
        payload: { cancelledBy: 'business' },
      }),
    );
    // Nothing is charged yet, so the cancel itself refunds nothing.
    expect(res.status).toBe('cancelled');
  };
  const statuses = async () =>
    (await db().booking.findMany({ where: { visitId: v._id }, orderBy: { startTime: 'asc' } })).map((b) => b.status);
  const refunds = async () =>
    (
      await db().event.findMany({
        where: { companyId: s.company.id, type: 'payment.refunded' },
        orderBy: { id: 'asc' },
      })
    )
      .map((e) => e.data as Record<string, unknown>)
      .map((d) => [d.paymentId, d.amount, d.amountRefunded, d.status]);
  const settle = () => settlePayment(ctx, { mode: 'test', paymentId: payment._id });
  const paymentRow = () => db().payment.findUniqueOrThrow({ where: { id: payment._id } });
  return {
    s,
    v,
    cut: v.bookings[0],
    colour: v.bookings[1],
    paymentId: payment._id as string,
    cancel,
    statuses,
    refunds,
    settle,
    paymentRow,
  };
}

describe('settling a visit payment after items were cancelled while it processed', () => {
  it('confirms the item still standing and refunds the cancelled one its share', async () => {
    const p = await processingVisit();
    await p.cancel(p.colour._id);
    expect(await p.refunds()).toEqual([]);
    expect((await p.paymentRow()).status).toBe('processing');
    await p.settle();
    expect(await p.statuses()).toEqual(['confirmed', 'cancelled']);
    expect(await p.paymentRow()).toMatchObject({ status: 'partially_refunded', amount: 6500, amountRefunded: 2500 });
    expect(await p.refunds()).toEqual([[p.paymentId, 2500, 2500, 'partially_refunded']]);
    // Settling again changes nothing.
    await p.settle();
    expect((await p.paymentRow()).amountRefunded).toBe(2500);
    expect(await p.refunds()).toHaveLength(1);
  });

  it('refunds the whole payment when every item was cancelled before it settled', async () => {
    const p = await processingVisit();
    await p.cancel(p.cut._id);
    await p.cancel(p.colour._id);
    await p.settle();
    expect(await p.statuses()).toEqual(['cancelled', 'cancelled']);
    expect(await p.paymentRow()).toMatchObject({ status: 'refunded', amountRefunded: 6500 });
    expect(await p.refunds()).toEqual([[p.paymentId, 6500, 6500, 'refunded']]);
  });

  it('refunds what is left, capped, when earlier refunds left less than the shares add up to', async () => {
    const p = await processingVisit();
    await p.cancel(p.colour._id);
    // 5000 of the charge refunded already (moved by hand: a refund that reached the charge
    // before the worker's own), so 1500 is left though the colour's share is 2500.
    await db().payment.update({ where: { id: p.paymentId }, data: { amountRefunded: 5000 } });
    await p.settle();
    expect(await p.statuses()).toEqual(['confirmed', 'cancelled']);
    expect(await p.paymentRow()).toMatchObject({ status: 'refunded', amountRefunded: 6500 });
    expect(await p.refunds()).toEqual([[p.paymentId, 1500, 6500, 'refunded']]);
  });
});
