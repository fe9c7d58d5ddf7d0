// Metadata (docs/api.md, Metadata) through /api/v1 and /graphql: set on create, merged on PATCH
// (a null key removed), the same rule for all six objects, hostile values refused naming the key
// with nothing stored, concurrent patches of different keys all kept (and the 50-key limit
// judged on the merged result under concurrency), the bookings filter, and the event payloads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountWithKeys } from '../helpers/factories.js';
import type { TestApp } from '../helpers/app.js';
import {
  blankCompany,
  createDomainApp,
  expectError,
  futureHour,
  ok,
  post,
  salon,
  tokenWithScopes,
  type World,
} from '../helpers/domain.js';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
});
afterAll(async () => t?.close());

type Auth = Record<string, string>;
const get = async (auth: Auth, url: string) => ok(await t.app.inject({ method: 'GET', url, headers: auth }));
const patchRes = (auth: Auth, url: string, payload: object) =>
  t.app.inject({ method: 'PATCH', url, headers: auth, payload });
const patch = async (auth: Auth, url: string, payload: object) => ok(await patchRes(auth, url, payload));
const gql = async (auth: Auth, query: string, variables: Record<string, unknown> = {}) =>
  (await t.app.inject({ method: 'POST', url: '/graphql', headers: auth, payload: { query, variables } })).json();
const CARD = { number: '4242424242424242', expMonth: 12, expYear: 2040, cvc: '123' };
const keys = (n: number, prefix = 'k') =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, 'v']));

/** A company with one of each object, every one with metadata set on create. */
async function world() {
  const c = await blankCompany(t.dbs, w, { timezone: 'UTC' });
  const { employee, service } = await salon(t.app, c.auth, { metadata: { sku: 'CUT-1' } });
  const staff = await post(t.app, '/api/v1/employees', c.auth, { name: 'Jo', metadata: { payroll: 'P-7' } });
  const customer = await post(t.app, '/api/v1/customers', c.auth, {
    name: 'Ann',
    email: 'ann@example.com',
    metadata: { crm: 'c-1' },
  });
  const booking = await post(t.app, '/api/v1/bookings', c.auth, {
    serviceId: service._id,
    startTime: futureHour(3),
    customerId: customer._id,
    metadata: { orderRef: 'A-17' },
  });
  const payment = await post(t.app, '/api/v1/payments', c.auth, {
    bookingId: booking._id,
    card: CARD,
    metadata: { invoice: 'INV-1' },
  });
  return { c, employee, staff, service, customer, booking, payment };
}

