// A visit paid as one (docs/api.md, Payments: paying a visit): POST /payments { visitId } for the
// sum of the items' prices, settled by the real payments worker (every pending item confirmed,
// one receipt naming each item), its failure, a partial refund, a business cancel of one item
// refunding its share, hostile inputs named with nothing written, the rules between a visit's
// payment and its items' own payments, and concurrent payments of one visit: exactly one made.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkers, type Workers } from '../../../src/workers/runtime.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { createAccountWithKeys } from '../../helpers/factories.js';
import { FAST_WORKERS, waitFor } from '../../helpers/receiver.js';
import {
  ALL_DAY,
  blankCompany,
  expectError,
  futureHour,
  ok,
  post,
  tokenWithScopes,
  type World,
} from '../../helpers/domain.js';

let t: TestApp;
let w: World;
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

const db = () => t.dbs.test.prisma;
const year = new Date().getUTCFullYear() + 2;
const card = { number: '4242424242424242', expMonth: 12, expYear: year, cvc: '123' };
const declined = { ...card, number: '4000000000000002' };
let day = 2;

/** A company with a cut (4000) and a colour (2500) that need payment, and a two-item visit of them. */
async function paidVisitWorld() {
  const c = await blankCompany(t.dbs, w);
  const anna = await post(t.app, '/api/v1/employees', c.auth, { name: 'Anna', workingHours: ALL_DAY });
  const ben = await post(t.app, '/api/v1/employees', c.auth, { name: 'Ben', workingHours: ALL_DAY });
  const service = (name: string, price: number, durationMinutes: number) =>
    post(t.app, '/api/v1/services', c.auth, {
      name,
      durationMinutes,
      price,
      requiresPayment: true,
      employeeIds: [anna._id, ben._id],
    });
  const cut = await service('Cut', 4000, 60);
  const colour = await service('Colour', 2500, 30);
  const visit = (customerEmail = 'vera@example.com') =>
    post(t.app, '/api/v1/visits', c.auth, {
      items: [
        { serviceId: cut._id, employeeId: anna._id },
        { serviceId: colour._id, employeeId: ben._id },
      ],
      startTime: futureHour(day++),
      customer: { name: 'Vera Visit', email: customerEmail },
    });
  return { ...c, anna, ben, cut, colour, visit };
}

const pay = (auth: Record<string, string>, payload: object) =>
  t.app.inject({ method: 'POST', url: '/api/v1/payments', headers: auth, payload });

const settled = (id: string) =>
  waitFor(
    async () => {
      const p = await db().payment.findUnique({ where: { id } });
      return p && p.status !== 'processing' ? p : null;
    },
    { what: 'the payment to settle' },
  );

const itemStatuses = async (visitId: string) =>
  (await db().booking.findMany({ where: { visitId }, orderBy: { startTime: 'asc' } })).map((b) => b.status);

const eventsOf = async (companyId: string, type: string) =>
  (await db().event.findMany({ where: { companyId, type }, orderBy: { id: 'asc' } })).map(
    (e) => e.data as Record<string, unknown>,
  );

