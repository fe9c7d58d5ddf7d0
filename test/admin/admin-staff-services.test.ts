// The admin area's staff and services pages over inject (src/admin/routes/staff.tsx,
// services.tsx): every form's happy path through the API's use cases, a bad input shown again
// with the field's error and nothing changed, another company's ids a 404, and no form without
// the session's CSRF token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, injectSignIn } from './admin-helpers.js';
import type { TestApp } from '../helpers/app.js';
import { createTestApp } from '../helpers/app.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';
import { ok, salon } from '../helpers/domain.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let other: Awaited<ReturnType<typeof createAccountWithKeys>>;
let cookie: string;
let csrf: string;
beforeAll(async () => {
  t = await createTestApp({
    env: { RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000', RATE_LIMIT_PER_SECOND: '100000' },
  });
  w = await createAccountWithKeys(t.dbs);
  other = await createAccountWithKeys(t.dbs);
  cookie = await injectSignIn(t.app, w);
  const page = await get(`/admin/test/companies/${w.test.id}/staff`);
  csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
});
afterAll(async () => t?.close());

const prisma = () => t.dbs.test.prisma;
const get = (url: string) => t.app.inject({ method: 'GET', url, cookies: { svc_session: cookie } });
const post = (url: string, fields: Record<string, string | string[]>, token: string | null = csrf) => {
  const body = new URLSearchParams();
  if (token !== null) body.append('csrf_token', token);
  for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) body.append(k, one);
  return t.app.inject({
    method: 'POST',
    url,
    cookies: { svc_session: cookie },
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: body.toString(),
  });
};
const staffBase = () => `/admin/test/companies/${w.test.id}/staff`;
const servicesBase = () => `/admin/test/companies/${w.test.id}/services`;