describe('metadata on create and read', () => {
  it('is stored on all six objects and returned by REST and GraphQL; absent means {}', async () => {
    const { c, employee, staff, service, customer, booking, payment } = await world();
    expect(employee.metadata).toEqual({});
    expect(staff.metadata).toEqual({ payroll: 'P-7' });
    expect(service.metadata).toEqual({ sku: 'CUT-1' });
    expect(customer.metadata).toEqual({ crm: 'c-1' });
    expect(booking.metadata).toEqual({ orderRef: 'A-17' });
    expect(payment.metadata).toEqual({ invoice: 'INV-1' });
    expect((await get(c.auth, '/api/v1/me')).metadata).toEqual({});
    expect((await patch(c.auth, '/api/v1/me', { metadata: { tier: 'gold' } })).metadata).toEqual({ tier: 'gold' });
    expect((await get(c.auth, '/api/v1/me')).metadata).toEqual({ tier: 'gold' });
    expect((await get(c.auth, `/api/v1/bookings/${booking._id}`)).metadata).toEqual({ orderRef: 'A-17' });
    const r = await gql(
      c.auth,
      `query($id: ID!) { me { metadata } booking(id: $id) { metadata customer { metadata } service { metadata }
         employee { metadata } payments { nodes { metadata } } } }`,
      { id: booking._id },
    );
    expect(r.errors).toBeUndefined();
    expect(r.data.me.metadata).toEqual({ tier: 'gold' });
    expect(r.data.booking).toEqual({
      metadata: { orderRef: 'A-17' },
      customer: { metadata: { crm: 'c-1' } },
      service: { metadata: { sku: 'CUT-1' } },
      employee: { metadata: {} },
      payments: { nodes: [{ metadata: { invoice: 'INV-1' } }] },
    });
  });

  it('GraphQL takes metadata inline and as a variable, and refuses the same values as REST', async () => {
    const c = await blankCompany(t.dbs, w, { timezone: 'UTC' });
    const inline = await gql(
      c.auth,
      'mutation { createEmployee(input: { name: "A", metadata: { a: "1" } }) { metadata } }',
    );
    expect(inline.data.createEmployee.metadata).toEqual({ a: '1' });
    const bad = await gql(
      c.auth,
      'mutation($m: Metadata) { createEmployee(input: { name: "B", metadata: $m }) { _id } }',
      {
        m: { plan: { nested: true } },
      },
    );
    expect(bad.errors[0].extensions.code).toBe('VALIDATION_ERROR');
    expect(bad.errors[0].extensions.details).toEqual([
      { path: 'metadata.plan', message: 'must be a string, not an object' },
    ]);
    expect(await t.dbs.test.prisma.employee.count({ where: { companyId: c.company.id } })).toBe(1);
  });
});

// Each hostile value, sent where metadata is set whole (create) and where it is merged (PATCH).
const HOSTILE: Array<[string, unknown, string]> = [
  ['too many keys', keys(51), 'metadata'],
  ['a key of 41 characters', { ['k'.repeat(41)]: 'v' }, `metadata.${'k'.repeat(41)}`],
  ['an empty key', { '': 'v' }, 'metadata'],
  ['a value of 501 characters', { note: 'x'.repeat(501) }, 'metadata.note'],
  ['a nested object', { plan: { tier: 'gold' } }, 'metadata.plan'],
  ['an array', { tags: ['a', 'b'] }, 'metadata.tags'],
  ['a number', { count: 3 }, 'metadata.count'],
  ['a boolean', { vip: true }, 'metadata.vip'],
  ['a control character', { note: 'a\u0007b' }, 'metadata.note'],
  ['an array instead of an object', ['a'], 'metadata'],
  ['a string instead of an object', 'plan=pro', 'metadata'],
];

describe('hostile metadata: 400 naming the key, nothing stored', () => {
  it.each(HOSTILE)('on create: %s', async (_name, metadata, path) => {
    const { c, service, customer, booking } = await world();
    const db = t.dbs.test.prisma;
    const counts = async () => ({
      employees: await db.employee.count({ where: { companyId: c.company.id } }),
      services: await db.service.count({ where: { companyId: c.company.id } }),
      customers: await db.customer.count({ where: { companyId: c.company.id } }),
      bookings: await db.booking.count({ where: { companyId: c.company.id } }),
      payments: await db.payment.count({ where: { companyId: c.company.id } }),
      events: await db.event.count({ where: { companyId: c.company.id } }),
    });
    const before = await counts();
    const creates: Array<[string, object]> = [
      ['/api/v1/employees', { name: 'X', metadata }],
      ['/api/v1/services', { name: 'X', durationMinutes: 30, metadata }],
      ['/api/v1/customers', { name: 'X', email: 'x@example.com', metadata }],
      ['/api/v1/bookings', { serviceId: service._id, startTime: futureHour(4), customerId: customer._id, metadata }],
      ['/api/v1/payments', { bookingId: booking._id, card: CARD, metadata }],
    ];
    for (const [url, payload] of creates) {
      const body = expectError(
        await t.app.inject({ method: 'POST', url, headers: c.auth, payload }),
        400,
        'VALIDATION_ERROR',
      );
      expect(
        body.error.details.map((f: { path: string }) => f.path),
        url,
      ).toContain(path);
    }
    expect(await counts()).toEqual(before);
  });

  it.each(HOSTILE)('on PATCH: %s', async (_name, metadata, path) => {
    const { c, staff, service, customer, booking, payment } = await world();
    const urls = [
      '/api/v1/me',
      `/api/v1/employees/${staff._id}`,
      `/api/v1/services/${service._id}`,
      `/api/v1/customers/${customer._id}`,
      `/api/v1/bookings/${booking._id}`,
      `/api/v1/payments/${payment._id}`,
    ];
    const read = async () => Promise.all(urls.map((u) => get(c.auth, u)));
    const before = await read();
    const events = await t.dbs.test.prisma.event.count({ where: { companyId: c.company.id } });
    for (const url of urls) {
      const body = expectError(await patchRes(c.auth, url, { metadata }), 400, 'VALIDATION_ERROR');
      expect(
        body.error.details.map((f: { path: string }) => f.path),
        url,
      ).toContain(path);
    }
    expect(await read()).toEqual(before);
    expect(await t.dbs.test.prisma.event.count({ where: { companyId: c.company.id } })).toBe(events);
  });
});

