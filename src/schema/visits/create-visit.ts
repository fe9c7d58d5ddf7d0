// POST /visits (docs/api.md, Visits): several services for one customer, back to back, booked
// all or none. Each item is an ordinary booking (insertAppointment, the step POST /bookings
// uses) carrying the visit's id, so every booking field, event, webhook and reminder keeps its
// shape. Item k+1 starts where item k's time ends: its end, plus its buffer after and the next
// service's buffer before, so one employee can take consecutive items without their blocks
// overlapping. The employees of every item are checked first outside any transaction (to pick
// the free ones), then again inside one transaction under all their locks, taken at once in id
// order (src/schema/staff/employee-lock.ts), so two visits never wait on each other in a cycle;
// the `employee_blocks_no_overlap` exclusion constraint keeps the last word. Any item that no
// longer fits rolls the whole transaction back: SLOT_UNAVAILABLE whose details.reasons carry
// the item's index (itemIndex) and the employee.
import { z } from 'zod';
import { inSavepoint, type Db, type Tx } from '../../db/databases.js';
import type { Booking, Company, Visit } from '../../generated/prisma/client.js';
import { AppError, isAppError } from '../../errors.js';
import { newId } from '../../ids.js';
import { domainTransaction, isExclusionViolation, isForeignKeyViolation } from '../db-errors.js';
import { boundedInstant, id } from '../domain-validation.js';
import {
  assessEmployees,
  policyFor,
  type Policy,
  type Reason,
  foundAt,
  laterItemPolicy,
  loadVisitServices,
  MAX_VISIT_ITEMS,
  sequenceStarts,
  type VisitService,
} from '../availability/index.js';
import { lockEmployees } from '../staff/index.js';
import { metadataInput } from '../metadata.js';
import { parseInput, text, timezone } from '../validation.js';
import { findCustomer } from '../find-records.js';
import { createCustomerInput, findOrCreateCustomer, lockCustomer } from '../customers/index.js';
import { domainNow } from '../domain-time.js';
import { insertAppointment, shuffle, slotUnavailable } from '../bookings/index.js';

const item = z.object({ serviceId: id, employeeId: id.nullish() }).strict();

const input = z
  .object({
    items: z
      .array(item, { error: 'must be a list of { serviceId, employeeId? }' })
      .min(1, 'must hold at least one service')
      .max(MAX_VISIT_ITEMS, `must hold at most ${MAX_VISIT_ITEMS} services`),
    startTime: boundedInstant,
    customerId: id.nullish(),
    customer: createCustomerInput.nullish(),
    notes: text(5000).nullish(),
    customerTimeZone: timezone.nullish(),
    metadata: metadataInput.nullish(),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (!v.customerId === !v.customer)
      ctx.addIssue({ code: 'custom', path: ['customerId'], message: 'give exactly one of customerId or customer' });
  });

export type VisitWithBookings = Visit & { bookings: Booking[] };

/** A refusal's reason, with the visit item it concerns (absent: the item is not known). */
export type ItemReason = Reason & { itemIndex?: number };

/** One item of a visit: its service, the employee named for it, its start and its policy. */
export interface PlannedItem {
  index: number;
  service: VisitService;
  employeeId?: string;
  start: number;
  policy: Policy;
}

const withItem = (reasons: Reason[], itemIndex: number): ItemReason[] => reasons.map((r) => ({ ...r, itemIndex }));

const reasonsOf = (err: AppError): Reason[] => (err.details as { reasons?: Reason[] } | undefined)?.reasons ?? [];

/**
 * The employees free for each item outside any transaction (the named one, or the qualified
 * ones shuffled so concurrent visits spread over them); none for some item: SLOT_UNAVAILABLE
 * with every item's reasons.
 */
async function freeForEach(db: Db, company: Company, items: PlannedItem[]): Promise<string[][]> {
  const reasons: ItemReason[] = [];
  const free: string[][] = [];
  for (const it of items) {
    const { employeeIds, reasons: why } = await assessEmployees(db, {
      company,
      service: it.service,
      employeeIds: it.employeeId ? [it.employeeId] : it.service.employees.map((e) => e.employeeId),
      start: it.start,
      policy: it.policy,
    });
    if (employeeIds.length === 0) reasons.push(...withItem(why, it.index));
    free.push(shuffle(employeeIds));
  }
  if (reasons.length > 0) throw visitUnavailable(reasons);
  return free;
}

