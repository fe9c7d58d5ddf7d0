// The admin area's classes pages over inject (src/admin/routes/classes.tsx): the week's
// timetable, a one-off session scheduled through the API's use case (bad input named, nothing
// made), a session's roster in booking order and its waitlist in line order, check-in and no-show
// through the bookings' own transitions (refused before the start, in words), cancelling a
// session behind a confirmation that counts who is told, other companies' ids a 404, and CSRF.
// A test clock fixes the company's time, so "before the start" and "after it" are exact.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, injectSignIn } from './admin-helpers.js';
import type { TestApp } from '../helpers/app.js';
import { createTestApp } from '../helpers/app.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { ALL_DAY, blankCompany, ok, post as apiPost } from '../helpers/domain.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let cookie: string;
let csrf: string;
beforeAll(async () => {
  t = await createTestApp({
    env: { RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000', RATE_LIMIT_PER_SECOND: '100000' },
  });
  w = await createAccountWithKeys(t.dbs);
  cookie = await injectSignIn(t.app, w);
  const page = await get(`/admin/test/companies/${w.test.id}/classes`);
  csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
});
afterAll(async () => t?.close());

const prisma = () => t.dbs.test.prisma;
const get = (url: string) => t.app.inject({ method: 'GET', url, cookies: { svc_session: cookie } });
const post = (url: string, fields: Record<string, string>, token: string | null = csrf) =>
  t.app.inject({
    method: 'POST',
    url,
    cookies: { svc_session: cookie },
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ ...(token === null ? {} : { csrf_token: token }), ...fields }).toString(),
  });

// Monday 7 January 2030, 08:00 in Berlin.
const T0 = '2030-01-07T07:00:00.000Z';

/** A blank Berlin company of w's on a test clock at T0, with an instructor and a yoga class with a waitlist. */
async function studio(owner = w) {
  const c = await blankCompany(t.dbs, owner, { timezone: 'Europe/Berlin' });
  const clock = await apiPost(t.app, '/api/v1/test-clocks', c.auth, { frozenTime: T0 });
  ok(await t.app.inject({ method: 'PATCH', url: '/api/v1/me', headers: c.auth, payload: { testClockId: clock._id } }));
  const ann = await apiPost(t.app, '/api/v1/employees', c.auth, { name: 'Ann', workingHours: ALL_DAY });
  const yoga = await apiPost(t.app, '/api/v1/services', c.auth, {
    name: 'Yoga',
    kind: 'class',
    durationMinutes: 60,
    employeeIds: [ann._id],
    waitlist: { enabled: true },
  });
  const book = (classId: string, name: string) =>
    apiPost(t.app, '/api/v1/bookings', c.auth, {
      serviceId: yoga._id,
      classId,
      customer: { name, email: `${name.toLowerCase()}@example.com` },
      waitlist: true,
    });
  const advance = (to: string) => apiPost(t.app, `/api/v1/test-clocks/${clock._id}/advance`, c.auth, { to });
  return { ...c, ann, yoga, book, advance, base: `/admin/test/companies/${c.company.id}/classes` };
}