describe('merge on PATCH', () => {
  it('sets the given keys, removes those set to null, keeps the rest; other fields stay', async () => {
    const { c, booking, payment, customer } = await world();
    const b1 = await patch(c.auth, `/api/v1/bookings/${booking._id}`, { metadata: { a: '1', b: '2' } });
    expect(b1.metadata).toEqual({ orderRef: 'A-17', a: '1', b: '2' });
    const b2 = await patch(c.auth, `/api/v1/bookings/${booking._id}`, {
      notes: 'window seat',
      metadata: { a: null, b: 'two', gone: null },
    });
    expect(b2).toMatchObject({ notes: 'window seat', metadata: { orderRef: 'A-17', b: 'two' }, status: 'confirmed' });
    expect(Object.keys(b2.metadata)).toHaveLength(2);
    const b3 = await patch(c.auth, `/api/v1/bookings/${booking._id}`, { notes: null });
    expect(b3).toMatchObject({ notes: null, metadata: { orderRef: 'A-17', b: 'two' } });
    expect(new Date(b3.updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(booking.updatedAt).getTime());
    const p = await patch(c.auth, `/api/v1/payments/${payment._id}`, { metadata: { invoice: null, ledger: 'L1' } });
    expect(p.metadata).toEqual({ ledger: 'L1' });
    expect(p.amount).toBe(payment.amount);
    const cu = await patch(c.auth, `/api/v1/customers/${customer._id}`, { name: 'Ann B.', metadata: { crm: 'c-2' } });
    expect(cu).toMatchObject({ name: 'Ann B.', metadata: { crm: 'c-2' } });
  });

  it('judges the 50-key limit on the merged result: 49 stored plus 2 new is refused, replacing is fine', async () => {
    const { c, booking } = await world();
    const url = `/api/v1/bookings/${booking._id}`;
    await patch(c.auth, url, { metadata: { orderRef: null, ...keys(49) } });
    const body = expectError(await patchRes(c.auth, url, { metadata: { x: '1', y: '2' } }), 400, 'VALIDATION_ERROR');
    expect(body.error.details).toEqual([
      { path: 'metadata', message: 'must have at most 50 keys: merged with the stored keys it would have 51' },
    ]);
    expect(Object.keys((await get(c.auth, url)).metadata)).toHaveLength(49);
    // 50 removed and 50 set in one patch: a whole replacement.
    const replaced = await patch(c.auth, url, {
      metadata: { ...Object.fromEntries(Object.keys(keys(49)).map((k) => [k, null])), ...keys(50, 'n') },
    });
    expect(replaced.metadata).toEqual(keys(50, 'n'));
  });

  it('GraphQL updateBooking and updatePayment merge the same way', async () => {
    const { c, booking, payment } = await world();
    const r = await gql(
      c.auth,
      `mutation($b: ID!, $p: ID!) {
         updateBooking(id: $b, input: { metadata: { orderRef: null, stage: "2" } }) { metadata }
         updatePayment(id: $p, input: { metadata: { invoice: "INV-2" } }) { metadata } }`,
      { b: booking._id, p: payment._id },
    );
    expect(r.errors).toBeUndefined();
    expect(r.data).toEqual({
      updateBooking: { metadata: { stage: '2' } },
      updatePayment: { metadata: { invoice: 'INV-2' } },
    });
  });

  it('PATCH /bookings needs bookings:write and PATCH /payments payments:write', async () => {
    const { booking, payment } = await world();
    // tokenWithScopes makes a token for the account's own test company; its rows are another's.
    const bookingsOnly = await tokenWithScopes(t.dbs, w, 'bookings:read bookings:write');
    const paymentsRead = await tokenWithScopes(t.dbs, w, 'payments:read bookings:write');
    expectError(
      await patchRes(paymentsRead, `/api/v1/payments/${payment._id}`, { metadata: {} }),
      403,
      'INSUFFICIENT_SCOPE',
    );
    expectError(
      await patchRes(bookingsOnly, `/api/v1/payments/${payment._id}`, { metadata: {} }),
      403,
      'INSUFFICIENT_SCOPE',
    );
    const readOnly = await tokenWithScopes(t.dbs, w, 'bookings:read');
    expectError(await patchRes(readOnly, `/api/v1/bookings/${booking._id}`, { notes: 'x' }), 403, 'INSUFFICIENT_SCOPE');
    // With the scope, another company's booking is simply not found.
    expectError(await patchRes(bookingsOnly, `/api/v1/bookings/${booking._id}`, { notes: 'x' }), 404, 'NOT_FOUND');
  });
});

describe('concurrent patches', () => {
  it('of different keys all stay (the merge is one UPDATE on the row as committed)', async () => {
    const { c, booking, customer } = await world();
    const N = 20;
    const results = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        patchRes(c.auth, i % 2 ? `/api/v1/bookings/${booking._id}` : `/api/v1/customers/${customer._id}`, {
          metadata: { [`key${i}`]: String(i) },
        }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(N).fill(200));
    const b = await get(c.auth, `/api/v1/bookings/${booking._id}`);
    const cu = await get(c.auth, `/api/v1/customers/${customer._id}`);
    const expected = (odd: number) =>
      Object.fromEntries(
        Array.from({ length: N }, (_, i) => i)
          .filter((i) => i % 2 === odd)
          .map((i) => [`key${i}`, String(i)]),
      );
    expect(b.metadata).toEqual({ orderRef: 'A-17', ...expected(1) });
    expect(cu.metadata).toEqual({ crm: 'c-1', ...expected(0) });
  });

  it('at the limit: of 6 patches adding one key each to 47 stored, exactly 3 succeed', async () => {
    const { c, service } = await world();
    const url = `/api/v1/services/${service._id}`;
    await patch(c.auth, url, { metadata: keys(46) }); // 46 + sku = 47
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => patchRes(c.auth, url, { metadata: { [`new${i}`]: 'v' } })),
    );
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes).toEqual([200, 200, 200, 400, 400, 400]);
    expect(Object.keys((await get(c.auth, url)).metadata)).toHaveLength(50);
  });
});

