// Rooms and equipment (docs/api.md, Rooms and equipment): CRUD under services:read/write, a
// service requiring resources by id or by kind, bookings holding them for their block (buffers
// included), availability and explain leaving busy or closed resources out (RESOURCE_BUSY),
// reschedule moving and cancel releasing the holds, hostile inputs changing nothing, and the
// race of 50 concurrent bookings by different employees for the only room (real HTTP on a
// socket, real PostgreSQL: the exclusion constraint decides).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountWithKeys } from '../../helpers/factories.js';
import { listen, type TestApp } from '../../helpers/app.js';
import { embedded } from '../../helpers/db.js';
import {
  ALL_DAY,
  blankCompany,
  createDomainApp,
  expectError,
  futureHour,
  ok,
  post,
  salon,
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
const book = (auth: Auth, serviceId: string, employeeId: string | undefined, startTime: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/bookings',
    headers: auth,
    payload: { serviceId, employeeId, startTime, customer: { name: 'Ada', email: 'ada@example.com' } },
  });
const get = async (auth: Auth, url: string) => ok(await t.app.inject({ method: 'GET', url, headers: auth }));
const slotStarts = async (auth: Auth, serviceId: string, from: string, to: string) =>
  (await get(auth, `/api/v1/availability?serviceId=${serviceId}&from=${from}&to=${to}`)).slots.map(
    (s: { startTime: string }) => s.startTime,
  ) as string[];
const iso = (ms: number) => new Date(ms).toISOString();
const H = 3_600_000;

/** A company with `employees` employees, one service needing `needs`, and the given resources. */
async function clinic(needs: (rooms: Array<{ _id: string }>) => Record<string, unknown>, rooms = 1, employees = 2) {
  const c = await blankCompany(t.dbs, w, { timezone: 'UTC' });
  const made = [];
  for (let i = 0; i < rooms; i++)
    made.push(await post(t.app, '/api/v1/resources', c.auth, { name: `Room ${i + 1}`, kind: 'room' }));
  const { staff, service } = await salon(t.app, c.auth, { bufferAfterMinutes: 15, ...needs(made) }, employees);
  return { c, rooms: made, staff, service };
}

