// A sample fitness center always has classes for the coming weeks (docs/sandbox.md): seeding schedules
// SAMPLE_SCHEDULE_DAYS local days once, and the workers' `top-up-sample-classes` job extends
// the timetable as days pass. The job adds exactly the timetable's missing sessions, never
// twice, never one a client cancelled, and skips a session whose instructor is busy.
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Databases } from '../../../src/db/databases.js';
import { newId } from '../../../src/ids.js';
import { datedSessions, SAMPLE_DATA, SAMPLE_SCHEDULE_DAYS } from '../../../src/schema/sandbox/sample-data/index.js';
import { createCompany } from '../../../src/schema/companies/create-company.js';
import { topUpSampleClasses } from '../../../src/schema/sandbox/top-up-sample-classes.js';
import { JOBS } from '../../../src/workers/job-catalog.js';
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
const DAY = 86_400_000;
const fitness = SAMPLE_DATA.fitness;
const durations = new Map(fitness.services.map((s) => [s.key, s.durationMinutes]));
const serviceName = (key: string) => fitness.services.find((s) => s.key === key)!.name;
const teacherName = (key: string) => fitness.employees.find((e) => e.key === key)!.name;

/** The timetable's sessions after `now` in `days` local days from now's local date, as lines. */
function expected(now: Date, days: number): string[] {
  return datedSessions({
    timetable: fitness.timetable,
    durationMinutes: (k) => durations.get(k) ?? 60,
    zone: ZONE,
    now,
    days,
  })
    .map(
      (s) =>
        `${s.startTime.toISOString()} ${serviceName(s.slot.service)} ${teacherName(s.slot.instructor)} ${s.slot.capacity}`,
    )
    .sort();
}

async function schedule(companyId: string, where: object = {}) {
  const rows = await dbs.test.prisma.classSession.findMany({
    where: { companyId, scheduleId: null, ...where },
    include: { service: true, employee: true },
  });
  return rows.map((s) => `${s.startTime.toISOString()} ${s.service.name} ${s.employee.name} ${s.capacity}`).sort();
}

const fitnessCompany = (now: Date) => createCompany(dbs, { accountId, mode: 'test', template: 'fitness' }, { now });

