// Locations (docs/api.md, Locations): GET/POST /locations, GET/PATCH/DELETE /locations/:id,
// a company's sites { name, address, timeZone, phone? }. Resources belong to one; an employee's
// working-hour interval may name one (a stylist at site A on Mondays, B on Tuesdays), and its
// times are then local to the location's zone; a booking records where it takes place.
//
// DELETE is refused while the location is in use: resources at it, employees whose hours name
// it, active bookings there from now on, active class schedules at it and its scheduled class
// sessions still to come are 409 CONFLICT naming them (details.resourceIds, details.employeeIds,
// details.bookingIds, details.classScheduleIds, details.classIds). Past bookings keep their times; their locationId
// becomes null.
import { z } from 'zod';
import type { Db, Tx } from '../../db/databases.js';
import { AppError } from '../../errors.js';
import { isId, newId } from '../../ids.js';
import { parseInput, phone, requiredText, timezone } from '../validation.js';

const fields = {
  name: requiredText(200),
  address: requiredText(500),
  timeZone: timezone,
  phone: phone.nullable(),
};
const createInput = z.object(fields).partial({ phone: true }).strict();
const updateInput = z.object(fields).partial().strict();

type Client = Db | Tx;

export async function findLocation(db: Client, companyId: string, locationId: unknown) {
  const row = isId(locationId) ? await db.location.findFirst({ where: { id: locationId, companyId } }) : null;
  if (!row) throw AppError.notFound('location');
  return row;
}

/** Every id a location of this company, else 404 naming the field and the id. */
export async function requireLocations(db: Client, companyId: string, ids: string[], field: string) {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return;
  const found = new Set(
    (await db.location.findMany({ where: { companyId, id: { in: wanted } }, select: { id: true } })).map((l) => l.id),
  );
  const missing = wanted.find((i) => !found.has(i));
  if (missing) throw new AppError('NOT_FOUND', `No such location: ${missing}`, { details: { field, id: missing } });
}

export async function createLocation(db: Db, opts: { companyId: string; input: unknown }) {
  const data = parseInput(createInput, opts.input);
  return db.location.create({
    data: { id: newId(), companyId: opts.companyId, ...data, phone: data.phone ?? null },
  });
}

export async function updateLocation(db: Db, opts: { companyId: string; locationId: string; input: unknown }) {
  const existing = await findLocation(db, opts.companyId, opts.locationId);
  const data = parseInput(updateInput, opts.input);
  return db.location.update({ where: { id: existing.id }, data });
}

export async function deleteLocation(db: Db, opts: { companyId: string; locationId: string; now?: Date }) {
  const existing = await findLocation(db, opts.companyId, opts.locationId);
  return db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM locations WHERE id = ${existing.id} FOR UPDATE`;
    const upcoming = { gt: opts.now ?? new Date() };
    const [resources, employees, bookings, schedules, sessions] = await Promise.all([
      tx.resource.findMany({ where: { locationId: existing.id }, select: { id: true }, orderBy: { id: 'asc' } }),
      tx.$queryRaw<Array<{ id: string }>>`
        SELECT id FROM employees WHERE company_id = ${opts.companyId}
          AND jsonb_path_exists(working_hours, '$.*[*] ? (@.locationId == $l)', jsonb_build_object('l', ${existing.id}::text))
        ORDER BY id`,
      tx.booking.findMany({
        where: {
          locationId: existing.id,
          status: { in: ['pending', 'confirmed'] },
          endTime: { gt: opts.now ?? new Date() },
        },
        select: { id: true },
        orderBy: { startTime: 'asc' },
        take: 100,
      }),
      tx.classSchedule.findMany({
        where: { locationId: existing.id, status: 'active' },
        select: { id: true },
        orderBy: { id: 'asc' },
      }),
      tx.classSession.findMany({
        where: { locationId: existing.id, status: 'scheduled', endTime: upcoming },
        select: { id: true },
        orderBy: { startTime: 'asc' },
        take: 100,
      }),
    ]);
    if (resources.length + employees.length + bookings.length + schedules.length + sessions.length > 0)
      throw new AppError(
        'CONFLICT',
        'The location is in use: move its resources, employees, active bookings and classes elsewhere first',
        {
          details: {
            resourceIds: resources.map((r) => r.id),
            employeeIds: employees.map((e) => e.id),
            bookingIds: bookings.map((b) => b.id),
            classScheduleIds: schedules.map((x) => x.id),
            classIds: sessions.map((x) => x.id),
          },
        },
      );
    await tx.location.delete({ where: { id: existing.id } });
    return existing;
  });
}
