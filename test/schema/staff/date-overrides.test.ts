// Date overrides (docs/api.md): one local day's hours replace the weekly ones in availability
// and booking (reason DATE_OVERRIDE), [] is a day off, a change leaving active bookings outside
// the day's hours is 409 CONFLICT, boundaries on Europe/Berlin's DST day, hostile input writes
// nothing. The race against concurrent bookings is employee-lock.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountWithKeys } from '../../helpers/factories.js';
import type { TestApp } from '../../helpers/app.js';
import {
  blankCompany,
  createDomainApp,
  expectError,
  ok,
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

const book = (auth: Record<string, string>, serviceId: string, employeeId: string, startTime: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/bookings',
    headers: auth,
    payload: { serviceId, employeeId, startTime, customer: { name: 'Ada', email: 'ada@example.com' } },
  });
const put = (auth: Record<string, string>, employeeId: string, date: string, payload: unknown) =>
  t.app.inject({
    method: 'PUT',
    url: `/api/v1/employees/${employeeId}/date-overrides/${date}`,
    headers: auth,
    payload: payload as object,
  });
const slots = async (auth: Record<string, string>, serviceId: string, from: string, to: string) =>
  ok(
    await t.app.inject({
      method: 'GET',
      url: `/api/v1/availability?serviceId=${serviceId}&from=${from}&to=${to}`,
      headers: auth,
    }),
  ).slots.map((s: { startTime: string }) => s.startTime) as string[];