describe('paying a visit as one', () => {
  it('charges the sum of the items; success confirms both, with events and one receipt naming each item', async () => {
    const s = await paidVisitWorld();
    const v = await s.visit();
    expect(v.bookings.map((b: any) => b.status)).toEqual(['pending', 'pending']);
    const created = ok(await pay(s.auth, { visitId: v._id, card, metadata: { till: '3' } }));
    expect(created).toMatchObject({
      visitId: v._id,
      bookingId: null,
      amount: 6500,
      currency: 'EUR',
      kind: 'full',
      status: 'processing',
      amountRefunded: 0,
      metadata: { till: '3' },
    });
    const p = await settled(created._id);
    expect(p.status).toBe('succeeded');
    expect(await itemStatuses(v._id)).toEqual(['confirmed', 'confirmed']);
    const [succeeded] = await eventsOf(s.company.id, 'payment.succeeded');
    expect(succeeded).toEqual({
      paymentId: created._id,
      visitId: v._id,
      amount: 6500,
      currency: 'EUR',
      status: 'succeeded',
      kind: 'full',
      amountRefunded: 0,
      metadata: { till: '3' },
    });
    const confirmed = await eventsOf(s.company.id, 'booking.confirmed');
    expect(confirmed.map((d) => d.bookingId).sort()).toEqual(v.bookings.map((b: any) => b._id).sort());
    const receipt = await waitFor(
      () => db().email.findFirst({ where: { companyId: s.company.id, kind: 'payment_receipt' } }),
      { what: 'the receipt' },
    );
    expect(receipt.text).toContain('Amount: €65.00');
    expect(receipt.text).toMatch(/- Cut with Anna, .*: €40\.00/);
    expect(receipt.text).toMatch(/- Colour with Ben, .*: €25\.00/);
    // The visit's payment is listed by visitId, in REST and in GraphQL (Visit.payments).
    const listed = ok(await t.app.inject({ method: 'GET', url: `/api/v1/payments?visitId=${v._id}`, headers: s.auth }));
    expect(listed.map((x: any) => x._id)).toEqual([created._id]);
    const gql = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: s.auth,
      payload: {
        query: `query($id: ID!) { visit(id: $id) { payments { edges { node { _id visitId bookingId } } } } }`,
        variables: { id: v._id },
      },
    });
    expect(gql.json().data.visit.payments.edges).toEqual([
      { node: { _id: created._id, visitId: v._id, bookingId: null } },
    ]);
    // Paid: a second payment of the visit, or one of its items alone, is 409 CONFLICT.
    expect(expectError(await pay(s.auth, { visitId: v._id, card }), 409, 'CONFLICT').error.details).toEqual({
      visitId: v._id,
    });
    const item = expectError(await pay(s.auth, { bookingId: v.bookings[0]._id, card }), 409, 'CONFLICT');
    expect(item.error.details).toEqual({ bookingId: v.bookings[0]._id, visitId: v._id, paymentId: created._id });
  });

  it('a declined card fails the payment, leaves the items pending, and the visit can be paid again', async () => {
    const s = await paidVisitWorld();
    const v = await s.visit();
    const created = ok(await pay(s.auth, { visitId: v._id, card: declined }));
    const p = await settled(created._id);
    expect(p).toMatchObject({ status: 'failed', failureCode: 'card_declined' });
    expect(await itemStatuses(v._id)).toEqual(['pending', 'pending']);
    const [failed] = await eventsOf(s.company.id, 'payment.failed');
    expect(failed).toMatchObject({ paymentId: created._id, visitId: v._id, failureCode: 'card_declined' });
    expect(failed).not.toHaveProperty('bookingId');
    const again = ok(await pay(s.auth, { visitId: v._id, card }));
    expect((await settled(again._id)).status).toBe('succeeded');
    expect(await itemStatuses(v._id)).toEqual(['confirmed', 'confirmed']);
  });

  it('refunds part of a visit payment; a business cancel of one item refunds its share', async () => {
    const s = await paidVisitWorld();
    const v = await s.visit();
    const created = ok(await pay(s.auth, { visitId: v._id, card }));
    await settled(created._id);
    const partial = ok(
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/payments/${created._id}/refund`,
        headers: s.auth,
        payload: { amount: 500 },
      }),
    );
    expect(partial).toMatchObject({ status: 'partially_refunded', amountRefunded: 500, visitId: v._id });
    // The colour (2500) is cancelled by the business: its share goes back, the cut stays paid.
    const colour = v.bookings[1];
    ok(
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/bookings/${colour._id}/cancel`,
        headers: s.auth,
        payload: { cancelledBy: 'business' },
      }),
    );
    const after = await db().payment.findUniqueOrThrow({ where: { id: created._id } });
    expect(after).toMatchObject({ status: 'partially_refunded', amountRefunded: 3000 });
    expect(await itemStatuses(v._id)).toEqual(['confirmed', 'cancelled']);
    const refunds = await eventsOf(s.company.id, 'payment.refunded');
    expect(refunds.map((r) => [r.visitId, r.amount, r.amountRefunded])).toEqual([
      [v._id, 500, 500],
      [v._id, 2500, 3000],
    ]);
    const [cancelled] = await eventsOf(s.company.id, 'booking.cancelled');
    expect(cancelled).toMatchObject({ bookingId: colour._id, visitId: v._id, refundAmount: 2500 });
    // Cancelling the rest of the visit gives back what is left of the cut's share.
    ok(
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/visits/${v._id}/cancel`,
        headers: s.auth,
        payload: {},
      }),
    );
    expect(await db().payment.findUniqueOrThrow({ where: { id: created._id } })).toMatchObject({
      status: 'refunded',
      amountRefunded: 6500,
    });
  });

  it("a customer cancel of one item keeps the policy's fee from its share and refunds the rest", async () => {
    const s = await paidVisitWorld();
    // Free until 30 days before: the visit (days ahead) is past it, so the 20% fee applies.
    ok(
      await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/services/${s.colour._id}`,
        headers: s.auth,
        payload: { cancellationPolicy: { freeUntilMinutesBefore: 43_200, lateFee: { percent: 20 } } },
      }),
    );
    const v = await s.visit();
    const created = ok(await pay(s.auth, { visitId: v._id, card }));
    await settled(created._id);
    const colour = v.bookings[1];
    const quote = ok(
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/bookings/${colour._id}/cancellation-quote?cancelledBy=customer`,
        headers: s.auth,
      }),
    );
    expect(quote).toMatchObject({ fee: 500, refundAmount: 2000, allowed: true });
    const cancelled = ok(
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/bookings/${colour._id}/cancel`,
        headers: s.auth,
        payload: { cancelledBy: 'customer' },
      }),
    );
    expect(cancelled).toMatchObject({ status: 'cancelled', cancelledBy: 'customer', cancellationFee: 500 });
    expect(await db().payment.findUniqueOrThrow({ where: { id: created._id } })).toMatchObject({
      status: 'partially_refunded',
      amountRefunded: 2000,
    });
    expect(await itemStatuses(v._id)).toEqual(['confirmed', 'cancelled']);
  });

  it('refuses both ids, neither, unknown, other company and cancelled visits, naming the field; nothing written', async () => {
    const s = await paidVisitWorld();
    const v = await s.visit();
    const other = await paidVisitWorld();
    const theirs = await other.visit('them@example.com');
    const gone = await s.visit('gone@example.com');
    ok(await t.app.inject({ method: 'POST', url: `/api/v1/visits/${gone._id}/cancel`, headers: s.auth, payload: {} }));
    const before = await db().payment.count();
    const both = expectError(
      await pay(s.auth, { visitId: v._id, bookingId: v.bookings[0]._id, card }),
      400,
      'VALIDATION_ERROR',
    );
    expect(both.error.details).toEqual([{ path: 'visitId', message: expect.stringContaining('exactly one') }]);
    const neither = expectError(await pay(s.auth, { card }), 400, 'VALIDATION_ERROR');
    expect(neither.error.details).toEqual([{ path: 'bookingId', message: expect.stringContaining('exactly one') }]);
    const shape = expectError(await pay(s.auth, { visitId: 'nope', card }), 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(shape.error.details)).toContain('visitId');
    const unknown = expectError(await pay(s.auth, { visitId: '0123456789abcdef01234567', card }), 404, 'NOT_FOUND');
    expect(unknown.error.details).toEqual([{ path: 'visitId', message: 'no such visit' }]);
    const foreign = expectError(await pay(s.auth, { visitId: theirs._id, card }), 404, 'NOT_FOUND');
    expect(foreign.error.details).toEqual([{ path: 'visitId', message: 'no such visit' }]);
    const cancelled = expectError(await pay(s.auth, { visitId: gone._id, card }), 409, 'INVALID_STATE_TRANSITION');
    expect(cancelled.error.details).toEqual({ from: 'cancelled', to: 'paid', visitId: gone._id });
    expect(await db().payment.count()).toBe(before);
    // Scopes: payments:write is needed; bookings:write alone is not enough.
    const noScope = await tokenWithScopes(t.dbs, w, 'bookings:write payments:read');
    const refused = expectError(await pay(noScope, { visitId: v._id, card }), 403, 'INSUFFICIENT_SCOPE');
    expect(refused.error.details).toEqual({ requiredScope: 'payments:write' });
    expect(await db().payment.count()).toBe(before);
  });

  it('a visit with an item paid alone cannot be paid as a whole (409, nothing written)', async () => {
    const s = await paidVisitWorld();
    const v = await s.visit();
    const own = ok(await pay(s.auth, { bookingId: v.bookings[0]._id, card }));
    const res = expectError(await pay(s.auth, { visitId: v._id, card }), 409, 'CONFLICT');
    expect(res.error.details).toEqual({ visitId: v._id, bookingId: v.bookings[0]._id, paymentId: own._id });
    expect(await db().payment.count({ where: { visitId: v._id } })).toBe(0);
  });

  it('concurrent payments of one visit over real sockets: exactly one is made, the rest 409', async () => {
    const s = await paidVisitWorld();
    const v = await s.visit();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        fetch(`http://127.0.0.1:${port}/api/v1/payments`, {
          method: 'POST',
          headers: { ...s.auth, 'content-type': 'application/json' },
          body: JSON.stringify({ visitId: v._id, card }),
        }).then(async (r) => ({ status: r.status, body: await r.json() })),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    expect(new Set(answers.filter((a) => a.status === 409).map((a) => a.body.error.code))).toEqual(
      new Set(['CONFLICT']),
    );
    expect(await db().payment.count({ where: { visitId: v._id } })).toBe(1);
  });
});
