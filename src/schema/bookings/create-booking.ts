// POST /bookings (docs/api.md). Whether the employee can take the time (working hours, date
// overrides, closures, time off, classes taught, other bookings, the booking rules) is the one
// rule of src/schema/availability/refusals.ts, asked twice: once outside any transaction to pick
// the free employees, and again inside the booking's transaction under the employee's lock
// (src/schema/staff/employee-lock.ts), so a closure, time off, override or booking committed
// meanwhile is seen, and the daily limit is counted where no concurrent booking can slip past it. The database has the last
// word on what concurrency can break between bookings:
// the `employee_blocks_no_overlap` exclusion constraint (an employee's live appointment blocks,
// buffers included, and the class sessions they teach never overlap) and the
// `class_sessions_capacity` CHECK on the one UPDATE that takes a place. Their violations
// become SLOT_UNAVAILABLE / CLASS_FULL, never a 500. The rooms and equipment a service requires
// are held by src/schema/resources/resource-holds.ts right after the booking's row, in its
// transaction (`resource_holds_no_overlap`; a lost race is RESOURCE_BUSY).
import { randomInt } from 'node:crypto';
import { z } from 'zod';
import type { Db, Transaction } from '../../db/databases.js';
import type { Booking, ClassSession, Company } from '../../generated/prisma/client.js';
import { AppError, isAppError } from '../../errors.js';
import { recordBookingEvent, findClosureOver } from '../core/index.js';
import { insertBooking, insertBookingCreated, newBookingRow, type BookingFields } from './insert-booking.js';
import { planReminders } from '../notifications/index.js';
import {
  domainSqlTransaction,
  domainTransaction,
  isCheckViolation,
  isExclusionViolation,
  isForeignKeyViolation,
} from '../db-errors.js';
import { boundedInstant, id } from '../domain-validation.js';
import {
  reasonFor,
  type Policy,
  type Reason,
  type ServiceTiming,
  assessEmployees,
  needsOf,
  policyFor,
} from '../availability/index.js';
import { lockCustomerAndEmployees, lockEmployees, lockEmployeesReading, type LockedEmployee } from '../staff/index.js';
import { metadataInput } from '../metadata.js';
import {
  answersInput,
  judgeAnswers,
  storedQuestions,
  storedWaitlist,
  waitlistOpen,
  type WaitlistConfig,
} from '../services/index.js';
import { parseInput, text, timezone } from '../validation.js';
import { findClassSession, findEmployee, findServiceToBook } from '../find-records.js';
import { createCustomerInput, findOrCreateCustomer, lockCustomer, lockedCustomer } from '../customers/index.js';
import { domainNow } from '../domain-time.js';
import { holdResources, type ResourceNeeds } from '../resources/index.js';
import { lockClassSession, spotsLeft, waitlistCutoff } from './waitlist.js';

const input = z
  .object({
    serviceId: id,
    startTime: boundedInstant.nullish(),
    employeeId: id.nullish(),
    classId: id.nullish(),
    customerId: id.nullish(),
    customer: createCustomerInput.nullish(),
    notes: text(5000).nullish(),
    customerTimeZone: timezone.nullish(),
    metadata: metadataInput.nullish(),
    /** A business's walk-in: minimum notice, maximum advance, slot interval and daily limit waived. */
    skipRules: z.boolean({ error: 'must be true or false' }).nullish(),
    answers: answersInput.nullish(),
    /** A full class's waitlist: join it instead of a 409 CLASS_FULL (docs/api.md, Class waitlists). */
    waitlist: z.boolean({ error: 'must be true or false' }).nullish(),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (!v.customerId === !v.customer)
      ctx.addIssue({ code: 'custom', path: ['customerId'], message: 'give exactly one of customerId or customer' });
    if (v.waitlist && !v.classId)
      ctx.addIssue({ code: 'custom', path: ['waitlist'], message: 'is only for a class session (classId)' });
  });
type Input = z.output<typeof input>;

export const slotUnavailable = (
  message = 'The employee is booked, off, or outside working hours at that time',
  reasons: Reason[] = [],
) => new AppError('SLOT_UNAVAILABLE', message, reasons.length > 0 ? { details: { reasons } } : undefined);

