import { z } from 'zod';
import type { Db } from '../../db/databases.js';
import { mergeMetadata, metadataPatch } from '../metadata.js';
import { parseInput } from '../validation.js';
import { employeeFields } from './create-employee.js';
import { hoursLocations } from './working-hours.js';
import { requireLocations } from '../locations/index.js';
import { employeeInclude, findEmployee, requireAll } from '../find-records.js';
import {
  checkExternalCalendars,
  externalCalendarsInput,
  replaceExternalCalendars,
  type UrlRules,
} from './external-calendars.js';
import { urlRules } from './create-employee.js';
import { lockEmployees } from './employee-lock.js';

const input = z
  .object({ ...employeeFields, metadata: metadataPatch, externalCalendars: externalCalendarsInput })
  .partial()
  .strict();

/**
 * PATCH semantics: absent fields stay, null clears an optional one; serviceIds replaces the set;
 * metadata is merged (a null key is removed); externalCalendars replaces the set (an entry
 * { id } keeps that calendar) under the employee's lock, with the URL rules of `urls`.
 */
export async function updateEmployee(
  db: Db,
  opts: { companyId: string; employeeId: string; input: unknown; urls?: UrlRules },
) {
  const existing = await findEmployee(db, opts.companyId, opts.employeeId);
  const { serviceIds, metadata, externalCalendars, ...patch } = parseInput(input, opts.input);
  const calendars = externalCalendars ? checkExternalCalendars(externalCalendars, urlRules(opts.urls)) : null;
  if (patch.workingHours)
    await requireLocations(db, opts.companyId, hoursLocations(patch.workingHours), 'workingHours');
  if (serviceIds) {
    await requireAll(
      (ids) => db.service.findMany({ where: { companyId: opts.companyId, id: { in: ids } }, select: { id: true } }),
      serviceIds,
      'service',
    );
  }
  return db.$transaction(async (tx) => {
    if (calendars) {
      await lockEmployees(tx, opts.companyId, [existing.id]);
      await replaceExternalCalendars(tx, {
        companyId: opts.companyId,
        employeeId: existing.id,
        list: calendars,
        config: opts.urls!.config,
      });
    }
    if (metadata)
      await mergeMetadata(tx, { table: 'employees', id: existing.id, companyId: opts.companyId, patch: metadata });
    if (serviceIds) {
      await tx.employeeService.deleteMany({ where: { employeeId: existing.id } });
      await tx.employeeService.createMany({
        data: serviceIds.map((serviceId) => ({ employeeId: existing.id, serviceId })),
      });
    }
    return tx.employee.update({ where: { id: existing.id }, data: patch, include: employeeInclude });
  });
}

/**
 * DELETE /employees/:id deactivates, as Stripe archives products: the employee keeps their
 * booking history and stays readable, but is no longer offered in availability nor bookable.
 * Their existing bookings stay as they are (the business cancels them if it wants).
 */
export async function deactivateEmployee(db: Db, opts: { companyId: string; employeeId: string }) {
  const existing = await findEmployee(db, opts.companyId, opts.employeeId);
  return db.employee.update({ where: { id: existing.id }, data: { active: false }, include: employeeInclude });
}