describe('resources', () => {
  it('CRUD under services:read / services:write, in REST and GraphQL', async () => {
    const c = await blankCompany(t.dbs, w);
    const room = await post(t.app, '/api/v1/resources', c.auth, {
      name: 'Treatment room 1',
      kind: 'room',
      workingHours: { ...ALL_DAY, sunday: [] },
    });
    expect(room).toMatchObject({ name: 'Treatment room 1', kind: 'room', workingHours: { sunday: [] } });
    const laser = await post(t.app, '/api/v1/resources', c.auth, { name: 'Laser', kind: 'equipment' });
    expect(laser.workingHours).toBeNull();
    expect((await get(c.auth, '/api/v1/resources?kind=equipment')).map((r: { _id: string }) => r._id)).toEqual([
      laser._id,
    ]);
    const patched = ok(
      await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/resources/${room._id}`,
        headers: c.auth,
        payload: { name: 'Room A', workingHours: null },
      }),
    );
    expect(patched).toMatchObject({ _id: room._id, name: 'Room A', workingHours: null });
    const gql = (
      await t.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: c.auth,
        payload: { query: `{ resource(id: "${room._id}") { _id name kind } resources(first: 5) { totalCount } }` },
      })
    ).json();
    expect(gql).toEqual({
      data: { resource: { _id: room._id, name: 'Room A', kind: 'room' }, resources: { totalCount: 2 } },
    });

    const reader = await tokenWithScopes(t.dbs, w, 'services:read');
    // The token belongs to the world's own sandbox company: its writes need services:write.
    expectError(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/resources',
        headers: reader,
        payload: { name: 'X', kind: 'room' },
      }),
      403,
      'INSUFFICIENT_SCOPE',
    );
    const deleted = ok(
      await t.app.inject({ method: 'DELETE', url: `/api/v1/resources/${laser._id}`, headers: c.auth }),
    );
    expect(deleted._id).toBe(laser._id);
    expectError(
      await t.app.inject({ method: 'GET', url: `/api/v1/resources/${laser._id}`, headers: c.auth }),
      404,
      'NOT_FOUND',
    );
  });

  it('a required room: one booking holds it for its block, buffers included; the next is RESOURCE_BUSY; cancel releases it', async () => {
    const { c, rooms, staff, service } = await clinic((r) => ({ requiredResourceIds: [r[0]!._id] }));
    expect(service.requiredResourceIds).toEqual([rooms[0]!._id]);
    const start = futureHour(3, 10);
    const first = ok(await book(c.auth, service._id, staff[0]._id, start));
    expect(first.resourceIds).toEqual([rooms[0]!._id]);
    // Another employee, 60 minutes later: inside the first booking's 15-minute buffer on the room.
    const later = iso(Date.parse(start) + H);
    const refused = expectError(await book(c.auth, service._id, staff[1]._id, later), 409, 'SLOT_UNAVAILABLE');
    expect(refused.error.details.reasons).toEqual([
      { code: 'RESOURCE_BUSY', message: expect.any(String), resourceId: rooms[0]!._id },
    ]);
    const explained = await get(c.auth, `/api/v1/availability/explain?serviceId=${service._id}&startTime=${later}`);
    expect(explained.available).toBe(false);
    expect(explained.reasons).toContainEqual({
      code: 'RESOURCE_BUSY',
      message: expect.any(String),
      resourceId: rooms[0]!._id,
    });
    // Availability: nobody is offered a start whose block meets the room's hold.
    const offered = await slotStarts(
      c.auth,
      service._id,
      iso(Date.parse(start) - 2 * H),
      iso(Date.parse(start) + 3 * H),
    );
    expect(offered).toContain(iso(Date.parse(start) - 75 * 60_000)); // ends 15 min before, buffer touches
    expect(offered).not.toContain(iso(Date.parse(start) - H)); // its buffer overlaps
    expect(offered).not.toContain(later);
    expect(offered).toContain(iso(Date.parse(start) + H + 15 * 60_000));

    ok(
      await t.app.inject({ method: 'POST', url: `/api/v1/bookings/${first._id}/cancel`, headers: c.auth, payload: {} }),
    );
    const again = ok(await book(c.auth, service._id, staff[1]._id, later));
    expect(again.resourceIds).toEqual([rooms[0]!._id]);
    // The cancelled booking still says which room it had.
    expect((await get(c.auth, `/api/v1/bookings/${first._id}`)).resourceIds).toEqual([rooms[0]!._id]);
  });

  it('a required kind: any one free room, each booking another, then RESOURCE_BUSY naming the kind', async () => {
    const { c, rooms, staff, service } = await clinic(() => ({ requiredResourceKinds: ['room'] }), 2, 3);
    const start = futureHour(4, 9);
    const a = ok(await book(c.auth, service._id, staff[0]._id, start));
    const b = ok(await book(c.auth, service._id, staff[1]._id, start));
    expect([...a.resourceIds, ...b.resourceIds].sort()).toEqual(rooms.map((r) => r._id).sort());
    const refused = expectError(await book(c.auth, service._id, staff[2]._id, start), 409, 'SLOT_UNAVAILABLE');
    expect(refused.error.details.reasons).toEqual([
      { code: 'RESOURCE_BUSY', message: expect.any(String), details: { kind: 'room' } },
    ]);
    expect(await slotStarts(c.auth, service._id, start, iso(Date.parse(start) + 15 * 60_000))).toEqual([]);
  });

  it('reschedule moves the holds with the booking, and is refused where the room is taken', async () => {
    const { c, rooms, staff, service } = await clinic((r) => ({ requiredResourceIds: [r[0]!._id] }));
    const start = futureHour(5, 8);
    const a = ok(await book(c.auth, service._id, staff[0]._id, start));
    const b = ok(await book(c.auth, service._id, staff[1]._id, iso(Date.parse(start) + 2 * H)));
    const reschedule = (id: string, startTime: string) =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/bookings/${id}/reschedule`,
        headers: c.auth,
        payload: { startTime },
      });
    const refused = expectError(await reschedule(a._id, iso(Date.parse(start) + 2 * H)), 409, 'SLOT_UNAVAILABLE');
    expect(refused.error.details.reasons).toContainEqual({
      code: 'RESOURCE_BUSY',
      message: expect.any(String),
      resourceId: rooms[0]!._id,
    });
    const moved = ok(await reschedule(a._id, iso(Date.parse(start) + 4 * H)));
    expect(moved.resourceIds).toEqual([rooms[0]!._id]);
    // Its old time is free again for the room: b moves there.
    ok(await reschedule(b._id, start));
    const holds = await t.dbs.test.prisma.resourceHold.findMany({ where: { resourceId: rooms[0]!._id, active: true } });
    expect(holds.map((h) => [h.bookingId, h.startTime.toISOString()]).sort()).toEqual(
      [
        [a._id, iso(Date.parse(start) + 4 * H)],
        [b._id, start],
      ].sort(),
    );
  });

  it('a class session holds the room its class service requires; appointments and other sessions then find it busy', async () => {
    const c = await blankCompany(t.dbs, w, { timezone: 'UTC' });
    const studio = await post(t.app, '/api/v1/resources', c.auth, { name: 'Studio', kind: 'room' });
    const { staff, service: massage } = await salon(t.app, c.auth, { requiredResourceIds: [studio._id] }, 3);
    const yoga = await post(t.app, '/api/v1/services', c.auth, {
      name: 'Yoga',
      kind: 'class',
      durationMinutes: 60,
      employeeIds: [staff[0]._id, staff[1]._id],
      requiredResourceIds: [studio._id],
    });
    const startTime = futureHour(4, 17);
    const session = await post(t.app, '/api/v1/classes', c.auth, {
      serviceId: yoga._id,
      employeeId: staff[0]._id,
      startTime,
      capacity: 10,
    });
    const refused = expectError(await book(c.auth, massage._id, staff[2]._id, startTime), 409, 'SLOT_UNAVAILABLE');
    expect(refused.error.details.reasons).toEqual([
      { code: 'RESOURCE_BUSY', message: expect.any(String), resourceId: studio._id },
    ]);
    const second = expectError(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/classes',
        headers: c.auth,
        payload: { serviceId: yoga._id, employeeId: staff[1]._id, startTime, capacity: 10 },
      }),
      409,
      'SLOT_UNAVAILABLE',
    );
    expect(second.error.details.reasons[0]).toMatchObject({ code: 'RESOURCE_BUSY', resourceId: studio._id });
    ok(
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/classes/${session._id}/cancel`,
        headers: c.auth,
        payload: {},
      }),
    );
    ok(await book(c.auth, massage._id, staff[2]._id, startTime));
  });

  it("a room's own hours: outside them it is RESOURCE_BUSY (outsideHours) and not offered", async () => {
    const c = await blankCompany(t.dbs, w, { timezone: 'UTC' });
    const room = await post(t.app, '/api/v1/resources', c.auth, {
      name: 'Mornings only',
      kind: 'room',
      workingHours: Object.fromEntries(
        ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [
          d,
          [{ start: '08:00', end: '12:00' }],
        ]),
      ),
    });
    const { employee, service } = await salon(t.app, c.auth, { requiredResourceIds: [room._id] });
    const day = futureHour(6, 0);
    const offered = await slotStarts(c.auth, service._id, day, iso(Date.parse(day) + 24 * H));
    expect(offered[0]).toBe(iso(Date.parse(day) + 8 * H));
    expect(offered[offered.length - 1]).toBe(iso(Date.parse(day) + 11 * H));
    const refused = expectError(
      await book(c.auth, service._id, employee._id, iso(Date.parse(day) + 13 * H)),
      409,
      'SLOT_UNAVAILABLE',
    );
    expect(refused.error.details.reasons).toEqual([
      { code: 'RESOURCE_BUSY', message: expect.any(String), resourceId: room._id, details: { outsideHours: true } },
    ]);
  });

  it('hostile inputs: unknown, foreign, duplicate or misplaced resource references are 4xx naming the field, nothing written', async () => {
    const c = await blankCompany(t.dbs, w);
    const other = await blankCompany(t.dbs, w);
    const theirs = await post(t.app, '/api/v1/resources', other.auth, { name: 'Theirs', kind: 'room' });
    const mine = await post(t.app, '/api/v1/resources', c.auth, { name: 'Mine', kind: 'room' });
    const before = await t.dbs.test.prisma.service.count({ where: { companyId: c.company.id } });
    const create = (payload: object) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/services',
        headers: c.auth,
        payload: { name: 'S', durationMinutes: 30, ...payload },
      });
    const foreign = expectError(await create({ requiredResourceIds: [theirs._id] }), 404, 'NOT_FOUND');
    expect(foreign.error.details).toEqual({ field: 'requiredResourceIds', id: theirs._id });
    expectError(await create({ requiredResourceIds: ['0123456789abcdef01234567'] }), 404, 'NOT_FOUND');
    const twice = expectError(await create({ requiredResourceIds: [mine._id, mine._id] }), 400, 'VALIDATION_ERROR');
    expect(twice.error.details[0].path).toBe('requiredResourceIds.1');
    const kinds = expectError(await create({ requiredResourceKinds: ['room', 'room'] }), 400, 'VALIDATION_ERROR');
    expect(kinds.error.details[0].path).toMatch(/^requiredResourceKinds/);
    expectError(await create({ requiredResourceKinds: ['sauna'] }), 400, 'VALIDATION_ERROR');
    expectError(
      await create({ requiredResourceIds: Array.from({ length: 11 }, () => mine._id) }),
      400,
      'VALIDATION_ERROR',
    );
    expect(await t.dbs.test.prisma.service.count({ where: { companyId: c.company.id } })).toBe(before);
    // A resource names no other resource: a self-reference or a cycle has no field to live in.
    for (const payload of [
      { name: 'R', kind: 'room', requiredResourceIds: [mine._id] },
      { name: 'R', kind: 'room', parentId: mine._id },
      { name: 'R', kind: 'rooom' },
      { name: '', kind: 'room' },
    ])
      expectError(
        await t.app.inject({ method: 'POST', url: '/api/v1/resources', headers: c.auth, payload }),
        400,
        'VALIDATION_ERROR',
      );
    expectError(
      await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/resources/${mine._id}`,
        headers: c.auth,
        payload: { requiredResourceIds: [mine._id] },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await t.app.inject({ method: 'GET', url: `/api/v1/resources/${theirs._id}`, headers: c.auth }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await t.app.inject({ method: 'DELETE', url: `/api/v1/resources/${theirs._id}`, headers: c.auth }),
      404,
      'NOT_FOUND',
    );
    expect(await t.dbs.test.prisma.resource.count({ where: { companyId: c.company.id } })).toBe(1);

    // In use: a service requiring it, then an active booking holding it.
    const { employee, service } = await salon(t.app, c.auth, { requiredResourceIds: [mine._id] });
    const used = expectError(
      await t.app.inject({ method: 'DELETE', url: `/api/v1/resources/${mine._id}`, headers: c.auth }),
      409,
      'CONFLICT',
    );
    expect(used.error.details).toEqual({ serviceIds: [service._id], bookingIds: [], classIds: [] });
    const booking = ok(await book(c.auth, service._id, employee._id, futureHour(3)));
    ok(
      await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/services/${service._id}`,
        headers: c.auth,
        payload: { requiredResourceIds: [] },
      }),
    );
    const held = expectError(
      await t.app.inject({ method: 'DELETE', url: `/api/v1/resources/${mine._id}`, headers: c.auth }),
      409,
      'CONFLICT',
    );
    expect(held.error.details).toEqual({ serviceIds: [], bookingIds: [booking._id], classIds: [] });
    ok(
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/bookings/${booking._id}/cancel`,
        headers: c.auth,
        payload: {},
      }),
    );
    ok(await t.app.inject({ method: 'DELETE', url: `/api/v1/resources/${mine._id}`, headers: c.auth }));
  });
});

