// POST /booking-series (docs/api.md, Booking series): one appointment service for one customer
// at every occurrence of a recurrence rule (src/schema/recurrence: RFC 5545 RRULE, COUNT at most
// 52 or UNTIL, expanded at the wall-clock time of startTime in the series' zone, so 09:00
// stays 09:00 across daylight-saving changes). Each occurrence is an ordinary booking made by
// insertAppointment (the step POST /bookings uses), carrying the series' id.
//
// Where (docs/api.md, Booking series and Locations): a series takes place at one location, the
// `locationId` named, else the location of the working interval its startTime falls in for the
// employee who takes it (as a single booking records its location); the rule expands in that
// location's zone, and every occurrence is booked inside the employees' intervals there only.
// Without either (a company without locations, or an interval naming none) it is the company's
// zone and any interval, as before.
//
// All or none by default: every occurrence is checked outside any transaction (to pick free
// employees), then booked in one transaction under the locks of all the employees it may use
// (taken at once, in id order), where the rule is asked again; one occurrence that does not fit
// rolls everything back, and the 409 SLOT_UNAVAILABLE lists every occurrence that failed with
// the reasons of /availability/explain. With allowPartial the occurrences that fit are booked
// and the rest reported (`skipped`, kept on the series).
import { z } from 'zod';
import { inSavepoint, type Db, type Tx } from '../../db/databases.js';
import type { Booking, BookingSeries, Company, Prisma } from '../../generated/prisma/client.js';
import { AppError, isAppError } from '../../errors.js';
import { newId } from '../../ids.js';
import { domainTransaction, isExclusionViolation, isForeignKeyViolation } from '../db-errors.js';
import { boundedInstant, id } from '../domain-validation.js';
import { assessEmployees, policyFor, type Reason } from '../availability/index.js';
import { lockEmployees } from '../staff/index.js';
import { metadataInput } from '../metadata.js';
import { parseInput, text, timezone } from '../validation.js';
import { findCustomer, findEmployee, findService } from '../find-records.js';
import { createCustomerInput, findOrCreateCustomer, lockCustomer } from '../customers/index.js';
import { domainNow } from '../domain-time.js';
import { findLocation } from '../locations/index.js';
import { insertAppointment, shuffle, slotUnavailable } from '../bookings/index.js';
import { expandRecurrence, localStartOf, parseRecurrence } from '../recurrence/index.js';

/** The most occurrences one series holds (docs/api.md, Booking series). */
export const MAX_SERIES_OCCURRENCES = 52;

const input = z
  .object({
    serviceId: id,
    employeeId: id.nullish(),
    customerId: id.nullish(),
    customer: createCustomerInput.nullish(),
    startTime: boundedInstant,
    rrule: z.string({ error: 'must be an RRULE string, e.g. FREQ=WEEKLY;COUNT=8' }),
    allowPartial: z.boolean({ error: 'must be true or false' }).nullish(),
    notes: text(5000).nullish(),
    customerTimeZone: timezone.nullish(),
    metadata: metadataInput.nullish(),
    /** Where every occurrence takes place: its zone is the rule's, its intervals the only ones used. */
    locationId: id.nullish(),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (!v.customerId === !v.customer)
      ctx.addIssue({ code: 'custom', path: ['customerId'], message: 'give exactly one of customerId or customer' });
  });

/** An occurrence that could not be booked, and why (the reasons of /availability/explain). */
export interface SkippedOccurrence {
  index: number;
  startTime: string;
  reasons: Reason[];
}

export type SeriesWithBookings = BookingSeries & { bookings: Booking[] };

const reasonsOf = (err: AppError): Reason[] => (err.details as { reasons?: Reason[] } | undefined)?.reasons ?? [];

/** 409 listing every occurrence that failed; details.reasons flattened with occurrenceIndex. */
export function seriesUnavailable(failed: SkippedOccurrence[]): AppError {
  const err = slotUnavailable(
    `${failed.length} occurrence(s) of the series cannot be booked; nothing was booked`,
    failed.flatMap((f) => f.reasons.map((r) => ({ ...r, occurrenceIndex: f.index }))),
  );
  (err.details as Record<string, unknown>).occurrences = failed;
  return err;
}