describe('admin classes pages', () => {
  it('schedules a one-off session from the timetable; bad input is named and nothing is scheduled', async () => {
    const s = await studio();
    const empty = await get(`${s.base}?week=2030-01-09`);
    expect(empty.statusCode).toBe(200);
    expect(empty.body).toContain('Week of 7 Jan 2030');
    expect(empty.body).toContain('No sessions this week.');
    const fields = { serviceId: s.yoga._id, employeeId: s.ann._id, startTime: '2030-01-07T10:00', capacity: '2' };

    const noPlaces = await post(s.base, { ...fields, capacity: '0' });
    expect(noPlaces.statusCode).toBe(400);
    expect(noPlaces.body).toContain('id="f-capacity-error"');
    expect(noPlaces.body).toContain('value="2030-01-07T10:00"');
    const garbled = await post(s.base, { ...fields, startTime: 'tomorrow' });
    expect(garbled.statusCode).toBe(400);
    expect(garbled.body).toContain('id="f-startTime-error"');
    // In the past of the company's clock (07:00 Berlin is before its 08:00).
    const past = await post(s.base, { ...fields, startTime: '2030-01-07T07:00' });
    expect(past.statusCode).toBe(400);
    expect(past.body).toMatch(/id="f-startTime-error">must be in the future/);
    expect(await prisma().classSession.count({ where: { companyId: s.company.id } })).toBe(0);

    const made = await post(s.base, fields);
    expect(made.statusCode).toBe(303);
    const id = /\/classes\/([0-9a-f]{24})\?done=created$/.exec(made.headers.location as string)![1]!;
    const row = await prisma().classSession.findUniqueOrThrow({ where: { id } });
    // 10:00 in Berlin in winter is 09:00 UTC; the end is the service's 60 minutes later.
    expect([row.startTime.toISOString(), row.endTime.toISOString(), row.capacity, row.scheduleId]).toEqual([
      '2030-01-07T09:00:00.000Z',
      '2030-01-07T10:00:00.000Z',
      2,
      null,
    ]);
    const week = await get(`${s.base}?week=2030-01-07`);
    expect(week.body).toContain(`href="${s.base}/${id}"`);
    expect(week.body).toContain('0 of 2');
    expect(week.body).toContain('One-off');
  });

  it('shows the roster in booking order and the waitlist in line order; check-in and no-show after the start', async () => {
    const s = await studio();
    const session = await apiPost(t.app, '/api/v1/classes', s.auth, {
      serviceId: s.yoga._id,
      employeeId: s.ann._id,
      startTime: '2030-01-07T09:00:00Z',
      capacity: 2,
    });
    const [b1, b2, b3, b4] = [
      await s.book(session._id, 'Zoe'),
      await s.book(session._id, 'Adam'),
      await s.book(session._id, 'Mia'),
      await s.book(session._id, 'Bea'),
    ];
    expect([b1.status, b2.status, b3.status, b4.status]).toEqual([
      'confirmed',
      'confirmed',
      'waitlisted',
      'waitlisted',
    ]);
    const url = `${s.base}/${session._id}`;
    const page = await get(url);
    expect(page.statusCode).toBe(200);
    const roster = page.body.slice(page.body.indexOf('<h2>Roster'), page.body.indexOf('<h2>Waitlist'));
    const line = page.body.slice(page.body.indexOf('<h2>Waitlist'));
    // Booking order, not the alphabet.
    expect(roster.indexOf('Zoe')).toBeGreaterThan(-1);
    expect(roster.indexOf('Zoe')).toBeLessThan(roster.indexOf('Adam'));
    expect(roster).not.toContain('Mia');
    expect(line.indexOf('Mia')).toBeGreaterThan(-1);
    expect(line.indexOf('Mia')).toBeLessThan(line.indexOf('Bea'));
    expect(roster).toContain('aria-label="Check in Zoe"');

    // Before the start: refused in the use case's words, nothing changed.
    const early = await post(`${url}/bookings/${b1._id}/complete`, {});
    expect(early.statusCode).toBe(409);
    expect(early.body).toContain('only once its startTime has passed');
    expect((await prisma().booking.findUniqueOrThrow({ where: { id: b1._id } })).status).toBe('confirmed');

    await s.advance('2030-01-07T09:30:00Z');
    expect((await post(`${url}/bookings/${b1._id}/complete`, {})).statusCode).toBe(303);
    expect((await post(`${url}/bookings/${b2._id}/no-show`, {})).statusCode).toBe(303);
    const after = ok(await t.app.inject({ method: 'GET', url: `/api/v1/bookings/${b1._id}`, headers: s.auth }));
    expect(after.status).toBe('completed');
    expect((await prisma().booking.findUniqueOrThrow({ where: { id: b2._id } })).status).toBe('no_show');
    const events = await prisma().event.findMany({
      where: { companyId: s.company.id, type: { in: ['booking.completed', 'booking.no_show'] } },
      orderBy: { createdAt: 'asc' },
    });
    expect(events.map((e) => [e.type, (e.data as { bookingId: string }).bookingId])).toEqual([
      ['booking.completed', b1._id],
      ['booking.no_show', b2._id],
    ]);
    // Marked twice, or a booking of the waitlist (no place), or of another session: refused or not found.
    const twice = await post(`${url}/bookings/${b1._id}/no-show`, {});
    expect(twice.statusCode).toBe(409);
    expect((await post(`${url}/bookings/${b3._id}/complete`, {})).statusCode).toBe(404);
    const shown = await get(url);
    expect(shown.body).toContain('Attended');
    expect(shown.body).toContain('No-show');
  });

  it('cancels a session after a confirmation that counts who is told; the class and its bookings are cancelled', async () => {
    const s = await studio();
    const session = await apiPost(t.app, '/api/v1/classes', s.auth, {
      serviceId: s.yoga._id,
      employeeId: s.ann._id,
      startTime: '2030-01-08T09:00:00Z',
      capacity: 1,
    });
    const booked = await s.book(session._id, 'Zoe');
    const waiting = await s.book(session._id, 'Adam');
    const url = `${s.base}/${session._id}`;
    const confirm = await get(`${url}/cancel`);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('1 person is booked and 1 is on the waitlist');
    expect(confirm.body).toContain('Cancel the session and 2 bookings');
    // Nothing happens on the confirmation page, nor without the CSRF token.
    expect((await post(`${url}/cancel`, {}, null)).statusCode).toBe(403);
    expect((await prisma().classSession.findUniqueOrThrow({ where: { id: session._id } })).status).toBe('scheduled');

    const cancelled = await post(`${url}/cancel`, { reason: 'Instructor ill' });
    expect(cancelled.statusCode).toBe(303);
    expect((await prisma().classSession.findUniqueOrThrow({ where: { id: session._id } })).status).toBe('cancelled');
    const bookings = await prisma().booking.findMany({ where: { id: { in: [booked._id, waiting._id] } } });
    expect(bookings.map((b) => [b.status, b.cancelReason])).toEqual([
      ['cancelled', 'Instructor ill'],
      ['cancelled', 'Instructor ill'],
    ]);
    const event = await prisma().event.findFirstOrThrow({
      where: { companyId: s.company.id, type: 'class.cancelled' },
    });
    expect((event.data as { cancelledBookingIds: string[] }).cancelledBookingIds.sort()).toEqual(
      [booked._id, waiting._id].sort(),
    );
    const again = await post(`${url}/cancel`, {});
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('already cancelled');
    expect((await get(`${url}/cancel`)).body).toContain('already cancelled');
  });

  it("another company's session, or one of the other mode, is a 404; forms need the CSRF token", async () => {
    const other = await createAccountWithKeys(t.dbs);
    const theirs = await studio(other);
    const session = await apiPost(t.app, '/api/v1/classes', theirs.auth, {
      serviceId: theirs.yoga._id,
      employeeId: theirs.ann._id,
      startTime: '2030-01-08T09:00:00Z',
      capacity: 3,
    });
    const booking = await theirs.book(session._id, 'Zoe');
    const mine = await studio();
    const asMine = `${mine.base}/${session._id}`;
    expect((await get(asMine)).statusCode).toBe(404);
    expect((await get(`${asMine}/cancel`)).statusCode).toBe(404);
    expect((await post(`${asMine}/cancel`, {})).statusCode).toBe(404);
    expect((await post(`${asMine}/bookings/${booking._id}/complete`, {})).statusCode).toBe(404);
    // Their company in my session's URL: not mine to see.
    expect((await get(`/admin/test/companies/${theirs.company.id}/classes/${session._id}`)).statusCode).toBe(404);
    expect((await get(`/admin/live/companies/${w.live.id}/classes/${session._id}`)).statusCode).toBe(404);
    expect((await prisma().classSession.findUniqueOrThrow({ where: { id: session._id } })).status).toBe('scheduled');
    // Another company's service or instructor cannot be scheduled here.
    const foreign = await post(mine.base, {
      serviceId: theirs.yoga._id,
      employeeId: mine.ann._id,
      startTime: '2030-01-07T10:00',
      capacity: '2',
    });
    expect(foreign.statusCode).toBe(400);
    expect(await prisma().classSession.count({ where: { companyId: mine.company.id } })).toBe(0);
    expect(
      (
        await post(
          mine.base,
          { serviceId: mine.yoga._id, employeeId: mine.ann._id, startTime: '2030-01-07T10:00', capacity: '2' },
          null,
        )
      ).statusCode,
    ).toBe(403);
    expect(await prisma().classSession.count({ where: { companyId: mine.company.id } })).toBe(0);
  });
});

