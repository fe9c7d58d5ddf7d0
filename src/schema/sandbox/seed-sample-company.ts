// Fills a freshly created test company with a sample template's staff, services, weekly
// hours, rooms and equipment, class sessions and customers (docs/sandbox.md). It runs for every
// new account (three times), so it writes with one createMany per table inside the caller's
// transaction: a handful of statements whatever the template's size.
//
// No events are recorded: the rows are the company's starting state, not changes made by a
// client, and no webhook endpoint can exist yet to be told about them.
import type { Tx } from '../../db/databases.js';
import { DateTime } from 'luxon';
import type { Prisma } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { generateSessions, horizonOf } from '../class-schedules/index.js';
import { datedSessions, SAMPLE_DATA } from './sample-data/index.js';
import type { SampleTemplate } from './samples.js';
import type { WorkingHours } from './sample-data/types.js';

export interface SeededCounts {
  employees: number;
  services: number;
  classSessions: number;
  customers: number;
}

/** Every row a template gives one company, with fresh ids (from the real clock, so they sort by creation). */
export function sampleCompanyRows(opts: { companyId: string; template: SampleTemplate; timezone: string; now: Date }) {
  const { companyId, now } = opts;
  const data = SAMPLE_DATA[opts.template];
  const employeeIds = new Map(data.employees.map((e) => [e.key, newId()]));
  const serviceIds = new Map(data.services.map((s) => [s.key, newId()]));
  const resourceIds = new Map((data.resources ?? []).map((r) => [r.key, newId()]));
  const locationIds = new Map((data.locations ?? []).map((l) => [l.key, newId()]));
  const idOf = (ids: Map<string, string>, key: string) => {
    const id = ids.get(key);
    if (!id) throw new Error(`sample template ${opts.template}: unknown key ${key}`);
    return id;
  };

  // With locations, an interval naming none is at the first (the main site).
  const main = data.locations?.[0]?.key;
  const placed = (hours: WorkingHours): WorkingHours =>
    main
      ? (Object.fromEntries(
          Object.entries(hours).map(([d, list]) => [
            d,
            list.map((r) => ({ ...r, locationId: idOf(locationIds, r.locationId ?? main) })),
          ]),
        ) as WorkingHours)
      : hours;
  const locations: Prisma.LocationCreateManyInput[] = (data.locations ?? []).map((l) => ({
    id: idOf(locationIds, l.key),
    companyId,
    name: l.name,
    address: l.address,
    timeZone: l.timeZone,
    phone: l.phone ?? null,
  }));
  const employees: Prisma.EmployeeCreateManyInput[] = data.employees.map((e) => ({
    id: idOf(employeeIds, e.key),
    companyId,
    name: e.name,
    email: e.email,
    phone: e.phone,
    workingHours: placed(e.workingHours),
  }));
  const services: Prisma.ServiceCreateManyInput[] = data.services.map((s) => ({
    id: idOf(serviceIds, s.key),
    companyId,
    name: s.name,
    description: s.description,
    kind: s.kind,
    durationMinutes: s.durationMinutes,
    price: s.price,
    bufferBeforeMinutes: s.bufferBeforeMinutes,
    bufferAfterMinutes: s.bufferAfterMinutes,
    requiresPayment: s.requiresPayment,
    requiredResourceIds: (s.resources ?? []).map((r) => idOf(resourceIds, r)),
    requiredResourceKinds: s.resourceKinds ?? [],
    ...(s.waitlist ? { waitlist: { ...s.waitlist } } : {}),
  }));
  const resources: Prisma.ResourceCreateManyInput[] = (data.resources ?? []).map((r) => ({
    id: idOf(resourceIds, r.key),
    companyId,
    name: r.name,
    kind: r.kind,
    locationId: r.location ? idOf(locationIds, r.location) : null,
  }));
  const employeeServices: Prisma.EmployeeServiceCreateManyInput[] = data.services.flatMap((s) =>
    s.employees.map((e) => ({ employeeId: idOf(employeeIds, e), serviceId: idOf(serviceIds, s.key) })),
  );
  const durations = new Map(data.services.map((s) => [s.key, s.durationMinutes]));
  const classSessions: Prisma.ClassSessionCreateManyInput[] = datedSessions({
    timetable: data.timetable,
    durationMinutes: (key) => durations.get(key) ?? 60,
    zone: opts.timezone,
    now,
  }).map(({ slot, startTime, endTime }) => ({
    id: newId(),
    companyId,
    serviceId: idOf(serviceIds, slot.service),
    employeeId: idOf(employeeIds, slot.instructor),
    startTime,
    endTime,
    capacity: slot.capacity,
  }));
  const customers: Prisma.CustomerCreateManyInput[] = data.customers.map((c) => ({
    id: newId(),
    companyId,
    name: c.name,
    email: c.email.toLowerCase(),
    phone: c.phone,
    notes: c.notes ?? null,
  }));
  const schedules: Prisma.ClassScheduleCreateManyInput[] = (data.schedules ?? []).map((s) => ({
    id: newId(),
    companyId,
    serviceId: idOf(serviceIds, s.service),
    employeeId: idOf(employeeIds, s.instructor),
    localStartTime: s.start,
    rrule: s.rrule,
    capacity: s.capacity,
    startsOn: DateTime.fromJSDate(now, { zone: opts.timezone }).toISODate()!,
    generatedUntil: now,
  }));
  return { locations, employees, resources, services, employeeServices, classSessions, customers, schedules };
}

export async function seedSampleCompany(
  tx: Tx,
  opts: { companyId: string; template: SampleTemplate; timezone: string; now?: Date },
): Promise<SeededCounts> {
  const rows = sampleCompanyRows({ ...opts, now: opts.now ?? new Date() });
  // Parents before children; one statement per table, in sequence (one connection per transaction).
  if (rows.locations.length) await tx.location.createMany({ data: rows.locations });
  const employees = await tx.employee.createMany({ data: rows.employees });
  if (rows.resources.length) await tx.resource.createMany({ data: rows.resources });
  const services = await tx.service.createMany({ data: rows.services });
  await tx.employeeService.createMany({ data: rows.employeeServices });
  const classSessions = await tx.classSession.createMany({ data: rows.classSessions });
  const customers = await tx.customer.createMany({ data: rows.customers });
  // The class schedules, and their sessions up to the horizon, as the API would make them.
  let scheduled = 0;
  if (rows.schedules.length) {
    await tx.classSchedule.createMany({ data: rows.schedules });
    const now = opts.now ?? new Date();
    for (const s of await tx.classSchedule.findMany({ where: { companyId: opts.companyId } })) {
      const r = await generateSessions(tx, s, {
        zone: opts.timezone,
        now,
        from: now,
        until: horizonOf(now),
        advance: true,
      });
      scheduled += r.created;
    }
  }
  return {
    employees: employees.count,
    services: services.count,
    classSessions: classSessions.count + scheduled,
    customers: customers.count,
  };
}
