// External calendars end to end (docs/api.md, External calendars): a real local HTTP server
// serves ICS files, the real workers (BullMQ on the real Redis when REDIS_URL is set) fetch them
// through the webhook SSRF guard (the sandbox allows http://127.0.0.1, as for webhooks), and
// /availability, /availability/explain and POST /bookings refuse the busy times with
// EXTERNAL_BUSY. A weekly event across Europe/Berlin's spring-forward stays at 10:00 local on
// both sides; EXDATE frees its occurrence, an override moves one, cancelled and transparent
// events block nothing. ETag 304s keep the copy; a failing feed keeps its last good copy and
// records the error; the URL is redacted in answers and absent from the logs.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import {
  claimExternalCalendar,
  dueExternalCalendars,
  recordExternalCalendarFetch,
} from '../../src/schema/staff/index.js';
import { startWorkers, type Workers } from '../../src/workers/runtime.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { blankCompany, expectError, ok, salon, type World } from '../helpers/domain.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { waitFor } from '../helpers/receiver.js';

const VTIMEZONE = `BEGIN:VTIMEZONE
TZID:Europe/Berlin
X-LIC-LOCATION:Europe/Berlin
BEGIN:DAYLIGHT
TZOFFSETFROM:+0100
TZOFFSETTO:+0200
TZNAME:CEST
DTSTART:19700329T020000
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU
END:DAYLIGHT
BEGIN:STANDARD
TZOFFSETFROM:+0200
TZOFFSETTO:+0100
TZNAME:CET
DTSTART:19701025T030000
RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU
END:STANDARD
END:VTIMEZONE`;

const ics = (events: string) =>
  `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Test//Calendar//EN\r\n${VTIMEZONE}\r\n${events}\r\nEND:VCALENDAR\r\n`.replace(
    /\r?\n/g,
    '\r\n',
  );

// Thursdays at 10:00-11:00 Berlin time from 11 March 2027 (CET) over the change on 28 March
// to CEST: 09:00Z before, 08:00Z after. 8 April is excluded; 15 April moved to 14:00-15:00.
const WEEKLY = `BEGIN:VEVENT
UID:weekly-1@test
DTSTAMP:20261101T000000Z
DTSTART;TZID=Europe/Berlin:20270311T100000
DTEND;TZID=Europe/Berlin:20270311T110000
RRULE:FREQ=WEEKLY;BYDAY=TH;COUNT=7
EXDATE;TZID=Europe/Berlin:20270408T100000
SUMMARY:Dentist
END:VEVENT
BEGIN:VEVENT
UID:weekly-1@test
DTSTAMP:20261101T000000Z
RECURRENCE-ID;TZID=Europe/Berlin:20270415T100000
DTSTART;TZID=Europe/Berlin:20270415T140000
DTEND;TZID=Europe/Berlin:20270415T150000
SUMMARY:Dentist (moved)
END:VEVENT
BEGIN:VEVENT
UID:cancelled@test
DTSTAMP:20261101T000000Z
DTSTART;TZID=Europe/Berlin:20270312T100000
DTEND;TZID=Europe/Berlin:20270312T110000
STATUS:CANCELLED
END:VEVENT
BEGIN:VEVENT
UID:free@test
DTSTAMP:20261101T000000Z
DTSTART;TZID=Europe/Berlin:20270313T100000
DTEND;TZID=Europe/Berlin:20270313T110000
TRANSP:TRANSPARENT
END:VEVENT
BEGIN:VEVENT
UID:allday@test
DTSTAMP:20261101T000000Z
DTSTART;VALUE=DATE:20270320
DTEND;VALUE=DATE:20270321
END:VEVENT`;

interface Served {
  status: number;
  body: string;
  etag?: string;
}

