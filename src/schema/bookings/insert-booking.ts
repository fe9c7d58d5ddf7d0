// The one write of a new booking's row, appointment or class place alike: newBookingRow works
// out its columns once (the defaults of every booking, then what its kind sets), typed by the
// model's insert (src/generated/rows.ts), so a column added to bookings without a default is a
// compile error here and nowhere else; insertBooking writes it (a class place, a waitlisted
// name), insertBookingCreated writes it with its booking.created event and its reminders in one
// statement (create-booking.ts, insertAppointment). Three statements through Prisma were three
// round trips and a model write's mapping on every booking (docs/performance.md, "CPU per
// request, issue 22 §4"). One INSERT with two data-modifying WITH clauses writes the same rows:
// the booking's AFTER triggers (its employee block, under the exclusion constraint that refuses
// an overlap) run at the end of the statement, so a violation is still this statement's error
// and the transaction's caller maps it as before; the events trigger wakes the outbox as for any
// event.
import { sqlRows, type Transaction } from '../../db/databases.js';
import { Prisma, type Booking } from '../../generated/prisma/client.js';
import { BookingTable, type BookingInsert } from '../../generated/rows.js';
import { newId } from '../../ids.js';
import { eventInsert } from '../events/index.js';
import { reminderInsert, reminderSettings, type ReminderSettings } from '../notifications/index.js';
import { insertInto, returningAll } from '../model-columns.js';
import { bookingEventData } from '../core/index.js';
import { HOLD_MINUTES } from './waitlist.js';

/** What the booker says of a new booking beside its service and time: its optional fields. */
export interface BookingFields {
  notes?: string | null;
  customerTimeZone?: string | null;
  metadata?: Prisma.InputJsonValue;
  answers?: Prisma.InputJsonValue;
  /** The multi-service visit this booking is one item of (docs/api.md, Visits). */
  visitId?: string | null;
  /** The booking series this booking is one occurrence of (docs/api.md, Booking series). */
  seriesId?: string | null;
}

/** Where and when a new booking is: its employee, customer, place and times (a class place: its session's). */
export type BookingPlace = Pick<
  BookingInsert,
  'employeeId' | 'customerId' | 'classSessionId' | 'locationId' | 'startTime' | 'endTime' | 'blockStart' | 'blockEnd'
>;

/**
 * A new booking's row: pending with a payment hold when the service is paid up front, else
 * confirmed; the service's price and deposit and the company's currency fixed at booking; the
 * booker's fields; nothing cancelled, offered or waitlisted yet.
 */
export function newBookingRow(o: {
  company: { id: string; currency: string };
  service: { id: string; price: number; requiresPayment: boolean; depositAmount: number | null };
  now: Date;
  fields: BookingFields;
  place: BookingPlace;
}): BookingInsert {
  const { service, fields: f } = o;
  const written = new Date();
  return {
    id: newId(),
    companyId: o.company.id,
    serviceId: service.id,
    ...o.place,
    status: service.requiresPayment ? 'pending' : 'confirmed',
    holdExpiresAt: service.requiresPayment ? new Date(o.now.getTime() + HOLD_MINUTES * 60_000) : null,
    price: service.price,
    // A deposit applies to services paid up front (docs/api.md, Payments); fixed like the price.
    depositAmount: service.requiresPayment ? service.depositAmount : null,
    currency: o.company.currency,
    notes: f.notes ?? null,
    customerTimeZone: f.customerTimeZone ?? null,
    metadata: f.metadata ?? {},
    answers: f.answers ?? [],
    visitId: f.visitId ?? null,
    seriesId: f.seriesId ?? null,
    cancelReason: null,
    cancelledBy: null,
    cancellationFee: null,
    waitlistPosition: null,
    offerExpiresAt: null,
    expiredReason: null,
    createdAt: written,
    updatedAt: written,
  };
}

const RETURNING = returningAll(BookingTable);

/** Inserts the booking's row and returns it as stored. */
export async function insertBooking(tx: Transaction, b: BookingInsert): Promise<Booking> {
  const [row] = await sqlRows<Booking>(tx, Prisma.sql`${insertInto(BookingTable, b)} RETURNING ${RETURNING}`);
  return row!;
}

/**
 * Inserts the booking, records booking.created and plans its reminders (from `settings`, or
 * read when the caller has none), in one statement; returns the row as stored.
 */
export async function insertBookingCreated(
  tx: Transaction,
  b: BookingInsert,
  opts: { now: Date; settings?: ReminderSettings },
): Promise<Booking> {
  const settings = opts.settings ?? (await reminderSettings(tx, b.serviceId));
  // The event carries the booking as written (bookingEventData); eventInsert stores its JSON.
  const event = eventInsert({
    companyId: b.companyId,
    type: 'booking.created',
    data: bookingEventData(b as unknown as Booking),
  });
  const reminders = reminderInsert(b, settings, opts.now);
  const [row] = await sqlRows<Booking>(
    tx,
    Prisma.sql`
      WITH b AS (${insertInto(BookingTable, b)} RETURNING ${RETURNING}),
      e AS (${event})
      ${reminders ? Prisma.sql`, n AS (${reminders})` : Prisma.empty}
      SELECT * FROM b`,
  );
  return row!;
}
