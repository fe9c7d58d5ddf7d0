// Calendar feeds, BASE_URL/calendar/<token>.ics (docs/calendars.md): made and rotated through
// REST and GraphQL, read back with ical.js (independent of the ical-generator that writes
// them). What is in a feed (place-holding bookings 30 days back to 180 ahead, the customer and
// the service, class sessions for their instructor; notes only with includeNotes), that a
// rotated URL stops at once, that a sandbox token never reads live, ETag / If-None-Match, the
// secret-URL headers, and hostile tokens answered 404, never 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../src/generated/prisma/client.js';
import { createBooking } from '../../src/schema/bookings/create-booking.js';
import { transitionBooking } from '../../src/schema/bookings/transition-booking.js';
import { createClassSession } from '../../src/schema/classes/manage-class-sessions.js';
import { createService } from '../../src/schema/services/manage-services.js';
import { createEmployee } from '../../src/schema/staff/create-employee.js';
import { createLogger } from '../../src/logger.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { ALL_DAY, expectError, ok } from '../helpers/domain.js';
import { bearer, createAccountWithKeys, scopedToken, unique } from '../helpers/factories.js';
import { parseCalendar } from '../helpers/ical.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
const logged: string[] = [];
const DAY = 86_400_000;
const hour = (days: number, h = 10) => {
  const d = new Date(Date.now() + days * DAY);
  d.setUTCHours(h, 0, 0, 0);
  return d;
};