/** A real HTTP server for ICS files: what each path answers, and every request's headers. */
async function icsServer() {
  const files = new Map<string, Served>();
  const requests: Array<{ path: string; headers: IncomingHttpHeaders }> = [];
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push({ path, headers: req.headers });
    const f = files.get(path);
    if (!f) return res.writeHead(404).end();
    if (f.etag && req.headers['if-none-match'] === f.etag) return res.writeHead(304, { etag: f.etag }).end();
    res.writeHead(f.status, { 'content-type': 'text/calendar', ...(f.etag ? { etag: f.etag } : {}) }).end(f.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    files,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

let t: TestApp;
let w: World;
let workers: Workers;
let srv: Awaited<ReturnType<typeof icsServer>>;
const logLines: string[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      logLines.push(chunk.toString('utf8'));
      cb();
    },
  });
  t = await createTestApp({
    env: { RATE_LIMIT_PER_SECOND: '1000000', WORKER_POLL_MS: '100', EXTERNAL_CALENDAR_MAX_BYTES: '200000' },
    logger: createLogger('debug', sink),
  });
  w = await createAccountWithKeys(t.dbs);
  srv = await icsServer();
  workers = await startWorkers(t.services);
});
afterAll(async () => {
  await workers?.stop();
  await srv?.close();
  await t?.close();
});

const patch = (auth: Record<string, string>, id: string, payload: object) =>
  t.app.inject({ method: 'PATCH', url: `/api/v1/employees/${id}`, headers: auth, payload });
const getEmployee = async (auth: Record<string, string>, id: string) =>
  ok(await t.app.inject({ method: 'GET', url: `/api/v1/employees/${id}`, headers: auth }));
const slots = async (auth: Record<string, string>, serviceId: string, from: string, to: string) =>
  ok(
    await t.app.inject({
      method: 'GET',
      url: `/api/v1/availability?serviceId=${serviceId}&from=${from}&to=${to}`,
      headers: auth,
    }),
  ).slots.map((s: { startTime: string }) => s.startTime) as string[];
const free = async (auth: Record<string, string>, serviceId: string, start: string) =>
  (await slots(auth, serviceId, start, new Date(Date.parse(start) + 60_000).toISOString())).includes(start);
const busyRows = (calendarId: string) =>
  t.dbs.test.prisma.externalBusy.findMany({ where: { calendarId }, orderBy: { startTime: 'asc' } });
const row = (calendarId: string) => t.dbs.test.prisma.externalCalendar.findUniqueOrThrow({ where: { id: calendarId } });
/** Makes a calendar due now (as the next poll would), and waits for the fetch after `since`. */
async function pollNow(calendarId: string) {
  const before = await row(calendarId);
  await t.dbs.test.prisma.externalCalendar.update({ where: { id: calendarId }, data: { nextFetchAt: new Date() } });
  workers.kick();
  return waitFor(
    async () => {
      const r = await row(calendarId);
      return r.nextFetchAt > before.nextFetchAt && r.leaseUntil === null ? r : null;
    },
    { what: 'the next fetch', timeoutMs: 15_000 },
  );
}

/** A sandbox company in Berlin with one employee working round the clock, with a calendar at `path`. */
async function withCalendar(path: string, served: Served) {
  srv.files.set(path, served);
  const c = await blankCompany(t.dbs, w, { timezone: 'Europe/Berlin' });
  const { employee, service } = await salon(t.app, c.auth);
  const updated = ok(
    await patch(c.auth, employee._id, { externalCalendars: [{ url: `${srv.base}${path}`, name: 'Private' }] }),
  );
  const calendarId = updated.externalCalendars[0]._id as string;
  // A new calendar is due at once: the workers' sweep fetches it within a poll.
  await waitFor(async () => (await row(calendarId)).lastSuccessAt ?? (await row(calendarId)).lastError, {
    what: 'the first fetch',
    timeoutMs: 15_000,
  });
  return { ...c, employee, service, calendarId, updated };
}

