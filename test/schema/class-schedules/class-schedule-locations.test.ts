// Class schedules at a location (docs/api.md, Class schedules and Locations): the rule expands
// in the location's zone (18:30 Berlin across Berlin's DST for a New York company); sessions
// record the location and hold the schedule's resources through resource_holds, a busy resource
// skipping that occurrence with RESOURCE_BUSY (also when two schedules race for one room); class
// sessions and their bookings expose locationId in REST and GraphQL; PATCH moves the empty
// sessions; DELETE cancels them with class.cancelled naming the location; hostile location and
// resource ids are 4xx naming the field with nothing written. One-off sessions (POST and PATCH
// /classes) take resourceIds and locationId through the same holds: a busy room is 409
// RESOURCE_BUSY (also when two POSTs race for it), a cancel releases it, a PATCH to another site
// moves the holds and the bookings or is refused naming the field.
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { createAccountWithKeys } from '../../helpers/factories.js';
import {
  ALL_DAY,
  berlinAndBrooklyn,
  blankCompany,
  createDomainApp,
  expectError,
  ok,
  post,
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

// A Monday; Berlin moves to summer time on 28 March 2027, New York on 14 March 2027.
const T0 = new Date('2027-03-01T00:00:00Z');
const iso = (d: Date | number) => new Date(d).toISOString();
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const req = (method: Method, url: string, headers: Record<string, string>, payload?: unknown) =>
  t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
const local = (d: Date, zone: string) => DateTime.fromJSDate(d, { zone }).toFormat("yyyy-MM-dd' 'HH:mm");

/** A New York company on a test clock at T0 with a Berlin site, a room there, and two instructors. */
async function studio() {
  const c = await blankCompany(t.dbs, w, { timezone: 'America/New_York' });
  const clock = await post(t.app, '/api/v1/test-clocks', c.auth, { frozenTime: iso(T0) });
  ok(await req('PATCH', '/api/v1/me', c.auth, { testClockId: clock._id }));
  const { berlin, brooklyn } = await berlinAndBrooklyn(t.app, c.auth);
  const room = await post(t.app, '/api/v1/resources', c.auth, {
    name: 'Studio A',
    kind: 'room',
    locationId: berlin._id,
  });
  const mat = await post(t.app, '/api/v1/resources', c.auth, { name: 'Mats', kind: 'equipment' });
  const ann = await post(t.app, '/api/v1/employees', c.auth, { name: 'Ann', workingHours: ALL_DAY });
  const bea = await post(t.app, '/api/v1/employees', c.auth, { name: 'Bea', workingHours: ALL_DAY });
  const yoga = await post(t.app, '/api/v1/services', c.auth, {
    name: 'Yoga',
    kind: 'class',
    durationMinutes: 60,
    employeeIds: [ann._id, bea._id],
  });
  const schedule = (input: Record<string, unknown> = {}) =>
    req('POST', '/api/v1/class-schedules', c.auth, {
      serviceId: yoga._id,
      employeeId: ann._id,
      localStartTime: '18:30',
      rrule: 'FREQ=WEEKLY;BYDAY=MO;COUNT=6',
      capacity: 10,
      startsOn: '2027-03-01',
      ...input,
    });
  const sessions = (scheduleId: string) =>
    t.dbs.test.prisma.classSession.findMany({
      where: { scheduleId, status: 'scheduled' },
      orderBy: { startTime: 'asc' },
      include: { resourceHolds: true },
    });
  return { ...c, berlin, brooklyn, room, mat, ann, bea, yoga, schedule, sessions };
}

const berlinMondays = ['2027-03-01', '2027-03-08', '2027-03-15', '2027-03-22', '2027-03-29', '2027-04-05'];

describe('a class schedule at a location', () => {
  it("expands in the location's zone across its DST, records the location and holds its resources", async () => {
    const s = await studio();
    const created = ok(await s.schedule({ locationId: s.berlin._id, resourceIds: [s.room._id, s.mat._id] }));
    expect(created).toMatchObject({
      locationId: s.berlin._id,
      resourceIds: [s.room._id, s.mat._id],
      skippedOccurrences: [],
    });
    const rows = await s.sessions(created._id);
    // 18:30 in Berlin on both sides of 28 March (17:30 UTC, then 16:30 UTC), not in New York.
    expect(rows.map((r) => local(r.startTime, 'Europe/Berlin'))).toEqual(berlinMondays.map((d) => `${d} 18:30`));
    expect(rows.map((r) => r.startTime.toISOString().slice(11, 16))).toEqual([
      '17:30',
      '17:30',
      '17:30',
      '17:30',
      '16:30',
      '16:30',
    ]);
    for (const r of rows) {
      expect(r.locationId).toBe(s.berlin._id);
      expect(r.resourceHolds.map((h) => h.resourceId).sort()).toEqual([s.room._id, s.mat._id].sort());
      expect(r.resourceHolds.every((h) => h.active && h.startTime.getTime() === r.startTime.getTime())).toBe(true);
    }
    // REST and GraphQL expose it; GET /classes filters by it.
    const listed = ok(await req('GET', `/api/v1/classes?locationId=${s.berlin._id}&limit=100`, s.auth));
    expect(listed.map((x: { _id: string }) => x._id).sort()).toEqual(rows.map((r) => r.id).sort());
    expect(listed.every((x: { locationId: string }) => x.locationId === s.berlin._id)).toBe(true);
    expect(ok(await req('GET', `/api/v1/classes?locationId=${s.brooklyn._id}`, s.auth))).toEqual([]);
    const gql = (
      await req('POST', '/graphql', s.auth, {
        query: `{ classSession(id: "${rows[0]!.id}") { locationId }
                  classSchedule(id: "${created._id}") { locationId resourceIds } }`,
      })
    ).json();
    expect(gql.data).toEqual({
      classSession: { locationId: s.berlin._id },
      classSchedule: { locationId: s.berlin._id, resourceIds: [s.room._id, s.mat._id] },
    });
    // A booking of a session records where it takes place.
    const booked = await post(t.app, '/api/v1/bookings', s.auth, {
      serviceId: s.yoga._id,
      classId: rows[1]!.id,
      customer: { name: 'Guest', email: 'guest@example.com' },
    });
    expect(booked.locationId).toBe(s.berlin._id);
    const event = await t.dbs.test.prisma.event.findFirst({
      where: { companyId: s.company.id, type: 'booking.created' },
    });
    expect((event!.data as { locationId?: string }).locationId).toBe(s.berlin._id);
  });

  it('a busy resource skips that occurrence with RESOURCE_BUSY, never a 500; two schedules racing for one room share it out', async () => {
    const s = await studio();
    // Bea teaches a one-off session in the room over the third Monday's 18:30 (Berlin).
    const pilates = await post(t.app, '/api/v1/services', s.auth, {
      name: 'Pilates',
      kind: 'class',
      durationMinutes: 60,
      employeeIds: [s.bea._id],
      requiredResourceIds: [s.room._id],
    });
    const third = DateTime.fromISO('2027-03-15T18:00', { zone: 'Europe/Berlin' }).toJSDate();
    const oneOff = await post(t.app, '/api/v1/classes', s.auth, {
      serviceId: pilates._id,
      employeeId: s.bea._id,
      startTime: iso(third),
      capacity: 4,
      locationId: s.berlin._id,
    });
    expect(oneOff.locationId).toBe(s.berlin._id);
    // /availability and /availability/explain with a locationId: only sessions held there.
    const day = `from=${iso(third.getTime() - 3_600_000)}&to=${iso(third.getTime() + 3_600_000)}`;
    const sessionsAt = async (l: string) =>
      ok(await req('GET', `/api/v1/availability?serviceId=${pilates._id}&${day}&locationId=${l}`, s.auth)).sessions;
    expect((await sessionsAt(s.berlin._id)).map((x: { classId: string }) => x.classId)).toEqual([oneOff._id]);
    expect(await sessionsAt(s.brooklyn._id)).toEqual([]);
    const explainAt = async (l: string) =>
      ok(
        await req(
          'GET',
          `/api/v1/availability/explain?serviceId=${pilates._id}&startTime=${iso(third)}&locationId=${l}`,
          s.auth,
        ),
      );
    expect(await explainAt(s.berlin._id)).toEqual({ available: true, employeeIds: [s.bea._id], reasons: [] });
    expect((await explainAt(s.brooklyn._id)).reasons.map((r: { code: string }) => r.code)).toEqual(['NO_SESSION']);
    const created = ok(await s.schedule({ locationId: s.berlin._id, resourceIds: [s.room._id] }));
    expect(created.skippedOccurrences).toEqual([
      {
        startTime: iso(DateTime.fromISO('2027-03-15T18:30', { zone: 'Europe/Berlin' }).toJSDate()),
        reason: 'RESOURCE_BUSY',
        message: 'Studio A is booked at that time',
      },
    ]);
    expect(await s.sessions(created._id)).toHaveLength(5);

    // Two schedules of different instructors for the same room at the same times, at once: the
    // exclusion constraint gives each occurrence to one of them; the other reports it.
    const r = await studio();
    const [a, b] = await Promise.all([
      r.schedule({ locationId: r.berlin._id, resourceIds: [r.room._id] }),
      r.schedule({ locationId: r.berlin._id, resourceIds: [r.room._id], employeeId: r.bea._id }),
    ]);
    const both = [ok(a), ok(b)];
    const made = await Promise.all(both.map((x) => r.sessions(x._id)));
    expect(made[0]!.length + made[1]!.length).toBe(6);
    expect(both[0].skippedOccurrences.length + both[1].skippedOccurrences.length).toBe(6);
    expect(
      [...both[0].skippedOccurrences, ...both[1].skippedOccurrences].every(
        (o: { reason: string }) => o.reason === 'RESOURCE_BUSY',
      ),
    ).toBe(true);
    const holds = await t.dbs.test.prisma.resourceHold.findMany({ where: { resourceId: r.room._id, active: true } });
    expect(holds).toHaveLength(6);
  });

  it('PATCH moves the empty sessions to another location; DELETE cancels them with class.cancelled naming it', async () => {
    const s = await studio();
    const created = ok(await s.schedule({ locationId: s.berlin._id, resourceIds: [s.room._id] }));
    const before = await s.sessions(created._id);
    const moved = ok(
      await req('PATCH', `/api/v1/class-schedules/${created._id}`, s.auth, {
        applyTo: 'future',
        locationId: s.brooklyn._id,
        resourceIds: [s.mat._id],
      }),
    );
    expect(moved).toMatchObject({ locationId: s.brooklyn._id, resourceIds: [s.mat._id], skippedOccurrences: [] });
    const after = await s.sessions(created._id);
    // Now 18:30 in New York (the location's zone, here the company's too).
    expect(after.map((r) => local(r.startTime, 'America/New_York'))).toEqual(berlinMondays.map((d) => `${d} 18:30`));
    expect(after.every((r) => r.locationId === s.brooklyn._id)).toBe(true);
    expect(after.every((r) => r.resourceHolds.length === 1 && r.resourceHolds[0]!.resourceId === s.mat._id)).toBe(true);
    // The Berlin sessions were cancelled, and released the room.
    const released = await t.dbs.test.prisma.resourceHold.findMany({ where: { resourceId: s.room._id } });
    expect(released.length).toBe(before.length);
    expect(released.every((h) => !h.active)).toBe(true);
    const stopped = ok(await req('DELETE', `/api/v1/class-schedules/${created._id}`, s.auth));
    expect(stopped.status).toBe('stopped');
    const events = await t.dbs.test.prisma.event.findMany({
      where: { companyId: s.company.id, type: 'class.cancelled' },
      orderBy: { createdAt: 'asc' },
    });
    // Six by the move (reason schedule_changed, at Berlin), six by the stop (at Brooklyn).
    expect(events).toHaveLength(12);
    const data = events.map((e) => e.data as { classId: string; locationId?: string; reason: string });
    expect(
      data
        .filter((d) => d.reason === 'schedule_stopped')
        .map((d) => d.classId)
        .sort(),
    ).toEqual(after.map((r) => r.id).sort());
    expect(data.filter((d) => d.reason === 'schedule_stopped').every((d) => d.locationId === s.brooklyn._id)).toBe(
      true,
    );
    expect(data.filter((d) => d.reason === 'schedule_changed').every((d) => d.locationId === s.berlin._id)).toBe(true);
  });
});

describe('hostile places write nothing', () => {
  it("another company's location or resource is 404 naming the field; a resource elsewhere is 400", async () => {
    const s = await studio();
    const other = await studio();
    const count = async () => ({
      schedules: await t.dbs.test.prisma.classSchedule.count({ where: { companyId: s.company.id } }),
      sessions: await t.dbs.test.prisma.classSession.count({ where: { companyId: s.company.id } }),
      holds: await t.dbs.test.prisma.resourceHold.count({ where: { resource: { companyId: s.company.id } } }),
    });
    const theirLocation = expectError(await s.schedule({ locationId: other.berlin._id }), 404, 'NOT_FOUND');
    expect(theirLocation.error.details).toEqual({ field: 'locationId', id: other.berlin._id });
    const theirRoom = expectError(
      await s.schedule({ locationId: s.berlin._id, resourceIds: [other.room._id] }),
      404,
      'NOT_FOUND',
    );
    expect(theirRoom.error.details).toEqual({ field: 'resourceIds', id: other.room._id });
    const elsewhere = expectError(
      await s.schedule({ locationId: s.brooklyn._id, resourceIds: [s.mat._id, s.room._id] }),
      400,
      'VALIDATION_ERROR',
    );
    expect(elsewhere.error.details[0].path).toBe('resourceIds.1');
    const unplaced = expectError(await s.schedule({ resourceIds: [s.room._id] }), 400, 'VALIDATION_ERROR');
    expect(unplaced.error.details[0].path).toBe('resourceIds.0');
    expectError(await s.schedule({ resourceIds: [s.mat._id, s.mat._id] }), 400, 'VALIDATION_ERROR');
    expectError(await s.schedule({ locationId: 'nope' }), 400, 'VALIDATION_ERROR');
    expect(await count()).toEqual({ schedules: 0, sessions: 0, holds: 0 });
    // One-off sessions: another company's location is 404 naming it.
    const oneOff = expectError(
      await req('POST', '/api/v1/classes', s.auth, {
        serviceId: s.yoga._id,
        employeeId: s.ann._id,
        startTime: iso(T0.getTime() + 3 * 86_400_000),
        capacity: 2,
        locationId: other.berlin._id,
      }),
      404,
      'NOT_FOUND',
    );
    expect(oneOff.error.details).toEqual({ field: 'locationId', id: other.berlin._id });
    expect(await count()).toEqual({ schedules: 0, sessions: 0, holds: 0 });
    // PATCH: the same refusals, the schedule and its sessions as they were.
    const created = ok(await s.schedule({ locationId: s.berlin._id }));
    const before = await count();
    const patch = (body: object) =>
      req('PATCH', `/api/v1/class-schedules/${created._id}`, s.auth, { applyTo: 'future', ...body });
    expectError(await patch({ locationId: other.brooklyn._id }), 404, 'NOT_FOUND');
    expectError(await patch({ resourceIds: [other.mat._id] }), 404, 'NOT_FOUND');
    expectError(await patch({ locationId: s.brooklyn._id, resourceIds: [s.room._id] }), 400, 'VALIDATION_ERROR');
    expect(await count()).toEqual(before);
    const got = ok(await req('GET', `/api/v1/class-schedules/${created._id}`, s.auth));
    expect(got).toMatchObject({ locationId: s.berlin._id, resourceIds: [] });
    // The location is in use now: deleting it is refused, naming the schedule and its sessions.
    const used = expectError(await req('DELETE', `/api/v1/locations/${s.berlin._id}`, s.auth), 409, 'CONFLICT');
    expect(used.error.details.classScheduleIds).toEqual([created._id]);
    expect(used.error.details.classIds).toHaveLength(6);
  });
});

describe('one-off classes at a place', () => {
  const at = (days: number, hour = 10) => iso(T0.getTime() + days * 86_400_000 + hour * 3_600_000);
  const oneOff = (s: Awaited<ReturnType<typeof studio>>, input: Record<string, unknown>) =>
    req('POST', '/api/v1/classes', s.auth, {
      serviceId: s.yoga._id,
      employeeId: s.ann._id,
      startTime: at(3),
      capacity: 5,
      ...input,
    });
  const holdsOf = (classSessionId: string) =>
    t.dbs.test.prisma.resourceHold.findMany({ where: { classSessionId }, orderBy: { resourceId: 'asc' } });

  it('hold their resourceIds like a schedule’s sessions: busy is 409 RESOURCE_BUSY, a race has one winner, a cancel releases', async () => {
    const s = await studio();
    const made = ok(await oneOff(s, { locationId: s.berlin._id, resourceIds: [s.room._id, s.mat._id] }));
    expect(made).toMatchObject({ locationId: s.berlin._id, resourceIds: [s.room._id, s.mat._id] });
    expect((await holdsOf(made._id)).map((h) => [h.resourceId, h.active, h.startTime.toISOString()])).toEqual(
      [s.room._id, s.mat._id].sort().map((r) => [r, true, at(3)]),
    );
    const gql = (
      await req('POST', '/graphql', s.auth, { query: `{ classSession(id: "${made._id}") { resourceIds } }` })
    ).json();
    expect(gql.data.classSession.resourceIds).toEqual([s.room._id, s.mat._id]);
    // Bea in the same room half an hour later: the room is held.
    const busy = expectError(
      await oneOff(s, {
        employeeId: s.bea._id,
        startTime: at(3, 10.5),
        locationId: s.berlin._id,
        resourceIds: [s.room._id],
      }),
      409,
      'SLOT_UNAVAILABLE',
    );
    expect(busy.error.details.reasons).toEqual([
      { code: 'RESOURCE_BUSY', message: 'Studio A is booked at that time', resourceId: s.room._id },
    ]);
    // Two POSTs for the room at one time, at once: the exclusion constraint lets exactly one in.
    const race = await Promise.all(
      [s.ann._id, s.bea._id].map((employeeId) =>
        oneOff(s, { employeeId, startTime: at(4), locationId: s.berlin._id, resourceIds: [s.room._id] }),
      ),
    );
    expect(race.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    const lost = race.find((r) => r.statusCode === 409)!.json();
    expect(lost.error.code).toBe('SLOT_UNAVAILABLE');
    expect(lost.error.details.reasons[0]).toMatchObject({ code: 'RESOURCE_BUSY', resourceId: s.room._id });
    const won = race.find((r) => r.statusCode === 200)!.json().data;
    const roomHolds = () =>
      t.dbs.test.prisma.resourceHold.count({
        where: { resourceId: s.room._id, active: true, startTime: new Date(at(4)) },
      });
    expect(await roomHolds()).toBe(1);
    // Cancelling the winner releases the room: the other instructor gets it now.
    ok(await req('POST', `/api/v1/classes/${won._id}/cancel`, s.auth, {}));
    expect((await holdsOf(won._id)).every((h) => !h.active)).toBe(true);
    const loser = won.employeeId === s.ann._id ? s.bea._id : s.ann._id;
    ok(await oneOff(s, { employeeId: loser, startTime: at(4), locationId: s.berlin._id, resourceIds: [s.room._id] }));
    expect(await roomHolds()).toBe(1);
  });

  it('hostile resourceIds and locationIds are 4xx naming the field, on POST and PATCH, with nothing written', async () => {
    const s = await studio();
    const other = await studio();
    const count = async () => ({
      sessions: await t.dbs.test.prisma.classSession.count({ where: { companyId: s.company.id } }),
      holds: await t.dbs.test.prisma.resourceHold.count({ where: { resource: { companyId: s.company.id } } }),
    });
    const theirs = expectError(
      await oneOff(s, { locationId: s.berlin._id, resourceIds: [s.mat._id, other.room._id] }),
      404,
      'NOT_FOUND',
    );
    expect(theirs.error.details).toEqual({ field: 'resourceIds.1', id: other.room._id });
    const elsewhere = expectError(
      await oneOff(s, { locationId: s.brooklyn._id, resourceIds: [s.mat._id, s.room._id] }),
      400,
      'VALIDATION_ERROR',
    );
    expect(elsewhere.error.details).toEqual([
      { path: 'resourceIds.1', message: `is at another location (${s.berlin._id}) than the class` },
    ]);
    const unplaced = expectError(await oneOff(s, { resourceIds: [s.room._id] }), 400, 'VALIDATION_ERROR');
    expect(unplaced.error.details[0].path).toBe('resourceIds.0');
    expectError(await oneOff(s, { resourceIds: [s.mat._id, s.mat._id] }), 400, 'VALIDATION_ERROR');
    expect(await count()).toEqual({ sessions: 0, holds: 0 });

    const made = ok(await oneOff(s, { locationId: s.berlin._id, resourceIds: [s.room._id] }));
    const before = await count();
    const patch = (body: object) => req('PATCH', `/api/v1/classes/${made._id}`, s.auth, body);
    const foreign = expectError(await patch({ locationId: other.berlin._id }), 404, 'NOT_FOUND');
    expect(foreign.error.details).toEqual({ field: 'locationId', id: other.berlin._id });
    const foreignRoom = expectError(await patch({ resourceIds: [other.room._id] }), 404, 'NOT_FOUND');
    expect(foreignRoom.error.details).toEqual({ field: 'resourceIds.0', id: other.room._id });
    // The room it keeps is in Berlin: moving it to Brooklyn alone is refused, naming locationId.
    const kept = expectError(await patch({ locationId: s.brooklyn._id }), 400, 'VALIDATION_ERROR');
    expect(kept.error.details[0].path).toBe('locationId');
    expectError(await patch({ locationId: s.brooklyn._id, resourceIds: [s.room._id] }), 400, 'VALIDATION_ERROR');
    expect(await count()).toEqual(before);
    expect(ok(await req('GET', `/api/v1/classes/${made._id}`, s.auth))).toMatchObject({
      locationId: s.berlin._id,
      resourceIds: [s.room._id],
    });
  });

  it('PATCH locationId moves the holds (a required kind at the new site) and the bookings, or refuses a busy site', async () => {
    const s = await studio();
    const pilates = await post(t.app, '/api/v1/services', s.auth, {
      name: 'Reformer',
      kind: 'class',
      durationMinutes: 60,
      employeeIds: [s.ann._id],
      requiredResourceKinds: ['room'],
    });
    const made = ok(await oneOff(s, { serviceId: pilates._id, locationId: s.berlin._id, resourceIds: [s.mat._id] }));
    expect((await holdsOf(made._id)).map((h) => h.resourceId).sort()).toEqual([s.room._id, s.mat._id].sort());
    const booked = await post(t.app, '/api/v1/bookings', s.auth, {
      serviceId: pilates._id,
      classId: made._id,
      customer: { name: 'Guest', email: 'guest@example.com' },
    });
    expect(booked.locationId).toBe(s.berlin._id);
    // No room in Brooklyn: 409 RESOURCE_BUSY for the kind, and nothing moves.
    const none = expectError(
      await req('PATCH', `/api/v1/classes/${made._id}`, s.auth, { locationId: s.brooklyn._id }),
      409,
      'SLOT_UNAVAILABLE',
    );
    expect(none.error.details.reasons).toEqual([
      { code: 'RESOURCE_BUSY', message: 'No room is free at that time', details: { kind: 'room' } },
    ]);
    expect((await holdsOf(made._id)).map((h) => h.resourceId).sort()).toEqual([s.room._id, s.mat._id].sort());
    const brooklynRoom = await post(t.app, '/api/v1/resources', s.auth, {
      name: 'Loft',
      kind: 'room',
      locationId: s.brooklyn._id,
    });
    // GraphQL and REST run the same use case: moved with GraphQL, read back over REST.
    const moved = (
      await req('POST', '/graphql', s.auth, {
        query: `mutation { updateClassSession(id: "${made._id}", input: { locationId: "${s.brooklyn._id}" }) { locationId resourceIds } }`,
      })
    ).json();
    expect(moved.data.updateClassSession).toEqual({ locationId: s.brooklyn._id, resourceIds: [s.mat._id] });
    const holds = await holdsOf(made._id);
    expect(holds.map((h) => h.resourceId).sort()).toEqual([brooklynRoom._id, s.mat._id].sort());
    expect(holds.every((h) => h.active && h.startTime.toISOString() === made.startTime)).toBe(true);
    // Berlin's room is free again: another session takes it.
    ok(await oneOff(s, { employeeId: s.bea._id, locationId: s.berlin._id, resourceIds: [s.room._id] }));
    const after = ok(await req('GET', `/api/v1/bookings/${booked._id}`, s.auth));
    expect(after).toMatchObject({ locationId: s.brooklyn._id, startTime: made.startTime });
    const event = await t.dbs.test.prisma.event.findFirstOrThrow({
      where: { companyId: s.company.id, type: 'booking.rescheduled' },
    });
    expect(event.data).toMatchObject({
      bookingId: booked._id,
      locationId: s.brooklyn._id,
      previousLocationId: s.berlin._id,
      previousStartTime: made.startTime,
    });
    // null clears it; [] drops the named resources (the kind is then met anywhere).
    const cleared = ok(
      await req('PATCH', `/api/v1/classes/${made._id}`, s.auth, { locationId: null, resourceIds: [] }),
    );
    expect(cleared).toMatchObject({ locationId: null, resourceIds: [] });
    expect(await holdsOf(made._id)).toHaveLength(1);
  });
});