describe('GET /bookings?metadata[key]=value', () => {
  it('returns the bookings whose metadata has that key with that value, in REST and GraphQL', async () => {
    const { c, service, customer, booking } = await world();
    const other = await post(t.app, '/api/v1/bookings', c.auth, {
      serviceId: service._id,
      startTime: futureHour(5),
      customerId: customer._id,
      metadata: { orderRef: 'B-2', 'weird key]': 'x y&z' },
    });
    const list = async (qs: string) => (await get(c.auth, `/api/v1/bookings?${qs}`)).map((b: { _id: string }) => b._id);
    expect(await list('metadata[orderRef]=A-17')).toEqual([booking._id]);
    expect(await list('metadata%5BorderRef%5D=B-2')).toEqual([other._id]);
    expect(await list(`metadata[${encodeURIComponent('weird key]')}]=${encodeURIComponent('x y&z')}`)).toEqual([
      other._id,
    ]);
    expect(await list('metadata[orderRef]=none')).toEqual([]);
    expect(await list('metadata[missing]=A-17')).toEqual([]);
    expect(await list(`metadata[orderRef]=A-17&customerId=${customer._id}&status=confirmed`)).toEqual([booking._id]);
    const two = expectError(
      await t.app.inject({ method: 'GET', url: '/api/v1/bookings?metadata[a]=1&metadata[b]=2', headers: c.auth }),
      400,
      'VALIDATION_ERROR',
    );
    expect(two.error.details).toEqual([{ path: 'metadata', message: 'must name exactly one key' }]);
    const long = expectError(
      await t.app.inject({ method: 'GET', url: `/api/v1/bookings?metadata[${'k'.repeat(41)}]=1`, headers: c.auth }),
      400,
      'VALIDATION_ERROR',
    );
    expect(long.error.details[0].path).toBe(`metadata.${'k'.repeat(41)}`);
    const r = await gql(c.auth, '{ bookings(metadata: { orderRef: "B-2" }) { nodes { _id } } }');
    expect(r.data.bookings.nodes).toEqual([{ _id: other._id }]);
    const nested = await gql(
      c.auth,
      `query($id: ID!) { customer(id: $id) { bookings(metadata: { orderRef: "A-17" }) { nodes { _id } } } }`,
      {
        id: customer._id,
      },
    );
    expect(nested.data.customer.bookings.nodes).toEqual([{ _id: booking._id }]);
  });
});