export const visitUnavailable = (reasons: ItemReason[]) => {
  const first = reasons[0]?.itemIndex;
  return slotUnavailable(
    first === undefined
      ? 'The visit does not fit at that time'
      : `The visit does not fit at that time: item ${first} cannot be booked`,
    reasons,
  );
};

export async function createVisit(
  db: Db,
  opts: { company: Company; input: unknown; now?: Date },
): Promise<VisitWithBookings> {
  const data = parseInput(input, opts.input);
  const company = opts.company;
  const now = opts.now ?? (await domainNow(db, company));
  const loaded = await loadVisitServices(db, company.id, data.items);
  if (data.customerId) await foundAt('customerId', 'customer', () => findCustomer(db, company.id, data.customerId));
  const start = data.startTime.getTime();
  if (start <= now.getTime()) throw AppError.validation([{ path: 'startTime', message: 'must be in the future' }]);
  const starts = sequenceStarts(
    loaded.map((l) => l.service),
    start,
  );
  const items: PlannedItem[] = loaded.map((l, index) => ({
    index,
    service: l.service,
    employeeId: l.employeeId,
    start: starts[index]!,
    policy:
      index === 0
        ? policyFor(company, l.service, now.getTime())
        : laterItemPolicy(policyFor(company, l.service, now.getTime())),
  }));
  const last = items[items.length - 1]!;
  const end = last.start + last.service.durationMinutes * 60_000;
  const candidates = await freeForEach(db, company, items);
  try {
    return await domainTransaction(db, async (tx) => {
      // Every candidate of every item at once, in id order: no cycle with another visit.
      await lockEmployees(tx, company.id, candidates.flat());
      const customerId = data.customerId ?? (await findOrCreateCustomer(tx, company.id, data.customer)).id;
      if (data.customerId) await lockCustomer(tx, company.id, customerId, 'FOR KEY SHARE');
      const visit = await tx.visit.create({
        data: { id: newId(), companyId: company.id, customerId, startTime: new Date(start), endTime: new Date(end) },
      });
      const bookings: Booking[] = [];
      for (const it of items) {
        bookings.push(
          await bookItem(tx, {
            company,
            item: it,
            employeeIds: candidates[it.index]!,
            customerId,
            now,
            fields: {
              notes: data.notes ?? null,
              customerTimeZone: data.customerTimeZone ?? null,
              metadata: data.metadata ?? {},
              visitId: visit.id,
            },
          }),
        );
      }
      return { ...visit, bookings };
    });
  } catch (err) {
    // An overlap committed by a write that took no lock: the constraint refused it.
    if (isExclusionViolation(err))
      throw visitUnavailable([{ code: 'BOOKED', message: 'Another booking took that time' }]);
    if (isForeignKeyViolation(err)) throw new AppError('NOT_FOUND', 'No such customer', { cause: err });
    throw err;
  }
}

/**
 * One item inside the visit's transaction: the first of its free employees that still fits
 * under the lock; each attempt runs in a savepoint (inSavepoint), so a refusal after the row was
 * written (a busy room) leaves nothing behind and the next may be tried; none: SLOT_UNAVAILABLE
 * naming the item, which rolls the visit back.
 */
async function bookItem(
  tx: Tx,
  opts: {
    company: Company;
    item: PlannedItem;
    employeeIds: string[];
    customerId: string;
    now: Date;
    fields: Parameters<typeof insertAppointment>[1]['fields'];
  },
): Promise<Booking> {
  const reasons: ItemReason[] = [];
  for (const employeeId of opts.employeeIds) {
    try {
      return await inSavepoint(tx, () =>
        insertAppointment(tx, {
          company: opts.company,
          service: opts.item.service,
          employeeId,
          start: opts.item.start,
          policy: opts.item.policy,
          customerId: opts.customerId,
          now: opts.now,
          fields: opts.fields,
        }),
      );
    } catch (err) {
      if (isAppError(err) && err.code === 'SLOT_UNAVAILABLE') {
        reasons.push(...withItem(reasonsOf(err), opts.item.index));
        continue;
      }
      if (isExclusionViolation(err)) {
        reasons.push({
          code: 'BOOKED',
          message: 'Another booking took that time',
          employeeId,
          itemIndex: opts.item.index,
        });
        continue;
      }
      throw err;
    }
  }
  throw visitUnavailable(reasons);
}