/** NOT_FOUND naming the field. */
async function foundAt<T>(path: string, what: string, find: () => Promise<T>): Promise<T> {
  try {
    return await find();
  } catch (err) {
    if (isAppError(err) && err.code === 'NOT_FOUND')
      throw new AppError('NOT_FOUND', `No such ${what} (${path})`, { details: [{ path, message: `no such ${what}` }] });
    throw err;
  }
}

export async function createBookingSeries(
  db: Db,
  opts: { company: Company; input: unknown; now?: Date },
): Promise<SeriesWithBookings> {
  const data = parseInput(input, opts.input);
  const company = opts.company;
  const rule = parseRecurrence(data.rrule, { requireEnd: true, maxCount: MAX_SERIES_OCCURRENCES });
  const now = opts.now ?? (await domainNow(db, company));
  const service = await foundAt('serviceId', 'service', () => findService(db, company.id, data.serviceId));
  if (service.kind !== 'appointment')
    throw AppError.validation([{ path: 'serviceId', message: 'is a class service; a series books appointments' }]);
  if (!service.active) throw AppError.validation([{ path: 'serviceId', message: 'is deactivated' }]);
  const qualified = service.employees.map((e) => e.employeeId);
  if (data.employeeId) {
    const e = await foundAt('employeeId', 'employee', () => findEmployee(db, company.id, data.employeeId));
    if (!qualified.includes(e.id))
      throw AppError.validation([{ path: 'employeeId', message: 'does not perform this service' }]);
    if (!e.active) throw AppError.validation([{ path: 'employeeId', message: 'is deactivated' }]);
  }
  if (data.customerId) await foundAt('customerId', 'customer', () => findCustomer(db, company.id, data.customerId));
  if (data.startTime.getTime() <= now.getTime())
    throw AppError.validation([{ path: 'startTime', message: 'must be in the future' }]);
  const named = data.locationId
    ? await foundAt('locationId', 'location', () => findLocation(db, company.id, data.locationId))
    : null;

  const policy = policyFor(company, service, now.getTime());
  const pool = data.employeeId ? [data.employeeId] : qualified;
  // Where it takes place: the location named, else that of the interval startTime falls in for
  // the employee who would take it (then preferred for every occurrence).
  let preferred: string | undefined;
  let location = named;
  // A company without locations skips this: it books exactly as before.
  if (!named && (await db.location.findFirst({ where: { companyId: company.id }, select: { id: true } }))) {
    const first = await assessEmployees(db, {
      company,
      service,
      employeeIds: pool,
      start: data.startTime.getTime(),
      policy,
    });
    preferred = shuffle(first.employeeIds)[0];
    const at = preferred ? (first.locations?.get(preferred) ?? null) : null;
    location = at ? await db.location.findUnique({ where: { id: at } }) : null;
  }
  const locationId = location?.id;
  // The zone (docs/api.md, Time zones): the location's, else the company's; DTSTART is
  // startTime's local date and time there.
  const zone = location?.timeZone ?? company.timezone;
  const { occurrences } = expandRecurrence(rule, {
    zone,
    start: localStartOf(data.startTime, zone),
    limit: MAX_SERIES_OCCURRENCES + 1,
  });
  if (occurrences.length === 0) throw AppError.validation([{ path: 'rrule', message: 'yields no occurrence' }]);
  if (occurrences.length > MAX_SERIES_OCCURRENCES)
    throw AppError.validation([
      { path: 'rrule', message: `yields more than ${MAX_SERIES_OCCURRENCES} occurrences; use a nearer UNTIL` },
    ]);

  // Outside any transaction: who is free at each occurrence. The employee of the first
  // bookable occurrence is preferred for the rest, so a series keeps one person when it can.
  const plans: Array<{ index: number; start: number; free: string[] }> = [];
  const failed: SkippedOccurrence[] = [];
  for (const o of occurrences) {
    const start = o.startTime.getTime();
    const { employeeIds, reasons } = await assessEmployees(db, {
      company,
      service,
      employeeIds: pool,
      start,
      policy,
      locationId,
    });
    if (employeeIds.length === 0) {
      failed.push({ index: o.index, startTime: o.startTime.toISOString(), reasons });
      continue;
    }
    const free = shuffle(employeeIds);
    preferred ??= free[0];
    plans.push({
      index: o.index,
      start,
      free: free.includes(preferred!) ? [preferred!, ...free.filter((x) => x !== preferred)] : free,
    });
  }
  if (failed.length > 0 && !data.allowPartial) throw seriesUnavailable(failed);
  if (plans.length === 0) throw seriesUnavailable(failed);

  try {
    return await domainTransaction(db, async (tx) => {
      await lockEmployees(tx, company.id, [...new Set(plans.flatMap((p) => p.free))]);
      const customerId = data.customerId ?? (await findOrCreateCustomer(tx, company.id, data.customer)).id;
      if (data.customerId) await lockCustomer(tx, company.id, customerId, 'FOR KEY SHARE');
      const seriesId = newId();
      await tx.bookingSeries.create({
        data: {
          id: seriesId,
          companyId: company.id,
          serviceId: service.id,
          employeeId: data.employeeId ?? null,
          customerId,
          locationId: locationId ?? null,
          rrule: rule.rrule,
          timeZone: zone,
          startTime: data.startTime,
        },
      });
      const bookings: Booking[] = [];
      const skipped = [...failed];
      for (const p of plans) {
        const booked = await bookOccurrence(tx, {
          company,
          service,
          employeeIds: p.free,
          start: p.start,
          policy,
          customerId,
          now,
          locationId,
          fields: {
            notes: data.notes ?? null,
            customerTimeZone: data.customerTimeZone ?? null,
            metadata: data.metadata ?? {},
            seriesId,
          },
        });
        if (Array.isArray(booked))
          skipped.push({ index: p.index, startTime: new Date(p.start).toISOString(), reasons: booked });
        else bookings.push(booked);
      }
      skipped.sort((a, b) => a.index - b.index);
      if (skipped.length > 0 && (!data.allowPartial || bookings.length === 0)) throw seriesUnavailable(skipped);
      const series = await tx.bookingSeries.update({
        where: { id: seriesId },
        data: { skipped: skipped as unknown as Prisma.InputJsonValue },
      });
      return { ...series, bookings };
    });
  } catch (err) {
    if (isExclusionViolation(err))
      throw seriesUnavailable([
        {
          index: -1,
          startTime: data.startTime.toISOString(),
          reasons: [{ code: 'BOOKED', message: 'Another booking took one of these times' }],
        },
      ]);
    if (isForeignKeyViolation(err)) throw new AppError('NOT_FOUND', 'No such customer', { cause: err });
    throw err;
  }
}

/**
 * One occurrence under the locks: the first free employee that still fits, or the reasons none
 * does; each attempt in a savepoint, so a refused one (a busy room) leaves nothing behind.
 */
async function bookOccurrence(
  tx: Tx,
  opts: Omit<Parameters<typeof insertAppointment>[1], 'employeeId'> & { employeeIds: string[] },
): Promise<Booking | Reason[]> {
  const reasons: Reason[] = [];
  for (const employeeId of opts.employeeIds) {
    try {
      return await inSavepoint(tx, () => insertAppointment(tx, { ...opts, employeeId }));
    } catch (err) {
      if (isAppError(err) && err.code === 'SLOT_UNAVAILABLE') {
        reasons.push(...reasonsOf(err));
        continue;
      }
      if (isExclusionViolation(err)) {
        reasons.push({ code: 'BOOKED', message: 'Another booking took that time', employeeId });
        continue;
      }
      throw err;
    }
  }
  return reasons;
}
