// One time parser for REST and GraphQL: RFC 3339 with Z or a numeric offset and up to nine
// fractional digits is accepted and normalised to UTC milliseconds; a time without an offset,
// an impossible date or a year outside 1970–9999 is 400 VALIDATION_ERROR naming the field
// (GraphQL: extensions.code VALIDATION_ERROR), never a database error. Outputs stay `...Z`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let auth: Record<string, string>;
let employeeId: string;

beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_PER_SECOND: '1000000' } });
  w = await createAccountWithKeys(t.dbs);
  auth = bearer(w.testKey.key);
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/employees',
    headers: auth,
    payload: { name: 'Clock' },
  });
  employeeId = res.json().data._id;
});
afterAll(async () => {
  await t?.close();
});

type Res = { statusCode: number; json(): any; headers: Record<string, unknown> };

function expectValidation(res: Res, path: string) {
  const body = res.json();
  expect(res.statusCode, JSON.stringify(body)).toBe(400);
  expect(body.status).toBe(false);
  expect(body.error.code).toBe('VALIDATION_ERROR');
  expect(body.error.details).toEqual([{ path, message: expect.any(String) }]);
  expect(body.error.message).toContain(path);
  expect(body.meta.requestId).toBe(res.headers['x-request-id']);
  return body;
}

const q = (s: string) => encodeURIComponent(s);

// Values refused wherever a time is taken, with the reason the message should give.
const REFUSED: Array<[string, RegExp]> = [
  ['0000-01-01T00:00:00.000Z', /1970/],
  ['1969-12-31T23:59:59.999Z', /1970/],
  ['1970-01-01T00:30:00+01:00', /1970/],
  ['+010000-01-01T00:00:00.000Z', /RFC 3339|offset/],
  ['9999-12-31T23:00:00-02:00', /9999/],
  ['2026-02-30T10:00:00Z', /real date/],
  ['2026-02-29T10:00:00Z', /real date/],
  ['2026-13-01T10:00:00Z', /real date/],
  ['2026-03-29T24:00:00Z', /real date/],
  ['2026-03-29T09:60:00Z', /real date/],
  ['2026-03-29T09:00:60Z', /real date/],
  ['2026-03-29T09:00:00+24:00', /real date|offset/],
  ['2026-03-29T09:00:00', /offset/],
  ['2026-03-29', /RFC 3339|offset/],
  ['2026-03-29T09:00:00.1234567890Z', /RFC 3339|fraction|digits/],
  ['2026-03-29T09:00:00+0200', /RFC 3339|offset/],
  ['yesterday', /RFC 3339|offset/],
  ['', /RFC 3339|offset/],
];

