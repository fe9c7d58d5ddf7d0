// GraphQL as a graph (docs/graphql.md): every reference has its object beside its id, every list
// is a connection (first/after, last/before, filters, orderBy, totalCount), `viewer { company }`
// is the root of what the credential sees, and a relation the token may not read is null with
// INSUFFICIENT_SCOPE in errors[] while the rest of the query resolves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { createAccountWithKeys, scopedToken, bearer } from '../helpers/factories.js';
import { ALL_DAY, blankCompany, createDomainApp, post, type World } from '../helpers/domain.js';
import { newId } from '../../src/ids.js';

let t: TestApp;
let w: World;
let c: Awaited<ReturnType<typeof blankCompany>>;
let staff: Array<{ _id: string; name: string }>;
let service: { _id: string };
let bookings: Array<{ _id: string; customerId: string; employeeId: string; startTime: string }>;
const day = new Date(Date.now() + 5 * 86_400_000);
day.setUTCHours(0, 0, 0, 0);
const from = day.toISOString();
const to = new Date(day.getTime() + 86_400_000).toISOString();

type Body = {
  data: Record<string, any> | null;
  errors?: Array<{ message: string; path?: unknown[]; extensions: any }>;
};
const gql = async (query: string, variables: Record<string, unknown> = {}, headers = c.auth): Promise<Body> =>
  (await t.app.inject({ method: 'POST', url: '/graphql', headers, payload: { query, variables } })).json();

beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
  c = await blankCompany(t.dbs, w);
  staff = [];
  for (const name of ['Ada', 'Ben', 'Cy'])
    staff.push(await post(t.app, '/api/v1/employees', c.auth, { name, workingHours: ALL_DAY }));
  service = await post(t.app, '/api/v1/services', c.auth, {
    name: 'Cut',
    durationMinutes: 60,
    price: 4500,
    employeeIds: staff.map((s) => s._id),
  });
  bookings = [];
  for (let i = 0; i < 9; i++) {
    bookings.push(
      await post(t.app, '/api/v1/bookings', c.auth, {
        serviceId: service._id,
        employeeId: staff[i % 3]!._id,
        startTime: new Date(day.getTime() + (8 + Math.floor(i / 3)) * 3_600_000).toISOString(),
        customer: { name: `Customer ${i}`, email: `c${i}@example.com` },
      }),
    );
  }
  await post(t.app, '/api/v1/payments', c.auth, {
    bookingId: bookings[0]!._id,
    card: { number: '4242424242424242', expMonth: 12, expYear: 2040, cvc: '123' },
  });
});
afterAll(async () => t?.close());

const AGENDA = `query($from: DateTime, $to: DateTime, $first: Int, $after: String) {
  bookings(from: $from, to: $to, orderBy: START_TIME, first: $first, after: $after) {
    totalCount
    pageInfo { hasNextPage hasPreviousPage endCursor }
    nodes {
      _id startTime status customerId serviceId employeeId
      customer { _id name email }
      service { _id name priceMoney { amount currency } }
      employee { _id name }
      payments { totalCount nodes { status amountMoney { amount currency } } }
    }
  }
}`;

describe('relations', () => {
  it('puts every referenced object beside its id, with the payments of each booking', async () => {
    const body = await gql(AGENDA, { from, to, first: 9 });
    expect(body.errors).toBeUndefined();
    const page = body.data!.bookings;
    expect(page.totalCount).toBe(9);
    expect(page.nodes).toHaveLength(9);
    for (const b of page.nodes) {
      expect(b.customer._id).toBe(b.customerId);
      expect(b.service._id).toBe(b.serviceId);
      expect(b.employee._id).toBe(b.employeeId);
      expect(b.service.priceMoney).toEqual({ amount: 4500, currency: 'EUR' });
    }
    const starts = page.nodes.map((b: { startTime: string }) => b.startTime);
    expect(starts).toEqual([...starts].sort());
    const paid = page.nodes.find((b: { _id: string }) => b._id === bookings[0]!._id);
    expect(paid.customer).toMatchObject({ name: 'Customer 0', email: 'c0@example.com' });
    expect(paid.payments).toEqual({
      totalCount: 1,
      nodes: [{ status: 'processing', amountMoney: { amount: 4500, currency: 'EUR' } }],
    });
  });

  it('walks a connection forward with first/after and back with last/before', async () => {
    const first = (await gql(AGENDA, { from, to, first: 4 })).data!.bookings;
    expect(first.nodes).toHaveLength(4);
    expect(first.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const second = (await gql(AGENDA, { from, to, first: 4, after: first.pageInfo.endCursor })).data!.bookings;
    const third = (await gql(AGENDA, { from, to, first: 4, after: second.pageInfo.endCursor })).data!.bookings;
    expect(third.pageInfo.hasNextPage).toBe(false);
    const all = [...first.nodes, ...second.nodes, ...third.nodes].map((b: { _id: string }) => b._id);
    expect(new Set(all).size).toBe(9);
    const back = await gql(
      `query($before: String) { bookings(from: "${from}", to: "${to}", orderBy: START_TIME, last: 4, before: $before) { nodes { _id } pageInfo { hasPreviousPage hasNextPage } } }`,
      { before: third.nodes[0]._id ? third.pageInfo.endCursor : null },
    );
    expect(back.data!.bookings.nodes.map((b: { _id: string }) => b._id)).toEqual(all.slice(4, 8));
    expect(back.data!.bookings.pageInfo).toEqual({ hasPreviousPage: true, hasNextPage: true });
  });

  it('filters a connection as REST filters its list, and refuses a bad page size by name', async () => {
    const body = await gql(
      `{ bookings(employeeId: "${staff[1]!._id}", status: confirmed) { totalCount nodes { employeeId } } }`,
    );
    expect(body.data!.bookings.totalCount).toBe(3);
    const bad = await gql('{ bookings(first: 101) { nodes { _id } } }');
    expect(bad.errors![0]!.extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'first' }] });
    const forged = await gql('{ bookings(after: "nope") { nodes { _id } } }');
    expect(forged.errors![0]!.extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'after' }] });
  });

  it('roots everything at viewer { company }: staff with their bookings of the day, services with their staff', async () => {
    const body = await gql(
      `query($from: DateTime, $to: DateTime) { viewer { mode company { _id name
        employees(orderBy: NAME) { totalCount nodes { name services { nodes { _id } }
          bookings(from: $from, to: $to, orderBy: START_TIME) { totalCount nodes { customer { name } } } } }
        services { nodes { name employees { totalCount nodes { name } } } }
        customers(email: "c4@example.com") { nodes { name bookings { nodes { _id } } payments { totalCount } } } } } }`,
      { from, to },
    );
    expect(body.errors).toBeUndefined();
    const company = body.data!.viewer.company;
    expect(body.data!.viewer.mode).toBe('test');
    expect(company._id).toBe(c.company.id);
    expect(company.employees.nodes.map((e: { name: string }) => e.name)).toEqual(['Ada', 'Ben', 'Cy']);
    for (const e of company.employees.nodes) {
      expect(e.bookings.totalCount).toBe(3);
      expect(e.services.nodes).toEqual([{ _id: service._id }]);
    }
    expect(company.employees.nodes[0].bookings.nodes.map((b: any) => b.customer.name)).toEqual([
      'Customer 0',
      'Customer 3',
      'Customer 6',
    ]);
    expect(company.services.nodes[0].employees.totalCount ?? company.services.nodes[0].employees.nodes.length).toBe(3);
    expect(company.customers.nodes).toEqual([
      { name: 'Customer 4', bookings: { nodes: [{ _id: bookings[4]!._id }] }, payments: { totalCount: 0 } },
    ]);
  });
});

