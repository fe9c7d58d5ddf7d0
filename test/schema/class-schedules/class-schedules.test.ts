// Class schedules (docs/api.md, Class schedules): a recurring timetable generates class sessions
// at its local time in the company's zone (18:30 stays 18:30 across DST, in two zones), 12 weeks
// ahead of domain time, extended by the workers' job and by test-clock advances; busy occurrences
// are reported, not refused; PATCH applyTo future and DELETE leave booked sessions and say so;
// hostile input is a 400/404 with nothing written. Every company runs on a test clock, so the
// dates are fixed.
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extendClassSchedules } from '../../../src/schema/class-schedules/index.js';
import { JOBS } from '../../../src/workers/job-catalog.js';
import type { TestApp } from '../../helpers/app.js';
import { createAccountWithKeys } from '../../helpers/factories.js';
import {
  ALL_DAY,
  blankCompany,
  createDomainApp,
  expectError,
  ok,
  post,
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

const DAY = 86_400_000;
// A Monday; Berlin moves to summer time on 28 March 2027, New York on 14 March 2027.
const T0 = new Date('2027-03-01T00:00:00Z');
const iso = (d: Date | number) => new Date(d).toISOString();
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const req = (method: Method, url: string, headers: Record<string, string>, payload?: unknown) =>
  t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

async function studio(timezone: string, opts: { clock?: boolean } = {}) {
  const c = await blankCompany(t.dbs, w, { timezone });
  const ann = await post(t.app, '/api/v1/employees', c.auth, { name: 'Ann', workingHours: ALL_DAY });
  const yoga = await post(t.app, '/api/v1/services', c.auth, {
    name: 'Yoga',
    kind: 'class',
    durationMinutes: 60,
    employeeIds: [ann._id],
  });
  const clock: { _id: string } | null =
    opts.clock === false ? null : await post(t.app, '/api/v1/test-clocks', c.auth, { frozenTime: iso(T0) });
  if (clock) ok(await req('PATCH', '/api/v1/me', c.auth, { testClockId: clock._id }));
  const advance = async (to: Date) =>
    ok(await req('POST', `/api/v1/test-clocks/${clock!._id}/advance`, c.auth, { to: iso(to) }));
  const schedule = (input: Record<string, unknown> = {}) =>
    req('POST', '/api/v1/class-schedules', c.auth, {
      serviceId: yoga._id,
      employeeId: ann._id,
      localStartTime: '18:30',
      rrule: 'FREQ=WEEKLY;BYDAY=MO',
      capacity: 10,
      startsOn: '2027-03-01',
      ...input,
    });
  const sessions = async (scheduleId: string, status = 'scheduled') =>
    t.dbs.test.prisma.classSession.findMany({
      where: { scheduleId, status: status as 'scheduled' },
      orderBy: { startTime: 'asc' },
    });
  return { ...c, ann, yoga, clock, advance, schedule, sessions, zone: timezone };
}

const local = (d: Date, zone: string) => DateTime.fromJSDate(d, { zone }).toFormat("yyyy-MM-dd' 'HH:mm");
const mondays = (n: number) =>
  Array.from({ length: n }, (_, i) => DateTime.fromISO('2027-03-01').plus({ weeks: i }).toISODate());

describe('class schedules across DST', () => {
  it.each([
    { zone: 'Europe/Berlin', before: '17:30', after: '16:30', change: '2027-03-28' },
    { zone: 'America/New_York', before: '23:30', after: '22:30', change: '2027-03-14' },
  ])(
    '$zone: sessions 12 weeks ahead, 18:30 local on both sides of $change',
    async ({ zone, before, after, change }) => {
      const s = await studio(zone);
      const created = ok(await s.schedule());
      expect(created).toEqual({
        _id: created._id,
        serviceId: s.yoga._id,
        employeeId: s.ann._id,
        locationId: null,
        resourceIds: [],
        localStartTime: '18:30',
        rrule: 'FREQ=WEEKLY;BYDAY=MO',
        capacity: 10,
        startsOn: '2027-03-01',
        endsOn: null,
        status: 'active',
        generatedUntil: iso(T0.getTime() + 84 * DAY),
        skippedOccurrences: [],
        unchangedSessions: [],
        createdAt: created.createdAt,
        updatedAt: created.updatedAt,
      });
      const rows = await s.sessions(created._id);
      // Mondays from 1 March up to the horizon (24 May, exclusive): twelve.
      expect(rows.map((r) => local(r.startTime, zone))).toEqual(mondays(12).map((d) => `${d} 18:30`));
      const utcTimes = rows.map(
        (r) => `${r.startTime.toISOString().slice(0, 10)} ${r.startTime.toISOString().slice(11, 16)}`,
      );
      for (const u of utcTimes) expect(u.slice(11)).toBe(u.slice(0, 10) < change ? before : after);
      expect(rows.every((r) => r.endTime.getTime() - r.startTime.getTime() === 3_600_000 && r.capacity === 10)).toBe(
        true,
      );
      // The REST list filters by schedule, and each session names it.
      const listed = ok(await req('GET', `/api/v1/classes?scheduleId=${created._id}&limit=100`, s.auth));
      expect(listed).toHaveLength(12);
      expect(listed.every((x: { scheduleId: string }) => x.scheduleId === created._id)).toBe(true);
    },
  );
});

describe('the rolling horizon', () => {
  it('a test-clock advance extends it, without duplicates', async () => {
    const s = await studio('Europe/Berlin');
    const created = ok(await s.schedule());
    await s.advance(new Date(T0.getTime() + 14 * DAY));
    // Up to 7 June (exclusive): Mondays 1 March – 31 May.
    const rows = await s.sessions(created._id);
    expect(rows.map((r) => local(r.startTime, s.zone).slice(0, 10))).toEqual(mondays(14));
    const got = ok(await req('GET', `/api/v1/class-schedules/${created._id}`, s.auth));
    expect(got.generatedUntil).toBe(iso(T0.getTime() + 98 * DAY));
  });

  it('the job extends it, idempotent and safe with several workers at once', async () => {
    const s = await studio('America/New_York');
    const created = ok(await s.schedule({ rrule: 'FREQ=DAILY', localStartTime: '07:00' }));
    expect(await s.sessions(created._id)).toHaveLength(84);
    // Domain time moves on (the clock's row, as a worker would find it) and three workers run at once.
    await t.dbs.test.prisma.testClock.update({
      where: { id: s.clock!._id },
      data: { frozenTime: new Date(T0.getTime() + 10 * DAY) },
    });
    const runs = await Promise.all([1, 2, 3].map(() => extendClassSchedules(t.dbs.test.prisma)));
    expect(runs.reduce((n, r) => n + r.created, 0)).toBe(10);
    const rows = await s.sessions(created._id);
    expect(rows).toHaveLength(94);
    expect(new Set(rows.map((r) => r.startTime.getTime())).size).toBe(94);
    expect(rows.every((r) => local(r.startTime, s.zone).endsWith('07:00'))).toBe(true);
    // Through the workers' catalogue: nothing left to do.
    const job = JOBS['extend-class-schedules'];
    expect(job.queue).toBe('maintenance');
    expect(job.jobId({ bucket: 3 })).toBe('schedules.3');
    await job.handler(
      {
        services: { dbs: t.dbs, logger: { info: () => undefined } },
        enqueue: async () => undefined,
        signal: new AbortController().signal,
      } as never,
      { bucket: 3 },
    );
    expect(await s.sessions(created._id)).toHaveLength(94);
    // The database refuses a second session for one occurrence whatever the code does.
    const first = rows[0]!;
    await expect(
      t.dbs.test.prisma.classSession.create({
        data: { ...first, id: 'f'.repeat(24), startTime: first.startTime, createdAt: undefined, updatedAt: undefined },
      }),
    ).rejects.toThrow();
  });
});

describe('busy occurrences', () => {
  it('are skipped and reported with their reason, not refused', async () => {
    const s = await studio('Europe/Berlin');
    // Ann teaches a one-off class over the second Monday's 18:30 and is off on the third.
    const second = DateTime.fromISO('2027-03-08T18:00', { zone: s.zone }).toJSDate();
    await post(t.app, '/api/v1/classes', s.auth, {
      serviceId: s.yoga._id,
      employeeId: s.ann._id,
      startTime: iso(second),
      capacity: 3,
    });
    const third = DateTime.fromISO('2027-03-15T00:00', { zone: s.zone }).toJSDate();
    await post(t.app, `/api/v1/employees/${s.ann._id}/time-off`, s.auth, {
      startTime: iso(third),
      endTime: iso(third.getTime() + DAY),
    });
    const created = ok(await s.schedule());
    expect(created.skippedOccurrences).toEqual([
      {
        startTime: iso(DateTime.fromISO('2027-03-08T18:30', { zone: s.zone }).toJSDate()),
        reason: 'BOOKED',
        message: expect.any(String),
      },
      {
        startTime: iso(DateTime.fromISO('2027-03-15T18:30', { zone: s.zone }).toJSDate()),
        reason: 'TIME_OFF',
        message: expect.any(String),
      },
    ]);
    expect(await s.sessions(created._id)).toHaveLength(10);
  });
});

describe('changing and stopping a schedule', () => {
  const book = (s: Awaited<ReturnType<typeof studio>>, classId: string) =>
    post(t.app, '/api/v1/bookings', s.auth, {
      serviceId: s.yoga._id,
      classId,
      customer: { name: 'Guest', email: 'guest@example.com' },
    });

  it('PATCH applyTo future moves the empty future sessions and reports the booked ones', async () => {
    const s = await studio('Europe/Berlin');
    const created = ok(await s.schedule());
    const before = await s.sessions(created._id);
    const booked = before[2]!;
    await book(s, booked.id);
    // Capacity alone: the sessions are changed in place.
    const bigger = ok(
      await req('PATCH', `/api/v1/class-schedules/${created._id}`, s.auth, { applyTo: 'future', capacity: 12 }),
    );
    expect(bigger.unchangedSessions).toEqual([
      { classId: booked.id, startTime: iso(booked.startTime), reason: 'HAS_BOOKINGS' },
    ]);
    const same = await s.sessions(created._id);
    expect(same.map((r) => r.id)).toEqual(before.map((r) => r.id));
    expect(same.map((r) => r.capacity)).toEqual(before.map((r) => (r.id === booked.id ? 10 : 12)));
    // A new time: the empty sessions are replaced at 19:00 local, the booked one stays at 18:30.
    const later = ok(
      await req('PATCH', `/api/v1/class-schedules/${created._id}`, s.auth, {
        applyTo: 'future',
        localStartTime: '19:00',
      }),
    );
    expect(later.localStartTime).toBe('19:00');
    expect(later.unchangedSessions).toHaveLength(1);
    const after = await s.sessions(created._id);
    expect(after.map((r) => local(r.startTime, s.zone))).toEqual(
      mondays(12)
        .map((d) => `${d} ${d === '2027-03-15' ? '18:30' : '19:00'}`)
        .sort(),
    );
    // The replaced sessions were cancelled (class.cancelled) and left the schedule.
    const cancelled = await t.dbs.test.prisma.event.count({
      where: { companyId: s.company.id, type: 'class.cancelled' },
    });
    expect(cancelled).toBe(11);
    expect(await t.dbs.test.prisma.classSession.count({ where: { companyId: s.company.id, scheduleId: null } })).toBe(
      11,
    );
    expectError(
      await req('PATCH', `/api/v1/class-schedules/${created._id}`, s.auth, { capacity: 3 }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('DELETE stops generation and cancels future empty sessions; booked ones stay, reported', async () => {
    const s = await studio('America/New_York');
    const created = ok(await s.schedule());
    const rows = await s.sessions(created._id);
    await book(s, rows[5]!.id);
    const stopped = ok(await req('DELETE', `/api/v1/class-schedules/${created._id}`, s.auth));
    expect(stopped.status).toBe('stopped');
    expect(stopped.unchangedSessions).toEqual([
      { classId: rows[5]!.id, startTime: iso(rows[5]!.startTime), reason: 'HAS_BOOKINGS' },
    ]);
    expect((await s.sessions(created._id)).map((r) => r.id)).toEqual([rows[5]!.id]);
    expect(await s.sessions(created._id, 'cancelled')).toHaveLength(11);
    expectError(await req('DELETE', `/api/v1/class-schedules/${created._id}`, s.auth), 409, 'INVALID_STATE_TRANSITION');
    // Nothing more is generated.
    await s.advance(new Date(T0.getTime() + 30 * DAY));
    expect(await s.sessions(created._id)).toHaveLength(1);
    expectError(
      await req('PATCH', `/api/v1/class-schedules/${created._id}`, s.auth, { applyTo: 'future', capacity: 2 }),
      409,
      'CONFLICT',
    );
  });
});

describe('refusals write nothing', () => {
  it.each([
    [{ rrule: 'FREQ=SECONDLY' }, 'rrule'],
    [{ rrule: 'FREQ=MINUTELY;COUNT=5' }, 'rrule'],
    [{ rrule: 'FREQ=HOURLY' }, 'rrule'],
    [{ rrule: 'FREQ=DAILY;COUNT=99999999' }, 'rrule'],
    [{ rrule: 'FREQ=DAILY;BYHOUR=1,2,3,4,5' }, 'rrule'],
    [{ rrule: 'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30' }, 'rrule'],
    [{ rrule: 'FREQ=WEEKLY;BYDAY=MO;UNTIL=20270201' }, 'rrule'],
    [{ localStartTime: '24:00' }, 'localStartTime'],
    [{ startsOn: '2027-02-30' }, 'startsOn'],
    [{ endsOn: '2027-02-01' }, 'endsOn'],
    [{ capacity: 0 }, 'capacity'],
  ])('%j → 400 naming %s', async (input, field) => {
    const s = await studio('Europe/Berlin');
    const body = expectError(await s.schedule(input), 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(body.error)).toContain(field);
    expect(await t.dbs.test.prisma.classSchedule.count({ where: { companyId: s.company.id } })).toBe(0);
    expect(await t.dbs.test.prisma.classSession.count({ where: { companyId: s.company.id } })).toBe(0);
  });

  it("another company's ids are 404, and the scopes are services:*", async () => {
    const a = await studio('Europe/Berlin');
    const b = await studio('Europe/Berlin');
    const mine = ok(await a.schedule());
    expectError(await b.schedule({ serviceId: a.yoga._id, employeeId: b.ann._id }), 404, 'NOT_FOUND');
    expectError(await b.schedule({ employeeId: a.ann._id }), 404, 'NOT_FOUND');
    expectError(await req('GET', `/api/v1/class-schedules/${mine._id}`, b.auth), 404, 'NOT_FOUND');
    expectError(
      await req('PATCH', `/api/v1/class-schedules/${mine._id}`, b.auth, { applyTo: 'future', capacity: 2 }),
      404,
      'NOT_FOUND',
    );
    expectError(await req('DELETE', `/api/v1/class-schedules/${mine._id}`, b.auth), 404, 'NOT_FOUND');
    expect(await t.dbs.test.prisma.classSchedule.count({ where: { companyId: b.company.id } })).toBe(0);
    expect(ok(await req('GET', '/api/v1/class-schedules', b.auth))).toEqual([]);
    expect(ok(await req('GET', '/api/v1/class-schedules', a.auth)).map((x: { _id: string }) => x._id)).toEqual([
      mine._id,
    ]);
    // The test key's company is the world's; a token with services:read only may read, not write.
    const readOnly = await tokenWithScopes(t.dbs, w, 'services:read');
    expect(ok(await req('GET', '/api/v1/class-schedules', readOnly))).toEqual([]);
    expectError(
      await req('POST', '/api/v1/class-schedules', readOnly, {
        serviceId: a.yoga._id,
        employeeId: a.ann._id,
        localStartTime: '18:30',
        rrule: 'FREQ=WEEKLY',
        capacity: 1,
        startsOn: '2027-03-01',
      }),
      403,
      'INSUFFICIENT_SCOPE',
    );
  });
});

describe('the sample fitness center', () => {
  it('keeps an evening class by a class schedule: Mondays and Wednesdays at 20:00 London time, 12 weeks ahead', async () => {
    const { createCompany } = await import('../../../src/schema/companies/create-company.js');
    const company = await createCompany(
      t.dbs,
      { accountId: w.account.id, mode: 'test', template: 'fitness' },
      { now: T0 },
    );
    const [schedule] = await t.dbs.test.prisma.classSchedule.findMany({ where: { companyId: company.id } });
    expect(schedule).toMatchObject({ localStartTime: '20:00', rrule: 'FREQ=WEEKLY;BYDAY=MO,WE', status: 'active' });
    const rows = await t.dbs.test.prisma.classSession.findMany({
      where: { scheduleId: schedule!.id },
      orderBy: { startTime: 'asc' },
    });
    expect(rows).toHaveLength(24);
    expect(rows.every((r) => local(r.startTime, 'Europe/London').endsWith('20:00'))).toBe(true);
    expect(schedule!.skippedOccurrences).toEqual([]);
  });
});