describe.skipIf(embedded())('the room race (real PostgreSQL only)', () => {
  it('50 concurrent bookings by 50 employees for the only room at one time: exactly one, the rest RESOURCE_BUSY', async () => {
    const { c, rooms, staff, service } = await clinic((r) => ({ requiredResourceIds: [r[0]!._id] }), 1, 50);
    const url = await listen(t.app);
    const startTime = futureHour(7, 12);
    const results = await Promise.all(
      staff.map((e: { _id: string }, i: number) =>
        fetch(`${url}/api/v1/bookings`, {
          method: 'POST',
          headers: { ...c.auth, 'content-type': 'application/json' },
          body: JSON.stringify({
            serviceId: service._id,
            employeeId: e._id,
            startTime,
            customer: { name: `C${i}`, email: `c${i}@example.com` },
          }),
        }).then(async (r) => ({ status: r.status, body: await r.json() })),
      ),
    );
    const won = results.filter((r) => r.status === 200);
    const lost = results.filter((r) => r.status !== 200);
    expect(won).toHaveLength(1);
    expect(lost.map((r) => `${r.status} ${r.body.error.code}`)).toEqual(Array(49).fill('409 SLOT_UNAVAILABLE'));
    for (const r of lost)
      expect(r.body.error.details.reasons).toContainEqual(
        expect.objectContaining({ code: 'RESOURCE_BUSY', resourceId: rooms[0]!._id }),
      );
    const holds = await t.dbs.test.prisma.resourceHold.count({ where: { resourceId: rooms[0]!._id } });
    expect(holds).toBe(1);
    expect(
      await t.dbs.test.prisma.booking.count({
        where: { companyId: c.company.id, status: { in: ['pending', 'confirmed'] } },
      }),
    ).toBe(1);
  });
});

