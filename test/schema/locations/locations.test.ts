// Locations (docs/api.md, Locations): CRUD under company:read/write; an employee at two sites on
// different days, each interval in its location's zone; /availability?locationId= filtering;
// /availability/explain?locationId= giving the reason of that filter; bookings recording where
// they take place (REST, GraphQL, the webhook payload); a required
// room kind met at the booking's site only; deleting a location in use refused, naming what
// uses it; hostile references 404 naming the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountWithKeys } from '../../helpers/factories.js';
import type { TestApp } from '../../helpers/app.js';
import {
  blankCompany,
  createDomainApp,
  expectError,
  ok,
  post,
  tokenWithScopes,
  type World,
} from '../../helpers/domain.js';

let t: TestApp;
let w: World;

beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
});
afterAll(async () => {
  await t?.close();
});

type Auth = Record<string, string>;
const get = async (auth: Auth, url: string) => ok(await t.app.inject({ method: 'GET', url, headers: auth }));
const iso = (ms: number) => new Date(ms).toISOString();
const H = 3_600_000;
const none = { tuesday: [], wednesday: [], thursday: [], friday: [], saturday: [], sunday: [] };

/** The next Monday (UTC date) at least a week ahead, as YYYY-MM-DD. */
function nextMonday(): string {
  const d = new Date(Date.now() + 7 * 86_400_000);
  d.setUTCDate(d.getUTCDate() + ((8 - d.getUTCDay()) % 7));
  return d.toISOString().slice(0, 10);
}

