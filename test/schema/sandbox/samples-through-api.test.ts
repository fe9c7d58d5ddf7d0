// The samples as an integrator meets them (docs/sandbox.md): through /api/v1 with a
// test key of each sample company, the staff, services and classes are listed, availability
// has slots inside the staff's local hours, and bookings work, paid services going `pending`.
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { createDomainApp, ok, post, type World } from '../../helpers/domain.js';
import { bearer, createAccountWithKeys } from '../../helpers/factories.js';
import { createApiKey } from '../../../src/schema/credentials/create-api-key.js';
import { SAMPLE_DATA } from '../../../src/schema/sandbox/sample-data/index.js';

let t: TestApp;
let w: World;
const auth: Record<string, Record<string, string>> = {};

beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
  for (const c of w.testCompanies)
    auth[c.template!] = bearer((await createApiKey(t.dbs.test.prisma, { companyId: c.id, name: 'k' })).key);
});
afterAll(async () => {
  await t?.close();
});

const get = async (template: string, url: string) =>
  ok(await t.app.inject({ method: 'GET', url: `/api/v1${url}`, headers: auth[template]! }));
const byName = (list: any[], name: string): any => list.find((x) => x.name === name);
// Seven whole local days from tomorrow: each weekday once, whatever the time the suite runs (a
// window starting at this hour would start on a session's start at one hour of the day).
const week = () => {
  const from = DateTime.now().setZone('Europe/London').plus({ days: 1 }).startOf('day');
  return `from=${encodeURIComponent(from.toISO()!)}&to=${encodeURIComponent(from.plus({ days: 7 }).toISO()!)}`;
};