describe('topping up the sample fitness timetable', () => {
  it('extends the schedule to SAMPLE_SCHEDULE_DAYS ahead as days pass, and a second run adds nothing', async () => {
    const t0 = new Date('2027-01-04T12:00:00Z'); // a Monday
    const company = await fitnessCompany(t0);
    expect(await schedule(company.id)).toEqual(expected(t0, SAMPLE_SCHEDULE_DAYS));
    // Right after seeding there is nothing to add.
    expect(await topUpSampleClasses(dbs.test.prisma, { now: t0, companyId: company.id })).toEqual({
      companies: 1,
      created: 0,
    });

    const t1 = new Date(t0.getTime() + 10 * DAY);
    const first = await topUpSampleClasses(dbs.test.prisma, { now: t1, companyId: company.id });
    // Ten more local days of the weekly timetable (19 classes a week).
    expect(first.created).toBe(
      expected(t0, SAMPLE_SCHEDULE_DAYS + 10).length - expected(t0, SAMPLE_SCHEDULE_DAYS).length,
    );
    expect(first.created).toBeGreaterThanOrEqual(25);
    expect(await schedule(company.id)).toEqual(expected(t0, SAMPLE_SCHEDULE_DAYS + 10));
    // Seen from t1, the coming SAMPLE_SCHEDULE_DAYS days are complete.
    expect(await schedule(company.id, { startTime: { gt: t1 } })).toEqual(expected(t1, SAMPLE_SCHEDULE_DAYS));
    expect(await topUpSampleClasses(dbs.test.prisma, { now: t1, companyId: company.id })).toEqual({
      companies: 1,
      created: 0,
    });
  });

  it('a company whose classes ran out long ago gets the coming weeks again', async () => {
    const t0 = new Date('2027-02-01T08:00:00Z');
    const company = await fitnessCompany(t0);
    const later = new Date(t0.getTime() + 90 * DAY);
    expect(await schedule(company.id, { startTime: { gt: later } })).toEqual([]);
    const { created } = await topUpSampleClasses(dbs.test.prisma, { now: later, companyId: company.id });
    expect(created).toBe(expected(later, SAMPLE_SCHEDULE_DAYS).length);
    expect(await schedule(company.id, { startTime: { gt: later } })).toEqual(expected(later, SAMPLE_SCHEDULE_DAYS));
    // Wall times in the company zone (British Summer Time by then): Monday Spin at 07:00.
    const spins = (
      await dbs.test.prisma.classSession.findMany({
        where: { companyId: company.id, startTime: { gt: later }, service: { name: 'Spin' } },
      })
    )
      .map((s) => DateTime.fromJSDate(s.startTime, { zone: ZONE }))
      .filter((d) => d.weekday === 1);
    expect(spins.length).toBeGreaterThanOrEqual(4);
    for (const d of spins) expect(d.toFormat('HH:mm')).toBe('07:00');
  });

  it('leaves cancelled sessions cancelled and skips a session whose instructor has an appointment then', async () => {
    const t0 = new Date('2027-05-03T12:00:00Z');
    const company = await fitnessCompany(t0);
    const p = dbs.test.prisma;
    const last = await p.classSession.findFirstOrThrow({
      where: { companyId: company.id },
      orderBy: { startTime: 'desc' },
    });
    await p.classSession.update({ where: { id: last.id }, data: { status: 'cancelled' } });
    // Tom takes a personal-training client at the time of next-but-one Monday's 07:00 Spin,
    // which the seed did not schedule yet.
    const t1 = new Date(t0.getTime() + 7 * DAY);
    const coming = expected(t1, SAMPLE_SCHEDULE_DAYS).filter((l) => !expected(t0, SAMPLE_SCHEDULE_DAYS).includes(l));
    const spin = coming.find((l) => l.includes(' Spin '))!;
    const spinStart = new Date(spin.split(' ')[0]!);
    const tom = await p.employee.findFirstOrThrow({ where: { companyId: company.id, name: teacherName('tom') } });
    const pt = await p.service.findFirstOrThrow({ where: { companyId: company.id, name: 'Personal Training' } });
    const customer = await p.customer.findFirstOrThrow({ where: { companyId: company.id } });
    const end = new Date(spinStart.getTime() + 3600_000);
    await p.booking.create({
      data: {
        id: newId(),
        companyId: company.id,
        serviceId: pt.id,
        employeeId: tom.id,
        customerId: customer.id,
        status: 'confirmed',
        currency: 'GBP',
        startTime: spinStart,
        endTime: end,
        blockStart: spinStart,
        blockEnd: end,
      },
    });
    const { created } = await topUpSampleClasses(p, { now: t1, companyId: company.id });
    expect(created).toBe(coming.length - 1);
    const after = await schedule(company.id);
    expect(after).not.toContain(spin);
    expect(after.filter((l) => coming.includes(l))).toHaveLength(coming.length - 1);
    // The cancelled one was not re-created.
    expect(
      await p.classSession.count({
        where: { companyId: company.id, startTime: last.startTime, serviceId: last.serviceId },
      }),
    ).toBe(1);
    expect((await p.classSession.findUniqueOrThrow({ where: { id: last.id } })).status).toBe('cancelled');
  });

  it('runs as the workers job `top-up-sample-classes`, one per hour bucket, over every sample company', async () => {
    const job = JOBS['top-up-sample-classes'];
    expect(job.queue).toBe('maintenance');
    expect(job.jobId({ bucket: 7 })).toBe(job.jobId({ bucket: 7 }));
    expect(job.jobId({ bucket: 7 })).not.toBe(job.jobId({ bucket: 8 }));
    // A company seeded three weeks ago has a week of classes left; the job brings it back to
    // SAMPLE_SCHEDULE_DAYS ahead of the real clock.
    const company = await fitnessCompany(new Date(Date.now() - 21 * DAY));
    const before = await schedule(company.id, { startTime: { gt: new Date() } });
    const logs: unknown[] = [];
    await job.handler(
      {
        services: { dbs, logger: { info: (...a: unknown[]) => logs.push(a) } },
        enqueue: async () => undefined,
        signal: new AbortController().signal,
      } as never,
      { bucket: 1 },
    );
    const now = new Date();
    const after = await schedule(company.id, { startTime: { gt: now } });
    expect(after.length).toBeGreaterThan(before.length + 50);
    expect(after).toEqual(expected(now, SAMPLE_SCHEDULE_DAYS));
    expect(logs).toHaveLength(1);
  });
});