beforeAll(async () => {
  const logger = createLogger('info', { write: (s: string) => void logged.push(s) });
  t = await createTestApp({
    env: { BASE_URL: 'https://book.example.com', RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000' },
    logger,
  });
  w = await createAccountWithKeys(t.dbs);
  for (const mode of ['test', 'live'] as const)
    await t.dbs[mode].prisma.company.update({ where: { id: w[mode].id }, data: { address: 'Main St 1' } });
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const rotate = (key: string, url: string, payload?: object) =>
  t.app.inject({ method: 'POST', url: `/api/v1${url}`, headers: bearer(key), ...(payload ? { payload } : {}) });
const feed = (url: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: new URL(url).pathname, headers });

async function team(mode: 'test' | 'live') {
  const db = t.dbs[mode].prisma;
  const company: Company = await db.company.findUniqueOrThrow({ where: { id: w[mode].id } });
  const [ann, bob] = await Promise.all(
    ['Ann', 'Bob'].map((n) =>
      createEmployee(db, { companyId: company.id, input: { name: `${n} ${unique()}`, workingHours: ALL_DAY } }),
    ),
  );
  const service = (requiresPayment: boolean) =>
    createService(db, {
      companyId: company.id,
      input: {
        name: requiresPayment ? 'Paid cut' : 'Cut',
        durationMinutes: 60,
        price: 4500,
        requiresPayment,
        employeeIds: [ann!.id, bob!.id],
      },
    });
  const [free, paid] = [await service(false), await service(true)];
  const book = (o: { employeeId: string; start: Date; paid?: boolean; notes?: string; customer?: string }) =>
    createBooking(db, {
      company,
      input: {
        serviceId: (o.paid ? paid : free).id,
        employeeId: o.employeeId,
        startTime: o.start.toISOString(),
        customer: { name: o.customer ?? 'Dana', email: `c-${unique()}@example.com` },
        ...(o.notes ? { notes: o.notes } : {}),
      },
      // Bookings in the past are made as they would have been, before their time.
      now: new Date(Math.min(Date.now(), o.start.getTime() - DAY)),
    });
  return { company, ann: ann!, bob: bob!, book };
}

describe('an employee feed', () => {
  it('holds their place-holding bookings from 30 days back to 180 ahead, customer and service, UID of the invitations', async () => {
    const { company, ann, bob, book } = await team('test');
    const confirmed = await book({ employeeId: ann.id, start: hour(3), customer: 'Zoë "Z" Adams', notes: 'Allergic' });
    const pending = await book({ employeeId: ann.id, start: hour(4), paid: true });
    const recent = await book({ employeeId: ann.id, start: hour(-20) });
    const old = await book({ employeeId: ann.id, start: hour(-40) });
    const far = await book({ employeeId: ann.id, start: hour(200) });
    const cancelled = await book({ employeeId: ann.id, start: hour(5) });
    await transitionBooking(t.dbs.test.prisma, {
      companyId: company.id,
      bookingId: cancelled.id,
      action: 'cancel',
      input: {},
    });
    const others = await book({ employeeId: bob.id, start: hour(3) });
    const session = await createClassSession(t.dbs.test.prisma, {
      companyId: company.id,
      input: {
        serviceId: (
          await createService(t.dbs.test.prisma, {
            companyId: company.id,
            input: { name: 'Yoga', kind: 'class', durationMinutes: 60, price: 1000, employeeIds: [ann.id] },
          })
        ).id,
        employeeId: ann.id,
        startTime: hour(6, 18).toISOString(),
        capacity: 8,
      },
    });

    const made = ok(await rotate(w.testKey.key, `/employees/${ann.id}/calendar-feed/rotate`));
    expect(made).toEqual({
      url: expect.stringMatching(/^https:\/\/book\.example\.com\/calendar\/svc_cf_test_[A-Za-z0-9_-]{43}\.ics$/),
      includeNotes: false,
    });
    const res = await feed(made.url);
    expect(res.statusCode).toBe(200);
    expect(res.headers).toMatchObject({
      'content-type': 'text/calendar; charset=utf-8',
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-robots-tag': 'noindex, nofollow',
      etag: expect.stringMatching(/^"[A-Za-z0-9_-]{32}"$/),
    });
    const cal = parseCalendar(res.body);
    expect(cal.method).toBe('PUBLISH');
    expect(cal.name).toBe(`${ann.name} · ${company.name}`);
    const uid = (id: string) => `${id}@book.example.com`;
    expect(cal.events.map((e) => e.uid)).toEqual([
      uid(recent.id),
      uid(confirmed.id),
      uid(pending.id),
      `class-${session.id}@book.example.com`,
    ]);
    expect(cal.events.map((e) => e.uid)).not.toContain(uid(old.id));
    expect(cal.events.map((e) => e.uid)).not.toContain(uid(far.id));
    expect(cal.events.map((e) => e.uid)).not.toContain(uid(others.id));
    const [, first, second, yoga] = cal.events;
    expect(first).toEqual({
      uid: uid(confirmed.id),
      sequence: 0,
      start: confirmed.startTime.toISOString(),
      end: confirmed.endTime.toISOString(),
      summary: 'Zoë "Z" Adams – Cut',
      description: `Customer: Zoë "Z" Adams\nService: Cut\nStaff: ${ann.name}\n\nBooking reference: ${confirmed.id}`,
      location: 'Main St 1',
      url: null,
      status: 'CONFIRMED',
      organizer: null,
      attendees: [],
    });
    // Notes stay out of a feed made without includeNotes.
    expect(res.body).not.toContain('Allergic');
    expect(second).toMatchObject({ summary: 'Dana – Paid cut', status: 'TENTATIVE' });
    expect(second!.description).toContain('Awaiting payment');
    expect(yoga).toMatchObject({ summary: 'Yoga (class, 0/8 booked)', start: session.startTime.toISOString() });
  });

  it('rotating: the old URL is 404 at once, the new one 200; includeNotes adds the notes', async () => {
    const { ann, book } = await team('test');
    await book({ employeeId: ann.id, start: hour(2), notes: 'Prefers the window seat' });
    const first = ok(await rotate(w.testKey.key, `/employees/${ann.id}/calendar-feed/rotate`, {}));
    expect((await feed(first.url)).statusCode).toBe(200);
    const second = ok(await rotate(w.testKey.key, `/employees/${ann.id}/calendar-feed/rotate`, { includeNotes: true }));
    expect(second.includeNotes).toBe(true);
    expect(second.url).not.toBe(first.url);
    const gone = await feed(first.url);
    expect([gone.statusCode, gone.body]).toEqual([404, 'No such calendar feed.\n']);
    expect(gone.headers['cache-control']).toBe('no-store');
    const now = await feed(second.url);
    expect(now.statusCode).toBe(200);
    expect(parseCalendar(now.body).events[0]!.description).toContain('Notes: Prefers the window seat');
    // One feed per employee: the row was replaced, not added.
    expect(await t.dbs.test.prisma.calendarFeed.count({ where: { employeeId: ann.id } })).toBe(1);
    // The token is stored sealed and hashed, never as it is.
    const row = await t.dbs.test.prisma.calendarFeed.findFirstOrThrow({ where: { employeeId: ann.id } });
    const token = /\/calendar\/(.*)\.ics$/.exec(second.url)![1]!;
    expect(JSON.stringify(row)).not.toContain(token.slice(12));
    // And the logs carry the path without it.
    expect(logged.join('')).not.toContain(token.slice(12));
    expect(logged.join('')).toContain('/calendar/svc_cf_[REDACTED]');
  });

  it('ETag and If-None-Match: 304 while nothing changes, a new ETag after a change', async () => {
    const { ann, book } = await team('test');
    await book({ employeeId: ann.id, start: hour(2) });
    const { url } = ok(await rotate(w.testKey.key, `/employees/${ann.id}/calendar-feed/rotate`));
    const a = await feed(url);
    const etag = a.headers.etag as string;
    const again = await feed(url, { 'if-none-match': etag });
    expect([again.statusCode, again.body, again.headers.etag]).toEqual([304, '', etag]);
    expect((await feed(url, { 'if-none-match': `"other", W/${etag}` })).statusCode).toBe(304);
    expect((await feed(url, { 'if-none-match': '"other"' })).statusCode).toBe(200);
    await book({ employeeId: ann.id, start: hour(3) });
    const changed = await feed(url, { 'if-none-match': etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect(parseCalendar(changed.body).events).toHaveLength(2);
  });

  it('a rendered feed is kept only while nothing it shows changes: names, times, status, notes, company', async () => {
    const { company, ann, book } = await team('test');
    const db = t.dbs.test.prisma;
    const b = await book({ employeeId: ann.id, start: hour(4), customer: 'Erin', notes: 'First note' });
    const { url } = ok(
      await rotate(w.testKey.key, `/employees/${ann.id}/calendar-feed/rotate`, { includeNotes: true }),
    );
    const read = async () => parseCalendar((await feed(url)).body).events.find((e) => e.uid.startsWith(b.id))!;
    expect((await read()).summary).toMatch(/^Erin – Cut/);
    expect((await feed(url)).body).toBe((await feed(url)).body);
    // Each change below is made behind the API's back, in the database, and must still show.
    await db.customer.update({ where: { id: b.customerId }, data: { name: 'Erin Renamed' } });
    expect((await read()).summary).toMatch(/^Erin Renamed – Cut/);
    await db.service.update({ where: { id: b.serviceId }, data: { name: 'Cut and dry' } });
    expect((await read()).summary).toMatch(/^Erin Renamed – Cut and dry/);
    await db.$executeRaw`UPDATE bookings SET notes = 'Second note' WHERE id = ${b.id}`;
    expect((await read()).description).toContain('Notes: Second note');
    await db.company.update({ where: { id: company.id }, data: { address: 'Neue Straße 2, Berlin' } });
    expect((await read()).location).toBe('Neue Straße 2, Berlin');
    await db.$executeRaw`UPDATE bookings SET status = 'cancelled' WHERE id = ${b.id}`;
    expect(parseCalendar((await feed(url)).body).events.map((e) => e.uid)).not.toContain(`${b.id}@book.example.com`);
  });
});

describe('the company feed', () => {
  it("holds every employee's bookings, by GraphQL too; scope employees:write", async () => {
    const { ann, bob, book } = await team('live');
    const a = await book({ employeeId: ann.id, start: hour(2) });
    const b = await book({ employeeId: bob.id, start: hour(2) });
    const gql = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: bearer(w.liveKey.key),
      payload: { query: 'mutation { rotateCompanyCalendarFeed(input: { includeNotes: false }) { url includeNotes } }' },
    });
    const { url } = gql.json().data.rotateCompanyCalendarFeed as { url: string };
    expect(url).toMatch(/\/calendar\/svc_cf_live_/);
    const events = parseCalendar((await feed(url)).body).events;
    const uids = events.map((e) => e.uid);
    expect(uids).toContain(`${a.id}@book.example.com`);
    expect(uids).toContain(`${b.id}@book.example.com`);
    expect(events.find((e) => e.uid.startsWith(b.id))!.summary).toBe(`Dana – Cut (${bob.name})`);
    // REST answers the same way; a read-only credential may not rotate.
    const rest = ok(await rotate(w.liveKey.key, '/me/calendar-feed/rotate'));
    expect((await feed(url)).statusCode).toBe(404);
    expect((await feed(rest.url)).statusCode).toBe(200);
    const reader = await scopedToken(t.dbs, {
      accountId: w.account.id,
      companyId: w.test.id,
      mode: 'test',
      scope: 'employees:read company:write',
    });
    const refused = await rotate(reader, '/me/calendar-feed/rotate');
    expect(expectError(refused, 403, 'INSUFFICIENT_SCOPE').error.details).toEqual({ requiredScope: 'employees:write' });
    // Another company's employee, and an unknown field, change nothing.
    const other = await createAccountWithKeys(t.dbs);
    expectError(await rotate(other.liveKey.key, `/employees/${ann.id}/calendar-feed/rotate`), 404, 'NOT_FOUND');
    expectError(
      await rotate(w.liveKey.key, '/me/calendar-feed/rotate', { includeNotes: 'yes' }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(await rotate(w.liveKey.key, '/me/calendar-feed/rotate', { notes: true }), 400, 'VALIDATION_ERROR');
    expect((await feed(rest.url)).statusCode).toBe(200);
  });
});

describe('tokens', () => {
  it('a sandbox token never reads live, and a live one never the sandbox', async () => {
    const test = ok(await rotate(w.testKey.key, '/me/calendar-feed/rotate'));
    const live = ok(await rotate(w.liveKey.key, '/me/calendar-feed/rotate'));
    expect((await feed(test.url)).statusCode).toBe(200);
    expect((await feed(live.url)).statusCode).toBe(200);
    // The same random part under the other mode's prefix opens nothing.
    const swapped = [
      test.url.replace('svc_cf_test_', 'svc_cf_live_'),
      live.url.replace('svc_cf_live_', 'svc_cf_test_'),
    ];
    for (const u of swapped) expect((await feed(u)).statusCode).toBe(404);
  });

  it.each([
    '/calendar/svc_cf_test_' + 'A'.repeat(43) + '.ics',
    '/calendar/svc_cf_test_' + 'A'.repeat(43),
    '/calendar/svc_cf_prod_' + 'A'.repeat(43) + '.ics',
    '/calendar/svc_cf_test_' + 'A'.repeat(42) + '.ics',
    '/calendar/svc_cf_test_' + 'A'.repeat(5000) + '.ics',
    '/calendar/.ics',
    '/calendar/%00.ics',
    '/calendar/..%2f..%2fetc%2fpasswd.ics',
    "/calendar/svc_cf_test_' OR 1=1 --.ics",
    '/calendar/svc_cf_test_%F0%9F%92%A9%F0%9F%92%A9.ics',
    '/calendar/a/b/c.ics',
    '/calendar/',
  ])('%s is a 404, never a 500', async (path) => {
    const res = await t.app.inject({ method: 'GET', url: path });
    expect(res.statusCode).toBe(404);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('POST, /calendar itself and a path that is no valid UTF-8 are no feed either', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/calendar' })).statusCode).toBe(404);
    // Refused by the router before any route: the API's 404 envelope, still no 500.
    expect((await t.app.inject({ method: 'GET', url: '/calendar/%E0%A4%A.ics' })).statusCode).toBe(404);
    const post = await t.app.inject({ method: 'POST', url: `/calendar/svc_cf_test_${'A'.repeat(43)}.ics` });
    expect(post.statusCode).toBe(404);
  });
});