describe('locations', () => {
  it('CRUD under company:read / company:write; hostile references are 404 naming the field', async () => {
    const c = await blankCompany(t.dbs, w);
    const other = await blankCompany(t.dbs, w);
    const a = await post(t.app, '/api/v1/locations', c.auth, {
      name: 'Mitte',
      address: 'Friedrichstraße 12, 10117 Berlin',
      timeZone: 'Europe/Berlin',
      phone: '+4930123456789',
    });
    expect(a).toMatchObject({ name: 'Mitte', timeZone: 'Europe/Berlin', phone: '+4930123456789' });
    expect((await get(c.auth, '/api/v1/locations')).map((l: { _id: string }) => l._id)).toEqual([a._id]);
    const patched = ok(
      await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/locations/${a._id}`,
        headers: c.auth,
        payload: { phone: null },
      }),
    );
    expect(patched.phone).toBeNull();
    expectError(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/locations',
        headers: c.auth,
        payload: { name: 'X', address: 'Y', timeZone: 'Mars/Olympus' },
      }),
      400,
      'VALIDATION_ERROR',
    );
    const reader = await tokenWithScopes(t.dbs, w, 'company:read');
    expectError(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/locations',
        headers: reader,
        payload: { name: 'X', address: 'Y', timeZone: 'UTC' },
      }),
      403,
      'INSUFFICIENT_SCOPE',
    );
    const theirs = await post(t.app, '/api/v1/locations', other.auth, { name: 'T', address: 'T', timeZone: 'UTC' });
    expectError(
      await t.app.inject({ method: 'GET', url: `/api/v1/locations/${theirs._id}`, headers: c.auth }),
      404,
      'NOT_FOUND',
    );
    const foreign = expectError(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/employees',
        headers: c.auth,
        payload: {
          name: 'E',
          workingHours: { monday: [{ start: '09:00', end: '17:00', locationId: theirs._id }], ...none },
        },
      }),
      404,
      'NOT_FOUND',
    );
    expect(foreign.error.details).toEqual({ field: 'workingHours', id: theirs._id });
    const room = expectError(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/resources',
        headers: c.auth,
        payload: { name: 'R', kind: 'room', locationId: theirs._id },
      }),
      404,
      'NOT_FOUND',
    );
    expect(room.error.details).toEqual({ field: 'locationId', id: theirs._id });
    expect(await t.dbs.test.prisma.employee.count({ where: { companyId: c.company.id } })).toBe(0);
    expect(await t.dbs.test.prisma.resource.count({ where: { companyId: c.company.id } })).toBe(0);
    ok(await t.app.inject({ method: 'DELETE', url: `/api/v1/locations/${a._id}`, headers: c.auth }));
  });

  it('an employee at site A (Berlin) on Mondays and site B (London) on Tuesdays: zones, filters, bookings record where', async () => {
    const c = await blankCompany(t.dbs, w, { timezone: 'Europe/Berlin' });
    const berlin = await post(t.app, '/api/v1/locations', c.auth, {
      name: 'A',
      address: 'Berlin',
      timeZone: 'Europe/Berlin',
    });
    const london = await post(t.app, '/api/v1/locations', c.auth, {
      name: 'B',
      address: 'London',
      timeZone: 'Europe/London',
    });
    const employee = await post(t.app, '/api/v1/employees', c.auth, {
      name: 'Stylist',
      workingHours: {
        ...none,
        monday: [{ start: '09:00', end: '12:00', locationId: berlin._id }],
        tuesday: [{ start: '09:00', end: '12:00', locationId: london._id }],
      },
    });
    expect(employee.workingHours.monday).toEqual([{ start: '09:00', end: '12:00', locationId: berlin._id }]);
    const service = await post(t.app, '/api/v1/services', c.auth, {
      name: 'Cut',
      durationMinutes: 60,
      employeeIds: [employee._id],
    });
    const monday = nextMonday();
    const from = `${monday}T00:00:00Z`;
    const to = iso(Date.parse(from) + 2 * 24 * H);
    const slots = async (q = '') =>
      (await get(c.auth, `/api/v1/availability?serviceId=${service._id}&from=${from}&to=${to}${q}`)).slots.map(
        (s: { startTime: string }) => s.startTime,
      ) as string[];
    const tuesday = iso(Date.parse(from) + 24 * H).slice(0, 10);
    const all = await slots();
    const atA = await slots(`&locationId=${berlin._id}`);
    const atB = await slots(`&locationId=${london._id}`);
    expect(atA.length).toBeGreaterThan(0);
    expect(atB.length).toBeGreaterThan(0);
    expect([...atA, ...atB].sort()).toEqual(all);
    expect(atA.every((s) => s.startsWith(monday))).toBe(true);
    expect(atB.every((s) => s.startsWith(tuesday))).toBe(true);
    // 09:00 local in each zone: Berlin is an hour ahead of London all year.
    const offset = (s: string) => Date.parse(s) - Date.parse(`${s.slice(0, 10)}T00:00:00Z`);
    expect(offset(atB[0]!) - offset(atA[0]!)).toBe(H);

    // /availability/explain takes the same locationId: at A, the Tuesday start in London is
    // outside the employee's hours (the reason /availability's filter gives); at B it is free.
    const explain = async (start: string, q = '') =>
      get(c.auth, `/api/v1/availability/explain?serviceId=${service._id}&startTime=${start}${q}`);
    expect(await explain(atB[0]!)).toEqual({ available: true, employeeIds: [employee._id], reasons: [] });
    expect(await explain(atB[0]!, `&locationId=${london._id}`)).toEqual({
      available: true,
      employeeIds: [employee._id],
      reasons: [],
    });
    expect(await explain(atB[0]!, `&locationId=${berlin._id}`)).toEqual({
      available: false,
      employeeIds: [],
      reasons: [
        {
          code: 'OUTSIDE_WORKING_HOURS',
          message: "That time is outside the employee's working hours",
          employeeId: employee._id,
        },
      ],
    });
    expect(await explain(atA[0]!, `&locationId=${berlin._id}&employeeId=${employee._id}`)).toMatchObject({
      available: true,
    });
    const gqlExplain = (
      await t.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: c.auth,
        payload: {
          query: `{ availabilityExplanation(serviceId: "${service._id}", startTime: "${atB[0]}", locationId: "${berlin._id}") { available reasons { code employeeId } } }`,
        },
      })
    ).json();
    expect(gqlExplain.data.availabilityExplanation).toEqual({
      available: false,
      reasons: [{ code: 'OUTSIDE_WORKING_HOURS', employeeId: employee._id }],
    });

    const booked = ok(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/bookings',
        headers: c.auth,
        payload: { serviceId: service._id, startTime: atB[0], customer: { name: 'Ada', email: 'ada@example.com' } },
      }),
    );
    expect(booked.locationId).toBe(london._id);
    const event = await t.dbs.test.prisma.event.findFirst({
      where: { companyId: c.company.id, type: 'booking.created' },
    });
    expect((event!.data as { locationId?: string }).locationId).toBe(london._id);
    const gql = (
      await t.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: c.auth,
        payload: { query: `{ booking(id: "${booked._id}") { locationId } }` },
      })
    ).json();
    expect(gql.data.booking.locationId).toBe(london._id);

    // In use: refused, naming the employee and the booking; after moving them, deleted.
    const used = expectError(
      await t.app.inject({ method: 'DELETE', url: `/api/v1/locations/${london._id}`, headers: c.auth }),
      409,
      'CONFLICT',
    );
    expect(used.error.details).toEqual({
      resourceIds: [],
      employeeIds: [employee._id],
      bookingIds: [booked._id],
      classScheduleIds: [],
      classIds: [],
    });
    // An unknown location, or another company's, is 404 naming locationId on both.
    const theirs = await post(t.app, '/api/v1/locations', (await blankCompany(t.dbs, w)).auth, {
      name: 'T',
      address: 'T',
      timeZone: 'UTC',
    });
    for (const [url, id] of [
      [
        `/api/v1/availability?serviceId=${service._id}&from=${from}&to=${to}&locationId=000000000000000000000000`,
        '000000000000000000000000',
      ],
      [
        `/api/v1/availability/explain?serviceId=${service._id}&startTime=${atB[0]}&locationId=${theirs._id}`,
        theirs._id,
      ],
    ] as const) {
      const refused = expectError(await t.app.inject({ method: 'GET', url, headers: c.auth }), 404, 'NOT_FOUND');
      expect(refused.error.details).toEqual({ field: 'locationId', id });
    }
  });

  it('a required room kind is met at the booking site only; a company without locations books as before', async () => {
    const c = await blankCompany(t.dbs, w, { timezone: 'UTC' });
    const a = await post(t.app, '/api/v1/locations', c.auth, { name: 'A', address: 'a', timeZone: 'UTC' });
    const b = await post(t.app, '/api/v1/locations', c.auth, { name: 'B', address: 'b', timeZone: 'UTC' });
    await post(t.app, '/api/v1/resources', c.auth, { name: 'Room at B', kind: 'room', locationId: b._id });
    const employee = await post(t.app, '/api/v1/employees', c.auth, {
      name: 'E',
      workingHours: Object.fromEntries(
        ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [
          d,
          [{ start: '00:00', end: '24:00', locationId: a._id }],
        ]),
      ),
    });
    const service = await post(t.app, '/api/v1/services', c.auth, {
      name: 'Facial',
      durationMinutes: 60,
      employeeIds: [employee._id],
      requiredResourceKinds: ['room'],
    });
    const start = iso(Date.parse(`${nextMonday()}T10:00:00Z`));
    const refused = expectError(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/bookings',
        headers: c.auth,
        payload: { serviceId: service._id, startTime: start, customer: { name: 'Ada', email: 'ada@example.com' } },
      }),
      409,
      'SLOT_UNAVAILABLE',
    );
    expect(refused.error.details.reasons[0]).toMatchObject({ code: 'RESOURCE_BUSY', details: { kind: 'room' } });
    await post(t.app, '/api/v1/resources', c.auth, { name: 'Room at A', kind: 'room', locationId: a._id });
    const booked = ok(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/bookings',
        headers: c.auth,
        payload: { serviceId: service._id, startTime: start, customer: { name: 'Ada', email: 'ada@example.com' } },
      }),
    );
    expect(booked.locationId).toBe(a._id);

    const plain = await blankCompany(t.dbs, w, { timezone: 'UTC' });
    const e = await post(t.app, '/api/v1/employees', plain.auth, {
      name: 'P',
      workingHours: { monday: [{ start: '09:00', end: '17:00' }], ...none },
    });
    expect(e.workingHours.monday).toEqual([{ start: '09:00', end: '17:00' }]);
  });
});