describe('event payloads carry metadata', () => {
  it('booking.*, customer.*, payment.* and the new booking.updated / payment.updated', async () => {
    const { c, booking, customer, payment } = await world();
    await patch(c.auth, `/api/v1/customers/${customer._id}`, { metadata: { crm: null, seg: 'b2b' } });
    await patch(c.auth, `/api/v1/bookings/${booking._id}`, { notes: 'n', metadata: { stage: 'x' } });
    await patch(c.auth, `/api/v1/payments/${payment._id}`, { metadata: { ledger: 'L1' } });
    await t.app.inject({ method: 'POST', url: `/api/v1/bookings/${booking._id}/cancel`, headers: c.auth });
    const events: Array<{ type: string; data: Record<string, unknown> }> = await get(
      c.auth,
      '/api/v1/events?limit=100',
    );
    const of = (type: string) => events.filter((e) => e.type === type).map((e) => e.data);
    expect(of('customer.created')[0]).toMatchObject({ customerId: customer._id, metadata: { crm: 'c-1' } });
    expect(of('customer.updated')[0]).toMatchObject({ customerId: customer._id, metadata: { seg: 'b2b' } });
    expect(of('booking.created')[0]).toMatchObject({ bookingId: booking._id, metadata: { orderRef: 'A-17' } });
    expect(of('booking.updated')).toEqual([
      {
        bookingId: booking._id,
        customerId: customer._id,
        startTime: booking.startTime,
        endTime: booking.endTime,
        status: 'confirmed',
        serviceId: booking.serviceId,
        employeeId: booking.employeeId,
        metadata: { orderRef: 'A-17', stage: 'x' },
        answers: [],
      },
    ]);
    expect(of('booking.cancelled')[0]).toMatchObject({ metadata: { orderRef: 'A-17', stage: 'x' } });
    expect(of('payment.updated')).toEqual([
      expect.objectContaining({ paymentId: payment._id, metadata: { invoice: 'INV-1', ledger: 'L1' } }),
    ]);
  });
});
