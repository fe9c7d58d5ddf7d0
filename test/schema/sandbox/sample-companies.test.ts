// The sample test companies every account starts with (docs/sandbox.md):
// the whole seeded graph read back from the sandbox database, checked against rules written
// here independently of the seeding code (Luxon for local times, the API's field rules).
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Databases } from '../../../src/db/databases.js';
import { SAMPLE_DATA } from '../../../src/schema/sandbox/sample-data/index.js';
import { SAMPLE_ORDER, SAMPLE_TEMPLATES } from '../../../src/schema/sandbox/samples.js';
import { createAccount } from '../../../src/schema/accounts/create-account.js';
import { email, phone } from '../../../src/schema/validation.js';
import { employeeWorkingHoursSchema } from '../../../src/schema/staff/working-hours.js';
import { createTestDatabases, type TestDatabases } from '../../helpers/db.js';
import { unique } from '../../helpers/factories.js';

let db: TestDatabases;
let dbs: Databases;
let accountId: string;
const startedAt = new Date();

beforeAll(async () => {
  db = await createTestDatabases();
  dbs = db.dbs;
  const { account } = await createAccount(dbs, {
    email: `samples-${unique()}@example.com`,
    password: 'correct horse battery',
  });
  accountId = account.id;
});
afterAll(async () => {
  await db?.drop();
});

const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;
const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));

/** docs/api.md: all seven keys, "HH:MM" local times, start before end, intervals in order and apart. */
function expectValidWorkingHours(wh: unknown) {
  expect(Object.keys(wh as object).sort()).toEqual([...DAYS].sort());
  let workingDays = 0;
  for (const day of DAYS) {
    const intervals = (wh as Record<string, { start: string; end: string }[]>)[day]!;
    expect(Array.isArray(intervals)).toBe(true);
    if (intervals.length) workingDays++;
    let previousEnd = -1;
    for (const i of intervals) {
      // An interval may name a site of the company (the clinic has two: docs/api.md, Locations).
      expect(
        Object.keys(i)
          .filter((k) => k !== 'locationId')
          .sort(),
      ).toEqual(['end', 'start']);
      expect(i.start).toMatch(HHMM);
      expect(i.end).toMatch(HHMM);
      expect(minutes(i.start)).toBeLessThan(minutes(i.end));
      expect(minutes(i.start)).toBeGreaterThan(previousEnd);
      previousEnd = minutes(i.end);
    }
  }
  expect(workingDays).toBeGreaterThanOrEqual(3);
  // And what the employees API itself accepts and stores (sorted), unchanged.
  expect(employeeWorkingHoursSchema.parse(wh)).toEqual(wh);
}

async function graphOf(template: string) {
  const company = await dbs.test.prisma.company.findFirstOrThrow({ where: { accountId, template } });
  const where = { companyId: company.id };
  const [employees, services, links, sessions, customers] = await Promise.all([
    dbs.test.prisma.employee.findMany({ where, orderBy: { id: 'asc' } }),
    dbs.test.prisma.service.findMany({ where, orderBy: { id: 'asc' } }),
    dbs.test.prisma.employeeService.findMany({ where: { service: where } }),
    dbs.test.prisma.classSession.findMany({ where: { ...where, scheduleId: null }, orderBy: { startTime: 'asc' } }),
    dbs.test.prisma.customer.findMany({ where, orderBy: { id: 'asc' } }),
  ]);
  return { company, employees, services, links, sessions, customers };
}

