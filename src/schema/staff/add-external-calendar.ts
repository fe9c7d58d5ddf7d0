// Adding one external calendar to an employee's (the admin staff page's "Add a calendar"): the
// list is read and extended inside the transaction that holds the employee's lock, so two adds
// at once both keep their calendar (a list read before the lock would drop the other's).
import { z } from 'zod';
import { AppError } from '../../errors.js';
import type { Db } from '../../db/databases.js';
import { findEmployee } from '../find-records.js';
import { parseInput } from '../validation.js';
import { lockEmployees } from './employee-lock.js';
import {
  checkExternalCalendars,
  externalCalendarsInput,
  MAX_EXTERNAL_CALENDARS,
  replaceExternalCalendars,
  type UrlRules,
} from './external-calendars.js';

const input = z.object({ externalCalendars: externalCalendarsInput }).strict();

/**
 * Adds { url, name } beside the employee's calendars (a URL they already have is kept, not
 * doubled). Field errors name `externalCalendars.0.url` / `.name`, or `externalCalendars` when
 * the employee already has the most calendars allowed; nothing is written then.
 */
export async function addExternalCalendar(
  db: Db,
  opts: { companyId: string; employeeId: string; url: string; name: string; urls: UrlRules },
): Promise<void> {
  const existing = await findEmployee(db, opts.companyId, opts.employeeId);
  const [entry] = checkExternalCalendars(
    parseInput(input, { externalCalendars: [{ url: opts.url, name: opts.name }] }).externalCalendars,
    opts.urls,
  );
  await db.$transaction(async (tx) => {
    await lockEmployees(tx, opts.companyId, [existing.id]);
    const kept = await tx.externalCalendar.findMany({
      where: { companyId: opts.companyId, employeeId: existing.id },
      orderBy: { slot: 'asc' },
      select: { id: true },
    });
    if (kept.length >= MAX_EXTERNAL_CALENDARS)
      throw AppError.validation([
        { path: 'externalCalendars', message: `must list at most ${MAX_EXTERNAL_CALENDARS} calendars` },
      ]);
    await replaceExternalCalendars(tx, {
      companyId: opts.companyId,
      employeeId: existing.id,
      list: [...kept, entry!],
      config: opts.urls.config,
    });
  });
}