/**
 * 409 CLASS_FULL: no place left. details.waitlist says whether the class's waitlist can be
 * joined (POST /bookings with waitlist: true) or why not (details.reason WAITLIST_FULL or
 * WAITLIST_CLOSED, docs/api.md, Class waitlists).
 */
function classFull(
  session: Pick<ClassSession, 'id' | 'capacity' | 'employeeId' | 'waitlistCount' | 'startTime'>,
  waitlist: WaitlistConfig | null,
  now: Date,
): AppError {
  const open = waitlistOpen(waitlist);
  const full = open && session.waitlistCount >= waitlist.maxSize;
  const closed = open && now.getTime() >= waitlistCutoff(session, waitlist).getTime();
  const reason = !open ? null : full ? 'WAITLIST_FULL' : closed ? 'WAITLIST_CLOSED' : null;
  const message = !open
    ? 'No places left in this class session'
    : reason === 'WAITLIST_FULL'
      ? 'No places left in this class session, and its waitlist is full'
      : reason === 'WAITLIST_CLOSED'
        ? 'No places left in this class session, and its waitlist closed at its cut-off before the start'
        : 'No places left in this class session; join its waitlist with waitlist: true';
  return new AppError('CLASS_FULL', message, {
    details: {
      classId: session.id,
      capacity: session.capacity,
      ...(reason ? { reason } : {}),
      waitlist: open
        ? { available: reason === null, waitlistCount: session.waitlistCount, maxSize: waitlist.maxSize }
        : { available: false },
      reasons: [reasonFor.classFull(session)],
    },
  });
}

/** Whether a full class's line takes a new name now: open, not full, before its cut-off. */
const waitlistJoinable = (
  s: Pick<ClassSession, 'waitlistCount' | 'startTime'>,
  w: WaitlistConfig | null,
  now: Date,
): w is WaitlistConfig =>
  waitlistOpen(w) && s.waitlistCount < w.maxSize && now.getTime() < waitlistCutoff(s, w).getTime();

const reasonsOf = (err: AppError): Reason[] => (err.details as { reasons?: Reason[] } | undefined)?.reasons ?? [];

/**
 * Inside a booking's transaction: takes the employee's lock, then asks the rule of `start`
 * against their schedule as committed now (hours, overrides, closures, time off, classes, other
 * bookings, the rules: the daily limit counted under the lock). Throws SLOT_UNAVAILABLE with
 * the rule's reasons when it no longer fits.
 */
export async function checkEmployeeLocked(
  tx: Transaction,
  opts: {
    company: Company;
    service: ServiceTiming & { id: string } & Partial<ResourceNeeds>;
    employeeId: string;
    start: number;
    policy: Policy;
    ignoreBookingId?: string | string[];
    /** Only working intervals at this location count (a booking series at one site). */
    locationId?: string;
    /** A customer to lock first, in the same statement (lockCustomer's FOR KEY SHARE and its answers). */
    lockCustomerId?: string;
  },
): Promise<string | null> {
  let rows: LockedEmployee[];
  if (opts.lockCustomerId) {
    const locked = await lockCustomerAndEmployees(tx, opts.company.id, opts.lockCustomerId, [opts.employeeId]);
    lockedCustomer(locked.customer);
    rows = locked.employees;
  } else rows = await lockEmployeesReading(tx, opts.company.id, [opts.employeeId]);
  const { employeeIds, reasons, locations } = await assessEmployees(tx, {
    ...opts,
    employeeIds: [opts.employeeId],
    rows,
  });
  if (employeeIds.length === 0) throw slotUnavailable(refusalMessage(reasons, true), reasons);
  // Where the employee works then (docs/api.md, Locations): null for a company without locations.
  return locations?.get(opts.employeeId) ?? null;
}

// The customer named by customerId was deleted after it was looked up (employees and services
// are deactivated, never deleted): the booking's insert failed on its foreign key.
const customerGone = (cause: unknown) => new AppError('NOT_FOUND', 'No such customer', { cause });