describe('classes pages by role', () => {
  it('staff see and act on their own classes only; a viewer sees no actions and cannot post', async () => {
    const s = await studio();
    const bob = await apiPost(t.app, '/api/v1/employees', s.auth, { name: 'Bob', workingHours: ALL_DAY });
    ok(
      await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/services/${s.yoga._id}`,
        headers: s.auth,
        payload: { employeeIds: [s.ann._id, bob._id] },
      }),
    );
    const session = (employeeId: string, startTime: string) =>
      apiPost(t.app, '/api/v1/classes', s.auth, { serviceId: s.yoga._id, employeeId, startTime, capacity: 3 });
    const anns = await session(s.ann._id, '2030-01-08T09:00:00Z');
    const bobs = await session(bob._id, '2030-01-09T09:00:00Z');
    await s.book(anns._id, 'Zoe');
    await s.book(bobs._id, 'Adam');
    const member = async (role: 'staff' | 'viewer') => {
      const world = await createAccountWithKeys(t.dbs);
      await addMember(t.dbs, {
        team: w.account.id,
        member: world.account.id,
        role,
        testEmployeeId: role === 'staff' ? s.ann._id : null,
      });
      const c = await injectSignIn(t.app, world);
      const page = await t.app.inject({ method: 'GET', url: `${s.base}?week=2030-01-07`, cookies: { svc_session: c } });
      expect(page.statusCode).toBe(200);
      const token = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
      const as = {
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
      return { page, ...as };
    };

    const staff = await member('staff');
    expect(staff.page.body).toContain(`href="${s.base}/${anns._id}"`);
    expect(staff.page.body).not.toContain(`href="${s.base}/${bobs._id}"`);
    // The instructor list offers only themselves.
    expect(staff.page.body).toContain(`<option value="${s.ann._id}"`);
    expect(staff.page.body).not.toContain(`<option value="${bob._id}"`);
    expect((await staff.get(`${s.base}/${anns._id}`)).body).toContain('Zoe');
    expect((await staff.get(`${s.base}/${bobs._id}`)).statusCode).toBe(404);
    expect((await staff.get(`${s.base}/${bobs._id}/cancel`)).statusCode).toBe(404);
    expect((await staff.post(`${s.base}/${bobs._id}/cancel`)).statusCode).toBe(404);
    const forBob = await staff.post(s.base, {
      serviceId: s.yoga._id,
      employeeId: bob._id,
      startTime: '2030-01-10T10:00',
      capacity: '2',
    });
    expect(forBob.statusCode).toBe(400);
    expect(forBob.body).toContain('id="f-employeeId-error"');
    expect((await prisma().classSession.findUniqueOrThrow({ where: { id: bobs._id } })).status).toBe('scheduled');
    expect(await prisma().classSession.count({ where: { companyId: s.company.id } })).toBe(2);

    const viewer = await member('viewer');
    expect(viewer.page.body).toContain(`href="${s.base}/${bobs._id}"`);
    expect(viewer.page.body).not.toContain('Schedule session');
    const roster = await viewer.get(`${s.base}/${anns._id}`);
    expect(roster.body).toContain('Zoe');
    expect(roster.body).not.toContain('Cancel session');
    expect((await viewer.post(`${s.base}/${anns._id}/cancel`)).statusCode).toBe(403);
    expect((await prisma().classSession.findUniqueOrThrow({ where: { id: anns._id } })).status).toBe('scheduled');
  });
});
