// Hostile input to every POST/PATCH of the booking domain, and every route without its scope:
// a 4xx envelope with the right code, and nothing written (row counts of every domain table
// are compared before and after). The scope table and the huge-limit cases are checked against
// the app's own route registry (its OpenAPI document), so a new domain route without a scope
// test, or a new list without a limit test, fails here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createAccountWithKeys, scopedToken } from '../../helpers/factories.js';
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
let c: Awaited<ReturnType<typeof blankCompany>>;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
  c = await blankCompany(t.dbs, w);
  // The scope tests book up to two years ahead (a fresh slot each): past the 365-day default.
  ok(
    await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/me',
      headers: c.auth,
      payload: { bookingRules: { maxAdvanceDays: 730 } },
    }),
  );
  const o = await blankCompany(t.dbs, w);
  const mine = await salon(t.app, c.auth);
  const theirs = await salon(t.app, o.auth);
  const live = await salon(t.app, bearer(w.liveKey.key));
  const yoga = await post(t.app, '/api/v1/services', c.auth, {
    name: 'Yoga',
    kind: 'class',
    durationMinutes: 60,
    employeeIds: [mine.employee._id],
  });
  const session = await post(t.app, '/api/v1/classes', c.auth, {
    serviceId: yoga._id,
    employeeId: mine.employee._id,
    startTime: futureHour(9),
    capacity: 2,
  });
  const customer = await post(t.app, '/api/v1/customers', c.auth, { name: 'Ann', email: 'ann@example.com' });
  await post(t.app, '/api/v1/customers', c.auth, { name: 'Bo', email: 'bo@example.com' });
  const booking = await post(t.app, '/api/v1/bookings', c.auth, {
    serviceId: mine.service._id,
    startTime: futureHour(3),
    customerId: customer._id,
  });
  await post(t.app, '/api/v1/bookings', c.auth, {
    serviceId: yoga._id,
    classId: session._id,
    customerId: customer._id,
  });
  const timeOff = await post(t.app, `/api/v1/employees/${theirs.employee._id}/time-off`, o.auth, {
    startTime: futureHour(4),
    endTime: futureHour(5),
  });
  const theirCustomer = await post(t.app, '/api/v1/customers', o.auth, { name: 'Cy', email: 'cy@example.com' });
  const theirBooking = await post(t.app, '/api/v1/bookings', o.auth, {
    serviceId: theirs.service._id,
    startTime: futureHour(3),
    customerId: theirCustomer._id,
  });
  const liveCustomer = await post(t.app, '/api/v1/customers', bearer(w.liveKey.key), {
    name: 'Li',
    email: 'li@example.com',
  });
  const theirYoga = await post(t.app, '/api/v1/services', o.auth, {
    name: 'Yoga',
    kind: 'class',
    durationMinutes: 60,
    employeeIds: [theirs.employee._id],
  });
  const theirSession = await post(t.app, '/api/v1/classes', o.auth, {
    serviceId: theirYoga._id,
    employeeId: theirs.employee._id,
    startTime: futureHour(9),
    capacity: 2,
  });
  const liveYoga = await post(t.app, '/api/v1/services', bearer(w.liveKey.key), {
    name: 'Yoga',
    kind: 'class',
    durationMinutes: 60,
    employeeIds: [live.employee._id],
  });
  const liveSession = await post(t.app, '/api/v1/classes', bearer(w.liveKey.key), {
    serviceId: liveYoga._id,
    employeeId: live.employee._id,
    startTime: futureHour(9),
    capacity: 2,
  });
  const theirEvent = ok(await t.app.inject({ method: 'GET', url: '/api/v1/events?limit=1', headers: o.auth }))[0];
  const liveEvent = ok(
    await t.app.inject({ method: 'GET', url: '/api/v1/events?limit=1', headers: bearer(w.liveKey.key) }),
  )[0];
  Object.assign(ids, {
    employee: mine.employee._id,
    service: mine.service._id,
    yoga: yoga._id,
    session: session._id,
    customer: customer._id,
    booking: booking._id,
    otherEmployee: theirs.employee._id,
    otherService: theirs.service._id,
    otherTimeOff: timeOff._id,
    otherCustomer: theirCustomer._id,
    otherBooking: theirBooking._id,
    liveEmployee: live.employee._id,
    liveService: live.service._id,
    liveCustomer: liveCustomer._id,
    otherYoga: theirYoga._id,
    otherSession: theirSession._id,
    liveSession: liveSession._id,
    otherEvent: theirEvent._id,
    liveEvent: liveEvent._id,
  });
});
afterAll(async () => t?.close());

async function counts() {
  const p = t.dbs.test.prisma;
  const l = t.dbs.live.prisma;
  return Promise.all([
    p.employee.count(),
    p.employeeService.count(),
    p.timeOff.count(),
    p.closure.count(),
    p.dateOverride.findMany({ select: { date: true, intervals: true } }),
    // A rotation changes the hash in place: the hashes, not a count, show it.
    p.calendarFeed.findMany({ select: { tokenHash: true }, orderBy: { id: 'asc' } }),
    p.service.count(),
    p.classSession.count(),
    p.classSchedule.count(),
    p.customer.count(),
    p.booking.count(),
    p.event.count(),
    p.idempotencyRecord.count(),
    p.testClock.findMany({ select: { id: true, frozenTime: true }, orderBy: { id: 'asc' } }),
    l.booking.count(),
    l.customer.count(),
    p.classSession.findMany({ select: { bookedCount: true, capacity: true, status: true, startTime: true } }),
    p.booking.findMany({ select: { status: true, startTime: true, employeeId: true } }),
    p.customer.findMany({ select: { email: true, name: true, phone: true } }),
  ]);
}

type Case = [
  name: string,
  method: 'POST' | 'PATCH' | 'GET' | 'DELETE',
  url: () => string,
  payload: unknown,
  status: number,
  code: string,
];
const later = (days: number) => futureHour(days);
const WEEK = { monday: [], tuesday: [], wednesday: [], thursday: [], friday: [], saturday: [], sunday: [] };