// First, before the tests below book anything: what a new account's samples hold, as an
// integrator reads it (GET /visits/:id, /booking-series/:id, /classes), checked against the
// sample data and the companies' local hours.
describe('the sample companies’ bookings (docs/sandbox.md)', () => {
  const customer = async (template: string, email: string) =>
    (await get(template, '/customers?limit=100')).find((c: any) => c.email === email);
  // The start of the local day `days` after today in the zone: "a few days ahead".
  const daysAhead = (zone: string, days: number) => DateTime.now().setZone(zone).startOf('day').plus({ days });
  const within = (hours: Array<{ start: string; end: string }>, start: DateTime, end: DateTime) =>
    hours.some((h) => h.start <= start.toFormat('HH:mm') && end.toFormat('HH:mm') <= h.end);

  it('the salon: one visit, a men’s cut and then a beard trim with Lukas for Jonas, days ahead', async () => {
    const services = await get('hair_salon', '/services?limit=100');
    const employees = await get('hair_salon', '/employees?limit=100');
    const jonas = await customer('hair_salon', 'jonas.hoffmann@example.com');
    const bookings = await get('hair_salon', '/bookings?limit=100');
    expect(bookings).toHaveLength(2);
    const visit = await get('hair_salon', `/visits/${bookings[0].visitId}`);
    expect(visit.customerId).toBe(jonas._id);
    expect(visit.bookings.map((b: any) => services.find((s: any) => s._id === b.serviceId).name)).toEqual([
      "Men's Cut",
      'Beard Trim',
    ]);
    const lukas = byName(employees, 'Lukas Weber');
    for (const b of visit.bookings) {
      expect(b).toMatchObject({
        status: 'confirmed',
        visitId: visit._id,
        customerId: jonas._id,
        employeeId: lukas._id,
      });
    }
    const [cut, trim] = visit.bookings;
    // Back to back: the trim starts when the cut's time and its 5-minute buffer after are over.
    expect(Date.parse(trim.startTime) - Date.parse(cut.endTime)).toBe(5 * 60_000);
    expect(visit.startTime).toBe(cut.startTime);
    expect(visit.endTime).toBe(trim.endTime);
    const start = DateTime.fromISO(cut.startTime, { zone: 'Europe/Berlin' });
    const end = DateTime.fromISO(trim.endTime, { zone: 'Europe/Berlin' });
    expect(start >= daysAhead('Europe/Berlin', 3)).toBe(true);
    expect(within(lukas.workingHours[start.setLocale('en').toFormat('cccc').toLowerCase()], start, end)).toBe(true);
  });

  it('the clinic: a weekly series of six follow-ups with Dr. Mitchell at Midtown, each in an exam room there', async () => {
    const services = await get('clinic', '/services?limit=100');
    const employees = await get('clinic', '/employees?limit=100');
    const locations = await get('clinic', '/locations?limit=100');
    const rooms = await get('clinic', '/resources?limit=100');
    const robert = await customer('clinic', 'robert.johnson@example.com');
    const midtown = byName(locations, 'Midtown Clinic');
    const mitchell = byName(employees, 'Dr. Sarah Mitchell');
    const bookings = await get('clinic', '/bookings?limit=100');
    expect(bookings).toHaveLength(6);
    const series = await get('clinic', `/booking-series/${bookings[0].seriesId}`);
    expect(series).toMatchObject({
      serviceId: byName(services, 'Follow-up Visit')._id,
      employeeId: mitchell._id,
      customerId: robert._id,
      locationId: midtown._id,
      rrule: 'FREQ=WEEKLY;COUNT=6',
      timeZone: 'America/New_York',
      skipped: [],
    });
    expect(series.bookings).toHaveLength(6);
    const midtownRooms = rooms
      .filter((r: any) => r.kind === 'room' && r.locationId === midtown._id)
      .map((r: any) => r._id);
    expect(midtownRooms).toHaveLength(2);
    const starts = series.bookings.map((b: any) => DateTime.fromISO(b.startTime, { zone: 'America/New_York' }));
    expect(starts[0] >= daysAhead('America/New_York', 3)).toBe(true);
    series.bookings.forEach((b: any, i: number) => {
      expect(b).toMatchObject({
        status: 'confirmed',
        seriesId: series._id,
        customerId: robert._id,
        employeeId: mitchell._id,
        locationId: midtown._id,
      });
      expect(b.resourceIds).toHaveLength(1);
      expect(midtownRooms).toContain(b.resourceIds[0]);
      // Weekly at the same New York wall time.
      expect(starts[i].toFormat('cccc HH:mm')).toBe(starts[0].toFormat('cccc HH:mm'));
      expect(starts[i].toISODate()).toBe(starts[0].plus({ weeks: i }).toISODate());
    });
    const end = DateTime.fromISO(series.bookings[0].endTime, { zone: 'America/New_York' });
    expect(
      within(mitchell.workingHours[starts[0].setLocale('en').toFormat('cccc').toLowerCase()], starts[0], end),
    ).toBe(true);
  });

  it('the gym: one reformer class full, with two waiting in order, days ahead', async () => {
    const services = await get('fitness', '/services?limit=100');
    const reformer = byName(services, 'Reformer Pilates');
    expect(reformer.waitlist).toMatchObject({ enabled: true });
    const classes = await get('fitness', `/classes?serviceId=${reformer._id}&limit=100`);
    const full = classes.filter((c: any) => c.bookedCount > 0 || c.waitlistCount > 0);
    expect(full).toHaveLength(1);
    expect(full[0]).toMatchObject({ capacity: 4, bookedCount: 4, spotsLeft: 0, waitlistCount: 2, status: 'scheduled' });
    expect(DateTime.fromISO(full[0].startTime, { zone: 'Europe/London' }) >= daysAhead('Europe/London', 2)).toBe(true);
    // No earlier reformer session from two days ahead was passed over.
    for (const c of classes)
      if (DateTime.fromISO(c.startTime) >= daysAhead('Europe/London', 2))
        expect(Date.parse(c.startTime)).toBeGreaterThanOrEqual(Date.parse(full[0].startTime));
    const customers = await get('fitness', '/customers?limit=100');
    const emailOf = (id: string) => customers.find((c: any) => c._id === id).email;
    const bookings = (await get('fitness', '/bookings?limit=100')).filter((b: any) => b.classId === full[0]._id);
    expect(bookings).toHaveLength(6);
    const placed = bookings.filter((b: any) => b.status === 'confirmed');
    expect(placed.map((b: any) => emailOf(b.customerId)).sort()).toEqual([
      'amelia.jones@example.com',
      'harry.brown@example.com',
      'isla.taylor@example.com',
      'oliver.smith@example.com',
    ]);
    const line = bookings
      .filter((b: any) => b.status === 'waitlisted')
      .sort((a: any, b: any) => a.waitlistPosition - b.waitlistPosition);
    expect(line.map((b: any) => [b.waitlistPosition, emailOf(b.customerId)])).toEqual([
      [1, 'george.wilson@example.com'],
      [2, 'ava.evans@example.com'],
    ]);
  });
});

