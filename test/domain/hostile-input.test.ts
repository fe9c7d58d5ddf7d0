// Hostile input to every POST/PATCH of the booking domain, and every route without its scope:
// a 4xx envelope with the right code, and nothing written (row counts of every domain table
// are compared before and after).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';
import type { TestApp } from '../helpers/app.js';
import { blankCompany, createDomainApp, expectError, futureHour, ok, post, salon, tokenWithScopes, type World } from '../helpers/domain.js';

let t: TestApp;
let w: World;
let c: Awaited<ReturnType<typeof blankCompany>>;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
  c = await blankCompany(t.dbs, w);
  const o = await blankCompany(t.dbs, w);
  const mine = await salon(t.app, c.auth);
  const theirs = await salon(t.app, o.auth);
  const live = await salon(t.app, bearer(w.liveKey.key));
  const yoga = await post(t.app, '/api/v1/services', c.auth, { name: 'Yoga', kind: 'class', durationMinutes: 60, employeeIds: [mine.employee._id] });
  const session = await post(t.app, '/api/v1/classes', c.auth, { serviceId: yoga._id, employeeId: mine.employee._id, startTime: futureHour(9), capacity: 2 });
  const customer = await post(t.app, '/api/v1/customers', c.auth, { name: 'Ann', email: 'ann@example.com' });
  await post(t.app, '/api/v1/customers', c.auth, { name: 'Bo', email: 'bo@example.com' });
  const booking = await post(t.app, '/api/v1/bookings', c.auth, { serviceId: mine.service._id, startTime: futureHour(3), customerId: customer._id });
  await post(t.app, '/api/v1/bookings', c.auth, { serviceId: yoga._id, classId: session._id, customerId: customer._id });
  const timeOff = await post(t.app, `/api/v1/employees/${theirs.employee._id}/time-off`, o.auth, { startTime: futureHour(4), endTime: futureHour(5) });
  const theirCustomer = await post(t.app, '/api/v1/customers', o.auth, { name: 'Cy', email: 'cy@example.com' });
  const theirBooking = await post(t.app, '/api/v1/bookings', o.auth, { serviceId: theirs.service._id, startTime: futureHour(3), customerId: theirCustomer._id });
  const liveCustomer = await post(t.app, '/api/v1/customers', bearer(w.liveKey.key), { name: 'Li', email: 'li@example.com' });
  Object.assign(ids, {
    employee: mine.employee._id, service: mine.service._id, yoga: yoga._id, session: session._id, customer: customer._id, booking: booking._id,
    otherEmployee: theirs.employee._id, otherService: theirs.service._id, otherTimeOff: timeOff._id, otherCustomer: theirCustomer._id, otherBooking: theirBooking._id,
    liveEmployee: live.employee._id, liveService: live.service._id, liveCustomer: liveCustomer._id,
  });
});
afterAll(async () => t?.close());

async function counts() {
  const p = t.dbs.test.prisma;
  const l = t.dbs.live.prisma;
  return Promise.all([
    p.employee.count(), p.employeeService.count(), p.timeOff.count(), p.service.count(), p.classSession.count(), p.customer.count(),
    p.booking.count(), p.event.count(), p.idempotencyRecord.count(), l.booking.count(), l.customer.count(),
    p.classSession.findMany({ select: { bookedCount: true, capacity: true, status: true, startTime: true } }),
    p.booking.findMany({ select: { status: true, startTime: true, employeeId: true } }),
    p.customer.findMany({ select: { email: true, name: true, phone: true } }),
  ]);
}

type Case = [name: string, method: 'POST' | 'PATCH' | 'GET' | 'DELETE', url: () => string, payload: unknown, status: number, code: string];
const later = (days: number) => futureHour(days);
const WEEK = { monday: [], tuesday: [], wednesday: [], thursday: [], friday: [], saturday: [], sunday: [] };