const CASES: Case[] = [
  // employees
  // test clocks
  ['test clock: no frozenTime', 'POST', () => '/api/v1/test-clocks', {}, 400, 'VALIDATION_ERROR'],
  [
    'test clock: frozenTime not a time',
    'POST',
    () => '/api/v1/test-clocks',
    { frozenTime: 'soon' },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'test clock: frozenTime in 1900',
    'POST',
    () => '/api/v1/test-clocks',
    { frozenTime: '1900-01-01T00:00:00Z' },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'test clock: unknown field',
    'POST',
    () => '/api/v1/test-clocks',
    { frozenTime: '2030-01-01T00:00:00Z', speed: 2 },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'test clock: advance an unknown clock',
    'POST',
    () => `/api/v1/test-clocks/${'f'.repeat(24)}/advance`,
    { to: '2030-01-01T00:00:00Z' },
    404,
    'NOT_FOUND',
  ],
  [
    'test clock: advance without to',
    'POST',
    () => `/api/v1/test-clocks/${'f'.repeat(24)}/advance`,
    {},
    400,
    'VALIDATION_ERROR',
  ],
  ['me: testClockId not an id', 'PATCH', () => '/api/v1/me', { testClockId: 'x' }, 400, 'VALIDATION_ERROR'],
  [
    'me: testClockId of no clock',
    'PATCH',
    () => '/api/v1/me',
    { testClockId: 'f'.repeat(24) },
    400,
    'VALIDATION_ERROR',
  ],
  ['employee: name of the wrong type', 'POST', () => '/api/v1/employees', { name: 42 }, 400, 'VALIDATION_ERROR'],
  ['employee: unknown field', 'POST', () => '/api/v1/employees', { name: 'A', salary: 1 }, 400, 'VALIDATION_ERROR'],
  [
    'employee: a weekday missing',
    'POST',
    () => '/api/v1/employees',
    { name: 'A', workingHours: { monday: [] } },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'employee: an unknown weekday',
    'POST',
    () => '/api/v1/employees',
    { name: 'A', workingHours: { ...WEEK, funday: [] } },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'employee: end before start',
    'POST',
    () => '/api/v1/employees',
    { name: 'A', workingHours: { ...WEEK, monday: [{ start: '17:00', end: '09:00' }] } },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'employee: overlapping intervals',
    'POST',
    () => '/api/v1/employees',
    {
      name: 'A',
      workingHours: {
        ...WEEK,
        monday: [
          { start: '09:00', end: '13:00' },
          { start: '12:00', end: '17:00' },
        ],
      },
    },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'employee: 25:00',
    'POST',
    () => '/api/v1/employees',
    { name: 'A', workingHours: { ...WEEK, monday: [{ start: '09:00', end: '25:00' }] } },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'employee: an ftp:// external calendar',
    'POST',
    () => '/api/v1/employees',
    { name: 'A', externalCalendars: [{ url: 'ftp://example.com/cal.ics', name: 'x' }] },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'employee: six external calendars',
    'POST',
    () => '/api/v1/employees',
    {
      name: 'A',
      externalCalendars: [0, 1, 2, 3, 4, 5].map((i) => ({ url: `https://c${i}.example.com/x.ics`, name: `c${i}` })),
    },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'employee: an external calendar with an unknown field',
    'POST',
    () => '/api/v1/employees',
    { name: 'A', externalCalendars: [{ url: 'https://c.example.com/x.ics', name: 'x', secret: 1 }] },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'employee: a service of another company',
    'POST',
    () => '/api/v1/employees',
    () => ({ name: 'A', serviceIds: [ids.otherService] }),
    404,
    'NOT_FOUND',
  ],
  [
    'employee: a service of the live mode',
    'POST',
    () => '/api/v1/employees',
    () => ({ name: 'A', serviceIds: [ids.liveService] }),
    404,
    'NOT_FOUND',
  ],
  [
    'employee: PATCH another company',
    'PATCH',
    () => `/api/v1/employees/${ids.otherEmployee}`,
    { name: 'X' },
    404,
    'NOT_FOUND',
  ],
  [
    'employee: PATCH the live mode',
    'PATCH',
    () => `/api/v1/employees/${ids.liveEmployee}`,
    { name: 'X' },
    404,
    'NOT_FOUND',
  ],
  ['employee: PATCH a malformed id', 'PATCH', () => '/api/v1/employees/..%2F..%2Fetc', { name: 'X' }, 404, 'NOT_FOUND'],
  [
    'employee: PATCH active as a string',
    'PATCH',
    () => `/api/v1/employees/${ids.employee}`,
    { active: 'false' },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'employee: DELETE another company',
    'DELETE',
    () => `/api/v1/employees/${ids.otherEmployee}`,
    undefined,
    404,
    'NOT_FOUND',
  ],
  [
    'time off: end before start',
    'POST',
    () => `/api/v1/employees/${ids.employee}/time-off`,
    { startTime: later(5), endTime: later(4) },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'time off: a time without offset',
    'POST',
    () => `/api/v1/employees/${ids.employee}/time-off`,
    { startTime: '2030-01-01T10:00:00', endTime: '2030-01-01T12:00:00' },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'time off: ten years',
    'POST',
    () => `/api/v1/employees/${ids.employee}/time-off`,
    { startTime: '2030-01-01T00:00:00Z', endTime: '2040-01-01T00:00:00Z' },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'time off: another company',
    'POST',
    () => `/api/v1/employees/${ids.otherEmployee}/time-off`,
    { startTime: later(4), endTime: later(5) },
    404,
    'NOT_FOUND',
  ],
  [
    'time off: DELETE another company',
    'DELETE',
    () => `/api/v1/employees/${ids.employee}/time-off/${ids.otherTimeOff}`,
    undefined,
    404,
    'NOT_FOUND',
  ],
  // services
  [
    'service: duration as a string',
    'POST',
    () => '/api/v1/services',
    { name: 'S', durationMinutes: '60' },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'service: negative price',
    'POST',
    () => '/api/v1/services',
    { name: 'S', durationMinutes: 60, price: -1 },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'service: fractional price',
    'POST',
    () => '/api/v1/services',
    { name: 'S', durationMinutes: 60, price: 10.5 },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'service: a huge duration',
    'POST',
    () => '/api/v1/services',
    { name: 'S', durationMinutes: 1e12 },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'service: an unknown kind',
    'POST',
    () => '/api/v1/services',
    { name: 'S', durationMinutes: 60, kind: 'party' },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'service: employees of another company',
    'POST',
    () => '/api/v1/services',
    () => ({ name: 'S', durationMinutes: 60, employeeIds: [ids.otherEmployee] }),
    404,
    'NOT_FOUND',
  ],
  ['service: PATCH kind', 'PATCH', () => `/api/v1/services/${ids.service}`, { kind: 'class' }, 400, 'VALIDATION_ERROR'],
  [
    'service: PATCH another company',
    'PATCH',
    () => `/api/v1/services/${ids.otherService}`,
    { name: 'X' },
    404,
    'NOT_FOUND',
  ],
  // class schedules
  [
    'class schedule: a secondly rule',
    'POST',
    () => '/api/v1/class-schedules',
    () => ({ ...farSchedule(), rrule: 'FREQ=SECONDLY' }),
    400,
    'VALIDATION_ERROR',
  ],
  [
    'class schedule: a huge COUNT',
    'POST',
    () => '/api/v1/class-schedules',
    () => ({ ...farSchedule(), rrule: 'FREQ=DAILY;COUNT=999999' }),
    400,
    'VALIDATION_ERROR',
  ],
  [
    'class schedule: a rule that yields nothing',
    'POST',
    () => '/api/v1/class-schedules',
    () => ({ ...farSchedule(), rrule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30' }),
    400,
    'VALIDATION_ERROR',
  ],
  [
    'class schedule: a service of another company',
    'POST',
    () => '/api/v1/class-schedules',
    () => ({ ...farSchedule(), serviceId: ids.otherService }),
    404,
    'NOT_FOUND',
  ],
  // classes
  [
    'class: end before start',
    'POST',
    () => '/api/v1/classes',
    () => ({ serviceId: ids.yoga, employeeId: ids.employee, startTime: later(10), endTime: later(9), capacity: 5 }),
    400,
    'VALIDATION_ERROR',
  ],
  [
    'class: ten years long',
    'POST',
    () => '/api/v1/classes',
    () => ({
      serviceId: ids.yoga,
      employeeId: ids.employee,
      startTime: later(10),
      endTime: '2099-01-01T00:00:00Z',
      capacity: 5,
    }),
    400,
    'VALIDATION_ERROR',
  ],
  [
    'class: capacity 0',
    'POST',
    () => '/api/v1/classes',
    () => ({ serviceId: ids.yoga, employeeId: ids.employee, startTime: later(10), capacity: 0 }),
    400,
    'VALIDATION_ERROR',
  ],
  [
    'class: in the past',
    'POST',
    () => '/api/v1/classes',
    () => ({ serviceId: ids.yoga, employeeId: ids.employee, startTime: '2020-01-01T10:00:00Z', capacity: 5 }),
    400,
    'VALIDATION_ERROR',
  ],
  [
    'class: an appointment service',
    'POST',
    () => '/api/v1/classes',
    () => ({ serviceId: ids.service, employeeId: ids.employee, startTime: later(10), capacity: 5 }),
    400,
    'VALIDATION_ERROR',
  ],
  [
    'class: a service of another company',
    'POST',
    () => '/api/v1/classes',
    () => ({ serviceId: ids.otherService, employeeId: ids.employee, startTime: later(10), capacity: 5 }),
    404,
    'NOT_FOUND',
  ],
  [
    'class: PATCH capacity below the places booked',
    'PATCH',
    () => `/api/v1/classes/${ids.session}`,
    { capacity: 0 },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'class: PATCH end before start',
    'PATCH',
    () => `/api/v1/classes/${ids.session}`,
    { endTime: '2020-01-01T00:00:00Z' },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'class: PATCH bookedCount',
    'PATCH',
    () => `/api/v1/classes/${ids.session}`,
    { bookedCount: 0 },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'class: cancel with an unknown field',
    'POST',
    () => `/api/v1/classes/${ids.session}/cancel`,
    { force: true },
    400,
    'VALIDATION_ERROR',
  ],
  ['class: cancel a booking id', 'POST', () => `/api/v1/classes/${ids.booking}/cancel`, {}, 404, 'NOT_FOUND'],
  [
    'class: an instructor of another company',
    'POST',
    () => '/api/v1/classes',
    () => ({ serviceId: ids.yoga, employeeId: ids.otherEmployee, startTime: later(11), capacity: 5 }),
    404,
    'NOT_FOUND',
  ],
  [
    'class: an instructor of the live mode',
    'POST',
    () => '/api/v1/classes',
    () => ({ serviceId: ids.yoga, employeeId: ids.liveEmployee, startTime: later(11), capacity: 5 }),
    404,
    'NOT_FOUND',
  ],
  [
    'class: PATCH to an instructor of another company',
    'PATCH',
    () => `/api/v1/classes/${ids.session}`,
    () => ({ employeeId: ids.otherEmployee }),
    404,
    'NOT_FOUND',
  ],
  [
    'class: PATCH to an instructor of the live mode',
    'PATCH',
    () => `/api/v1/classes/${ids.session}`,
    () => ({ employeeId: ids.liveEmployee }),
    404,
    'NOT_FOUND',
  ],
  [
    'class: PATCH a session of another company',
    'PATCH',
    () => `/api/v1/classes/${ids.otherSession}`,
    { capacity: 3 },
    404,
    'NOT_FOUND',
  ],
  [
    'class: PATCH into the past',
    'PATCH',
    () => `/api/v1/classes/${ids.session}`,
    { startTime: '2020-01-01T10:00:00Z', endTime: '2020-01-01T11:00:00Z' },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'class: PATCH 31 February',
    'PATCH',
    () => `/api/v1/classes/${ids.session}`,
    { startTime: '2031-02-31T10:00:00Z' },
    400,
    'VALIDATION_ERROR',
  ],
  // customers
  ['customer: a bad e-mail', 'POST', () => '/api/v1/customers', { name: 'A', email: 'nope' }, 400, 'VALIDATION_ERROR'],
  [
    'customer: a phone without +',
    'POST',
    () => '/api/v1/customers',
    { name: 'A', email: 'a1@example.com', phone: '030 123456' },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'customer: e-mail taken (other case)',
    'POST',
    () => '/api/v1/customers',
    { name: 'A', email: 'ANN@example.com' },
    409,
    'CONFLICT',
  ],
  ['customer: missing e-mail', 'POST', () => '/api/v1/customers', { name: 'A' }, 400, 'VALIDATION_ERROR'],
  [
    'customer: PATCH to a taken e-mail',
    'PATCH',
    () => `/api/v1/customers/${ids.customer}`,
    { email: 'bo@example.com' },
    409,
    'CONFLICT',
  ],
  [
    'customer: PATCH the live mode',
    'PATCH',
    () => `/api/v1/customers/${ids.liveCustomer}`,
    { name: 'X' },
    404,
    'NOT_FOUND',
  ],
  [
    'customer: DELETE one with bookings',
    'DELETE',
    () => `/api/v1/customers/${ids.customer}`,
    undefined,
    409,
    'CONFLICT',
  ],
  // bookings
  [
    'booking: a time without offset',
    'POST',
    () => '/api/v1/bookings',
    () => ({ serviceId: ids.service, startTime: '2030-01-01T10:00:00', customerId: ids.customer }),
    400,
    'VALIDATION_ERROR',
  ],
  [
    'booking: an offset without its colon',
    'POST',
    () => '/api/v1/bookings',
    () => ({ serviceId: ids.service, startTime: '2030-01-01T10:00:00+0200', customerId: ids.customer }),
    400,
    'VALIDATION_ERROR',
  ],
  [
    'booking: year 0000',
    'POST',
    () => '/api/v1/bookings',
    () => ({ serviceId: ids.service, startTime: '0000-01-01T10:00:00Z', customerId: ids.customer }),
    400,
    'VALIDATION_ERROR',
  ],
  [
    'booking: in the past',
    'POST',
    () => '/api/v1/bookings',
    () => ({ serviceId: ids.service, startTime: '2020-01-01T10:00:00Z', customerId: ids.customer }),
    400,
    'VALIDATION_ERROR',
  ],
  [
    'booking: year 2150',
    'POST',
    () => '/api/v1/bookings',
    () => ({ serviceId: ids.service, startTime: '2150-01-01T10:00:00Z', customerId: ids.customer }),
    400,
    'VALIDATION_ERROR',
  ],
  [
    'booking: startTime as a number',
    'POST',
    () => '/api/v1/bookings',
    () => ({ serviceId: ids.service, startTime: 1893456000000, customerId: ids.customer }),
    400,
    'VALIDATION_ERROR',
  ],
  [
    'booking: both customerId and customer',
    'POST',
    () => '/api/v1/bookings',
    () => ({
      serviceId: ids.service,
      startTime: later(20),
      customerId: ids.customer,
      customer: { name: 'A', email: 'z@example.com' },
    }),
    400,
    'VALIDATION_ERROR',
  ],
  [
    'booking: no customer',
    'POST',
    () => '/api/v1/bookings',
    () => ({ serviceId: ids.service, startTime: later(20) }),
    400,
    'VALIDATION_ERROR',
  ],
  [
    'booking: an unknown field',
    'POST',
    () => '/api/v1/bookings',
    () => ({ serviceId: ids.service, startTime: later(20), customerId: ids.customer, status: 'completed' }),
    400,
    'VALIDATION_ERROR',
  ],
  [
    'booking: a customer of another company',
    'POST',
    () => '/api/v1/bookings',
    () => ({ serviceId: ids.service, startTime: later(20), customerId: ids.otherCustomer }),
    404,
    'NOT_FOUND',
  ],
  [
    'booking: a service of another company',
    'POST',
    () => '/api/v1/bookings',
    () => ({ serviceId: ids.otherService, startTime: later(20), customerId: ids.customer }),
    404,
    'NOT_FOUND',
  ],
  [
    'booking: a service of the live mode',
    'POST',
    () => '/api/v1/bookings',
    () => ({ serviceId: ids.liveService, startTime: later(20), customerId: ids.customer }),
    404,
    'NOT_FOUND',
  ],
  [
    'booking: an employee of another company',
    'POST',
    () => '/api/v1/bookings',
    () => ({ serviceId: ids.service, employeeId: ids.otherEmployee, startTime: later(20), customerId: ids.customer }),
    404,
    'NOT_FOUND',
  ],
  [
    'booking: a class session of another company',
    'POST',
    () => '/api/v1/bookings',
    () => ({ serviceId: ids.yoga, classId: ids.otherSession, customerId: ids.customer }),
    404,
    'NOT_FOUND',
  ],
  [
    'booking: their class service and session',
    'POST',
    () => '/api/v1/bookings',
    () => ({ serviceId: ids.otherYoga, classId: ids.otherSession, customerId: ids.customer }),
    404,
    'NOT_FOUND',
  ],
  [
    'booking: a class session of the live mode',
    'POST',
    () => '/api/v1/bookings',
    () => ({ serviceId: ids.yoga, classId: ids.liveSession, customerId: ids.customer }),
    404,
    'NOT_FOUND',
  ],
  [
    'booking: a class id for an appointment',
    'POST',
    () => '/api/v1/bookings',
    () => ({ serviceId: ids.service, classId: ids.session, startTime: later(20), customerId: ids.customer }),
    400,
    'VALIDATION_ERROR',
  ],
  [
    'booking: a class service without classId',
    'POST',
    () => '/api/v1/bookings',
    () => ({ serviceId: ids.yoga, customerId: ids.customer }),
    400,
    'VALIDATION_ERROR',
  ],
  [
    'booking: an inline customer with a bad e-mail',
    'POST',
    () => '/api/v1/bookings',
    () => ({ serviceId: ids.service, startTime: later(20), customer: { name: 'A', email: 'x' } }),
    400,
    'VALIDATION_ERROR',
  ],
  [
    'booking: the taken slot',
    'POST',
    () => '/api/v1/bookings',
    () => ({ serviceId: ids.service, startTime: later(3), customer: { name: 'New', email: 'new@example.com' } }),
    409,
    'SLOT_UNAVAILABLE',
  ],
  [
    'booking: the same customer twice in a class',
    'POST',
    () => '/api/v1/bookings',
    () => ({ serviceId: ids.yoga, classId: ids.session, customerId: ids.customer }),
    409,
    'CONFLICT',
  ],
  [
    'booking: cancel with a numeric reason',
    'POST',
    () => `/api/v1/bookings/${ids.booking}/cancel`,
    { reason: 5 },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'booking: cancel another company',
    'POST',
    () => `/api/v1/bookings/${ids.otherBooking}/cancel`,
    {},
    404,
    'NOT_FOUND',
  ],
  [
    'booking: confirm with a body',
    'POST',
    () => `/api/v1/bookings/${ids.booking}/confirm`,
    { status: 'confirmed' },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'booking: reschedule without offset',
    'POST',
    () => `/api/v1/bookings/${ids.booking}/reschedule`,
    { startTime: '2030-01-01T10:00' },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'booking: reschedule into the past',
    'POST',
    () => `/api/v1/bookings/${ids.booking}/reschedule`,
    { startTime: '2020-01-01T10:00:00Z' },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'booking: reschedule to an employee of another company',
    'POST',
    () => `/api/v1/bookings/${ids.booking}/reschedule`,
    () => ({ startTime: later(30), employeeId: ids.otherEmployee }),
    404,
    'NOT_FOUND',
  ],
  [
    'booking: reschedule another company',
    'POST',
    () => `/api/v1/bookings/${ids.otherBooking}/reschedule`,
    { startTime: later(30) },
    404,
    'NOT_FOUND',
  ],
  [
    'booking: notifications of another company',
    'GET',
    () => `/api/v1/bookings/${ids.otherBooking}/notifications`,
    undefined,
    404,
    'NOT_FOUND',
  ],
  [
    'service: reminders with a bad channel',
    'POST',
    () => '/api/v1/services',
    { name: 'S', durationMinutes: 60, reminders: [{ offsetMinutes: 60, channel: 'sms' }] },
    400,
    'VALIDATION_ERROR',
  ],
  [
    'service: a reminder 30000 minutes before',
    'POST',
    () => '/api/v1/services',
    { name: 'S', durationMinutes: 60, reminders: [{ offsetMinutes: 30_000, channel: 'email' }] },
    400,
    'VALIDATION_ERROR',
  ],
  // availability and lists
  [
    'availability: ten years',
    'GET',
    () => `/api/v1/availability?serviceId=${ids.service}&from=2030-01-01T00:00:00Z&to=2040-01-01T00:00:00Z`,
    undefined,
    400,
    'VALIDATION_ERROR',
  ],
  [
    'availability: 32 days',
    'GET',
    () => `/api/v1/availability?serviceId=${ids.service}&from=2030-01-01T00:00:00Z&to=2030-02-02T00:00:01Z`,
    undefined,
    400,
    'VALIDATION_ERROR',
  ],
  [
    'availability: to before from',
    'GET',
    () => `/api/v1/availability?serviceId=${ids.service}&from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z`,
    undefined,
    400,
    'VALIDATION_ERROR',
  ],
  [
    'availability: without offset',
    'GET',
    () => `/api/v1/availability?serviceId=${ids.service}&from=2030-01-01T00:00:00&to=2030-01-02T00:00:00`,
    undefined,
    400,
    'VALIDATION_ERROR',
  ],
  [
    'availability: another company',
    'GET',
    () => `/api/v1/availability?serviceId=${ids.otherService}&from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z`,
    undefined,
    404,
    'NOT_FOUND',
  ],
  [
    'availability: no service',
    'GET',
    () => '/api/v1/availability?from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z',
    undefined,
    400,
    'VALIDATION_ERROR',
  ],
  ['bookings: an unknown status', 'GET', () => '/api/v1/bookings?status=done', undefined, 400, 'VALIDATION_ERROR'],
  ['events: an unknown type', 'GET', () => '/api/v1/events?type=booking.exploded', undefined, 400, 'VALIDATION_ERROR'],
  ['events: another company', 'GET', () => `/api/v1/events/${ids.otherEvent}`, undefined, 404, 'NOT_FOUND'],
  ['events: the live mode', 'GET', () => `/api/v1/events/${ids.liveEvent}`, undefined, 404, 'NOT_FOUND'],
  ['events: a booking id', 'GET', () => `/api/v1/events/${ids.booking}`, undefined, 404, 'NOT_FOUND'],
];

describe('hostile input', () => {
  for (const [name, method, url, payload, status, code] of CASES) {
    it(`${name} → ${status} ${code}, nothing written`, async () => {
      const before = await counts();
      const body0 = typeof payload === 'function' ? payload() : payload;
      const res = await t.app.inject({
        method,
        url: url(),
        headers: c.auth,
        ...(body0 !== undefined ? { payload: body0 as object } : {}),
      });
      const body = expectError(res, status, code);
      if (code === 'VALIDATION_ERROR') expect(body.error.details?.[0]?.path ?? body.error.message).toBeTruthy();
      expect(await counts()).toEqual(before);
    });
  }
});

/** The /api/v1 routes of the app's registry (its OpenAPI document), as "METHOD /path/{param}". */
async function registeredRoutes(): Promise<Array<{ route: string; query: string[] }>> {
  const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const out: Array<{ route: string; query: string[] }> = [];
  for (const [path, ops] of Object.entries<Record<string, { parameters?: Array<{ in: string; name: string }> }>>(
    doc.paths,
  )) {
    if (!path.startsWith('/api/v1/')) continue;
    for (const [method, op] of Object.entries(ops)) {
      out.push({
        route: `${method.toUpperCase()} ${path}`,
        query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
      });
    }
  }
  return out;
}

// Routes outside the booking domain, tested with their own surfaces (me, payments, webhooks, e-mails).
const NOT_DOMAIN =
  /^(GET|POST|PATCH|DELETE) \/api\/v1\/(me|payments|webhook-endpoints|webhook-deliveries|emails)(\/|$)/;

type Req = { url: string; payload?: object };
const full = () => c.auth;
const made = async (path: string, payload: object) => (await post(t.app, path, full(), payload))._id as string;
const freshBooking = async (opts: { paid?: boolean } = {}) => {
  const serviceId = opts.paid
    ? await made('/api/v1/services', {
        name: 'Paid',
        durationMinutes: 30,
        price: 100,
        requiresPayment: true,
        employeeIds: [ids.employee],
      })
    : ids.service;
  return made('/api/v1/bookings', {
    serviceId,
    startTime: later(200 + slotSeq++),
    customer: { name: 'S', email: `s${slotSeq}@example.com` },
  });
};
let slotSeq = 0;
const freshSeries = () =>
  made('/api/v1/booking-series', {
    serviceId: ids.service,
    startTime: later(450 + (slotSeq += 2)),
    rrule: 'FREQ=DAILY;COUNT=2',
    customer: { name: 'R', email: `r${slotSeq}@example.com` },
  });
const freshVisit = () =>
  made('/api/v1/visits', {
    items: [{ serviceId: ids.service }, { serviceId: ids.service }],
    startTime: later(400 + slotSeq++),
    customer: { name: 'V', email: `v${slotSeq}@example.com` },
  });
const freshSession = () =>
  made('/api/v1/classes', {
    serviceId: ids.yoga,
    employeeId: ids.employee,
    startTime: later(700 + slotSeq++),
    capacity: 3,
  });

// A class schedule that starts beyond the 12-week horizon: it generates no session yet, so it
// keeps the instructor free for the other requests.
const farSchedule = () => ({
  serviceId: ids.yoga,
  employeeId: ids.employee,
  localStartTime: '18:30',
  rrule: 'FREQ=WEEKLY;COUNT=2',
  capacity: 3,
  startsOn: '2098-01-05',
});

// Every booking-domain route, the scope docs/oauth.md gives it, and a request that would succeed
// (and write, for the write routes) if the scope were not checked.
const SCOPE_ROUTES: Record<string, [scope: string, request: () => Promise<Req>]> = {
  'GET /api/v1/employees': ['employees:read', async () => ({ url: '/api/v1/employees' })],
  'POST /api/v1/employees': [
    'employees:write',
    async () => ({ url: '/api/v1/employees', payload: { name: 'Scoped' } }),
  ],
  'GET /api/v1/employees/{id}': ['employees:read', async () => ({ url: `/api/v1/employees/${ids.employee}` })],
  'PATCH /api/v1/employees/{id}': [
    'employees:write',
    async () => ({
      url: `/api/v1/employees/${await made('/api/v1/employees', { name: 'P' })}`,
      payload: { name: 'Renamed' },
    }),
  ],
  'DELETE /api/v1/employees/{id}': [
    'employees:write',
    async () => ({ url: `/api/v1/employees/${await made('/api/v1/employees', { name: 'D' })}` }),
  ],
  'GET /api/v1/employees/{id}/time-off': [
    'employees:read',
    async () => ({ url: `/api/v1/employees/${ids.employee}/time-off` }),
  ],
  'POST /api/v1/employees/{id}/calendar-feed/rotate': [
    'employees:write',
    async () => ({
      url: `/api/v1/employees/${await made('/api/v1/employees', { name: 'F' })}/calendar-feed/rotate`,
      payload: { includeNotes: true },
    }),
  ],
  'POST /api/v1/employees/{id}/time-off': [
    'employees:write',
    async () => ({
      url: `/api/v1/employees/${await made('/api/v1/employees', { name: 'T' })}/time-off`,
      payload: { startTime: later(60), endTime: later(61) },
    }),
  ],
  'DELETE /api/v1/employees/{id}/time-off/{timeOffId}': [
    'employees:write',
    async () => {
      const e = await made('/api/v1/employees', { name: 'O' });
      return {
        url: `/api/v1/employees/${e}/time-off/${await made(`/api/v1/employees/${e}/time-off`, { startTime: later(62), endTime: later(63) })}`,
      };
    },
  ],
  'GET /api/v1/services': ['services:read', async () => ({ url: '/api/v1/services' })],
  'POST /api/v1/services': [
    'services:write',
    async () => ({ url: '/api/v1/services', payload: { name: 'Scoped', durationMinutes: 30 } }),
  ],
  'GET /api/v1/services/{id}': ['services:read', async () => ({ url: `/api/v1/services/${ids.service}` })],
  'PATCH /api/v1/services/{id}': [
    'services:write',
    async () => ({
      url: `/api/v1/services/${await made('/api/v1/services', { name: 'P', durationMinutes: 30 })}`,
      payload: { name: 'Renamed' },
    }),
  ],
  'DELETE /api/v1/services/{id}': [
    'services:write',
    async () => ({ url: `/api/v1/services/${await made('/api/v1/services', { name: 'D', durationMinutes: 30 })}` }),
  ],
  'GET /api/v1/classes': ['services:read', async () => ({ url: '/api/v1/classes' })],
  'POST /api/v1/classes': [
    'services:write',
    async () => ({
      url: '/api/v1/classes',
      payload: { serviceId: ids.yoga, employeeId: ids.employee, startTime: later(800 + slotSeq++), capacity: 3 },
    }),
  ],
  'GET /api/v1/classes/{id}': ['services:read', async () => ({ url: `/api/v1/classes/${ids.session}` })],
  'PATCH /api/v1/classes/{id}': [
    'services:write',
    async () => ({ url: `/api/v1/classes/${await freshSession()}`, payload: { capacity: 9 } }),
  ],
  'POST /api/v1/classes/{id}/cancel': [
    'services:write',
    async () => ({ url: `/api/v1/classes/${await freshSession()}/cancel`, payload: {} }),
  ],
  'GET /api/v1/class-schedules': ['services:read', async () => ({ url: '/api/v1/class-schedules' })],
  'POST /api/v1/class-schedules': [
    'services:write',
    async () => ({ url: '/api/v1/class-schedules', payload: farSchedule() }),
  ],
  'GET /api/v1/class-schedules/{id}': [
    'services:read',
    async () => ({ url: `/api/v1/class-schedules/${await made('/api/v1/class-schedules', farSchedule())}` }),
  ],
  'PATCH /api/v1/class-schedules/{id}': [
    'services:write',
    async () => ({
      url: `/api/v1/class-schedules/${await made('/api/v1/class-schedules', farSchedule())}`,
      payload: { applyTo: 'future', capacity: 4 },
    }),
  ],
  'DELETE /api/v1/class-schedules/{id}': [
    'services:write',
    async () => ({ url: `/api/v1/class-schedules/${await made('/api/v1/class-schedules', farSchedule())}` }),
  ],
  'GET /api/v1/customers': ['customers:read', async () => ({ url: '/api/v1/customers' })],
  'POST /api/v1/customers': [
    'customers:write',
    async () => ({ url: '/api/v1/customers', payload: { name: 'A', email: `scope${slotSeq++}@example.com` } }),
  ],
  'GET /api/v1/customers/{id}': ['customers:read', async () => ({ url: `/api/v1/customers/${ids.customer}` })],
  'PATCH /api/v1/customers/{id}': [
    'customers:write',
    async () => ({
      url: `/api/v1/customers/${await made('/api/v1/customers', { name: 'P', email: `p${slotSeq++}@example.com` })}`,
      payload: { name: 'Renamed' },
    }),
  ],
  'DELETE /api/v1/customers/{id}': [
    'customers:write',
    async () => ({
      url: `/api/v1/customers/${await made('/api/v1/customers', { name: 'D', email: `d${slotSeq++}@example.com` })}`,
    }),
  ],
  'POST /api/v1/customers/{id}/erase': [
    'customers:write',
    async () => ({
      url: `/api/v1/customers/${await made('/api/v1/customers', { name: 'E', email: `e${slotSeq++}@example.com` })}/erase`,
    }),
  ],
  'GET /api/v1/customers/{id}/export': [
    'customers:read',
    async () => ({ url: `/api/v1/customers/${ids.customer}/export` }),
  ],
  'GET /api/v1/availability': [
    'availability:read',
    async () => ({ url: `/api/v1/availability?serviceId=${ids.service}&from=${later(70)}&to=${later(71)}` }),
  ],
  'GET /api/v1/availability/explain': [
    'availability:read',
    async () => ({ url: `/api/v1/availability/explain?serviceId=${ids.service}&startTime=${later(70)}` }),
  ],
  'GET /api/v1/bookings': ['bookings:read', async () => ({ url: '/api/v1/bookings' })],
  'GET /api/v1/reports/bookings': [
    'bookings:read',
    async () => ({ url: `/api/v1/reports/bookings?from=${later(70)}&to=${later(71)}&groupBy=day` }),
  ],
  'POST /api/v1/bookings': [
    'bookings:write',
    async () => ({
      url: '/api/v1/bookings',
      payload: { serviceId: ids.service, startTime: later(400 + slotSeq++), customerId: ids.customer },
    }),
  ],
  'GET /api/v1/bookings/{id}': ['bookings:read', async () => ({ url: `/api/v1/bookings/${ids.booking}` })],
  'PATCH /api/v1/bookings/{id}': [
    'bookings:write',
    async () => ({ url: `/api/v1/bookings/${await freshBooking()}`, payload: { metadata: { scope: 'yes' } } }),
  ],
  'POST /api/v1/bookings/{id}/manage-link/rotate': [
    'bookings:write',
    async () => ({ url: `/api/v1/bookings/${await freshBooking()}/manage-link/rotate` }),
  ],
  'GET /api/v1/bookings/{id}/notifications': [
    'bookings:read',
    async () => ({ url: `/api/v1/bookings/${ids.booking}/notifications` }),
  ],
  'GET /api/v1/bookings/{id}/cancellation-quote': [
    'bookings:read',
    async () => ({ url: `/api/v1/bookings/${ids.booking}/cancellation-quote?cancelledBy=customer` }),
  ],
  'POST /api/v1/bookings/{id}/confirm': [
    'bookings:write',
    async () => ({ url: `/api/v1/bookings/${await freshBooking({ paid: true })}/confirm` }),
  ],
  'POST /api/v1/bookings/{id}/cancel': [
    'bookings:write',
    async () => ({ url: `/api/v1/bookings/${await freshBooking()}/cancel`, payload: { reason: 'scope' } }),
  ],
  'POST /api/v1/bookings/{id}/accept-offer': [
    'bookings:write',
    async () => {
      // A class of one place with a waitlist in offer mode: the place freed is offered to the second.
      const serviceId = await made('/api/v1/services', {
        name: 'Spin',
        kind: 'class',
        durationMinutes: 45,
        employeeIds: [ids.employee],
        waitlist: { enabled: true, offerMode: 'offer' },
      });
      const classId = await made('/api/v1/classes', {
        serviceId,
        employeeId: ids.employee,
        startTime: later(700 + slotSeq++),
        capacity: 1,
      });
      const customer = () => ({ name: 'S', email: `s${slotSeq++}@example.com` });
      const first = await made('/api/v1/bookings', { serviceId, classId, customer: customer() });
      const second = await made('/api/v1/bookings', { serviceId, classId, customer: customer(), waitlist: true });
      await post(t.app, `/api/v1/bookings/${first}/cancel`, full(), {});
      return { url: `/api/v1/bookings/${second}/accept-offer` };
    },
  ],
  'POST /api/v1/bookings/{id}/reschedule': [
    'bookings:write',
    async () => ({
      url: `/api/v1/bookings/${await freshBooking()}/reschedule`,
      payload: { startTime: later(600 + slotSeq++) },
    }),
  ],
  'POST /api/v1/booking-series': [
    'bookings:write',
    async () => ({
      url: '/api/v1/booking-series',
      payload: {
        serviceId: ids.service,
        startTime: later(450 + (slotSeq += 2)),
        rrule: 'FREQ=DAILY;COUNT=2',
        customer: { name: 'R', email: 'r@example.com' },
      },
    }),
  ],
  'GET /api/v1/booking-series/{id}': [
    'bookings:read',
    async () => ({ url: `/api/v1/booking-series/${await freshSeries()}` }),
  ],
  'POST /api/v1/booking-series/{id}/cancel': [
    'bookings:write',
    async () => ({ url: `/api/v1/booking-series/${await freshSeries()}/cancel`, payload: { reason: 'scoped' } }),
  ],
  'POST /api/v1/visits': [
    'bookings:write',
    async () => ({
      url: '/api/v1/visits',
      payload: {
        items: [{ serviceId: ids.service }],
        startTime: later(400 + slotSeq++),
        customer: { name: 'V', email: 'v@example.com' },
      },
    }),
  ],
  'GET /api/v1/visits/{id}': ['bookings:read', async () => ({ url: `/api/v1/visits/${await freshVisit()}` })],
  'POST /api/v1/visits/{id}/cancel': [
    'bookings:write',
    async () => ({ url: `/api/v1/visits/${await freshVisit()}/cancel`, payload: { reason: 'scoped' } }),
  ],
  'POST /api/v1/visits/{id}/reschedule': [
    'bookings:write',
    async () => ({
      url: `/api/v1/visits/${await freshVisit()}/reschedule`,
      payload: { startTime: later(400 + slotSeq++) },
    }),
  ],
  'POST /api/v1/bookings/{id}/complete': [
    'bookings:write',
    async () => {
      const id = await freshBooking();
      const start = new Date(Date.now() - (10 + slotSeq++) * 86_400_000);
      const end = new Date(start.getTime() + 3600_000);
      await t.dbs.test.prisma.booking.update({
        where: { id },
        data: { startTime: start, endTime: end, blockStart: start, blockEnd: end },
      });
      return { url: `/api/v1/bookings/${id}/complete` };
    },
  ],
  'POST /api/v1/bookings/{id}/no-show': [
    'bookings:write',
    async () => {
      const id = await freshBooking();
      const start = new Date(Date.now() - (10 + slotSeq++) * 86_400_000);
      const end = new Date(start.getTime() + 3600_000);
      await t.dbs.test.prisma.booking.update({
        where: { id },
        data: { startTime: start, endTime: end, blockStart: start, blockEnd: end },
      });
      return { url: `/api/v1/bookings/${id}/no-show` };
    },
  ],
  'GET /api/v1/employees/{id}/date-overrides': [
    'employees:read',
    async () => ({ url: `/api/v1/employees/${ids.employee}/date-overrides` }),
  ],
  'PUT /api/v1/employees/{id}/date-overrides/{date}': [
    'employees:write',
    async () => ({
      url: `/api/v1/employees/${await made('/api/v1/employees', { name: 'DO' })}/date-overrides/2030-01-02`,
      payload: { intervals: [] },
    }),
  ],
  'DELETE /api/v1/employees/{id}/date-overrides/{date}': [
    'employees:write',
    async () => {
      const e = await made('/api/v1/employees', { name: 'DD' });
      const url = `/api/v1/employees/${e}/date-overrides/2030-01-03`;
      ok(await t.app.inject({ method: 'PUT', url, headers: full(), payload: { intervals: [] } }));
      return { url };
    },
  ],
  'GET /api/v1/locations': ['company:read', async () => ({ url: '/api/v1/locations' })],
  'POST /api/v1/locations': [
    'company:write',
    async () => ({ url: '/api/v1/locations', payload: { name: 'L', address: 'A', timeZone: 'UTC' } }),
  ],
  'GET /api/v1/locations/{id}': [
    'company:read',
    async () => ({
      url: `/api/v1/locations/${await made('/api/v1/locations', { name: 'LG', address: 'A', timeZone: 'UTC' })}`,
    }),
  ],
  'PATCH /api/v1/locations/{id}': [
    'company:write',
    async () => ({
      url: `/api/v1/locations/${await made('/api/v1/locations', { name: 'LP', address: 'A', timeZone: 'UTC' })}`,
      payload: { name: 'LP2' },
    }),
  ],
  'DELETE /api/v1/locations/{id}': [
    'company:write',
    async () => ({
      url: `/api/v1/locations/${await made('/api/v1/locations', { name: 'LD', address: 'A', timeZone: 'UTC' })}`,
    }),
  ],
  'GET /api/v1/resources': ['services:read', async () => ({ url: '/api/v1/resources' })],
  'POST /api/v1/resources': [
    'services:write',
    async () => ({ url: '/api/v1/resources', payload: { name: 'R', kind: 'room' } }),
  ],
  'GET /api/v1/resources/{id}': [
    'services:read',
    async () => ({ url: `/api/v1/resources/${await made('/api/v1/resources', { name: 'RG', kind: 'room' })}` }),
  ],
  'PATCH /api/v1/resources/{id}': [
    'services:write',
    async () => ({
      url: `/api/v1/resources/${await made('/api/v1/resources', { name: 'RP', kind: 'room' })}`,
      payload: { name: 'RP2' },
    }),
  ],
  'DELETE /api/v1/resources/{id}': [
    'services:write',
    async () => ({ url: `/api/v1/resources/${await made('/api/v1/resources', { name: 'RD', kind: 'equipment' })}` }),
  ],
  'GET /api/v1/closures': ['company:read', async () => ({ url: '/api/v1/closures' })],
  'POST /api/v1/closures': [
    'company:write',
    async () => ({
      url: '/api/v1/closures',
      payload: {
        startTime: later(300 + slotSeq),
        endTime: later(301 + slotSeq++),
        reason: 'Scoped',
        employeeIds: [await made('/api/v1/employees', { name: 'C' })],
      },
    }),
  ],
  'DELETE /api/v1/closures/{id}': [
    'company:write',
    async () => ({
      url: `/api/v1/closures/${await made('/api/v1/closures', { startTime: later(400 + slotSeq), endTime: later(401 + slotSeq++), reason: 'D', employeeIds: [await made('/api/v1/employees', { name: 'CD' })] })}`,
    }),
  ],
  'GET /api/v1/test-clocks': ['company:read', async () => ({ url: '/api/v1/test-clocks' })],
  'POST /api/v1/test-clocks': [
    'company:write',
    async () => ({ url: '/api/v1/test-clocks', payload: { frozenTime: '2030-01-01T00:00:00Z' } }),
  ],
  'GET /api/v1/test-clocks/{id}': [
    'company:read',
    async () => ({
      url: `/api/v1/test-clocks/${await made('/api/v1/test-clocks', { frozenTime: '2030-01-01T00:00:00Z' })}`,
    }),
  ],
  'POST /api/v1/test-clocks/{id}/advance': [
    'company:write',
    async () => ({
      url: `/api/v1/test-clocks/${await made('/api/v1/test-clocks', { frozenTime: '2030-01-01T00:00:00Z' })}/advance`,
      payload: { to: '2030-01-02T00:00:00Z' },
    }),
  ],
  'DELETE /api/v1/test-clocks/{id}': [
    'company:write',
    async () => ({
      url: `/api/v1/test-clocks/${await made('/api/v1/test-clocks', { frozenTime: '2030-01-01T00:00:00Z' })}`,
    }),
  ],
  'GET /api/v1/events': ['events:read', async () => ({ url: '/api/v1/events' })],
  'GET /api/v1/request-logs': ['logs:read', async () => ({ url: '/api/v1/request-logs' })],
  'GET /api/v1/request-logs/{id}': [
    'logs:read',
    async () => {
      // The requests above are in the writer's buffer until it flushes.
      await t.app.requestLogs!.flush();
      const row = await t.dbs.test.prisma.requestLog.findFirstOrThrow({ where: { companyId: c.company.id } });
      return { url: `/api/v1/request-logs/${row.id}` };
    },
  ],
  'GET /api/v1/events/{id}': [
    'events:read',
    async () => ({
      url: `/api/v1/events/${ok(await t.app.inject({ method: 'GET', url: '/api/v1/events?limit=1', headers: full() }))[0]._id}`,
    }),
  ],
};

const ALL_SCOPES =
  'company:read company:write bookings:read bookings:write customers:read customers:write employees:read employees:write services:read services:write availability:read payments:read payments:write webhooks:read webhooks:write events:read emails:read logs:read'.split(
    ' ',
  );
const tokenFor = async (scope: string) =>
  bearer(await scopedToken(t.dbs, { accountId: w.account.id, companyId: c.company.id, mode: 'test', scope }));

describe('scopes', () => {
  it('every booking-domain route of the registry has a scope test (and every test a route)', async () => {
    const domain = (await registeredRoutes())
      .map((r) => r.route)
      .filter((r) => !NOT_DOMAIN.test(r))
      .sort();
    expect(domain).toEqual(Object.keys(SCOPE_ROUTES).sort());
    expect(domain.length).toBeGreaterThanOrEqual(34);
  });

  for (const [route, [scope, request]] of Object.entries(SCOPE_ROUTES)) {
    const method = route.split(' ')[0] as 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
    it(`${route} needs ${scope}: without it 403 INSUFFICIENT_SCOPE and nothing written`, async () => {
      const { url, payload } = await request();
      // Every scope but the one needed (the read scope of a write route included).
      const headers = await tokenFor(ALL_SCOPES.filter((s) => s !== scope).join(' '));
      const before = await counts();
      const res = await t.app.inject({ method, url, headers, ...(payload !== undefined ? { payload } : {}) });
      const body = expectError(res, 403, 'INSUFFICIENT_SCOPE');
      expect(body.error.details).toEqual({ requiredScope: scope });
      expect(String(res.headers['www-authenticate'])).toContain(`scope="${scope}"`);
      expect(await counts()).toEqual(before);
      // With the scope alone the request does what it asks.
      ok(
        await t.app.inject({
          method,
          url,
          headers: await tokenFor(scope),
          ...(payload !== undefined ? { payload } : {}),
        }),
      );
    });
  }

  it('GraphQL fields check the same scopes', async () => {
    const headers = await tokenWithScopes(t.dbs, w, 'bookings:read');
    const res = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers,
      payload: { query: '{ customers { data { _id } } bookings { data { _id } } }' },
    });
    const body = res.json();
    expect(body.errors[0].extensions).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      details: { requiredScope: 'customers:read' },
    });
    const m = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers,
      payload: { query: `mutation { cancelBooking(id: "${ids.booking}") { _id } }` },
    });
    expect(m.json().errors[0].extensions.code).toBe('INSUFFICIENT_SCOPE');
    expect((await t.dbs.test.prisma.booking.findUniqueOrThrow({ where: { id: ids.booking } })).status).toBe(
      'confirmed',
    );
  });
});

describe('huge limits on every list', () => {
  const HUGE = ['99999999999999999999', '101', '0', '-1', '1e3', '20.5'];
  it('every list of the registry takes ?limit= and refuses out-of-range ones with 400, nothing written', async () => {
    const lists = (await registeredRoutes()).filter((r) => r.route.startsWith('GET ') && r.query.includes('limit'));
    expect(lists.length).toBeGreaterThanOrEqual(7);
    for (const { route } of lists) {
      // A path id that is not the company's is fine: the limit is judged first, with the query.
      const path = route.slice(4).replace('{id}', ids.employee!);
      for (const limit of HUGE) {
        const before = await counts();
        const res = await t.app.inject({ method: 'GET', url: `${path}?limit=${limit}`, headers: { ...c.auth } });
        const body = expectError(res, 400, 'VALIDATION_ERROR');
        expect(JSON.stringify(body.error), `${route} limit=${limit}`).toContain('limit');
        expect(await counts()).toEqual(before);
      }
      if (!route.includes('{id}') || route.includes('/employees/'))
        ok(await t.app.inject({ method: 'GET', url: `${path}?limit=100`, headers: c.auth }));
    }
  });
});
