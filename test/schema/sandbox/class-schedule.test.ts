// The gym's class sessions are wall times in Europe/London (docs/api.md: local times in the
// company's zone). Seeded with a clock just before each daylight-saving change, a 07:00 class
// must start at 07:00 local on both sides of it, so its UTC instant moves by an hour. The
// expectations are literal instants and a schedule computed here with Luxon's ISO parser.
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Databases } from '../../../src/db/databases.js';
import { datedSessions, SAMPLE_DATA } from '../../../src/schema/sandbox/sample-data/index.js';
import { createCompany } from '../../../src/schema/companies/create-company.js';
import { newId } from '../../../src/ids.js';
import { createTestDatabases, type TestDatabases } from '../../helpers/db.js';

let db: TestDatabases;
let dbs: Databases;
const accountId = newId();

beforeAll(async () => {
  db = await createTestDatabases();
  dbs = db.dbs;
});
afterAll(async () => {
  await db?.drop();
});

const ZONE = 'Europe/London';

/** The timetable's sessions after `now` in the 28 local days from now's local date. */
function expectedSchedule(now: Date): string[] {
  const data = SAMPLE_DATA.fitness;
  const name = (key: string) => data.services.find((s) => s.key === key)!.name;
  const teacher = (key: string) => data.employees.find((e) => e.key === key)!.name;
  const first = DateTime.fromJSDate(now, { zone: ZONE }).toISODate()!;
  const out: string[] = [];
  for (let i = 0; i < 28; i++) {
    const date = DateTime.fromISO(first, { zone: ZONE }).plus({ days: i });
    const day = date.setLocale('en-GB').toFormat('cccc').toLowerCase();
    for (const slot of data.timetable.filter((s) => s.weekday === day)) {
      const start = DateTime.fromISO(`${date.toISODate()}T${slot.start}`, { zone: ZONE });
      if (start.toMillis() > now.getTime())
        out.push(`${start.toUTC().toISO()} ${name(slot.service)} ${teacher(slot.instructor)} ${slot.capacity}`);
    }
  }
  return out.sort();
}

async function seededSchedule(now: Date) {
  const company = await createCompany(dbs, { accountId, mode: 'test', template: 'fitness' }, { now });
  const sessions = await dbs.test.prisma.classSession.findMany({
    where: { companyId: company.id, scheduleId: null },
    include: { service: true, employee: true },
    orderBy: { startTime: 'asc' },
  });
  const lines = sessions
    .map(
      (s) =>
        `${DateTime.fromJSDate(s.startTime, { zone: 'UTC' }).toISO()} ${s.service.name} ${s.employee.name} ${s.capacity}`,
    )
    .sort();
  const startsOf = (serviceName: string) =>
    sessions.filter((s) => s.service.name === serviceName).map((s) => s.startTime.toISOString());
  return { sessions, lines, startsOf };
}

