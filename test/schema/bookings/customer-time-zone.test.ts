// customerTimeZone on bookings: an optional IANA time zone of the customer, accepted by
// POST /bookings and GraphQL createBooking, stored, and returned on every booking over both
// transports. It is also the proof of ARCHITECTURE.md "Adding a field": declared once per layer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { createAccountWithKeys } from '../../helpers/factories.js';
import {
  blankCompany,
  createDomainApp,
  expectError,
  futureHour,
  ok,
  post,
  salon,
  type World,
} from '../../helpers/domain.js';

let t: TestApp;
let w: World;
let c: Awaited<ReturnType<typeof blankCompany>>;
let service: { _id: string };
let day = 2;

beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
  c = await blankCompany(t.dbs, w);
  service = (await salon(t.app, c.auth)).service;
});
afterAll(async () => t?.close());

const newBooking = (extra: Record<string, unknown> = {}) => ({
  serviceId: service._id,
  startTime: futureHour(day++),
  customer: { name: 'Ann', email: 'ann@example.com' },
  ...extra,
});
const bookingCount = () => t.dbs.test.prisma.booking.count({ where: { companyId: c.company.id } });
const gql = (query: string, variables: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/graphql', headers: c.auth, payload: { query, variables } });

describe('customerTimeZone', () => {
  it('REST: stored as given and returned by create, get and list; null when not given', async () => {
    const b = await post(t.app, '/api/v1/bookings', c.auth, newBooking({ customerTimeZone: 'America/New_York' }));
    expect(b.customerTimeZone).toBe('America/New_York');
    expect((await t.dbs.test.prisma.booking.findUniqueOrThrow({ where: { id: b._id } })).customerTimeZone).toBe(
      'America/New_York',
    );
    expect(
      ok(await t.app.inject({ method: 'GET', url: `/api/v1/bookings/${b._id}`, headers: c.auth })).customerTimeZone,
    ).toBe('America/New_York');
    const list = ok(await t.app.inject({ method: 'GET', url: '/api/v1/bookings?limit=100', headers: c.auth }));
    expect(list.find((x: { _id: string }) => x._id === b._id).customerTimeZone).toBe('America/New_York');

    const plain = await post(t.app, '/api/v1/bookings', c.auth, newBooking());
    expect(plain.customerTimeZone).toBeNull();
    expect(
      ok(await t.app.inject({ method: 'POST', url: `/api/v1/bookings/${plain._id}/cancel`, headers: c.auth }))
        .customerTimeZone,
    ).toBeNull();
  });

  it('GraphQL: createBooking accepts it, booking returns it', async () => {
    const created = await gql(
      'mutation($input: CreateBookingInput!) { createBooking(input: $input) { _id customerTimeZone } }',
      { input: newBooking({ customerTimeZone: 'Asia/Kolkata' }) },
    );
    expect(created.statusCode).toBe(200);
    const { _id, customerTimeZone } = created.json().data.createBooking;
    expect(customerTimeZone).toBe('Asia/Kolkata');
    const read = await gql('query($id: ID!) { booking(id: $id) { customerTimeZone } }', { id: _id });
    expect(read.json().data.booking).toEqual({ customerTimeZone: 'Asia/Kolkata' });
  });

  it('an unknown zone is a 400 VALIDATION_ERROR naming the field over REST and GraphQL, and books nothing', async () => {
    const before = await bookingCount();
    for (const zone of ['Mars/Olympus_Mons', 'EST5EDT-not-a-zone', 'x'.repeat(65)]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/bookings',
        headers: c.auth,
        payload: newBooking({ customerTimeZone: zone }),
      });
      const body = expectError(res, 400, 'VALIDATION_ERROR');
      expect(body.error.details.length).toBeGreaterThan(0);
      for (const d of body.error.details) expect(d.path).toBe('customerTimeZone');
    }
    const res = await gql('mutation($input: CreateBookingInput!) { createBooking(input: $input) { _id } }', {
      input: newBooking({ customerTimeZone: 'Mars/Olympus_Mons' }),
    });
    const [error] = res.json().errors;
    expect(error.extensions.code).toBe('VALIDATION_ERROR');
    expect(error.extensions.details).toEqual([expect.objectContaining({ path: 'customerTimeZone' })]);
    expect(await bookingCount()).toBe(before);
  });

  it('an unknown field beside it is still a 400 naming that field', async () => {
    const before = await bookingCount();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/bookings',
      headers: c.auth,
      payload: newBooking({ customerTimeZone: 'Europe/Paris', customerTimezone: 'Europe/Paris' }),
    });
    const body = expectError(res, 400, 'VALIDATION_ERROR');
    expect(body.error.details).toEqual([{ path: 'customerTimezone', message: 'is not a known field' }]);
    expect(await bookingCount()).toBe(before);
  });
});
