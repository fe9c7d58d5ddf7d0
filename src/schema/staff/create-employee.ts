import { z } from 'zod';
import type { Db } from '../../db/databases.js';
import { newId } from '../../ids.js';
import { id } from '../domain-validation.js';
import { metadataInput } from '../metadata.js';
import { email, parseInput, phone, requiredText } from '../validation.js';
import { EMPTY_WEEK, employeeWorkingHoursSchema, hoursLocations } from './working-hours.js';
import { requireLocations } from '../locations/index.js';
import { employeeInclude, requireAll } from '../find-records.js';
import {
  checkExternalCalendars,
  externalCalendarsInput,
  replaceExternalCalendars,
  type UrlRules,
} from './external-calendars.js';

export const employeeFields = {
  name: requiredText(200),
  email: email.nullable(),
  phone: phone.nullable(),
  workingHours: employeeWorkingHoursSchema,
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
    externalCalendars: externalCalendarsInput,
  })
  .partial({
    workingHours: true,
    serviceIds: true,
    active: true,
    email: true,
    phone: true,
    metadata: true,
    externalCalendars: true,
  })
  .strict();

/**
 * A member of staff with weekly working hours and the services they perform (docs/api.md).
 * `externalCalendars` needs the URL rules of the caller's mode (`urls`).
 */
export async function createEmployee(db: Db, opts: { companyId: string; input: unknown; urls?: UrlRules }) {
  const data = parseInput(input, opts.input);
  const serviceIds = data.serviceIds ?? [];
  const calendars = data.externalCalendars?.length
    ? checkExternalCalendars(data.externalCalendars, urlRules(opts.urls))
    : null;
  await requireAll(
    (ids) => db.service.findMany({ where: { companyId: opts.companyId, id: { in: ids } }, select: { id: true } }),
    serviceIds,
    'service',
  );
  if (data.workingHours) await requireLocations(db, opts.companyId, hoursLocations(data.workingHours), 'workingHours');
  const employeeId = newId();
  if (calendars) {
    // A new employee has no bookings to race with: no lock to take.
    return db.$transaction(async (tx) => {
      await tx.employee.create({ data: row(employeeId, opts.companyId, data, serviceIds) });
      await replaceExternalCalendars(tx, {
        companyId: opts.companyId,
        employeeId,
        list: calendars,
        config: opts.urls!.config,
      });
      return tx.employee.findUniqueOrThrow({ where: { id: employeeId }, include: employeeInclude });
    });
  }
  return db.employee.create({ data: row(employeeId, opts.companyId, data, serviceIds), include: employeeInclude });
}

/** The URL rules a caller setting external calendars must give. */
export function urlRules(urls: UrlRules | undefined): UrlRules {
  if (!urls) throw new Error('externalCalendars needs the URL rules of the mode');
  return urls;
}

function row(id: string, companyId: string, data: z.output<typeof input>, serviceIds: string[]) {
  return {
    id,
    companyId,
    name: data.name,
    email: data.email ?? null,
    phone: data.phone ?? null,
    workingHours: data.workingHours ?? EMPTY_WEEK,
    active: data.active ?? true,
    metadata: data.metadata ?? {},
    services: { create: serviceIds.map((serviceId) => ({ serviceId })) },
  };
}