describe('external calendars', () => {
  it('a weekly event across the DST change blocks 10:00 Berlin time on both sides; EXDATE, overrides, cancelled, transparent and all-day events', async () => {
    const secret = `/cal/private-${Date.now()}-s3cr3t-path/basic.ics`;
    const c = await withCalendar(secret, { status: 200, body: ics(WEEKLY), etag: '"v1"' });
    const r = await row(c.calendarId);
    expect(r.lastError).toBeNull();
    expect(r.lastSuccessAt).not.toBeNull();
    expect(r.etag).toBe('"v1"');

    const rows = (await busyRows(c.calendarId)).map((b) => [b.startTime.toISOString(), b.endTime.toISOString()]);
    expect(rows).toEqual([
      ['2027-03-11T09:00:00.000Z', '2027-03-11T10:00:00.000Z'],
      ['2027-03-18T09:00:00.000Z', '2027-03-18T10:00:00.000Z'],
      ['2027-03-19T23:00:00.000Z', '2027-03-20T23:00:00.000Z'], // all day 20 March, Berlin
      ['2027-03-25T09:00:00.000Z', '2027-03-25T10:00:00.000Z'],
      ['2027-04-01T08:00:00.000Z', '2027-04-01T09:00:00.000Z'], // CEST: still 10:00 local
      // 8 April excluded; 15 April moved to 14:00 CEST
      ['2027-04-15T12:00:00.000Z', '2027-04-15T13:00:00.000Z'],
      ['2027-04-22T08:00:00.000Z', '2027-04-22T09:00:00.000Z'],
    ]);

    const svc = c.service._id;
    // Before the change: 10:00 CET is 09:00Z; a 60-minute appointment may end at 09:00Z.
    expect(await free(c.auth, svc, '2027-03-18T08:00:00.000Z')).toBe(true);
    expect(await free(c.auth, svc, '2027-03-18T08:15:00.000Z')).toBe(false);
    expect(await free(c.auth, svc, '2027-03-18T09:00:00.000Z')).toBe(false);
    expect(await free(c.auth, svc, '2027-03-18T10:00:00.000Z')).toBe(true);
    // After it: 10:00 CEST is 08:00Z.
    expect(await free(c.auth, svc, '2027-04-01T08:00:00.000Z')).toBe(false);
    expect(await free(c.auth, svc, '2027-04-01T09:00:00.000Z')).toBe(true);
    expect(await free(c.auth, svc, '2027-04-01T07:00:00.000Z')).toBe(true);
    // EXDATE frees 8 April; the override frees 15 April's 10:00 and blocks its 14:00.
    expect(await free(c.auth, svc, '2027-04-08T08:00:00.000Z')).toBe(true);
    expect(await free(c.auth, svc, '2027-04-15T08:00:00.000Z')).toBe(true);
    expect(await free(c.auth, svc, '2027-04-15T12:00:00.000Z')).toBe(false);
    // Cancelled and transparent events block nothing; an all-day event the whole local day.
    expect(await free(c.auth, svc, '2027-03-12T09:00:00.000Z')).toBe(true);
    expect(await free(c.auth, svc, '2027-03-13T09:00:00.000Z')).toBe(true);
    expect(await free(c.auth, svc, '2027-03-20T12:00:00.000Z')).toBe(false);
    expect(await free(c.auth, svc, '2027-03-19T22:00:00.000Z')).toBe(true);

    // explain names EXTERNAL_BUSY for the employee; booking refuses with the same reasons.
    const explained = ok(
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/availability/explain?serviceId=${svc}&startTime=2027-04-01T08:00:00.000Z`,
        headers: c.auth,
      }),
    );
    expect(explained.available).toBe(false);
    expect(explained.reasons).toEqual([expect.objectContaining({ code: 'EXTERNAL_BUSY', employeeId: c.employee._id })]);
    const refused = expectError(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/bookings',
        headers: c.auth,
        payload: {
          serviceId: svc,
          employeeId: c.employee._id,
          startTime: '2027-04-01T08:00:00.000Z',
          customer: { name: 'Ada', email: 'ada@example.com' },
        },
      }),
      409,
      'SLOT_UNAVAILABLE',
    );
    expect(refused.error.details.reasons).toEqual(explained.reasons);
    // A free time books; rescheduling it into a busy time is refused alike.
    const booked = ok(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/bookings',
        headers: c.auth,
        payload: {
          serviceId: svc,
          employeeId: c.employee._id,
          startTime: '2027-04-08T08:00:00.000Z',
          customer: { name: 'Ada', email: 'ada@example.com' },
        },
      }),
    );
    const moved = expectError(
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/bookings/${booked._id}/reschedule`,
        headers: c.auth,
        payload: { startTime: '2027-04-01T08:00:00.000Z' },
      }),
      409,
      'SLOT_UNAVAILABLE',
    );
    expect(moved.error.details.reasons).toEqual(explained.reasons);

    // The URL is answered redacted (REST and GraphQL) and never logged.
    const shown = (await getEmployee(c.auth, c.employee._id)).externalCalendars;
    expect(shown).toEqual([
      {
        _id: c.calendarId,
        name: 'Private',
        url: `${srv.base}/…`,
        lastSuccessAt: expect.any(String),
        lastError: null,
        lastErrorAt: null,
      },
    ]);
    const gql = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: c.auth,
      payload: {
        query: `query($id: ID!) { employee(id: $id) { externalCalendars { _id name url lastSuccessAt lastError } } }`,
        variables: { id: c.employee._id },
      },
    });
    expect(gql.json().data.employee.externalCalendars).toEqual([
      { _id: c.calendarId, name: 'Private', url: `${srv.base}/…`, lastSuccessAt: expect.any(String), lastError: null },
    ]);
    expect(JSON.stringify(c.updated)).not.toContain('s3cr3t');
    expect(gql.body).not.toContain('s3cr3t');
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('')).not.toContain('s3cr3t');
    // At rest it is sealed.
    expect(r.urlEnc).not.toContain('s3cr3t');
  });

  it('an ETag answered 304 keeps the copy and counts as a success; a failing feed keeps the last good copy and records the error', async () => {
    const path = `/cal/etag-${Date.now()}.ics`;
    const c = await withCalendar(path, { status: 200, body: ics(WEEKLY), etag: '"e1"' });
    const first = await busyRows(c.calendarId);
    expect(first.length).toBe(7);

    const before = await row(c.calendarId);
    const polled = await pollNow(c.calendarId);
    const last = srv.requests.filter((q) => q.path === path).at(-1)!;
    expect(last.headers['if-none-match']).toBe('"e1"');
    expect(polled.lastSuccessAt!.getTime()).toBeGreaterThan(before.lastSuccessAt!.getTime());
    expect(polled.lastError).toBeNull();
    expect((await busyRows(c.calendarId)).map((b) => b.id)).toEqual(first.map((b) => b.id)); // untouched

    // The feed breaks: HTTP 500, then a body that is no calendar, then one too large.
    for (const [served, error] of [
      [{ status: 500, body: 'oops' }, 'HTTP 500'],
      [{ status: 200, body: 'BEGIN:VCALENDAR\r\nthis is not ical' }, 'not a valid iCalendar document'],
      [{ status: 200, body: 'X'.repeat(300_000) }, 'larger than 200000 bytes'],
    ] as const) {
      srv.files.set(path, served);
      const failed = await pollNow(c.calendarId);
      expect(failed.lastError).toContain(error);
      expect(failed.lastErrorAt).not.toBeNull();
      expect(failed.lastSuccessAt!.getTime()).toBe(polled.lastSuccessAt!.getTime());
      expect((await busyRows(c.calendarId)).length).toBe(7); // the last good copy stays
      expect(await free(c.auth, c.service._id, '2027-04-01T08:00:00.000Z')).toBe(false);
      const shown = (await getEmployee(c.auth, c.employee._id)).externalCalendars[0];
      expect(shown.lastError).toContain(error);
      expect(shown.lastErrorAt).toEqual(expect.any(String));
    }

    // Back with a new copy (one event only): it replaces the busy times whole.
    srv.files.set(path, {
      status: 200,
      etag: '"e2"',
      body: ics(`BEGIN:VEVENT
UID:one@test
DTSTAMP:20261101T000000Z
DTSTART:20270401T080000Z
DTEND:20270401T083000Z
END:VEVENT`),
    });
    const back = await pollNow(c.calendarId);
    expect(back.lastError).toBeNull();
    expect(back.etag).toBe('"e2"');
    expect((await busyRows(c.calendarId)).map((b) => b.startTime.toISOString())).toEqual(['2027-04-01T08:00:00.000Z']);
    expect(await free(c.auth, c.service._id, '2027-03-18T09:00:00.000Z')).toBe(true);

    // Removing the calendar (keeping none) removes its busy times.
    ok(await patch(c.auth, c.employee._id, { externalCalendars: [] }));
    expect(await t.dbs.test.prisma.externalBusy.count({ where: { employeeId: c.employee._id } })).toBe(0);
    expect(await free(c.auth, c.service._id, '2027-04-01T08:00:00.000Z')).toBe(true);
  });

  it('two workers claiming one due calendar at once: exactly one fetches it (the lease); a deactivated employee is not polled', async () => {
    const path = `/cal/race-${Date.now()}.ics`;
    const c = await withCalendar(path, { status: 200, body: ics(WEEKLY) });
    const fetched = (await row(c.calendarId)).lastSuccessAt!;
    // Deactivated, the employee's calendars are not polled, so the running workers leave it to
    // the claimers below.
    ok(await t.app.inject({ method: 'DELETE', url: `/api/v1/employees/${c.employee._id}`, headers: c.auth }));
    await t.dbs.test.prisma.externalCalendar.update({
      where: { id: c.calendarId },
      data: { nextFetchAt: new Date(0), leaseUntil: null },
    });
    expect((await dueExternalCalendars(t.dbs.test.prisma, 1000)).map((x) => x.id)).not.toContain(c.calendarId);
    // Eight concurrent claims (as several workers holding a duplicate job would make).
    const claim = () =>
      claimExternalCalendar(t.dbs.test.prisma, {
        calendarId: c.calendarId,
        leaseMs: 60_000,
        config: t.config,
        pollMinutes: 10,
      });
    const claims = await Promise.all(Array.from({ length: 8 }, claim));
    const won = claims.filter((x) => x !== null);
    expect(won).toHaveLength(1);
    // The URL comes back in clear only to the claimer, for the fetch.
    expect(won[0]!.url).toBe(`${srv.base}${path}`);
    expect(await claim()).toBeNull();
    // A lease that ran out (its worker died) is claimable again.
    await t.dbs.test.prisma.externalCalendar.update({
      where: { id: c.calendarId },
      data: { leaseUntil: new Date(Date.now() - 1000) },
    });
    expect((await claim())?.id).toBe(c.calendarId);
    // Reactivated, the employee's due calendar is fetched at once.
    await t.dbs.test.prisma.externalCalendar.update({ where: { id: c.calendarId }, data: { leaseUntil: null } });
    ok(await patch(c.auth, c.employee._id, { active: true }));
    workers.kick();
    await waitFor(async () => ((await row(c.calendarId)).lastSuccessAt! > fetched ? true : null), {
      what: 'the fetch after reactivation',
      timeoutMs: 15_000,
    });
  });

  it('a fetch that outlived its lease records nothing over the copy of the worker that claimed it since', async () => {
    const path = `/cal/lapsed-${Date.now()}.ics`;
    const c = await withCalendar(path, { status: 200, body: ics(WEEKLY) });
    // Deactivated, so the running workers leave the calendar to the claims below.
    ok(await t.app.inject({ method: 'DELETE', url: `/api/v1/employees/${c.employee._id}`, headers: c.auth }));
    await t.dbs.test.prisma.externalCalendar.update({
      where: { id: c.calendarId },
      data: { nextFetchAt: new Date(0), leaseUntil: null },
    });
    const claim = (leaseMs: number) =>
      claimExternalCalendar(t.dbs.test.prisma, {
        calendarId: c.calendarId,
        leaseMs,
        config: t.config,
        pollMinutes: 10,
      });
    const slow = (await claim(200))!;
    expect(slow).not.toBeNull();
    // The slow fetch's lease runs out; another claims the calendar and records its copy.
    const fresh = await waitFor(() => claim(60_000), { what: 'the claim after the lease ran out', timeoutMs: 10_000 });
    const event = (uid: string, start: string) => ({
      kind: 'fetched' as const,
      etag: `"${uid}"`,
      lastModified: null,
      body: ics(
        `BEGIN:VEVENT\nUID:${uid}@test\nDTSTAMP:20261101T000000Z\nDTSTART:${start}\nDTEND:${start.replace('T08', 'T09')}\nEND:VEVENT`,
      ),
    });
    const recorded = await recordExternalCalendarFetch(t.dbs.test.prisma, {
      claim: fresh,
      outcome: event('new', '20270401T080000Z'),
      pollMinutes: 10,
    });
    expect(recorded.stored).toBe(1);
    // The slow fetch ends now with an older copy, and then with an error: neither is recorded.
    const late = await recordExternalCalendarFetch(t.dbs.test.prisma, {
      claim: slow,
      outcome: event('old', '20270402T080000Z'),
      pollMinutes: 10,
    });
    expect(late).toEqual({ stored: null, error: null });
    const lateError = await recordExternalCalendarFetch(t.dbs.test.prisma, {
      claim: slow,
      outcome: { kind: 'failed', error: 'HTTP 500' },
      pollMinutes: 10,
    });
    expect(lateError).toEqual({ stored: null, error: null });
    const r = await row(c.calendarId);
    expect(r.etag).toBe('"new"');
    expect(r.lastError).toBeNull();
    expect((await busyRows(c.calendarId)).map((b) => b.startTime.toISOString())).toEqual(['2027-04-01T08:00:00.000Z']);
    // The database ties a busy time to its calendar's employee: another employee's is refused.
    const other = await salon(t.app, c.auth);
    await expect(
      t.dbs.test.prisma.externalBusy.create({
        data: {
          companyId: c.company.id,
          employeeId: other.employee._id,
          calendarId: c.calendarId,
          startTime: new Date('2027-04-03T08:00:00Z'),
          endTime: new Date('2027-04-03T09:00:00Z'),
        },
      }),
    ).rejects.toThrow(/external_busy_calendar_id_employee_id_fkey|Foreign key constraint/);
  });

  it("a document ical.js cannot read is recorded as a fixed error that quotes none of the calendar's text", async () => {
    const path = `/cal/private-${Date.now()}.ics`;
    const secret = 'SECRETBOARDMEETING';
    const c = await withCalendar(path, {
      status: 200,
      body: ics(
        `BEGIN:VEVENT\nUID:x@test\nDTSTAMP:20261101T000000Z\nDTSTART:20270401T080000Z\nRRULE:FREQ=${secret}\nEND:VEVENT`,
      ),
    });
    const r = await row(c.calendarId);
    expect(r.lastError).toBe('not a valid iCalendar document');
    const shown = (await getEmployee(c.auth, c.employee._id)).externalCalendars[0];
    expect(JSON.stringify(shown)).not.toContain(secret);
    expect(logLines.join('')).not.toContain(secret);
  });

  it('refuses hostile calendars with a 400 naming the field, writing nothing', async () => {
    const c = await blankCompany(t.dbs, w, { timezone: 'Europe/Berlin' });
    const { employee } = await salon(t.app, c.auth);
    const url = (i: number) => `${srv.base}/cal/h${i}.ics`;
    const cases: Array<[object, string]> = [
      [{ externalCalendars: [{ url: 'ftp://example.com/cal.ics', name: 'x' }] }, 'externalCalendars.0.url'],
      [{ externalCalendars: [{ url: 'not a url', name: 'x' }] }, 'externalCalendars.0.url'],
      [{ externalCalendars: [{ url: 'http://10.0.0.1/cal.ics', name: 'x' }] }, 'externalCalendars.0.url'],
      [{ externalCalendars: [{ url: 'http://169.254.169.254/latest', name: 'x' }] }, 'externalCalendars.0.url'],
      [{ externalCalendars: [{ url: `${srv.base}/${'a'.repeat(2100)}`, name: 'x' }] }, 'externalCalendars.0.url'],
      [{ externalCalendars: [{ url: url(1) }] }, 'externalCalendars.0.name'],
      [{ externalCalendars: [{ url: url(1), name: 'n'.repeat(101) }] }, 'externalCalendars.0.name'],
      [{ externalCalendars: [0, 1, 2, 3, 4, 5].map((i) => ({ url: url(i), name: `c${i}` })) }, 'externalCalendars'],
      [{ externalCalendars: [{ id: 'f'.repeat(24) }] }, 'externalCalendars.0.id'],
      [
        {
          externalCalendars: [
            { url: url(1), name: 'a' },
            { url: url(1), name: 'b' },
          ],
        },
        'externalCalendars.1.url',
      ],
    ];
    for (const [payload, path] of cases) {
      const res = await patch(c.auth, employee._id, payload);
      const body = expectError(res, 400, 'VALIDATION_ERROR');
      expect(JSON.stringify(body.error), JSON.stringify(payload).slice(0, 100)).toContain(path);
    }
    expect(await t.dbs.test.prisma.externalCalendar.count({ where: { employeeId: employee._id } })).toBe(0);

    // Live: https only, and no internal address (the webhook rules of live mode).
    const live = { authorization: `Bearer ${w.liveKey.key}` };
    const liveEmployee = ok(
      await t.app.inject({ method: 'POST', url: '/api/v1/employees', headers: live, payload: { name: 'L' } }),
    );
    for (const bad of ['http://calendar.example.com/x.ics', 'https://127.0.0.1/x.ics', 'https://192.168.1.10/x.ics']) {
      const res = await patch(live, liveEmployee._id, { externalCalendars: [{ url: bad, name: 'x' }] });
      expect(JSON.stringify(expectError(res, 400, 'VALIDATION_ERROR').error)).toContain('externalCalendars.0.url');
    }
    const created = ok(
      await patch(live, liveEmployee._id, {
        externalCalendars: [{ url: 'webcal://calendar.example.invalid/secret-abc/basic.ics', name: 'Google' }],
      }),
    );
    expect(created.externalCalendars).toEqual([
      expect.objectContaining({ name: 'Google', url: 'https://calendar.example.invalid/…' }),
    ]);
    // Five is the most; an entry { id } keeps a calendar (renamed here) beside new ones.
    const kept = created.externalCalendars[0]._id;
    const five = ok(
      await patch(live, liveEmployee._id, {
        externalCalendars: [
          { id: kept, name: 'Renamed' },
          ...[1, 2, 3, 4].map((i) => ({ url: `https://c${i}.example.invalid/x.ics`, name: `c${i}` })),
        ],
      }),
    );
    expect(five.externalCalendars.map((x: { _id: string; name: string }) => x.name)).toEqual([
      'Renamed',
      'c1',
      'c2',
      'c3',
      'c4',
    ]);
    expect(five.externalCalendars[0]._id).toBe(kept);
  });

  it('a fetch that the URL guard refuses (an address the sandbox does not allow) is a recorded error', async () => {
    const c = await blankCompany(t.dbs, w, { timezone: 'Europe/Berlin' });
    const { employee } = await salon(t.app, c.auth);
    // Redirected from the allowed loopback receiver to a link-local address: each hop is checked.
    const path = `/cal/redirect-${Date.now()}.ics`;
    srv.files.set(path, { status: 200, body: '' });
    const redirecting = createServer((_req, res) =>
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end(),
    );
    await new Promise<void>((r) => redirecting.listen(0, '127.0.0.1', r));
    try {
      const port = (redirecting.address() as AddressInfo).port;
      const updated = ok(
        await patch(c.auth, employee._id, {
          externalCalendars: [{ url: `http://127.0.0.1:${port}/secret.ics`, name: 'R' }],
        }),
      );
      const id = updated.externalCalendars[0]._id;
      const r = await waitFor(
        async () => {
          const x = await row(id);
          return x.lastError ? x : null;
        },
        { what: 'the refused fetch' },
      );
      expect(r.lastError).toContain('refused');
      expect(r.lastSuccessAt).toBeNull();
    } finally {
      redirecting.closeAllConnections();
      await new Promise<void>((r) => redirecting.close(() => r()));
    }
  });
});