describe('every new account gets the three sample test companies', () => {
  it('with the profiles of the templates, in the sandbox database only', async () => {
    const companies = await dbs.test.prisma.company.findMany({ where: { accountId }, orderBy: { id: 'asc' } });
    expect(companies.map((c) => [c.name, c.timezone, c.currency, c.mode, c.template])).toEqual([
      ['Sample Hair Salon', 'Europe/Berlin', 'EUR', 'test', 'hair_salon'],
      ['Sample Medical Clinic', 'America/New_York', 'USD', 'test', 'clinic'],
      ['Sample Fitness Center', 'Europe/London', 'GBP', 'test', 'fitness'],
    ]);
    expect(await dbs.live.prisma.company.count({ where: { accountId } })).toBe(0);
    for (const table of ['employees', 'services', 'class_sessions', 'customers'] as const) {
      const [{ n }] = await dbs.live.prisma.$queryRawUnsafe<[{ n: number }]>(
        `SELECT count(*)::int AS n FROM public.${table}`,
      );
      expect(n, `live ${table}`).toBe(0);
    }
  });

  it.each([
    ['hair_salon', 3],
    ['clinic', 5],
    ['fitness', 4],
  ])('%s: %i employees with valid weekly hours, each performing a service', async (template, count) => {
    const g = await graphOf(template);
    expect(g.employees).toHaveLength(count);
    expect(new Set(g.employees.map((e) => e.name)).size).toBe(count);
    for (const e of g.employees) {
      expect(e.active).toBe(true);
      expectValidWorkingHours(e.workingHours);
      expect(email.parse(e.email)).toBe(e.email);
      expect(phone.parse(e.phone)).toBe(e.phone);
      expect(
        g.links.some((l) => l.employeeId === e.id),
        `${e.name} performs a service`,
      ).toBe(true);
    }
  });

  it.each(SAMPLE_ORDER)(
    '%s: services with prices, buffers and qualified staff; one requires payment',
    async (template) => {
      const g = await graphOf(template);
      expect(g.services.length).toBeGreaterThanOrEqual(4);
      expect(g.services.some((s) => s.requiresPayment)).toBe(true);
      const employeeIds = new Set(g.employees.map((e) => e.id));
      for (const s of g.services) {
        expect(s.active).toBe(true);
        expect(Number.isInteger(s.price) && s.price > 0).toBe(true);
        expect(s.durationMinutes % 5).toBe(0);
        expect(s.durationMinutes).toBeGreaterThanOrEqual(15);
        expect(s.bufferBeforeMinutes).toBeGreaterThanOrEqual(0);
        expect(s.bufferAfterMinutes).toBeGreaterThanOrEqual(0);
        const staff = g.links.filter((l) => l.serviceId === s.id);
        expect(staff.length, `${s.name} has staff`).toBeGreaterThan(0);
        for (const l of staff) expect(employeeIds.has(l.employeeId)).toBe(true);
      }
      expect(g.services.map((s) => s.name).sort()).toEqual(SAMPLE_DATA[template].services.map((s) => s.name).sort());
    },
  );

  it('the salon and the clinic offer appointments; the gym classes and personal training', async () => {
    const kinds = async (t: string) => (await graphOf(t)).services.map((s) => `${s.kind}:${s.name}`).sort();
    expect((await kinds('hair_salon')).every((k) => k.startsWith('appointment:'))).toBe(true);
    expect(await kinds('hair_salon')).toContain('appointment:Full Colour');
    expect(await kinds('clinic')).toEqual(
      expect.arrayContaining([
        'appointment:New Patient Consultation',
        'appointment:Flu Vaccination',
        'appointment:Annual Check-up',
      ]),
    );
    expect(await kinds('fitness')).toEqual([
      'appointment:Personal Training',
      'class:HIIT Circuit',
      'class:Mat Pilates',
      'class:Reformer Pilates',
      'class:Spin',
      'class:Vinyasa Yoga',
    ]);
  });

  it.each(SAMPLE_ORDER)('%s: customers with unique lower-case e-mails and E.164 phones', async (template) => {
    const { customers } = await graphOf(template);
    expect(customers.length).toBeGreaterThanOrEqual(3);
    expect(new Set(customers.map((c) => c.email)).size).toBe(customers.length);
    for (const c of customers) {
      expect(email.parse(c.email)).toBe(c.email);
      expect(phone.parse(c.phone)).toBe(c.phone);
    }
  });

  it('only the gym has class sessions: scheduled, in the coming four weeks, empty but the one booked full', async () => {
    expect((await graphOf('hair_salon')).sessions).toEqual([]);
    expect((await graphOf('clinic')).sessions).toEqual([]);
    const g = await graphOf('fitness');
    // 20 classes a week; the first and last day of the window are partial.
    expect(g.sessions.length).toBeGreaterThanOrEqual(20 * 3);
    expect(g.sessions.length).toBeLessThanOrEqual(20 * 4);
    // The sample's full class (docs/sandbox.md): one reformer session, every place taken, two
    // waiting; every other session has nobody booked.
    const taken = g.sessions.filter((s) => s.bookedCount > 0 || s.waitlistCount > 0);
    expect(taken).toHaveLength(1);
    expect(g.services.find((s) => s.id === taken[0]!.serviceId)!.name).toBe('Reformer Pilates');
    expect(taken[0]!.bookedCount).toBe(taken[0]!.capacity);
    expect(taken[0]!.waitlistCount).toBe(2);
    const classServices = new Map(g.services.filter((s) => s.kind === 'class').map((s) => [s.id, s]));
    const horizon = DateTime.fromJSDate(startedAt, { zone: 'Europe/London' }).startOf('day').plus({ days: 28 });
    for (const s of g.sessions) {
      expect(s.status).toBe('scheduled');
      if (s !== taken[0]) expect(s.bookedCount).toBe(0);
      expect(s.capacity).toBeGreaterThan(0);
      expect(s.startTime.getTime()).toBeGreaterThan(startedAt.getTime());
      expect(s.startTime.getTime()).toBeLessThan(horizon.toMillis());
      const service = classServices.get(s.serviceId);
      expect(service, 'a session belongs to a class service').toBeDefined();
      expect(s.endTime.getTime() - s.startTime.getTime()).toBe(service!.durationMinutes * 60_000);
      expect(g.links.some((l) => l.serviceId === s.serviceId && l.employeeId === s.employeeId)).toBe(true);
    }
  });

  it('every class lies inside its instructor’s working hours, in London local time', async () => {
    const g = await graphOf('fitness');
    const hoursOf = new Map(
      g.employees.map((e) => [e.id, e.workingHours as Record<string, { start: string; end: string }[]>]),
    );
    for (const s of g.sessions) {
      const start = DateTime.fromJSDate(s.startTime, { zone: 'Europe/London' });
      const end = DateTime.fromJSDate(s.endTime, { zone: 'Europe/London' });
      const day = start.toFormat('cccc').toLowerCase();
      const hours = hoursOf.get(s.employeeId)!;
      const inside = hours[day]!.some(
        (i) => minutes(i.start) <= start.hour * 60 + start.minute && end.hour * 60 + end.minute <= minutes(i.end),
      );
      expect(inside, `${start.toISO()} within hours`).toBe(true);
    }
  });

  it('the templates’ profiles are what the samples module declares', () => {
    expect(Object.keys(SAMPLE_TEMPLATES).sort()).toEqual([...SAMPLE_ORDER].sort());
  });
});
