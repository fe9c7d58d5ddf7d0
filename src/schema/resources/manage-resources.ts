// Rooms and equipment (docs/api.md, Rooms and equipment): GET/POST /resources,
// GET/PATCH/DELETE /resources/:id. A resource is a flat record (name, kind, weekly hours): it
// names no other resource, so a resource requiring itself or a cycle of resources cannot be
// expressed; the inputs are strict objects, and any other key (a `requiredResourceIds` on a
// resource, say) is refused with a 400 naming it.
//
// DELETE removes the resource, but not while it is in use: a service requiring it by id, or an
// active booking or class session holding it from now on, is 409 CONFLICT with details naming
// them (details.serviceIds, details.bookingIds, details.classIds). Past holds go with it.
import { z } from 'zod';
import type { Db, Tx } from '../../db/databases.js';
import { Prisma, type ResourceKind } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { isId, newId } from '../../ids.js';
import { id } from '../domain-validation.js';
import { parseInput, requiredText } from '../validation.js';
import { workingHoursSchema } from '../staff/index.js';
import { requireLocations } from '../locations/index.js';

export const RESOURCE_KINDS = ['room', 'equipment'] as const satisfies readonly ResourceKind[];
const kind = z.enum(RESOURCE_KINDS, { error: 'must be room or equipment' });

const fields = {
  name: requiredText(200),
  kind,
  /** Weekly hours in the company's zone (its location's, when it has one); null: always available. */
  workingHours: workingHoursSchema.nullable(),
  /** The location it is at (docs/api.md, Locations); null: none. */
  locationId: id.nullable(),
};

const createInput = z.object(fields).partial({ workingHours: true, locationId: true }).strict();
const updateInput = z.object(fields).partial().strict();
const listInput = z.object({ kind: kind.nullish() }).strict();

/** A resource of this company, or NOT_FOUND (another company's is simply not found). */
export async function findResource(db: Db | Tx, companyId: string, resourceId: unknown) {
  const row = isId(resourceId) ? await db.resource.findFirst({ where: { id: resourceId, companyId } }) : null;
  if (!row) throw AppError.notFound('resource');
  return row;
}

const hours = (v: z.output<typeof fields.workingHours> | undefined) =>
  v === undefined ? {} : { workingHours: v === null ? Prisma.DbNull : v };

export async function createResource(db: Db, opts: { companyId: string; input: unknown }) {
  const data = parseInput(createInput, opts.input);
  if (data.locationId) await requireLocations(db, opts.companyId, [data.locationId], 'locationId');
  return db.resource.create({
    data: {
      id: newId(),
      companyId: opts.companyId,
      name: data.name,
      kind: data.kind,
      locationId: data.locationId ?? null,
      ...hours(data.workingHours),
    },
  });
}

export async function updateResource(db: Db, opts: { companyId: string; resourceId: string; input: unknown }) {
  const existing = await findResource(db, opts.companyId, opts.resourceId);
  const data = parseInput(updateInput, opts.input);
  if (data.locationId) await requireLocations(db, opts.companyId, [data.locationId], 'locationId');
  if (data.kind && data.kind !== existing.kind) {
    // A service that takes "any one room" may hold this one now: changing its kind under a live
    // hold would leave the booking holding the wrong kind. Refused while it is held from now on.
    const held = await activeHolders(db, existing.id);
    if (held.bookingIds.length + held.classIds.length > 0)
      throw new AppError('CONFLICT', 'The resource is held by active bookings or classes; its kind cannot change', {
        details: held,
      });
  }
  return db.resource.update({
    where: { id: existing.id },
    data: {
      ...(data.name !== undefined ? { name: data.name } : {}),
      ...(data.kind !== undefined ? { kind: data.kind } : {}),
      ...(data.locationId !== undefined ? { locationId: data.locationId } : {}),
      ...hours(data.workingHours),
    },
  });
}

async function activeHolders(db: Db | Tx, resourceId: string) {
  const holds = await db.resourceHold.findMany({
    where: { resourceId, active: true, endTime: { gt: new Date() } },
    select: { bookingId: true, classSessionId: true },
    orderBy: { startTime: 'asc' },
    take: 100,
  });
  return {
    bookingIds: holds.flatMap((h) => (h.bookingId ? [h.bookingId] : [])),
    classIds: holds.flatMap((h) => (h.classSessionId ? [h.classSessionId] : [])),
  };
}

export async function deleteResource(db: Db, opts: { companyId: string; resourceId: string }) {
  const existing = await findResource(db, opts.companyId, opts.resourceId);
  return db.$transaction(async (tx) => {
    // The row locked first: a booking holding it takes FOR KEY SHARE on it (the foreign key), so
    // one committed before this sees its hold here, and one after finds the resource gone.
    await tx.$queryRaw`SELECT id FROM resources WHERE id = ${existing.id} FOR UPDATE`;
    const services = await tx.service.findMany({
      where: { companyId: opts.companyId, requiredResourceIds: { has: existing.id } },
      select: { id: true },
      orderBy: { id: 'asc' },
    });
    const held = await activeHolders(tx, existing.id);
    if (services.length + held.bookingIds.length + held.classIds.length > 0)
      throw new AppError(
        'CONFLICT',
        'The resource is in use: services require it or active bookings hold it; change or cancel them first',
        { details: { serviceIds: services.map((s) => s.id), ...held } },
      );
    await tx.resource.delete({ where: { id: existing.id } });
    return existing;
  });
}

/** The filter of GET /resources. */
export function resourceFilter(companyId: string, input: unknown): Prisma.ResourceWhereInput {
  const { kind } = parseInput(listInput, input);
  return { companyId, ...(kind ? { kind } : {}) };
}

/** Most resources one service may name (and the CHECK services_required_resources_bounded). */
export const MAX_REQUIRED_RESOURCES = 10;

export const requiredResourceIdsInput = z
  .array(id)
  .max(MAX_REQUIRED_RESOURCES, `must list at most ${MAX_REQUIRED_RESOURCES} resources`)
  .superRefine((ids, ctx) => {
    const seen = new Set<string>();
    ids.forEach((v, i) => {
      if (seen.has(v)) ctx.addIssue({ code: 'custom', path: [i], message: 'is listed twice' });
      seen.add(v);
    });
  });

export const requiredResourceKindsInput = z.array(kind).superRefine((kinds, ctx) => {
  const seen = new Set<string>();
  kinds.forEach((v, i) => {
    if (seen.has(v)) ctx.addIssue({ code: 'custom', path: [i], message: 'is listed twice' });
    seen.add(v);
  });
});

/**
 * Every id a resource of this company, else 404 naming the field and the id (another company's
 * is not found either). Called by the service use cases before they write.
 */
export async function requireResources(db: Db | Tx, companyId: string, ids: string[]) {
  if (ids.length === 0) return;
  const found = new Set(
    (await db.resource.findMany({ where: { companyId, id: { in: ids } }, select: { id: true } })).map((r) => r.id),
  );
  const missing = ids.find((i) => !found.has(i));
  if (missing)
    throw new AppError('NOT_FOUND', `No such resource: ${missing}`, {
      details: { field: 'requiredResourceIds', id: missing },
    });
}
