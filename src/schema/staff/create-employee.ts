import { z } from 'zod';
import type { Db } from '../../db/databases.js';
import { newId } from '../../ids.js';
import { id } from '../domain-validation.js';
import { metadataInput } from '../metadata.js';
import { email, parseInput, phone, requiredText } from '../validation.js';
import { EMPTY_WEEK, workingHoursSchema } from './working-hours.js';
import { employeeInclude, requireAll } from '../find-records.js';

export const employeeFields = {
  name: requiredText(200),
  email: email.nullable(),
  phone: phone.nullable(),
  workingHours: workingHoursSchema,
  serviceIds: z
    .array(id)
    .max(200, 'must list at most 200 services')
    .transform((ids) => [...new Set(ids)]),
  active: z.boolean(),
};

const input = z
  .object({
    ...employeeFields,
    email: employeeFields.email.optional(),
    phone: employeeFields.phone.optional(),
    metadata: metadataInput,
  })
  .partial({ workingHours: true, serviceIds: true, active: true, email: true, phone: true, metadata: true })
  .strict();

/** A member of staff with weekly working hours and the services they perform (docs/api.md). */
export async function createEmployee(db: Db, opts: { companyId: string; input: unknown }) {
  const data = parseInput(input, opts.input);
  const serviceIds = data.serviceIds ?? [];
  await requireAll(
    (ids) => db.service.findMany({ where: { companyId: opts.companyId, id: { in: ids } }, select: { id: true } }),
    serviceIds,
    'service',
  );
  return db.employee.create({
    data: {
      id: newId(),
      companyId: opts.companyId,
      name: data.name,
      email: data.email ?? null,
      phone: data.phone ?? null,
      workingHours: data.workingHours ?? EMPTY_WEEK,
      active: data.active ?? true,
      metadata: data.metadata ?? {},
      services: { create: serviceIds.map((serviceId) => ({ serviceId })) },
    },
    include: employeeInclude,
  });
}