describe('webhook deliveries', () => {
  it("pages a delivery's attempts as a connection, oldest first, the same records as the attempts list", async () => {
    const endpoint = await post(t.app, '/api/v1/webhook-endpoints', c.auth, {
      url: 'https://hooks.example.com/in',
      events: ['*'],
    });
    const p = t.dbs.test.prisma;
    const event = await p.event.findFirstOrThrow({ where: { companyId: c.company.id } });
    const deliveryId = newId();
    await p.webhookDelivery.create({
      data: {
        id: deliveryId,
        companyId: c.company.id,
        endpointId: endpoint._id,
        eventId: event.id,
        status: 'pending',
        attemptCount: 3,
      },
    });
    const attemptIds: string[] = [];
    for (const statusCode of [500, 502, 503]) {
      const a = await p.webhookAttempt.create({
        data: { id: newId(), companyId: c.company.id, deliveryId, statusCode, durationMs: 10 },
      });
      attemptIds.push(a.id);
    }
    const query = `query($id: ID!, $after: String, $order: ListOrder) { webhookDeliveries(endpointId: $id) { nodes {
      _id attempts { _id }
      attemptsConnection(first: 2, after: $after, orderBy: $order) {
        totalCount pageInfo { hasNextPage endCursor } nodes { _id statusCode }
      }
    } } }`;
    const first = await gql(query, { id: endpoint._id });
    expect(first.errors).toBeUndefined();
    const d = first.data!.webhookDeliveries.nodes[0];
    expect(d.attempts.map((a: { _id: string }) => a._id)).toEqual(attemptIds);
    expect(d.attemptsConnection.totalCount).toBe(3);
    expect(d.attemptsConnection.nodes.map((a: { statusCode: number }) => a.statusCode)).toEqual([500, 502]);
    expect(d.attemptsConnection.pageInfo.hasNextPage).toBe(true);
    const second = await gql(query, { id: endpoint._id, after: d.attemptsConnection.pageInfo.endCursor });
    const rest = second.data!.webhookDeliveries.nodes[0].attemptsConnection;
    expect(rest.nodes.map((a: { _id: string }) => a._id)).toEqual([attemptIds[2]]);
    expect(rest.pageInfo.hasNextPage).toBe(false);
    const newest = await gql(query, { id: endpoint._id, order: 'NEWEST_FIRST' });
    expect(newest.data!.webhookDeliveries.nodes[0].attemptsConnection.nodes.map((a: { _id: string }) => a._id)).toEqual(
      [attemptIds[2], attemptIds[1]],
    );
  });
});

describe('scopes per field', () => {
  it('a bookings:read token reads bookings; their customer and payments are null with INSUFFICIENT_SCOPE', async () => {
    const headers = bearer(
      await scopedToken(t.dbs, {
        accountId: w.account.id,
        companyId: c.company.id,
        mode: 'test',
        scope: 'bookings:read',
      }),
    );
    const body = await gql(
      `{ bookings(first: 2, orderBy: START_TIME) { nodes { _id status customer { name } payments { totalCount } } } }`,
      {},
      headers,
    );
    const nodes = body.data!.bookings.nodes;
    expect(nodes).toHaveLength(2);
    for (const n of nodes) {
      expect(n._id).toMatch(/^[0-9a-f]{24}$/);
      expect(n.customer).toBeNull();
      expect(n.payments).toBeNull();
    }
    const required = body.errors!.map((e) => [e.extensions.code, e.extensions.details.requiredScope, e.path!.at(-1)]);
    expect(required).toEqual(
      expect.arrayContaining([
        ['INSUFFICIENT_SCOPE', 'customers:read', 'customer'],
        ['INSUFFICIENT_SCOPE', 'payments:read', 'payments'],
      ]),
    );
    expect(body.errors).toHaveLength(4);
  });
});