describe('date overrides', () => {
  it("replace the day's hours on Europe/Berlin's spring-forward day, at their edges", async () => {
    const c = await blankCompany(t.dbs, w, { timezone: 'Europe/Berlin' });
    const { employee, service } = await salon(t.app, c.auth); // weekly: all day, every day
    // 2027-03-28, 01:00–04:00 local: 01:00 CET (00:00Z) to 04:00 CEST (02:00Z), two real hours.
    const o = ok(await put(c.auth, employee._id, '2027-03-28', { intervals: [{ start: '01:00', end: '04:00' }] }));
    expect(o).toMatchObject({
      employeeId: employee._id,
      date: '2027-03-28',
      intervals: [{ start: '01:00', end: '04:00' }],
    });
    const offered = await slots(c.auth, service._id, '2027-03-27T20:00:00Z', '2027-03-28T23:00:00Z');
    const onDay = offered.filter((s) => s >= '2027-03-27T23:00:00.000Z' && s < '2027-03-28T22:00:00.000Z');
    expect(onDay).toEqual([
      '2027-03-28T00:00:00.000Z',
      '2027-03-28T00:15:00.000Z',
      '2027-03-28T00:30:00.000Z',
      '2027-03-28T00:45:00.000Z',
      '2027-03-28T01:00:00.000Z',
    ]);
    // The day before keeps its weekly hours up to local midnight (23:00Z).
    expect(offered).toContain('2027-03-27T22:00:00.000Z');
    const before = expectError(
      await book(c.auth, service._id, employee._id, '2027-03-27T23:59:00Z'),
      409,
      'SLOT_UNAVAILABLE',
    );
    expect(before.error.details.reasons).toEqual([
      { code: 'DATE_OVERRIDE', message: expect.any(String), employeeId: employee._id },
    ]);
    const late = expectError(
      await book(c.auth, service._id, employee._id, '2027-03-28T01:01:00Z'),
      409,
      'SLOT_UNAVAILABLE',
    );
    expect(late.error.details.reasons[0].code).toBe('DATE_OVERRIDE');
    ok(await book(c.auth, service._id, employee._id, '2027-03-28T01:00:00Z')); // 03:00–04:00 CEST
    ok(await book(c.auth, service._id, employee._id, '2027-03-28T00:00:00Z')); // 01:00–02:00 CET
    // Now those bookings hold the day: taking it off is a CONFLICT naming them, and changes nothing.
    const refused = expectError(await put(c.auth, employee._id, '2027-03-28', { intervals: [] }), 409, 'CONFLICT');
    expect(refused.error.details.bookingIds).toHaveLength(2);
    const list = await t.app.inject({
      method: 'GET',
      url: `/api/v1/employees/${employee._id}/date-overrides?from=2027-03-01&to=2027-03-31`,
      headers: c.auth,
    });
    expect(list.json().data.map((x: { intervals: unknown }) => x.intervals)).toEqual([
      [{ start: '01:00', end: '04:00' }],
    ]);
    // Removing it would leave 00:00Z–01:00Z... still inside all-day weekly hours: allowed.
    const removed = ok(
      await t.app.inject({
        method: 'DELETE',
        url: `/api/v1/employees/${employee._id}/date-overrides/2027-03-28`,
        headers: c.auth,
      }),
    );
    expect(removed.date).toBe('2027-03-28');
    expectError(
      await t.app.inject({
        method: 'DELETE',
        url: `/api/v1/employees/${employee._id}/date-overrides/2027-03-28`,
        headers: c.auth,
      }),
      404,
      'NOT_FOUND',
    );
  });

  it('[] is a day off; a later PUT replaces it; through GraphQL too', async () => {
    const c = await blankCompany(t.dbs, w, { timezone: 'America/New_York' });
    const { employee, service } = await salon(t.app, c.auth);
    const date = '2027-01-12'; // EST, UTC−5: the local day is 05:00Z to 05:00Z
    ok(await put(c.auth, employee._id, date, { intervals: [] }));
    const from = `${date}T05:00:00Z`;
    const to = `${date}T23:00:00Z`;
    expect(await slots(c.auth, service._id, `${date}T03:00:00Z`, to)).toEqual([
      `${date}T03:00:00.000Z`,
      `${date}T03:15:00.000Z`,
      `${date}T03:30:00.000Z`,
      `${date}T03:45:00.000Z`,
      `${date}T04:00:00.000Z`, // 23:00–24:00 the evening before
    ]);
    const gql = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: c.auth,
      payload: {
        query:
          'mutation($e: ID!, $d: String!, $i: [TimeRangeInput!]!) { putDateOverride(employeeId: $e, date: $d, intervals: $i) { date intervals { start end } } }',
        variables: { e: employee._id, d: date, i: [{ start: '10:00', end: '12:00' }] },
      },
    });
    expect(gql.json().data.putDateOverride).toEqual({ date, intervals: [{ start: '10:00', end: '12:00' }] });
    const on = await slots(c.auth, service._id, from, to);
    expect(on).toHaveLength(5); // 10:00, 10:15, 10:30, 10:45, 11:00 local
    expect(await t.dbs.test.prisma.dateOverride.count({ where: { employeeId: employee._id } })).toBe(1);
    // The graph: an employee's overrides, and the company's closures beside them.
    const graph = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: c.auth,
      payload: {
        query: `query($e: ID!) { employee(id: $e) { dateOverrides(from: "${date}", to: "${date}", first: 5) { totalCount nodes { date intervals { start } } } } }`,
        variables: { e: employee._id },
      },
    });
    expect(graph.json().data.employee.dateOverrides).toEqual({
      totalCount: 1,
      nodes: [{ date, intervals: [{ start: '10:00' }] }],
    });
  });

  it('hostile input is a 400 or 404 naming the field and writes nothing; the scope is employees:write', async () => {
    const c = await blankCompany(t.dbs, w);
    const other = await blankCompany(t.dbs, w);
    const { employee } = await salon(t.app, c.auth);
    const { employee: theirs } = await salon(t.app, other.auth);
    const cases: Array<[string, unknown, string]> = [
      ['2027-02-30', { intervals: [] }, 'date'],
      ['2027-13-01', { intervals: [] }, 'date'],
      ['1999-12-31', { intervals: [] }, 'date'],
      ['27-03-28', { intervals: [] }, 'date'],
      ['2027-03-28', { intervals: [{ start: '12:00', end: '09:00' }] }, 'end'],
      ['2027-03-28', { intervals: [{ start: '09:00', end: '09:00' }] }, 'end'],
      [
        '2027-03-28',
        {
          intervals: [
            { start: '09:00', end: '12:00' },
            { start: '11:00', end: '13:00' },
          ],
        },
        'overlaps',
      ],
      ['2027-03-28', { intervals: [{ start: '9:00', end: '12:00' }] }, 'start'],
      ['2027-03-28', { intervals: [{ start: '09:00', end: '24:01' }] }, 'end'],
      ['2027-03-28', { intervals: [{ start: '09:00', end: '10:00', x: 1 }] }, 'intervals'],
      ['2027-03-28', {}, 'intervals'],
    ];
    for (const [date, body, field] of cases) {
      const res = expectError(await put(c.auth, employee._id, date, body), 400, 'VALIDATION_ERROR');
      expect(JSON.stringify(res.error.details)).toContain(field);
    }
    expectError(await put(c.auth, theirs._id, '2027-03-28', { intervals: [] }), 404, 'NOT_FOUND');
    expectError(
      await t.app.inject({ method: 'GET', url: `/api/v1/employees/${theirs._id}/date-overrides`, headers: c.auth }),
      404,
      'NOT_FOUND',
    );
    expect(
      await t.dbs.test.prisma.dateOverride.count({ where: { employeeId: { in: [employee._id, theirs._id] } } }),
    ).toBe(0);
    const token = await tokenWithScopes(t.dbs, w, 'company:write employees:read');
    expectError(await put(token, employee._id, '2027-03-28', { intervals: [] }), 403, 'INSUFFICIENT_SCOPE');
  });
});