describe('admin staff pages', () => {
  it('adds an employee; an empty name is shown again with its error and nothing is added', async () => {
    const before = await prisma().employee.count({ where: { companyId: w.test.id } });
    const bad = await post(staffBase(), { name: '  ', email: 'x@example.com' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('id="f-name-error"');
    expect(bad.body).toContain('value="x@example.com"');
    expect(await prisma().employee.count({ where: { companyId: w.test.id } })).toBe(before);

    const added = await post(staffBase(), { name: 'Ada <Admin>', email: 'ada@example.com' });
    expect(added.statusCode).toBe(303);
    const id = /\/staff\/([0-9a-f]{24})\?done=created$/.exec(added.headers.location as string)![1]!;
    const row = await prisma().employee.findUniqueOrThrow({ where: { id } });
    expect([row.companyId, row.name, row.email, row.active]).toEqual([
      w.test.id,
      'Ada <Admin>',
      'ada@example.com',
      true,
    ]);
    const page = await get(added.headers.location as string);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Ada &lt;Admin>');
    expect(page.body).toContain('Staff member added.');
  });

  it('edits details, services and weekly hours through the employee update; bad input changes nothing', async () => {
    const auth = bearer(w.testKey.key);
    const { employee, service } = await salon(t.app, auth);
    const second = ok(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/services',
        headers: auth,
        payload: { name: 'Colour', durationMinutes: 30 },
      }),
    );
    const url = `${staffBase()}/${employee._id}`;

    // Details: a bad e-mail is named, nothing changed.
    const bad = await post(url, { name: 'Renamed', email: 'not-an-email', phone: '', active: 'on' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('id="e-email-error"');
    expect(bad.body).toContain('value="Renamed"');
    expect((await prisma().employee.findUniqueOrThrow({ where: { id: employee._id } })).name).toBe('Stylist 0');
    const saved = await post(url, { name: 'Renamed', email: 'r@example.com', phone: '+46701234567' });
    expect(saved.statusCode).toBe(303);
    const row = await prisma().employee.findUniqueOrThrow({ where: { id: employee._id } });
    // The unticked box is "inactive", as active: false in the API.
    expect([row.name, row.email, row.phone, row.active]).toEqual(['Renamed', 'r@example.com', '+46701234567', false]);
    const api = ok(await t.app.inject({ method: 'GET', url: `/api/v1/employees/${employee._id}`, headers: auth }));
    expect(api.active).toBe(false);

    // Services: the ticked ones replace the set; another company's service id is refused.
    expect((await post(`${url}/services`, { serviceIds: [second._id] })).statusCode).toBe(303);
    const services = await prisma().employeeService.findMany({ where: { employeeId: employee._id } });
    expect(services.map((s) => s.serviceId)).toEqual([second._id]);
    const foreign = await salon(t.app, bearer(other.testKey.key));
    const refused = await post(`${url}/services`, { serviceIds: [service._id, foreign.service._id] });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('id="e-services-error"');
    expect(
      (await prisma().employeeService.findMany({ where: { employeeId: employee._id } })).map((s) => s.serviceId),
    ).toEqual([second._id]);

    // Weekly hours: one field a weekday, several intervals, parsed and judged.
    const week = {
      monday: '09:00-12:00, 13:00-18:00',
      tuesday: '9:00-17:00',
      wednesday: '',
      thursday: '10:00-24:00',
      friday: '08:00 - 12:00; 12:30-16:00',
      saturday: '',
      sunday: '',
    };
    expect((await post(`${url}/hours`, week)).statusCode).toBe(303);
    const hours = (await prisma().employee.findUniqueOrThrow({ where: { id: employee._id } })).workingHours;
    expect(hours).toEqual({
      monday: [
        { start: '09:00', end: '12:00' },
        { start: '13:00', end: '18:00' },
      ],
      tuesday: [{ start: '09:00', end: '17:00' }],
      wednesday: [],
      thursday: [{ start: '10:00', end: '24:00' }],
      friday: [
        { start: '08:00', end: '12:00' },
        { start: '12:30', end: '16:00' },
      ],
      saturday: [],
      sunday: [],
    });
    const page = await get(url);
    expect(page.body).toContain('value="09:00-12:00, 13:00-18:00"');
    // Unreadable, and readable but refused by the rules (an overlap, a time that does not exist).
    const unreadable = await post(`${url}/hours`, { ...week, tuesday: 'mornings' });
    expect(unreadable.statusCode).toBe(400);
    expect(unreadable.body).toContain('id="h-tuesday-error"');
    expect(unreadable.body).toContain('value="mornings"');
    const overlap = await post(`${url}/hours`, { ...week, monday: '09:00-12:00, 11:00-13:00', friday: '25:00-26:00' });
    expect(overlap.statusCode).toBe(400);
    expect(overlap.body).toContain('id="h-monday-error"');
    expect(overlap.body).toMatch(/id="h-monday-error">overlaps another interval/);
    expect(overlap.body).toContain('id="h-friday-error"');
    expect((await prisma().employee.findUniqueOrThrow({ where: { id: employee._id } })).workingHours).toEqual(hours);
  });

  it('adds and removes time off and date overrides; bad ones are named and nothing is written', async () => {
    const auth = bearer(w.testKey.key);
    const { employee } = await salon(t.app, auth);
    const url = `${staffBase()}/${employee._id}`;
    // The form's times are local to the company's zone.
    const zone = (await prisma().company.findUniqueOrThrow({ where: { id: w.test.id } })).timezone;
    const year = new Date().getUTCFullYear() + 1;
    const reversed = await post(`${url}/time-off`, {
      startTime: `${year}-03-10T12:00`,
      endTime: `${year}-03-10T09:00`,
      reason: 'Dentist',
    });
    expect(reversed.statusCode).toBe(400);
    expect(reversed.body).toContain('id="t-end-error"');
    const garbled = await post(`${url}/time-off`, { startTime: 'soon', endTime: `${year}-03-10T09:00` });
    expect(garbled.statusCode).toBe(400);
    expect(garbled.body).toContain('id="t-start-error"');
    expect(await prisma().timeOff.count({ where: { employeeId: employee._id } })).toBe(0);

    const added = await post(`${url}/time-off`, {
      startTime: `${year}-03-10T09:00`,
      endTime: `${year}-03-10T12:00`,
      reason: 'Dentist',
    });
    expect(added.statusCode).toBe(303);
    const off = await prisma().timeOff.findFirstOrThrow({ where: { employeeId: employee._id } });
    const { DateTime } = await import('luxon');
    expect(off.startTime.toISOString()).toBe(
      DateTime.fromISO(`${year}-03-10T09:00`, { zone }).toUTC().toISO({ suppressMilliseconds: false }),
    );
    expect(off.reason).toBe('Dentist');
    expect((await get(url)).body).toContain('Dentist');
    expect((await post(`${url}/time-off/${off.id}/remove`, {})).statusCode).toBe(303);
    expect(await prisma().timeOff.count({ where: { employeeId: employee._id } })).toBe(0);
    expect((await post(`${url}/time-off/${off.id}/remove`, {})).statusCode).toBe(404);

    // Date overrides.
    const badDate = await post(`${url}/date-overrides`, { date: `${year}-02-30`, intervals: '10:00-14:00' });
    expect(badDate.statusCode).toBe(400);
    expect(badDate.body).toContain('id="o-date-error"');
    const badHours = await post(`${url}/date-overrides`, { date: `${year}-03-11`, intervals: '14:00-10:00' });
    expect(badHours.statusCode).toBe(400);
    expect(badHours.body).toContain('id="o-intervals-error"');
    expect(await prisma().dateOverride.count({ where: { employeeId: employee._id } })).toBe(0);
    expect((await post(`${url}/date-overrides`, { date: `${year}-03-11`, intervals: '10:00-14:00' })).statusCode).toBe(
      303,
    );
    expect((await post(`${url}/date-overrides`, { date: `${year}-03-12`, intervals: '' })).statusCode).toBe(303);
    const overrides = await prisma().dateOverride.findMany({
      where: { employeeId: employee._id },
      orderBy: { date: 'asc' },
    });
    expect(overrides.map((o) => [o.date, o.intervals])).toEqual([
      [`${year}-03-11`, [{ start: '10:00', end: '14:00' }]],
      [`${year}-03-12`, []],
    ]);
    const page = await get(url);
    expect(page.body).toContain(`Remove the override of ${year}-03-12`);
    expect((await post(`${url}/date-overrides/${year}-03-12/remove`, {})).statusCode).toBe(303);
    expect(await prisma().dateOverride.count({ where: { employeeId: employee._id } })).toBe(1);
    expect((await post(`${url}/date-overrides/${year}-03-12/remove`, {})).statusCode).toBe(404);
  });

  it("another company's employee, or one of the other mode, is a 404; a form without the CSRF token is a 403", async () => {
    const { employee } = await salon(t.app, bearer(other.testKey.key));
    const theirs = `${staffBase()}/${employee._id}`;
    expect((await get(theirs)).statusCode).toBe(404);
    expect((await post(theirs, { name: 'Taken over' })).statusCode).toBe(404);
    expect((await post(`${theirs}/hours`, { monday: '09:00-10:00' })).statusCode).toBe(404);
    expect(
      (await post(`${theirs}/time-off`, { startTime: '2030-01-01T09:00', endTime: '2030-01-01T10:00' })).statusCode,
    ).toBe(404);
    const mine = await salon(t.app, bearer(w.testKey.key));
    expect((await get(`/admin/live/companies/${w.live.id}/staff/${mine.employee._id}`)).statusCode).toBe(404);
    expect((await prisma().employee.findUniqueOrThrow({ where: { id: employee._id } })).name).toBe('Stylist 0');

    const url = `${staffBase()}/${mine.employee._id}`;
    expect((await post(url, { name: 'No token' }, null)).statusCode).toBe(403);
    expect((await post(url, { name: 'Wrong token' }, 'x'.repeat(43))).statusCode).toBe(403);
    expect((await post(staffBase(), { name: 'No token' }, null)).statusCode).toBe(403);
    expect((await prisma().employee.findUniqueOrThrow({ where: { id: mine.employee._id } })).name).toBe('Stylist 0');
    expect(await prisma().employee.count({ where: { companyId: w.test.id, name: 'No token' } })).toBe(0);
  });
});

describe('admin services pages', () => {
  it('adds a service; a bad duration or price is shown again and nothing is added', async () => {
    const before = await prisma().service.count({ where: { companyId: w.test.id } });
    const bad = await post(servicesBase(), { name: 'Massage', kind: 'appointment', durationMinutes: '0', price: '60' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('id="f-durationMinutes-error"');
    const badPrice = await post(servicesBase(), {
      name: 'Massage',
      kind: 'appointment',
      durationMinutes: '60',
      price: '60.555',
    });
    expect(badPrice.statusCode).toBe(400);
    expect(badPrice.body).toContain('id="f-price-error"');
    expect(await prisma().service.count({ where: { companyId: w.test.id } })).toBe(before);

    const added = await post(servicesBase(), { name: 'Massage', kind: 'class', durationMinutes: '45', price: '60.50' });
    expect(added.statusCode).toBe(303);
    const id = /\/services\/([0-9a-f]{24})\?done=created$/.exec(added.headers.location as string)![1]!;
    const row = await prisma().service.findUniqueOrThrow({ where: { id } });
    expect([row.name, row.kind, row.durationMinutes, row.price]).toEqual(['Massage', 'class', 45, 6050]);
    expect((await get(servicesBase())).body).toContain(`href="${servicesBase()}/${id}"`);
  });

  it('saves duration, price, buffers, payment, policy, questions, staff and active through the service update', async () => {
    const auth = bearer(w.testKey.key);
    const { service, staff } = await salon(t.app, auth, {}, 2);
    const url = `${servicesBase()}/${service._id}`;
    const page = await get(url);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('value="45.00"');
    const full = {
      name: 'Cut and dry',
      description: 'Wash, cut, dry',
      durationMinutes: '50',
      bufferBeforeMinutes: '5',
      bufferAfterMinutes: '10',
      active: 'on',
      price: '50',
      requiresPayment: 'on',
      depositAmount: '10',
      freeUntilMinutesBefore: '1440',
      lateFeeKind: 'percent',
      lateFee: '50',
      employeeIds: [staff[1]._id],
      'q.0.label': 'Hair length?',
      'q.0.id': 'length',
      'q.0.type': 'choice',
      'q.0.options': 'short, long',
      'q.0.required': 'on',
      'q.1.label': '',
      'q.1.id': '',
      'q.1.type': 'text',
      'q.1.options': '',
    };
    const saved = await post(url, full);
    expect(saved.statusCode).toBe(303);
    const api = ok(await t.app.inject({ method: 'GET', url: `/api/v1/services/${service._id}`, headers: auth }));
    expect(api).toMatchObject({
      name: 'Cut and dry',
      description: 'Wash, cut, dry',
      durationMinutes: 50,
      bufferBeforeMinutes: 5,
      bufferAfterMinutes: 10,
      price: 5000,
      requiresPayment: true,
      depositAmount: 1000,
      cancellationPolicy: { freeUntilMinutesBefore: 1440, lateFee: { percent: 50 } },
      employeeIds: [staff[1]._id],
      active: true,
      questions: [{ id: 'length', label: 'Hair length?', type: 'choice', required: true, options: ['short', 'long'] }],
    });

    // The deposit above the price: named, nothing changed; so is a choice question without options.
    const tooMuch = await post(url, { ...full, depositAmount: '80', name: 'Changed' });
    expect(tooMuch.statusCode).toBe(400);
    expect(tooMuch.body).toContain('id="f-depositAmount-error"');
    expect(tooMuch.body).toContain('value="Changed"');
    const noOptions = await post(url, {
      ...full,
      'q.1.label': 'Colour?',
      'q.1.id': 'colour',
      'q.1.type': 'multi_choice',
    });
    expect(noOptions.statusCode).toBe(400);
    expect(noOptions.body).toContain('id="q-1-options-error"');
    const feeTooHigh = await post(url, { ...full, lateFeeKind: 'amount', lateFee: '99' });
    expect(feeTooHigh.statusCode).toBe(400);
    expect(feeTooHigh.body).toContain('id="f-lateFee-error"');
    const after = ok(await t.app.inject({ method: 'GET', url: `/api/v1/services/${service._id}`, headers: auth }));
    expect(after).toEqual(api);

    // Removing the question, no policy, not active, no staff.
    const cleared = await post(url, {
      ...full,
      employeeIds: [],
      active: '',
      freeUntilMinutesBefore: '',
      depositAmount: '',
      requiresPayment: '',
      'q.0.remove': 'on',
    });
    expect(cleared.statusCode).toBe(303);
    expect(
      ok(await t.app.inject({ method: 'GET', url: `/api/v1/services/${service._id}`, headers: auth })),
    ).toMatchObject({
      active: false,
      employeeIds: [],
      cancellationPolicy: null,
      depositAmount: null,
      requiresPayment: false,
      questions: [],
    });
  });

  it("another company's service, or one of the other mode, is a 404; a form without the CSRF token is a 403", async () => {
    const { service } = await salon(t.app, bearer(other.testKey.key));
    const theirs = `${servicesBase()}/${service._id}`;
    expect((await get(theirs)).statusCode).toBe(404);
    expect((await post(theirs, { name: 'Taken', durationMinutes: '10' })).statusCode).toBe(404);
    expect((await prisma().service.findUniqueOrThrow({ where: { id: service._id } })).name).toBe('Cut');
    const mine = await salon(t.app, bearer(w.testKey.key));
    expect((await get(`/admin/live/companies/${w.live.id}/services/${mine.service._id}`)).statusCode).toBe(404);
    expect(
      (await post(`${servicesBase()}/${mine.service._id}`, { name: 'No token', durationMinutes: '10' }, null))
        .statusCode,
    ).toBe(403);
    expect((await post(servicesBase(), { name: 'No token', durationMinutes: '10' }, null)).statusCode).toBe(403);
    expect(await prisma().service.count({ where: { companyId: w.test.id, name: 'No token' } })).toBe(0);
  });
});

describe('staff and services pages by role', () => {
  it("staff keep their own hours but not their details or services; a viewer's pages offer no forms", async () => {
    const auth = bearer(w.testKey.key);
    const { employee, service } = await salon(t.app, auth);
    const member = async (role: 'staff' | 'viewer') => {
      const world = await createAccountWithKeys(t.dbs);
      await addMember(t.dbs, {
        team: w.account.id,
        member: world.account.id,
        role,
        testEmployeeId: role === 'staff' ? employee._id : null,
      });
      const c = await injectSignIn(t.app, world);
      const page = await t.app.inject({
        method: 'GET',
        url: `${staffBase()}/${employee._id}`,
        cookies: { svc_session: c },
      });
      expect(page.statusCode).toBe(200);
      const token = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
      return {
        page,
        get: (url: string) => t.app.inject({ method: 'GET', url, cookies: { svc_session: c } }),
        post: (url: string, fields: Record<string, string> = {}) =>
          t.app.inject({
            method: 'POST',
            url,
            cookies: { svc_session: c },
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            payload: new URLSearchParams({ csrf_token: token, ...fields }).toString(),
          }),
      };
    };
    const url = `${staffBase()}/${employee._id}`;

    const staff = await member('staff');
    expect(staff.page.body).not.toContain('Save details');
    expect(staff.page.body).not.toContain('Save services');
    expect(staff.page.body).toContain('Save weekly hours');
    expect((await staff.post(url, { name: 'Renamed by staff', active: 'on' })).statusCode).toBe(403);
    expect((await staff.post(`${url}/services`, { serviceIds: service._id })).statusCode).toBe(403);
    expect((await prisma().employee.findUniqueOrThrow({ where: { id: employee._id } })).name).toBe('Stylist 0');
    const week = {
      monday: '10:00-16:00',
      tuesday: '',
      wednesday: '',
      thursday: '',
      friday: '',
      saturday: '',
      sunday: '',
    };
    expect((await staff.post(`${url}/hours`, week)).statusCode).toBe(303);
    expect(
      ((await prisma().employee.findUniqueOrThrow({ where: { id: employee._id } })).workingHours as { monday: unknown })
        .monday,
    ).toEqual([{ start: '10:00', end: '16:00' }]);

    const viewer = await member('viewer');
    expect(viewer.page.body).not.toContain('Save weekly hours');
    expect(viewer.page.body).not.toContain('Add time off');
    expect(viewer.page.body).not.toContain('method="post" action="' + url);
    expect((await viewer.get(staffBase())).body).not.toContain('Add employee');
    const servicePage = await viewer.get(`${servicesBase()}/${service._id}`);
    expect(servicePage.statusCode).toBe(200);
    expect(servicePage.body).toContain('<fieldset class="plain" disabled>');
    expect(servicePage.body).not.toContain('Save service');
    expect((await viewer.post(`${url}/hours`, week)).statusCode).toBe(403);
  });
});
