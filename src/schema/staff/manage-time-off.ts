// Time off (docs/api.md): GET/POST /employees/:id/time-off, DELETE /employees/:id/time-off/:id.
// Availability leaves it out; a booking inside it is SLOT_UNAVAILABLE. Existing bookings in a
// new time off are kept: the business decides whether to cancel or move them. It is written under
// the employee's lock (employee-lock.ts), so a booking checked after it commits sees it.
import { z } from 'zod';
import type { Db } from '../../db/databases.js';
import { AppError } from '../../errors.js';
import { isId, newId } from '../../ids.js';
import { boundedInstant, checkRange } from '../domain-validation.js';
import { paginate, type PageArgs } from '../pagination.js';
import { parseInput, text } from '../validation.js';
import { findEmployee } from '../find-records.js';
import { domainTransaction } from '../db-errors.js';
import { lockEmployees } from './employee-lock.js';

const input = z.object({ startTime: boundedInstant, endTime: boundedInstant, reason: text(500).nullish() }).strict();

export async function createTimeOff(db: Db, opts: { companyId: string; employeeId: string; input: unknown }) {
  const employee = await findEmployee(db, opts.companyId, opts.employeeId);
  const data = parseInput(input, opts.input);
  checkRange(data.startTime, data.endTime, { fromPath: 'startTime', toPath: 'endTime', maxDays: 366 });
  return domainTransaction(db, async (tx) => {
    await lockEmployees(tx, opts.companyId, [employee.id]);
    return tx.timeOff.create({
      data: {
        id: newId(),
        companyId: opts.companyId,
        employeeId: employee.id,
        startTime: data.startTime,
        endTime: data.endTime,
        reason: data.reason ?? null,
      },
    });
  });
}

export async function listTimeOff(db: Db, opts: { companyId: string; employeeId: string; page: PageArgs }) {
  const employee = await findEmployee(db, opts.companyId, opts.employeeId);
  return paginate(opts.page, (q) =>
    db.timeOff.findMany({ ...q, where: { ...q.where, companyId: opts.companyId, employeeId: employee.id } }),
  );
}

export async function deleteTimeOff(db: Db, opts: { companyId: string; employeeId: string; timeOffId: string }) {
  const employee = await findEmployee(db, opts.companyId, opts.employeeId);
  const row = isId(opts.timeOffId)
    ? await db.timeOff.findFirst({ where: { id: opts.timeOffId, employeeId: employee.id, companyId: opts.companyId } })
    : null;
  if (!row) throw AppError.notFound('time off');
  await db.timeOff.delete({ where: { id: row.id } });
  return row;
}
