// Closures (docs/api.md): availability leaves them out, bookings inside them are refused with
// the reason CLOSURE, one over active bookings is a 409 CONFLICT unless cancelBookings, which
// cancels them through the booking state machine; boundaries on Europe/Berlin's DST day; hostile
// input changes nothing. The race against concurrent bookings is test/schema/staff/employee-lock.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountWithKeys } from '../../helpers/factories.js';
import type { TestApp } from '../../helpers/app.js';
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

const book = (auth: Record<string, string>, serviceId: string, employeeId: string | undefined, startTime: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/bookings',
    headers: auth,
    payload: { serviceId, employeeId, startTime, customer: { name: 'Ada', email: 'ada@example.com' } },
  });

const slots = async (auth: Record<string, string>, serviceId: string, from: string, to: string) =>
  ok(
    await t.app.inject({
      method: 'GET',
      url: `/api/v1/availability?serviceId=${serviceId}&from=${from}&to=${to}`,
      headers: auth,
    }),
  ).slots.map((s: { startTime: string }) => s.startTime) as string[];

const iso = (ms: number) => new Date(ms).toISOString();
const H = 3_600_000;

describe('closures', () => {
  it("on Europe/Berlin's spring-forward day: offered and booked up to its edges, refused inside with CLOSURE", async () => {
    const c = await blankCompany(t.dbs, w, { timezone: 'Europe/Berlin' });
    const { employee, service } = await salon(t.app, c.auth);
    // 2027-03-28: 02:00 CET jumps to 03:00 CEST (01:00Z). Closed 00:00Z–01:00Z = 01:00 CET–03:00 CEST.
    const closure = await post(t.app, '/api/v1/closures', c.auth, {
      startTime: '2027-03-28T00:00:00Z',
      endTime: '2027-03-28T01:00:00Z',
      reason: 'Inventory',
    });
    expect(closure).toMatchObject({ reason: 'Inventory', employeeIds: null });
    const offered = await slots(c.auth, service._id, '2027-03-27T22:00:00Z', '2027-03-28T03:00:00Z');
    // A 60-minute appointment may end exactly at the closure's start and start exactly at its end.
    expect(offered).toContain('2027-03-27T23:00:00.000Z');
    expect(offered).not.toContain('2027-03-27T23:15:00.000Z');
    expect(offered).not.toContain('2027-03-28T00:45:00.000Z');
    expect(offered).toContain('2027-03-28T01:00:00.000Z');
    expect(offered.filter((s) => s > '2027-03-27T23:00:00.000Z' && s < '2027-03-28T01:00:00.000Z')).toEqual([]);

    const inside = expectError(
      await book(c.auth, service._id, employee._id, '2027-03-28T00:59:00Z'),
      409,
      'SLOT_UNAVAILABLE',
    );
    expect(inside.error.details.reasons).toEqual([
      { code: 'CLOSURE', message: expect.any(String), employeeId: employee._id },
    ]);
    const overlapping = expectError(
      await book(c.auth, service._id, employee._id, '2027-03-27T23:01:00Z'),
      409,
      'SLOT_UNAVAILABLE',
    );
    expect(overlapping.error.details.reasons[0].code).toBe('CLOSURE');
    ok(await book(c.auth, service._id, employee._id, '2027-03-27T23:00:00Z'));
    ok(await book(c.auth, service._id, employee._id, '2027-03-28T01:00:00Z'));
  });

  it('applies to the employees it names only; a reschedule into it is refused too', async () => {
    const c = await blankCompany(t.dbs, w);
    const { staff, service } = await salon(t.app, c.auth, {}, 2);
    const start = Date.parse(futureHour(4));
    await post(t.app, '/api/v1/closures', c.auth, {
      startTime: iso(start),
      endTime: iso(start + 2 * H),
      reason: 'Training',
      employeeIds: [staff[0]._id],
    });
    expectError(await book(c.auth, service._id, staff[0]._id, iso(start)), 409, 'SLOT_UNAVAILABLE');
    const other = ok(await book(c.auth, service._id, undefined, iso(start)));
    expect(other.employeeId).toBe(staff[1]._id);
    const earlier = ok(await book(c.auth, service._id, staff[0]._id, iso(start - 2 * H)));
    const moved = await t.app.inject({
      method: 'POST',
      url: `/api/v1/bookings/${earlier._id}/reschedule`,
      headers: c.auth,
      payload: { startTime: iso(start + H), employeeId: staff[0]._id },
    });
    expect(expectError(moved, 409, 'SLOT_UNAVAILABLE').error.details.reasons[0].code).toBe('CLOSURE');
  });

  it('over active bookings: 409 CONFLICT naming them and nothing written; with cancelBookings they are cancelled with its reason', async () => {
    const c = await blankCompany(t.dbs, w);
    const { employee, service } = await salon(t.app, c.auth);
    const start = Date.parse(futureHour(5));
    const a = ok(await book(c.auth, service._id, employee._id, iso(start)));
    const b = ok(await book(c.auth, service._id, employee._id, iso(start + 2 * H)));
    ok(await book(c.auth, service._id, employee._id, iso(start + 5 * H))); // outside: untouched
    const body = { startTime: iso(start + 30 * 60_000), endTime: iso(start + 3 * H), reason: 'Burst pipe' };
    const refused = expectError(
      await t.app.inject({ method: 'POST', url: '/api/v1/closures', headers: c.auth, payload: body }),
      409,
      'CONFLICT',
    );
    expect(refused.error.details.bookingIds).toEqual([a._id, b._id]);
    const db = t.dbs.test.prisma;
    expect(await db.closure.count({ where: { companyId: c.company.id } })).toBe(0);

    ok(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/closures',
        headers: c.auth,
        payload: { ...body, cancelBookings: true },
      }),
    );
    const after = await db.booking.findMany({ where: { companyId: c.company.id }, orderBy: { startTime: 'asc' } });
    expect(after.map((x) => [x.status, x.cancelReason])).toEqual([
      ['cancelled', 'Burst pipe'],
      ['cancelled', 'Burst pipe'],
      ['confirmed', null],
    ]);
    const events = await db.event.findMany({ where: { companyId: c.company.id, type: 'booking.cancelled' } });
    expect(events.map((e) => (e.data as { _id?: string; id?: string; reason?: string }).reason)).toEqual([
      'Burst pipe',
      'Burst pipe',
    ]);
  });

  it('lists (overlapping from/to, paginated), deletes, and through GraphQL', async () => {
    const c = await blankCompany(t.dbs, w);
    await salon(t.app, c.auth);
    const start = Date.parse(futureHour(10));
    const ids = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (
          await post(t.app, '/api/v1/closures', c.auth, {
            startTime: iso(start + i * 24 * H),
            endTime: iso(start + i * 24 * H + H),
            reason: `R${i}`,
          })
        )._id,
      );
    const list = (q: string) =>
      t.app.inject({ method: 'GET', url: `/api/v1/closures?${q}`, headers: c.auth }).then((r) => r.json());
    const page = await list('limit=2');
    expect(page.data.map((x: { _id: string }) => x._id)).toEqual([ids[2], ids[1]]);
    expect(page.meta.pagination.hasMore).toBe(true);
    const window = await list(`from=${iso(start + 24 * H + 30 * 60_000)}&to=${iso(start + 48 * H + 1)}`);
    expect(window.data.map((x: { _id: string }) => x._id)).toEqual([ids[2], ids[1]]);
    ok(await t.app.inject({ method: 'DELETE', url: `/api/v1/closures/${ids[0]}`, headers: c.auth }));
    expectError(
      await t.app.inject({ method: 'DELETE', url: `/api/v1/closures/${ids[0]}`, headers: c.auth }),
      404,
      'NOT_FOUND',
    );

    const gql = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: c.auth,
      payload: {
        query: 'mutation($input: CreateClosureInput!) { createClosure(input: $input) { _id reason employeeIds } }',
        variables: { input: { startTime: iso(start + 100 * H), endTime: iso(start + 101 * H), reason: 'GQL' } },
      },
    });
    expect(gql.json().data.createClosure).toMatchObject({ reason: 'GQL', employeeIds: null });
    const q = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: c.auth,
      payload: { query: '{ closures(first: 10) { nodes { reason } totalCount } }' },
    });
    expect(q.json().data.closures.nodes.map((x: { reason: string }) => x.reason)).toEqual(['GQL', 'R2', 'R1']);
    expect(q.json().data.closures.totalCount).toBe(3);
    const viaCompany = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: c.auth,
      payload: { query: `{ me { closures(from: "${iso(start + 100 * H)}") { totalCount nodes { reason } } } }` },
    });
    expect(viaCompany.json().data.me.closures).toEqual({ totalCount: 1, nodes: [{ reason: 'GQL' }] });
  });

  it('hostile input is a 400 or 404 naming the field, and writes nothing; the scope is company:write', async () => {
    const c = await blankCompany(t.dbs, w);
    const other = await blankCompany(t.dbs, w);
    const { staff: theirs } = await salon(t.app, other.auth);
    await salon(t.app, c.auth);
    const start = Date.parse(futureHour(3));
    const good = { startTime: iso(start), endTime: iso(start + H), reason: 'x' };
    const send = (payload: object, headers = c.auth) =>
      t.app.inject({ method: 'POST', url: '/api/v1/closures', headers, payload });
    const cases: Array<[object, string]> = [
      [{ ...good, endTime: iso(start - H) }, 'endTime'],
      [{ ...good, endTime: iso(start) }, 'endTime'],
      [{ ...good, startTime: '2027-02-30T10:00:00Z' }, 'startTime'],
      [{ ...good, endTime: iso(start + 400 * 24 * H) }, 'endTime'],
      [{ ...good, reason: '' }, 'reason'],
      [{ ...good, reason: ' ' }, 'reason'],
      [{ ...good, employeeIds: [] }, 'employeeIds'],
      [{ ...good, employeeIds: ['nope'] }, 'employeeIds'],
      [{ ...good, extra: 1 }, ''],
    ];
    for (const [payload, field] of cases) {
      const body = expectError(await send(payload), 400, 'VALIDATION_ERROR');
      expect(JSON.stringify(body.error.details)).toContain(field);
    }
    expectError(await send({ ...good, employeeIds: [theirs[0]._id] }), 404, 'NOT_FOUND');
    expect(
      await t.dbs.test.prisma.closure.count({ where: { companyId: { in: [c.company.id, other.company.id] } } }),
    ).toBe(0);
    const token = await tokenWithScopes(t.dbs, w, 'employees:write company:read');
    expectError(await send(good, token), 403, 'INSUFFICIENT_SCOPE');
  });
});
