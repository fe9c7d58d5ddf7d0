// Services (docs/api.md): what can be booked, its duration, buffers around it, price in minor
// units, whether it must be paid for up front, and the employees qualified to perform it.
// `kind` (appointment or class) is fixed at creation: class sessions and bookings depend on it.
// DELETE deactivates, like employees: history stays, new bookings are refused.
import { z } from 'zod';
import type { Db } from '../../db/databases.js';
import { newId } from '../../ids.js';
import { id, minutes } from '../domain-validation.js';
import { parseInput, requiredText, text } from '../validation.js';
import { findService, requireAll, serviceInclude } from '../find-records.js';

const fields = {
  name: requiredText(200),
  description: text(5000).nullable(),
  durationMinutes: z.number().int('must be an integer').min(1, 'must be at least 1').max(1440, 'must be at most 1440'),
  price: z
    .number()
    .int('must be an integer in minor units')
    .min(0, 'must not be negative')
    .max(100_000_000, 'must be at most 100000000'),
  bufferBeforeMinutes: minutes(720),
  bufferAfterMinutes: minutes(720),
  requiresPayment: z.boolean(),
  active: z.boolean(),
  employeeIds: z
    .array(id)
    .max(500, 'must list at most 500 employees')
    .transform((ids) => [...new Set(ids)]),
};

const createInput = z
  .object({ ...fields, kind: z.enum(['appointment', 'class']) })
  .partial({
    description: true,
    kind: true,
    price: true,
    bufferBeforeMinutes: true,
    bufferAfterMinutes: true,
    requiresPayment: true,
    active: true,
    employeeIds: true,
  })
  .strict();
const updateInput = z.object(fields).partial().strict();

async function requireEmployees(db: Db, companyId: string, ids: string[] | undefined) {
  await requireAll(
    (list) => db.employee.findMany({ where: { companyId, id: { in: list } }, select: { id: true } }),
    ids ?? [],
    'employee',
  );
}

export async function createService(db: Db, opts: { companyId: string; input: unknown }) {
  const { employeeIds, ...data } = parseInput(createInput, opts.input);
  await requireEmployees(db, opts.companyId, employeeIds);
  return db.service.create({
    data: {
      id: newId(),
      companyId: opts.companyId,
      ...data,
      employees: { create: (employeeIds ?? []).map((employeeId) => ({ employeeId })) },
    },
    include: serviceInclude,
  });
}

export async function updateService(db: Db, opts: { companyId: string; serviceId: string; input: unknown }) {
  const existing = await findService(db, opts.companyId, opts.serviceId);
  const { employeeIds, ...patch } = parseInput(updateInput, opts.input);
  await requireEmployees(db, opts.companyId, employeeIds);
  return db.$transaction(async (tx) => {
    if (employeeIds) {
      await tx.employeeService.deleteMany({ where: { serviceId: existing.id } });
      await tx.employeeService.createMany({
        data: employeeIds.map((employeeId) => ({ employeeId, serviceId: existing.id })),
      });
    }
    return tx.service.update({ where: { id: existing.id }, data: patch, include: serviceInclude });
  });
}

export async function deactivateService(db: Db, opts: { companyId: string; serviceId: string }) {
  const existing = await findService(db, opts.companyId, opts.serviceId);
  return db.service.update({ where: { id: existing.id }, data: { active: false }, include: serviceInclude });
}