const CASES: Case[] = [
  // employees
  ['employee: name of the wrong type', 'POST', () => '/api/v1/employees', { name: 42 }, 400, 'VALIDATION_ERROR'],
  ['employee: unknown field', 'POST', () => '/api/v1/employees', { name: 'A', salary: 1 }, 400, 'VALIDATION_ERROR'],
  ['employee: a weekday missing', 'POST', () => '/api/v1/employees', { name: 'A', workingHours: { monday: [] } }, 400, 'VALIDATION_ERROR'],
  ['employee: an unknown weekday', 'POST', () => '/api/v1/employees', { name: 'A', workingHours: { ...WEEK, funday: [] } }, 400, 'VALIDATION_ERROR'],
  ['employee: end before start', 'POST', () => '/api/v1/employees', { name: 'A', workingHours: { ...WEEK, monday: [{ start: '17:00', end: '09:00' }] } }, 400, 'VALIDATION_ERROR'],
  ['employee: overlapping intervals', 'POST', () => '/api/v1/employees', { name: 'A', workingHours: { ...WEEK, monday: [{ start: '09:00', end: '13:00' }, { start: '12:00', end: '17:00' }] } }, 400, 'VALIDATION_ERROR'],
  ['employee: 25:00', 'POST', () => '/api/v1/employees', { name: 'A', workingHours: { ...WEEK, monday: [{ start: '09:00', end: '25:00' }] } }, 400, 'VALIDATION_ERROR'],
  ['employee: a service of another company', 'POST', () => '/api/v1/employees', () => ({ name: 'A', serviceIds: [ids.otherService] }), 404, 'NOT_FOUND'],
  ['employee: a service of the live mode', 'POST', () => '/api/v1/employees', () => ({ name: 'A', serviceIds: [ids.liveService] }), 404, 'NOT_FOUND'],
  ['employee: PATCH another company', 'PATCH', () => `/api/v1/employees/${ids.otherEmployee}`, { name: 'X' }, 404, 'NOT_FOUND'],
  ['employee: PATCH the live mode', 'PATCH', () => `/api/v1/employees/${ids.liveEmployee}`, { name: 'X' }, 404, 'NOT_FOUND'],
  ['employee: PATCH a malformed id', 'PATCH', () => '/api/v1/employees/..%2F..%2Fetc', { name: 'X' }, 404, 'NOT_FOUND'],
  ['employee: PATCH active as a string', 'PATCH', () => `/api/v1/employees/${ids.employee}`, { active: 'false' }, 400, 'VALIDATION_ERROR'],
  ['employee: DELETE another company', 'DELETE', () => `/api/v1/employees/${ids.otherEmployee}`, undefined, 404, 'NOT_FOUND'],
  ['time off: end before start', 'POST', () => `/api/v1/employees/${ids.employee}/time-off`, { startTime: later(5), endTime: later(4) }, 400, 'VALIDATION_ERROR'],
  ['time off: a time without offset', 'POST', () => `/api/v1/employees/${ids.employee}/time-off`, { startTime: '2030-01-01T10:00:00', endTime: '2030-01-01T12:00:00' }, 400, 'VALIDATION_ERROR'],
  ['time off: ten years', 'POST', () => `/api/v1/employees/${ids.employee}/time-off`, { startTime: '2030-01-01T00:00:00Z', endTime: '2040-01-01T00:00:00Z' }, 400, 'VALIDATION_ERROR'],
  ['time off: another company', 'POST', () => `/api/v1/employees/${ids.otherEmployee}/time-off`, { startTime: later(4), endTime: later(5) }, 404, 'NOT_FOUND'],
  ['time off: DELETE another company', 'DELETE', () => `/api/v1/employees/${ids.employee}/time-off/${ids.otherTimeOff}`, undefined, 404, 'NOT_FOUND'],
  // services
  ['service: duration as a string', 'POST', () => '/api/v1/services', { name: 'S', durationMinutes: '60' }, 400, 'VALIDATION_ERROR'],
  ['service: negative price', 'POST', () => '/api/v1/services', { name: 'S', durationMinutes: 60, price: -1 }, 400, 'VALIDATION_ERROR'],
  ['service: fractional price', 'POST', () => '/api/v1/services', { name: 'S', durationMinutes: 60, price: 10.5 }, 400, 'VALIDATION_ERROR'],
  ['service: a huge duration', 'POST', () => '/api/v1/services', { name: 'S', durationMinutes: 1e12 }, 400, 'VALIDATION_ERROR'],
  ['service: an unknown kind', 'POST', () => '/api/v1/services', { name: 'S', durationMinutes: 60, kind: 'party' }, 400, 'VALIDATION_ERROR'],
  ['service: employees of another company', 'POST', () => '/api/v1/services', () => ({ name: 'S', durationMinutes: 60, employeeIds: [ids.otherEmployee] }), 404, 'NOT_FOUND'],
  ['service: PATCH kind', 'PATCH', () => `/api/v1/services/${ids.service}`, { kind: 'class' }, 400, 'VALIDATION_ERROR'],
  ['service: PATCH another company', 'PATCH', () => `/api/v1/services/${ids.otherService}`, { name: 'X' }, 404, 'NOT_FOUND'],
  // classes
  ['class: end before start', 'POST', () => '/api/v1/classes', () => ({ serviceId: ids.yoga, employeeId: ids.employee, startTime: later(10), endTime: later(9), capacity: 5 }), 400, 'VALIDATION_ERROR'],
  ['class: ten years long', 'POST', () => '/api/v1/classes', () => ({ serviceId: ids.yoga, employeeId: ids.employee, startTime: later(10), endTime: '2099-01-01T00:00:00Z', capacity: 5 }), 400, 'VALIDATION_ERROR'],
  ['class: capacity 0', 'POST', () => '/api/v1/classes', () => ({ serviceId: ids.yoga, employeeId: ids.employee, startTime: later(10), capacity: 0 }), 400, 'VALIDATION_ERROR'],
  ['class: in the past', 'POST', () => '/api/v1/classes', () => ({ serviceId: ids.yoga, employeeId: ids.employee, startTime: '2020-01-01T10:00:00Z', capacity: 5 }), 400, 'VALIDATION_ERROR'],
  ['class: an appointment service', 'POST', () => '/api/v1/classes', () => ({ serviceId: ids.service, employeeId: ids.employee, startTime: later(10), capacity: 5 }), 400, 'VALIDATION_ERROR'],
  ['class: a service of another company', 'POST', () => '/api/v1/classes', () => ({ serviceId: ids.otherService, employeeId: ids.employee, startTime: later(10), capacity: 5 }), 404, 'NOT_FOUND'],
  ['class: PATCH capacity below the places booked', 'PATCH', () => `/api/v1/classes/${ids.session}`, { capacity: 0 }, 400, 'VALIDATION_ERROR'],
  ['class: PATCH end before start', 'PATCH', () => `/api/v1/classes/${ids.session}`, { endTime: '2020-01-01T00:00:00Z' }, 400, 'VALIDATION_ERROR'],
  ['class: PATCH bookedCount', 'PATCH', () => `/api/v1/classes/${ids.session}`, { bookedCount: 0 }, 400, 'VALIDATION_ERROR'],
  ['class: cancel with an unknown field', 'POST', () => `/api/v1/classes/${ids.session}/cancel`, { force: true }, 400, 'VALIDATION_ERROR'],
  ['class: cancel a booking id', 'POST', () => `/api/v1/classes/${ids.booking}/cancel`, {}, 404, 'NOT_FOUND'],
  // customers
  ['customer: a bad e-mail', 'POST', () => '/api/v1/customers', { name: 'A', email: 'nope' }, 400, 'VALIDATION_ERROR'],
  ['customer: a phone without +', 'POST', () => '/api/v1/customers', { name: 'A', email: 'a1@example.com', phone: '030 123456' }, 400, 'VALIDATION_ERROR'],
  ['customer: e-mail taken (other case)', 'POST', () => '/api/v1/customers', { name: 'A', email: 'ANN@example.com' }, 409, 'CONFLICT'],
  ['customer: missing e-mail', 'POST', () => '/api/v1/customers', { name: 'A' }, 400, 'VALIDATION_ERROR'],
  ['customer: PATCH to a taken e-mail', 'PATCH', () => `/api/v1/customers/${ids.customer}`, { email: 'bo@example.com' }, 409, 'CONFLICT'],
  ['customer: PATCH the live mode', 'PATCH', () => `/api/v1/customers/${ids.liveCustomer}`, { name: 'X' }, 404, 'NOT_FOUND'],
  ['customer: DELETE one with bookings', 'DELETE', () => `/api/v1/customers/${ids.customer}`, undefined, 409, 'CONFLICT'],
  // bookings
  ['booking: a time without offset', 'POST', () => '/api/v1/bookings', () => ({ serviceId: ids.service, startTime: '2030-01-01T10:00:00', customerId: ids.customer }), 400, 'VALIDATION_ERROR'],
  ['booking: a non-UTC offset', 'POST', () => '/api/v1/bookings', () => ({ serviceId: ids.service, startTime: '2030-01-01T10:00:00+02:00', customerId: ids.customer }), 400, 'VALIDATION_ERROR'],
  ['booking: in the past', 'POST', () => '/api/v1/bookings', () => ({ serviceId: ids.service, startTime: '2020-01-01T10:00:00Z', customerId: ids.customer }), 400, 'VALIDATION_ERROR'],
  ['booking: year 2150', 'POST', () => '/api/v1/bookings', () => ({ serviceId: ids.service, startTime: '2150-01-01T10:00:00Z', customerId: ids.customer }), 400, 'VALIDATION_ERROR'],
  ['booking: startTime as a number', 'POST', () => '/api/v1/bookings', () => ({ serviceId: ids.service, startTime: 1893456000000, customerId: ids.customer }), 400, 'VALIDATION_ERROR'],
  ['booking: both customerId and customer', 'POST', () => '/api/v1/bookings', () => ({ serviceId: ids.service, startTime: later(20), customerId: ids.customer, customer: { name: 'A', email: 'z@example.com' } }), 400, 'VALIDATION_ERROR'],
  ['booking: no customer', 'POST', () => '/api/v1/bookings', () => ({ serviceId: ids.service, startTime: later(20) }), 400, 'VALIDATION_ERROR'],
  ['booking: an unknown field', 'POST', () => '/api/v1/bookings', () => ({ serviceId: ids.service, startTime: later(20), customerId: ids.customer, status: 'completed' }), 400, 'VALIDATION_ERROR'],
  ['booking: a customer of another company', 'POST', () => '/api/v1/bookings', () => ({ serviceId: ids.service, startTime: later(20), customerId: ids.otherCustomer }), 404, 'NOT_FOUND'],
  ['booking: a service of another company', 'POST', () => '/api/v1/bookings', () => ({ serviceId: ids.otherService, startTime: later(20), customerId: ids.customer }), 404, 'NOT_FOUND'],
  ['booking: a service of the live mode', 'POST', () => '/api/v1/bookings', () => ({ serviceId: ids.liveService, startTime: later(20), customerId: ids.customer }), 404, 'NOT_FOUND'],
  ['booking: an employee of another company', 'POST', () => '/api/v1/bookings', () => ({ serviceId: ids.service, employeeId: ids.otherEmployee, startTime: later(20), customerId: ids.customer }), 404, 'NOT_FOUND'],
  ['booking: a class id for an appointment', 'POST', () => '/api/v1/bookings', () => ({ serviceId: ids.service, classId: ids.session, startTime: later(20), customerId: ids.customer }), 400, 'VALIDATION_ERROR'],
  ['booking: a class service without classId', 'POST', () => '/api/v1/bookings', () => ({ serviceId: ids.yoga, customerId: ids.customer }), 400, 'VALIDATION_ERROR'],
  ['booking: an inline customer with a bad e-mail', 'POST', () => '/api/v1/bookings', () => ({ serviceId: ids.service, startTime: later(20), customer: { name: 'A', email: 'x' } }), 400, 'VALIDATION_ERROR'],
  ['booking: the taken slot', 'POST', () => '/api/v1/bookings', () => ({ serviceId: ids.service, startTime: later(3), customer: { name: 'New', email: 'new@example.com' } }), 409, 'SLOT_UNAVAILABLE'],
  ['booking: the same customer twice in a class', 'POST', () => '/api/v1/bookings', () => ({ serviceId: ids.yoga, classId: ids.session, customerId: ids.customer }), 409, 'CONFLICT'],
  ['booking: cancel with a numeric reason', 'POST', () => `/api/v1/bookings/${ids.booking}/cancel`, { reason: 5 }, 400, 'VALIDATION_ERROR'],
  ['booking: cancel another company', 'POST', () => `/api/v1/bookings/${ids.otherBooking}/cancel`, {}, 404, 'NOT_FOUND'],
  ['booking: confirm with a body', 'POST', () => `/api/v1/bookings/${ids.booking}/confirm`, { status: 'confirmed' }, 400, 'VALIDATION_ERROR'],
  ['booking: reschedule without offset', 'POST', () => `/api/v1/bookings/${ids.booking}/reschedule`, { startTime: '2030-01-01T10:00' }, 400, 'VALIDATION_ERROR'],
  ['booking: reschedule into the past', 'POST', () => `/api/v1/bookings/${ids.booking}/reschedule`, { startTime: '2020-01-01T10:00:00Z' }, 400, 'VALIDATION_ERROR'],
  ['booking: reschedule to an employee of another company', 'POST', () => `/api/v1/bookings/${ids.booking}/reschedule`, () => ({ startTime: later(30), employeeId: ids.otherEmployee }), 404, 'NOT_FOUND'],
  ['booking: reschedule another company', 'POST', () => `/api/v1/bookings/${ids.otherBooking}/reschedule`, { startTime: later(30) }, 404, 'NOT_FOUND'],
  // availability and lists
  ['availability: ten years', 'GET', () => `/api/v1/availability?serviceId=${ids.service}&from=2030-01-01T00:00:00Z&to=2040-01-01T00:00:00Z`, undefined, 400, 'VALIDATION_ERROR'],
  ['availability: 32 days', 'GET', () => `/api/v1/availability?serviceId=${ids.service}&from=2030-01-01T00:00:00Z&to=2030-02-02T00:00:01Z`, undefined, 400, 'VALIDATION_ERROR'],
  ['availability: to before from', 'GET', () => `/api/v1/availability?serviceId=${ids.service}&from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z`, undefined, 400, 'VALIDATION_ERROR'],
  ['availability: without offset', 'GET', () => `/api/v1/availability?serviceId=${ids.service}&from=2030-01-01T00:00:00&to=2030-01-02T00:00:00`, undefined, 400, 'VALIDATION_ERROR'],
  ['availability: another company', 'GET', () => `/api/v1/availability?serviceId=${ids.otherService}&from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z`, undefined, 404, 'NOT_FOUND'],
  ['availability: no service', 'GET', () => '/api/v1/availability?from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z', undefined, 400, 'VALIDATION_ERROR'],
  ['bookings: a huge limit', 'GET', () => '/api/v1/bookings?limit=99999999999999999999', undefined, 400, 'VALIDATION_ERROR'],
  ['bookings: an unknown status', 'GET', () => '/api/v1/bookings?status=done', undefined, 400, 'VALIDATION_ERROR'],
  ['events: an unknown type', 'GET', () => '/api/v1/events?type=booking.exploded', undefined, 400, 'VALIDATION_ERROR'],
  ['events: another company', 'GET', () => `/api/v1/events/${ids.otherBooking}`, undefined, 404, 'NOT_FOUND'],
];