describe('the sample companies through the REST API', () => {
  it.each(['hair_salon', 'clinic', 'fitness'] as const)(
    '%s: GET /employees and /services list the template’s staff and menu',
    async (template) => {
      const employees = await get(template, '/employees?limit=100');
      const services = await get(template, '/services?limit=100');
      const data = SAMPLE_DATA[template];
      expect(employees.map((e: any) => e.name).sort()).toEqual(data.employees.map((e) => e.name).sort());
      // A company with locations places every interval at one: the one it names (a template key,
      // an id through the API), or the first, the main site.
      const locations = data.locations?.length ? await get(template, '/locations?limit=100') : [];
      const siteId = (key: string) => byName(locations, data.locations!.find((l) => l.key === key)!.name)._id as string;
      const placed = (hours: (typeof data.employees)[number]['workingHours']) =>
        data.locations?.length
          ? Object.fromEntries(
              Object.entries(hours).map(([day, list]) => [
                day,
                list.map((r) => ({ ...r, locationId: siteId(r.locationId ?? data.locations![0]!.key) })),
              ]),
            )
          : hours;
      for (const e of data.employees) expect(byName(employees, e.name).workingHours).toEqual(placed(e.workingHours));
      expect(services.map((s: any) => s.name).sort()).toEqual(data.services.map((s) => s.name).sort());
      for (const s of data.services) {
        const got = byName(services, s.name);
        expect(got).toMatchObject({
          kind: s.kind,
          durationMinutes: s.durationMinutes,
          price: s.price,
          requiresPayment: s.requiresPayment,
          active: true,
        });
        const staff = got.employeeIds.map((id: string) => employees.find((e: any) => e._id === id).name).sort();
        expect(staff).toEqual(s.employees.map((k) => data.employees.find((e) => e.key === k)!.name).sort());
      }
    },
  );

  it('the salon: cut slots fall inside the stylists’ Berlin hours; a colour booking waits for payment', async () => {
    const services = await get('hair_salon', '/services');
    const employees = await get('hair_salon', '/employees');
    const cut = byName(services, "Women's Cut & Style");
    const { slots } = await get('hair_salon', `/availability?serviceId=${cut._id}&${week()}`);
    expect(slots.length).toBeGreaterThan(20);
    for (const s of slots) {
      const start = DateTime.fromISO(s.startTime, { zone: 'Europe/Berlin' });
      const end = DateTime.fromISO(s.endTime, { zone: 'Europe/Berlin' });
      expect(['tuesday', 'wednesday', 'thursday', 'friday', 'saturday']).toContain(
        start.setLocale('en').toFormat('cccc').toLowerCase(),
      );
      for (const id of s.employeeIds) {
        const hours = employees.find((e: any) => e._id === id).workingHours[
          start.setLocale('en').toFormat('cccc').toLowerCase()
        ];
        const hm = (d: DateTime) => d.toFormat('HH:mm');
        expect(
          hours.some((h: any) => h.start <= hm(start) && hm(end) <= h.end),
          `${s.startTime} for ${id}`,
        ).toBe(true);
      }
    }
    const colour = byName(services, 'Full Colour');
    const colourSlots = (await get('hair_salon', `/availability?serviceId=${colour._id}&${week()}`)).slots;
    const customers = await get('hair_salon', '/customers');
    const booking = await post(t.app, '/api/v1/bookings', auth.hair_salon!, {
      serviceId: colour._id,
      startTime: colourSlots[0].startTime,
      customerId: customers[0]._id,
    });
    expect(booking).toMatchObject({ status: 'pending', price: 9500, currency: 'EUR' });
    const paidLater = await post(t.app, '/api/v1/bookings', auth.hair_salon!, {
      serviceId: cut._id,
      startTime: slots.at(-1).startTime,
      customerId: customers[1]._id,
    });
    expect(paidLater).toMatchObject({ status: 'confirmed', price: 5800 });
  });

  it('the clinic: flu shots are given by the nurse and the nurse practitioner only', async () => {
    const services = await get('clinic', '/services');
    const employees = await get('clinic', '/employees');
    const flu = byName(services, 'Flu Vaccination');
    const { slots } = await get('clinic', `/availability?serviceId=${flu._id}&${week()}`);
    expect(slots.length).toBeGreaterThan(20);
    const names = new Set(
      slots.flatMap((s: any) => s.employeeIds).map((id: string) => employees.find((e: any) => e._id === id).name),
    );
    expect([...names].sort()).toEqual(['Emily Chen, RN', 'Michael Torres, NP']);
  });

  it('the gym: Spin sessions with free places, bookable by a sample customer', async () => {
    const services = await get('fitness', '/services');
    const spin = byName(services, 'Spin');
    const { sessions } = await get('fitness', `/availability?serviceId=${spin._id}&${week()}`);
    // Spin is on Monday, Wednesday, Friday and Saturday mornings.
    expect(sessions.length).toBeGreaterThanOrEqual(4);
    for (const s of sessions) {
      expect(s.spotsLeft).toBe(s.capacity);
      const local = DateTime.fromISO(s.startTime, { zone: 'Europe/London' });
      expect(['07:00', '09:30']).toContain(local.toFormat('HH:mm'));
    }
    const customers = await get('fitness', '/customers');
    const booking = await post(t.app, '/api/v1/bookings', auth.fitness!, {
      serviceId: spin._id,
      classId: sessions[0].classId,
      startTime: sessions[0].startTime,
      customerId: customers[0]._id,
    });
    expect(booking.status).toBe('confirmed');
    expect((await get('fitness', `/classes/${sessions[0].classId}`)).bookedCount).toBe(1);
  });
});
