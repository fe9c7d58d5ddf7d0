// The GraphQL scopes of a visit paid as one (docs/graphql.md, scopes per field): Visit.payments needs
// payments:read and Payment.visit needs bookings:read. A token without the field's scope gets the
// rest of the query, the field null and INSUFFICIENT_SCOPE naming the scope at the field's path,
// and nothing of what the field would show; with the scope, the data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { bearer, createAccountWithKeys, scopedToken } from '../helpers/factories.js';
import { ALL_DAY, blankCompany, createDomainApp, futureHour, post, type World } from '../helpers/domain.js';
import { newId } from '../../src/ids.js';

let t: TestApp;
let w: World;
let s: Awaited<ReturnType<typeof blankCompany>>;
let visitId: string;
let paymentId: string;
let itemIds: string[];

beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
  s = await blankCompany(t.dbs, w);
  const anna = await post(t.app, '/api/v1/employees', s.auth, { name: 'Anna', workingHours: ALL_DAY });
  const service = (name: string, price: number) =>
    post(t.app, '/api/v1/services', s.auth, { name, durationMinutes: 30, price, employeeIds: [anna._id] });
  const cut = await service('Cut', 4000);
  const colour = await service('Colour', 2500);
  const v = await post(t.app, '/api/v1/visits', s.auth, {
    items: [
      { serviceId: cut._id, employeeId: anna._id },
      { serviceId: colour._id, employeeId: anna._id },
    ],
    startTime: futureHour(4),
    customer: { name: 'Vera Secret', email: 'vera.secret@example.com' },
  });
  visitId = v._id;
  itemIds = v.bookings.map((b: { _id: string }) => b._id);
  paymentId = (
    await t.dbs.test.prisma.payment.create({
      data: { id: newId(), companyId: s.company.id, visitId, amount: 6500, currency: 'EUR', status: 'succeeded' },
    })
  ).id;
});
afterAll(async () => t?.close());

const token = async (scope: string) =>
  bearer(await scopedToken(t.dbs, { accountId: w.account.id, companyId: s.company.id, mode: 'test', scope }));

async function gql(scope: string, query: string, variables: Record<string, unknown>) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/graphql',
    headers: await token(scope),
    payload: { query, variables },
  });
  expect(res.statusCode).toBe(200);
  return res.json<{ data: any; errors?: Array<{ path?: unknown[]; extensions: any }> }>();
}

const refusals = (body: { errors?: Array<{ path?: unknown[]; extensions: any }> }) =>
  (body.errors ?? []).map((e) => [e.extensions.code, e.extensions.details, e.path]);

const VISIT = `query($id: ID!) { visit(id: $id) { _id payments { totalCount edges { node { _id amount visitId } } } } }`;
const PAYMENT = `query($id: ID!) { payment(id: $id) { _id amount visitId visit { _id customerId bookings { _id } } } }`;

describe('Visit.payments needs payments:read', () => {
  it('a bookings:read token gets the visit, payments null with INSUFFICIENT_SCOPE, and no payment', async () => {
    const body = await gql('bookings:read', VISIT, { id: visitId });
    expect(body.data).toEqual({ visit: { _id: visitId, payments: null } });
    expect(refusals(body)).toEqual([['INSUFFICIENT_SCOPE', { requiredScope: 'payments:read' }, ['visit', 'payments']]]);
    expect(JSON.stringify(body)).not.toContain(paymentId);
    expect(JSON.stringify(body)).not.toContain('6500');
  });

  it('a bookings:read payments:read token gets the payment', async () => {
    const body = await gql('bookings:read payments:read', VISIT, { id: visitId });
    expect(body.errors).toBeUndefined();
    expect(body.data.visit.payments).toEqual({
      totalCount: 1,
      edges: [{ node: { _id: paymentId, amount: 6500, visitId } }],
    });
  });
});

describe('Payment.visit needs bookings:read', () => {
  it('a payments:read token gets the payment, visit null with INSUFFICIENT_SCOPE, and none of the visit', async () => {
    const body = await gql('payments:read', PAYMENT, { id: paymentId });
    // visitId is the payment's own field (as bookingId is); the visit itself is not shown.
    expect(body.data).toEqual({ payment: { _id: paymentId, amount: 6500, visitId, visit: null } });
    expect(refusals(body)).toEqual([['INSUFFICIENT_SCOPE', { requiredScope: 'bookings:read' }, ['payment', 'visit']]]);
    const text = JSON.stringify(body);
    for (const id of itemIds) expect(text).not.toContain(id);
    expect(text).not.toContain('customerId');
  });

  it('a payments:read bookings:read token gets the visit and its items', async () => {
    const body = await gql('payments:read bookings:read', PAYMENT, { id: paymentId });
    expect(body.errors).toBeUndefined();
    expect(body.data.payment.visit).toEqual({
      _id: visitId,
      customerId: expect.stringMatching(/^[0-9a-f]{24}$/),
      bookings: itemIds.map((_id) => ({ _id })),
    });
  });

  it('neither scope for the object itself: the visit query refuses a payments:read token whole', async () => {
    const body = await gql('payments:read', VISIT, { id: visitId });
    expect(body.data).toBeNull();
    expect(refusals(body)).toEqual([['INSUFFICIENT_SCOPE', { requiredScope: 'bookings:read' }, ['visit']]]);
    expect(JSON.stringify(body)).not.toContain(paymentId);
  });
});