describe('hostile input', () => {
  for (const [name, method, url, payload, status, code] of CASES) {
    it(`${name} → ${status} ${code}, nothing written`, async () => {
      const before = await counts();
      const body0 = typeof payload === 'function' ? payload() : payload;
      const res = await t.app.inject({ method, url: url(), headers: c.auth, ...(body0 !== undefined ? { payload: body0 as object } : {}) });
      const body = expectError(res, status, code);
      if (code === 'VALIDATION_ERROR') expect(body.error.details?.[0]?.path ?? body.error.message).toBeTruthy();
      expect(await counts()).toEqual(before);
    });
  }
});

const ROUTES: Array<[string, string, string, unknown?]> = [
  ['employees:read', 'GET', '/api/v1/employees'],
  ['employees:write', 'POST', '/api/v1/employees', { name: 'A' }],
  ['employees:read', 'GET', '/api/v1/employees/ID/time-off'],
  ['services:read', 'GET', '/api/v1/services'],
  ['services:write', 'PATCH', '/api/v1/services/ID', { name: 'X' }],
  ['services:read', 'GET', '/api/v1/classes'],
  ['services:write', 'POST', '/api/v1/classes/ID/cancel', {}],
  ['customers:read', 'GET', '/api/v1/customers'],
  ['customers:write', 'POST', '/api/v1/customers', { name: 'A', email: 'scope@example.com' }],
  ['availability:read', 'GET', '/api/v1/availability?serviceId=ID&from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z'],
  ['bookings:read', 'GET', '/api/v1/bookings'],
  ['bookings:write', 'POST', '/api/v1/bookings/ID/cancel', {}],
  ['events:read', 'GET', '/api/v1/events'],
];

