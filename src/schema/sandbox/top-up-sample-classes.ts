// Keeps the sample companies' class timetables running (docs/sandbox.md: "Sample Fitness Center"
// with classes and scheduled sessions for the coming weeks). Seeding schedules the next
// SAMPLE_SCHEDULE_DAYS local days once; without this the sandbox's classes would run out four
// weeks after the account was made. The workers run it on a schedule (job
// `top-up-sample-classes`), and it is idempotent: it only adds the timetable's sessions that
// start after the latest session already scheduled from the timetable, up to the same horizon
// the seed used, so sessions a client cancelled or moved are left as they are.
//
// A session whose instructor is busy then (an appointment booked meanwhile, time off) or that
// no longer fits the company (a renamed or deactivated sample service or instructor, an
// instructor taken off the service) is skipped: the exclusion constraint on employee_blocks
// has the last word, as for any class session.
import { DateTime } from 'luxon';
import type { Db } from '../../db/databases.js';
import { newId } from '../../ids.js';
import { isExclusionViolation } from '../db-errors.js';
import { domainNow } from '../domain-time.js';
import { datedSessions, SAMPLE_DATA, SAMPLE_SCHEDULE_DAYS } from './sample-data/index.js';
import type { SampleTemplate } from './samples.js';

const DAY = 86_400_000;

const TIMETABLED = (Object.keys(SAMPLE_DATA) as SampleTemplate[]).filter((t) => SAMPLE_DATA[t].timetable.length > 0);

export interface TopUpResult {
  companies: number;
  created: number;
}

/** Tops up every sample company with a timetable in `db` (the sandbox's), or just `companyId`. */
export async function topUpSampleClasses(db: Db, opts: { now?: Date; companyId?: string } = {}): Promise<TopUpResult> {
  const companies = await db.company.findMany({
    where: { mode: 'test', template: { in: TIMETABLED }, ...(opts.companyId ? { id: opts.companyId } : {}) },
    select: { id: true, timezone: true, template: true },
    orderBy: { id: 'asc' },
  });
  let created = 0;
  // The horizon is a schedule horizon, so domain time: a sample company on a test clock gets
  // its timetable up to the clock's horizon (docs/sandbox.md, Test clocks).
  for (const c of companies)
    created += await topUpCompany(
      db,
      { id: c.id, timezone: c.timezone, template: c.template as SampleTemplate },
      opts.now ?? (await domainNow(db, c.id)),
    );
  return { companies: companies.length, created };
}

async function topUpCompany(
  db: Db,
  company: { id: string; timezone: string; template: SampleTemplate },
  now: Date,
): Promise<number> {
  const data = SAMPLE_DATA[company.template];
  // The seed's horizon: the end of the last of SAMPLE_SCHEDULE_DAYS local days from today.
  const horizon = DateTime.fromJSDate(now, { zone: company.timezone })
    .startOf('day')
    .plus({ days: SAMPLE_SCHEDULE_DAYS })
    .toMillis();
  const [services, employees] = await Promise.all([
    db.service.findMany({
      where: { companyId: company.id, kind: 'class', active: true, name: { in: data.services.map((s) => s.name) } },
      select: { id: true, name: true, durationMinutes: true },
    }),
    db.employee.findMany({
      where: { companyId: company.id, active: true, name: { in: data.employees.map((e) => e.name) } },
      select: { id: true, name: true, services: { select: { serviceId: true } } },
    }),
  ]);
  const serviceOf = new Map(
    data.services.flatMap((s) =>
      services
        .filter((r) => r.name === s.name)
        .slice(0, 1)
        .map((r) => [s.key, r] as const),
    ),
  );
  const employeeOf = new Map(
    data.employees.flatMap((e) =>
      employees
        .filter((r) => r.name === e.name)
        .slice(0, 1)
        .map((r) => [e.key, r] as const),
    ),
  );
  if (serviceOf.size === 0) return 0;

  const latest = await db.classSession.aggregate({
    where: {
      companyId: company.id,
      serviceId: { in: [...serviceOf.values()].map((s) => s.id) },
      // Sessions of class schedules are theirs to keep (docs/api.md, Class schedules).
      scheduleId: null,
      startTime: { lt: new Date(horizon) },
    },
    _max: { startTime: true },
  });
  const last = latest._max.startTime?.getTime() ?? 0;
  const since = Math.max(now.getTime(), last);
  if (since >= horizon) return 0;
  // Sessions at the latest instant itself are included (classes of one timetable may start
  // together, and an earlier run may have stopped between them), less those that exist.
  const there = new Set(
    last >= now.getTime()
      ? (
          await db.classSession.findMany({
            where: { companyId: company.id, scheduleId: null, startTime: new Date(last) },
            select: { serviceId: true },
          })
        ).map((s) => s.serviceId)
      : [],
  );
  const wanted = datedSessions({
    timetable: data.timetable,
    durationMinutes: (key) => serviceOf.get(key)?.durationMinutes ?? 60,
    zone: company.timezone,
    now: new Date(last >= now.getTime() ? last - 1 : since),
    days: Math.ceil((horizon - since) / DAY) + 1,
  }).filter(
    (s) =>
      s.startTime.getTime() < horizon &&
      !(s.startTime.getTime() === last && there.has(serviceOf.get(s.slot.service)?.id ?? '')),
  );
  if (wanted.length === 0) return 0;

  const timeOff = await db.timeOff.findMany({
    where: { companyId: company.id, startTime: { lt: new Date(horizon) }, endTime: { gt: new Date(since) } },
    select: { employeeId: true, startTime: true, endTime: true },
  });
  let created = 0;
  for (const { slot, startTime, endTime } of wanted) {
    const service = serviceOf.get(slot.service);
    const instructor = employeeOf.get(slot.instructor);
    if (!service || !instructor || !instructor.services.some((s) => s.serviceId === service.id)) continue;
    if (timeOff.some((t) => t.employeeId === instructor.id && t.startTime < endTime && startTime < t.endTime)) continue;
    try {
      await db.classSession.create({
        data: {
          id: newId(),
          companyId: company.id,
          serviceId: service.id,
          employeeId: instructor.id,
          startTime,
          endTime,
          capacity: slot.capacity,
        },
      });
      created++;
    } catch (err) {
      if (isExclusionViolation(err)) continue; // the instructor is busy then
      throw err;
    }
  }
  return created;
}