describe('class sessions across the British daylight-saving changes', () => {
  it('spring forward (Sunday 28 March 2027): classes keep their local time, UTC moves an hour earlier', async () => {
    const now = new Date('2027-03-15T12:00:00Z'); // a Monday, after its 07:00 class
    const { sessions, lines, startsOf } = await seededSchedule(now);
    expect(lines).toEqual(expectedSchedule(now));
    expect(sessions).toHaveLength(20 * 4 - 1);
    // Monday 07:00 Spin: GMT (UTC+0) before the change, BST (UTC+1) after.
    expect(startsOf('Spin')).toEqual(
      expect.arrayContaining(['2027-03-22T07:00:00.000Z', '2027-03-29T06:00:00.000Z', '2027-04-05T06:00:00.000Z']),
    );
    expect(startsOf('Spin')).not.toContain('2027-03-29T07:00:00.000Z');
    // Sunday 10:00 Vinyasa Yoga, on the day of the change itself.
    expect(startsOf('Vinyasa Yoga')).toEqual(
      expect.arrayContaining(['2027-03-21T10:00:00.000Z', '2027-03-28T09:00:00.000Z']),
    );
    for (const s of sessions) {
      const local = DateTime.fromJSDate(s.startTime, { zone: ZONE });
      expect(local.offset).toBe(s.startTime < new Date('2027-03-28T01:00:00Z') ? 0 : 60);
      expect(s.endTime.getTime() - s.startTime.getTime()).toBe(s.service.durationMinutes * 60_000);
    }
  });

  it('fall back (Sunday 25 October 2026): classes keep their local time, UTC moves an hour later', async () => {
    const now = new Date('2026-10-12T12:00:00Z'); // a Monday
    const { sessions, lines, startsOf } = await seededSchedule(now);
    expect(lines).toEqual(expectedSchedule(now));
    expect(sessions).toHaveLength(20 * 4 - 1);
    expect(startsOf('Spin')).toEqual(expect.arrayContaining(['2026-10-19T06:00:00.000Z', '2026-10-26T07:00:00.000Z']));
    expect(startsOf('Vinyasa Yoga')).toEqual(
      expect.arrayContaining(['2026-10-18T09:00:00.000Z', '2026-10-25T10:00:00.000Z']),
    );
    expect(new Set(sessions.map((s) => `${s.startTime.toISOString()} ${s.serviceId} ${s.employeeId}`)).size).toBe(
      sessions.length,
    );
  });

  it('the window starts at the clock: nothing in the past, the rest of today included', async () => {
    const now = new Date('2026-12-02T07:10:00Z'); // Wednesday 07:10 GMT: the 07:00 classes have begun
    const { sessions, lines } = await seededSchedule(now);
    expect(lines).toEqual(expectedSchedule(now));
    expect(sessions[0]!.startTime.toISOString()).toBe('2026-12-02T18:30:00.000Z');
    expect(sessions.every((s) => s.startTime > now)).toBe(true);
    expect(sessions.at(-1)!.startTime.getTime()).toBeLessThan(Date.parse('2026-12-30T00:00:00Z'));
  });
});

describe('wall times that do not exist or happen twice', () => {
  const timetable = [{ weekday: 'sunday' as const, start: '01:30', service: 'x', instructor: 'y', capacity: 5 }];

  it('skips a class whose local time falls in the spring-forward gap', () => {
    const got = datedSessions({
      timetable,
      durationMinutes: () => 60,
      zone: ZONE,
      now: new Date('2027-03-20T00:00:00Z'),
    });
    expect(got.map((s) => s.startTime.toISOString())).toEqual([
      '2027-03-21T01:30:00.000Z',
      '2027-04-04T00:30:00.000Z',
      '2027-04-11T00:30:00.000Z',
    ]);
  });

  it('schedules a class in the repeated hour once, with an exact duration', () => {
    const got = datedSessions({
      timetable,
      durationMinutes: () => 60,
      zone: ZONE,
      now: new Date('2026-10-20T00:00:00Z'),
    });
    const onTheDay = got.filter((s) => DateTime.fromJSDate(s.startTime, { zone: ZONE }).toISODate() === '2026-10-25');
    expect(onTheDay).toHaveLength(1);
    expect(onTheDay[0]!.endTime.getTime() - onTheDay[0]!.startTime.getTime()).toBe(3_600_000);
  });

  it('uses the company zone it is given: New York changes on other dates', () => {
    const got = datedSessions({
      timetable: [{ weekday: 'monday', start: '07:00', service: 'x', instructor: 'y', capacity: 5 }],
      durationMinutes: () => 45,
      zone: 'America/New_York',
      now: new Date('2027-03-01T00:00:00Z'),
    });
    expect(got.map((s) => s.startTime.toISOString())).toEqual([
      '2027-03-01T12:00:00.000Z',
      '2027-03-08T12:00:00.000Z',
      '2027-03-15T11:00:00.000Z',
      '2027-03-22T11:00:00.000Z',
    ]);
  });
});