describe('scopes', () => {
  for (const [scope, method, path, payload] of ROUTES) {
    it(`${method} ${path.split('?')[0]} needs ${scope}`, async () => {
      // Every scope but the one needed (the read scope of a write route included).
      const all = 'company:read bookings:read bookings:write customers:read customers:write employees:read employees:write services:read services:write availability:read events:read';
      const headers = await tokenWithScopes(t.dbs, w, all.split(' ').filter((s) => s !== scope).join(' '));
      const url = path.replace('ID', ids.employee!);
      const before = await counts();
      const res = await t.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });
      const body = expectError(res, 403, 'INSUFFICIENT_SCOPE');
      expect(body.error.details).toEqual({ requiredScope: scope });
      expect(String(res.headers['www-authenticate'])).toContain(`scope="${scope}"`);
      expect(await counts()).toEqual(before);
      // With the scope alone it passes the scope check.
      const allowed = await t.app.inject({ method: method as 'GET', url, headers: await tokenWithScopes(t.dbs, w, scope), ...(payload !== undefined ? { payload: payload as object } : {}) });
      expect(allowed.statusCode).not.toBe(403);
    });
  }

  it('GraphQL fields check the same scopes', async () => {
    const headers = await tokenWithScopes(t.dbs, w, 'bookings:read');
    const res = await t.app.inject({ method: 'POST', url: '/graphql', headers, payload: { query: '{ customers { data { _id } } bookings { data { _id } } }' } });
    const body = res.json();
    expect(body.errors[0].extensions).toMatchObject({ code: 'INSUFFICIENT_SCOPE', details: { requiredScope: 'customers:read' } });
    const m = await t.app.inject({ method: 'POST', url: '/graphql', headers, payload: { query: `mutation { cancelBooking(id: "${ids.booking}") { _id } }` } });
    expect(m.json().errors[0].extensions.code).toBe('INSUFFICIENT_SCOPE');
    expect((await t.dbs.test.prisma.booking.findUniqueOrThrow({ where: { id: ids.booking } })).status).toBe('confirmed');
  });
});