describe('the sample clinic', () => {
  it('has exam rooms its visits share (any free one) and a chair for blood draws', async () => {
    const { createCompany } = await import('../../../src/schema/companies/create-company.js');
    const { createApiKey } = await import('../../../src/schema/credentials/create-api-key.js');
    const { bearer } = await import('../../helpers/factories.js');
    const company = await createCompany(t.dbs, {
      accountId: w.account.id,
      mode: 'test',
      name: 'Clinic',
      timezone: 'America/New_York',
      currency: 'USD',
      template: 'clinic',
    });
    const auth = bearer((await createApiKey(t.dbs.test.prisma, { companyId: company.id, name: 'k' })).key);
    const rooms = await get(auth, '/api/v1/resources?kind=room');
    expect(rooms.map((r: { name: string }) => r.name).sort()).toEqual([
      'Brooklyn Exam Room',
      'Exam Room 1',
      'Exam Room 2',
    ]);
    const sites = await get(auth, '/api/v1/locations');
    expect(sites.map((l: { name: string }) => l.name).sort()).toEqual(['Brooklyn Satellite', 'Midtown Clinic']);
    const services = await get(auth, '/api/v1/services?limit=50');
    const followUp = services.find((s: { name: string }) => s.name === 'Follow-up Visit');
    expect(followUp.requiredResourceKinds).toEqual(['room']);
    const draw = services.find((s: { name: string }) => s.name === 'Blood Draw');
    expect(draw.requiredResourceIds).toHaveLength(1);
  });
});