describe('REST query parameters', () => {
  const LISTS: Array<[string, string]> = [
    ['/api/v1/bookings', 'from'],
    ['/api/v1/bookings', 'to'],
    ['/api/v1/classes', 'from'],
    ['/api/v1/classes', 'to'],
    ['/api/v1/events', 'from'],
  ];
  for (const [url, field] of LISTS) {
    for (const [value, reason] of REFUSED) {
      it(`${url}?${field}=${value} is 400 VALIDATION_ERROR naming ${field}`, async () => {
        const res = await t.app.inject({ method: 'GET', url: `${url}?${field}=${q(value)}`, headers: auth });
        const body = expectValidation(res, field);
        expect(body.error.details[0].message).toMatch(reason);
      });
    }
    it(`${url}?${field}= takes the range's ends, an offset and nine fractional digits`, async () => {
      for (const value of [
        '1970-01-01T00:00:00Z',
        '9999-12-31T23:59:59.999999999Z',
        '2026-03-29T11:00:00+02:00',
        '2026-03-29T09:00:00.123456Z',
        '2026-03-28T23:00:00-10:00',
        '2026-03-29t09:00:00z',
      ]) {
        const res = await t.app.inject({ method: 'GET', url: `${url}?${field}=${q(value)}`, headers: auth });
        expect(res.statusCode, `${value}: ${res.body}`).toBe(200);
      }
    });
  }

  it('/api/v1/availability?from= with year 0000 is 400 naming from', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/availability?serviceId=${'0'.repeat(24)}&from=${q('0000-01-01T00:00:00Z')}&to=${q('2030-01-02T00:00:00Z')}`,
      headers: auth,
    });
    expectValidation(res, 'from');
  });
});

describe('REST bodies', () => {
  it('an offset and nanoseconds are normalised to UTC milliseconds; the output is ...Z', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/employees/${employeeId}/time-off`,
      headers: auth,
      payload: { startTime: '2030-05-01T12:00:00.123456789+02:00', endTime: '2030-05-01T08:30:00.9999-03:30' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      startTime: '2030-05-01T10:00:00.123Z',
      endTime: '2030-05-01T12:00:00.999Z',
    });
    const stored = await t.dbs.test.prisma.timeOff.findUniqueOrThrow({ where: { id: res.json().data._id } });
    expect(stored.startTime.toISOString()).toBe('2030-05-01T10:00:00.123Z');
  });

  for (const [value, reason] of REFUSED) {
    it(`startTime ${JSON.stringify(value)} is 400 VALIDATION_ERROR naming startTime, nothing written`, async () => {
      const before = await t.dbs.test.prisma.timeOff.count();
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/v1/employees/${employeeId}/time-off`,
        headers: auth,
        payload: { startTime: value, endTime: '2030-05-01T12:00:00Z' },
      });
      const body = expectValidation(res, 'startTime');
      expect(body.error.details[0].message).toMatch(reason);
      expect(await t.dbs.test.prisma.timeOff.count()).toBe(before);
    });
  }
});

describe('GraphQL', () => {
  const gql = (query: string, variables?: Record<string, unknown>) =>
    t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: auth,
      payload: { query, ...(variables ? { variables } : {}) },
    });

  const QUERIES: Array<[string, string]> = [
    ['bookings', 'bookings(from: $t) { data { _id } }'],
    ['bookings', 'bookings(to: $t) { data { _id } }'],
    ['classSessions', 'classSessions(from: $t) { data { _id } }'],
    ['classSessions', 'classSessions(to: $t) { data { _id } }'],
    ['events', 'events(from: $t) { data { _id } }'],
  ];
  for (const [field, selection] of QUERIES) {
    for (const [value] of REFUSED) {
      it(`${selection.split(')')[0]}) with ${JSON.stringify(value)}, as a variable and as a literal: VALIDATION_ERROR`, async () => {
        const asVariable = await gql(`query($t: DateTime) { ${selection} }`, { t: value });
        const literal = await gql(`{ ${selection.replace('$t', JSON.stringify(value))} }`);
        for (const res of [asVariable, literal]) {
          const body = res.json();
          expect(body.data?.[field] ?? null, JSON.stringify(body)).toBeNull();
          expect(body.errors?.[0]?.extensions?.code, JSON.stringify(body)).toBe('VALIDATION_ERROR');
          expect(JSON.stringify(body)).not.toMatch(/22008|prisma|out of range for type/i);
        }
      });
    }
  }

  it('an offset is accepted and normalised; outputs are ...Z with milliseconds', async () => {
    const res = await gql(
      'mutation($e: ID!, $i: CreateTimeOffInput!) { createTimeOff(employeeId: $e, input: $i) { startTime endTime } }',
      { e: employeeId, i: { startTime: '2031-01-01T01:00:00.5+01:00', endTime: '2031-01-01T02:00:00.000000001Z' } },
    );
    expect(res.json()).toEqual({
      data: { createTimeOff: { startTime: '2031-01-01T00:00:00.500Z', endTime: '2031-01-01T02:00:00.000Z' } },
    });
  });

  it('a refused time in an input object names its field', async () => {
    const res = await gql(
      'mutation($e: ID!, $i: CreateTimeOffInput!) { createTimeOff(employeeId: $e, input: $i) { startTime } }',
      { e: employeeId, i: { startTime: '2031-02-30T01:00:00Z', endTime: '2031-03-01T02:00:00Z' } },
    );
    const body = res.json();
    expect(body.errors[0].extensions).toEqual({
      code: 'VALIDATION_ERROR',
      details: [{ path: 'i.startTime', message: expect.stringMatching(/real date/) }],
    });
  });
});