/** Shuffled, so concurrent requests without an employee spread over the free ones. */
export function shuffle<T>(list: T[]): T[] {
  const a = [...list];
  for (let i = a.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

async function customerFor(tx: Transaction, companyId: string, data: Input) {
  if (data.customerId) {
    await lockCustomer(tx, companyId, data.customerId, 'FOR KEY SHARE');
    return data.customerId;
  }
  return (await findOrCreateCustomer(tx, companyId, data.customer)).id;
}

export async function createBooking(db: Db, opts: { company: Company; input: unknown; now?: Date }): Promise<Booking> {
  const data = parseInput(input, opts.input);
  const companyId = opts.company.id;
  const now = opts.now ?? (await domainNow(db, opts.company));
  const service = await findServiceToBook(db, companyId, data.serviceId, data.customerId);
  if (!service.active) throw AppError.validation([{ path: 'serviceId', message: 'is deactivated' }]);
  const answers = judgeAnswers(storedQuestions(service.questions), data.answers);
  if (data.customerId && !service.customerFound) throw AppError.notFound('customer');
  // What the booker says, the same for a class place and an appointment (newBookingRow).
  const fields: BookingFields = {
    notes: data.notes ?? null,
    customerTimeZone: data.customerTimeZone ?? null,
    metadata: data.metadata ?? {},
    answers,
  };

  if (service.kind === 'class') {
    if (!data.classId) throw AppError.validation([{ path: 'classId', message: 'is required to book a class service' }]);
    const session = await findClassSession(db, companyId, data.classId);
    if (session.serviceId !== service.id)
      throw AppError.validation([{ path: 'classId', message: 'is a session of another service' }]);
    if (data.startTime && data.startTime.getTime() !== session.startTime.getTime())
      throw AppError.validation([{ path: 'startTime', message: "must be the session's startTime, or left out" }]);
    if (data.employeeId && data.employeeId !== session.employeeId)
      throw AppError.validation([{ path: 'employeeId', message: "must be the session's instructor, or left out" }]);
    if (session.status !== 'scheduled')
      throw slotUnavailable('The class session is cancelled', [reasonFor.noSession()]);
    if (session.startTime.getTime() <= now.getTime())
      throw slotUnavailable('The class session has already started', [reasonFor.passed()]);
    const waitlist = storedWaitlist(service.waitlist);
    try {
      return await domainTransaction(db, async (tx) => {
        // Under the instructor's lock, a closure committed first is seen (and one committed
        // later sees this place: it cancels or refuses over it).
        await lockEmployees(tx, companyId, [session.employeeId]);
        if (
          await findClosureOver(tx, {
            companyId,
            employeeId: session.employeeId,
            start: session.startTime,
            end: session.endTime,
          })
        )
          throw slotUnavailable('The business is closed at that time', [
            { code: 'CLOSURE', message: 'The business is closed at that time', employeeId: session.employeeId },
          ]);
        // Under the session's lock (waitlist.ts), its places and line as committed now. The
        // CHECK on bookedCount + offeredCount <= capacity stays the last word on the places.
        const current = await lockClassSession(tx, session.id);
        if (current.status !== 'scheduled' || current.startTime.getTime() <= now.getTime())
          throw slotUnavailable('The class session is cancelled or has started', [
            current.startTime.getTime() <= now.getTime() ? reasonFor.passed() : reasonFor.noSession(),
          ]);
        const free = spotsLeft(current) > 0;
        if (!free && !data.waitlist) throw classFull(current, waitlist, now);
        if (!free && !waitlistJoinable(current, waitlist, now)) throw classFull(current, waitlist, now);
        const customerId = await customerFor(tx, companyId, data);
        const place = newBookingRow({
          company: opts.company,
          service,
          now,
          fields,
          place: {
            customerId,
            employeeId: session.employeeId,
            classSessionId: session.id,
            // Where the class takes place (docs/api.md, Locations).
            locationId: session.locationId,
            startTime: session.startTime,
            endTime: session.endTime,
            blockStart: session.startTime,
            blockEnd: session.endTime,
          },
        });
        if (!free) {
          // The class is full: the customer joins the end of its line, holding nothing.
          const position = current.waitlistCount + 1;
          await tx.classSession.update({ where: { id: session.id }, data: { waitlistCount: { increment: 1 } } });
          const booking = await insertBooking(tx, {
            ...place,
            status: 'waitlisted',
            holdExpiresAt: null,
            waitlistPosition: position,
          });
          await recordBookingEvent(tx, booking, 'booking.waitlisted', { waitlistPosition: position });
          return booking;
        }
        await tx.classSession.update({ where: { id: session.id }, data: { bookedCount: { increment: 1 } } });
        const booking = await insertBooking(tx, place);
        await recordBookingEvent(tx, booking, 'booking.created');
        await planReminders(tx, booking, { now, settings: service });
        return booking;
      });
    } catch (err) {
      if (isCheckViolation(err)) throw classFull(session, waitlist, now);
      if (isExclusionViolation(err))
        throw new AppError('CONFLICT', 'This customer already holds a place in this class session or waits for one', {
          details: { classId: session.id },
        });
      if (isForeignKeyViolation(err)) throw customerGone(err);
      throw err;
    }
  }

  if (data.classId) throw AppError.validation([{ path: 'classId', message: 'is only for class services' }]);
  if (!data.startTime) throw AppError.validation([{ path: 'startTime', message: 'is required' }]);
  const start = data.startTime.getTime();
  if (start <= now.getTime()) throw AppError.validation([{ path: 'startTime', message: 'must be in the future' }]);

  const policy = policyFor(opts.company, service, now.getTime(), data.skipRules ?? false);
  const candidates = await freeEmployees(db, {
    company: opts.company,
    service,
    employeeId: data.employeeId ?? undefined,
    start,
    policy,
  });
  const reasons: Reason[] = [];
  for (const employeeId of candidates) {
    try {
      // Every step of an appointment's transaction is SQL: it runs past Prisma (db-errors.ts).
      return await domainSqlTransaction(db, async (tx) => {
        // A customer given by id is locked with the employee, in one statement; a new one is
        // written (or found and locked) first.
        const customerId = data.customerId ?? (await findOrCreateCustomer(tx, companyId, data.customer)).id;
        return await insertAppointment(tx, {
          company: opts.company,
          service,
          employeeId,
          start,
          policy,
          customerId,
          lockCustomer: !!data.customerId,
          now,
          fields,
        });
      });
    } catch (err) {
      // Another request took this employee's time first, or a closure, time off or override
      // committed meanwhile: try the next free one.
      if (isExclusionViolation(err)) continue;
      if (isAppError(err) && err.code === 'SLOT_UNAVAILABLE') {
        reasons.push(...reasonsOf(err));
        // A busy room is busy whoever performs the service: no other employee would help.
        if (reasonsOf(err).some((r) => r.code === 'RESOURCE_BUSY')) break;
        continue;
      }
      if (isForeignKeyViolation(err)) throw customerGone(err);
      throw err;
    }
  }
  throw slotUnavailable(refusalMessage(reasons, !!data.employeeId), reasons);
}

/** The message of a refused time: a busy resource when that is all that stands in the way. */
export function refusalMessage(reasons: Reason[], named: boolean): string | undefined {
  if (reasons.length > 0 && reasons.every((r) => r.code === 'RESOURCE_BUSY'))
    return 'A room or piece of equipment the service requires is busy at that time';
  return named ? undefined : 'No qualified employee is free at that time';
}

/**
 * The one step that books an appointment inside a caller's transaction, shared by POST
 * /bookings, visits and booking series: under the employee's lock it asks the availability rule
 * again (checkEmployeeLocked), inserts the booking (pending with a payment
 * hold when the service requires payment, else confirmed), records booking.created and plans
 * the reminders. The exclusion constraint still has the last word: a concurrent overlap
 * surfaces as its violation, which the caller maps (SLOT_UNAVAILABLE).
 */
export async function insertAppointment(
  tx: Transaction,
  opts: {
    company: Company;
    service: ServiceTiming & {
      id: string;
      price: number;
      requiresPayment: boolean;
      depositAmount: number | null;
      /** With its company's, when the caller read them (findServiceToBook): not read again. */
      reminders?: unknown;
      company?: { reminders: unknown };
    } & Partial<ResourceNeeds>;
    employeeId: string;
    start: number;
    policy: Policy;
    customerId: string;
    now: Date;
    fields?: BookingFields;
    /** Book only inside the employee's working intervals at this location (docs/api.md, Booking series). */
    locationId?: string;
    /** Lock the customer (lockCustomer, FOR KEY SHARE) with the employee; else the caller has. */
    lockCustomer?: boolean;
  },
): Promise<Booking & { resourceHolds: Array<{ resourceId: string }> }> {
  const { company, service, employeeId, start, now } = opts;
  const locationId = await checkEmployeeLocked(tx, {
    company,
    service,
    employeeId,
    start,
    policy: opts.policy,
    locationId: opts.locationId,
    ...(opts.lockCustomer ? { lockCustomerId: opts.customerId } : {}),
  });
  const end = start + service.durationMinutes * 60_000;
  // The row, its booking.created event and its reminders: one statement (insert-booking.ts).
  const settings = service.company && { reminders: service.reminders, company: service.company };
  const booking = await insertBookingCreated(
    tx,
    newBookingRow({
      company,
      service,
      now,
      fields: opts.fields ?? {},
      place: {
        locationId,
        customerId: opts.customerId,
        employeeId,
        classSessionId: null,
        startTime: new Date(start),
        endTime: new Date(end),
        blockStart: new Date(start - service.bufferBeforeMinutes * 60_000),
        blockEnd: new Date(end + service.bufferAfterMinutes * 60_000),
      },
    }),
    { now, ...(settings ? { settings } : {}) },
  );
  // The rooms and equipment the service requires, held for the same block (src/schema/resources/).
  const held = await holdResources(tx, {
    companyId: company.id,
    zone: company.timezone,
    needs: needsOf(service),
    owner: { bookingId: booking.id },
    start: booking.startTime,
    end: booking.endTime,
    blockStart: booking.blockStart,
    blockEnd: booking.blockEnd,
    locationId,
  });
  // With what it holds, in the order of the booking's resourceIds (so the answer need not read them).
  return { ...booking, resourceHolds: held.sort().map((resourceId) => ({ resourceId })) };
}

/**
 * The employees (a named one, or every qualified one, shuffled) the rule lets take `start`;
 * none: SLOT_UNAVAILABLE with the rule's reasons, those /availability/explain gives.
 */
export async function freeEmployees(
  db: Db,
  opts: {
    company: Company;
    service: ServiceTiming & {
      id: string;
      employees: Array<{ employeeId: string }>;
      /** Its staff's rows, when the caller read them with it (findServiceToBook): not read again. */
      staff?: Array<{ id: string; active: boolean; workingHours: unknown }>;
    } & Partial<ResourceNeeds>;
    employeeId?: string;
    start: number;
    policy: Policy;
    ignoreBookingId?: string;
    prefer?: string;
    /** Only working intervals at this location count (an occurrence of a series at one site). */
    locationId?: string;
  },
): Promise<string[]> {
  const qualified = opts.service.employees.map((e) => e.employeeId);
  const { staff } = opts.service;
  if (opts.employeeId) {
    const named = opts.employeeId;
    const e = staff?.find((x) => x.id === named) ?? (await findEmployee(db, opts.company.id, named));
    if (!qualified.includes(e.id))
      throw AppError.validation([{ path: 'employeeId', message: 'does not perform this service' }]);
    if (!e.active) throw AppError.validation([{ path: 'employeeId', message: 'is deactivated' }]);
  }
  const { employeeIds, reasons } = await assessEmployees(db, {
    company: opts.company,
    service: opts.service,
    employeeIds: opts.employeeId ? [opts.employeeId] : qualified,
    start: opts.start,
    policy: opts.policy,
    ignoreBookingId: opts.ignoreBookingId,
    locationId: opts.locationId,
    ...(staff ? { rows: staff } : {}),
  });
  if (employeeIds.length === 0) throw slotUnavailable(refusalMessage(reasons, !!opts.employeeId), reasons);
  const free = shuffle(employeeIds);
  if (opts.prefer && free.includes(opts.prefer)) return [opts.prefer, ...free.filter((x) => x !== opts.prefer)];
  return free;
}
