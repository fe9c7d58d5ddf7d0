// The write of a new appointment (create-booking.ts, insertAppointment): its row, its
// booking.created event and its reminders in one statement, inside the caller's transaction.
// Three statements through Prisma were three round trips and a model write's mapping on every
// booking (docs/performance.md, "CPU per request, issue 22 §4"). One INSERT with two data-modifying
// WITH clauses writes the same rows: the booking's AFTER triggers (its employee block, under the
// exclusion constraint that refuses an overlap) run at the end of the statement, so a violation
// is still this statement's error and the transaction's caller maps it as before; the events
// trigger wakes the outbox as for any event.
import { sqlRows, type Transaction } from '../../db/databases.js';
import { Prisma, type Booking } from '../../generated/prisma/client.js';
import { eventInsert } from '../events/index.js';
import { reminderInsert, reminderSettings, type ReminderSettings } from '../notifications/index.js';
import { selectAs, type ModelColumn } from '../model-columns.js';
import { bookingEventData } from '../core/index.js';

/** What a new appointment's row is given; the rest takes the column's default. */
export type NewBooking = Pick<
  Booking,
  | 'id'
  | 'companyId'
  | 'serviceId'
  | 'employeeId'
  | 'customerId'
  | 'locationId'
  | 'startTime'
  | 'endTime'
  | 'blockStart'
  | 'blockEnd'
  | 'status'
  | 'holdExpiresAt'
  | 'price'
  | 'depositAmount'
  | 'currency'
  | 'notes'
  | 'customerTimeZone'
  | 'visitId'
  | 'seriesId'
> & { metadata: Prisma.InputJsonValue; answers: Prisma.InputJsonValue };

// Every column of a booking under its Prisma field name: the row comes back as the model's.
const BOOKING_COLUMNS: ReadonlyArray<ModelColumn & readonly [string, keyof Booking, string?]> = [
  ['id', 'id'],
  ['company_id', 'companyId'],
  ['service_id', 'serviceId'],
  ['employee_id', 'employeeId'],
  ['customer_id', 'customerId'],
  ['class_session_id', 'classSessionId'],
  ['location_id', 'locationId'],
  ['start_time', 'startTime'],
  ['end_time', 'endTime'],
  ['block_start', 'blockStart'],
  ['block_end', 'blockEnd'],
  ['status', 'status', 'text'],
  ['notes', 'notes'],
  ['cancel_reason', 'cancelReason'],
  ['cancelled_by', 'cancelledBy', 'text'],
  ['cancellation_fee', 'cancellationFee'],
  ['price', 'price'],
  ['deposit_amount', 'depositAmount'],
  ['currency', 'currency'],
  ['customer_time_zone', 'customerTimeZone'],
  ['visit_id', 'visitId'],
  ['series_id', 'seriesId'],
  ['hold_expires_at', 'holdExpiresAt'],
  ['waitlist_position', 'waitlistPosition'],
  ['offer_expires_at', 'offerExpiresAt'],
  ['expired_reason', 'expiredReason', 'text'],
  ['manage_link_version', 'manageLinkVersion'],
  ['calendar_sequence', 'calendarSequence'],
  ['metadata', 'metadata'],
  ['answers', 'answers'],
  ['created_at', 'createdAt'],
  ['updated_at', 'updatedAt'],
];
const RETURNING = Prisma.raw(selectAs(BOOKING_COLUMNS));

/**
 * Inserts the booking, records booking.created and plans its reminders (from `settings`, or
 * read when the caller has none), in one statement; returns the row as stored.
 */
export async function insertBookingCreated(
  tx: Transaction,
  b: NewBooking,
  opts: { now: Date; settings?: ReminderSettings },
): Promise<Booking> {
  const settings = opts.settings ?? (await reminderSettings(tx, b.serviceId));
  const now = new Date();
  // The event carries the booking as written (bookingEventData); eventInsert stores its JSON.
  const event = eventInsert({
    companyId: b.companyId,
    type: 'booking.created',
    data: bookingEventData({ ...b, classSessionId: null } as unknown as Booking),
  });
  const reminders = reminderInsert(b, settings, opts.now);
  const [row] = await sqlRows<Booking>(
    tx,
    Prisma.sql`
      WITH b AS (
        INSERT INTO bookings (id, company_id, service_id, employee_id, customer_id, location_id, start_time, end_time,
                              block_start, block_end, status, hold_expires_at, price, deposit_amount, currency, notes,
                              customer_time_zone, visit_id, series_id, metadata, answers, created_at, updated_at)
        VALUES (${b.id}, ${b.companyId}, ${b.serviceId}, ${b.employeeId}, ${b.customerId}, ${b.locationId},
                ${b.startTime}, ${b.endTime}, ${b.blockStart}, ${b.blockEnd}, ${b.status}::"BookingStatus",
                ${b.holdExpiresAt}, ${b.price}, ${b.depositAmount}, ${b.currency}, ${b.notes}, ${b.customerTimeZone},
                ${b.visitId}, ${b.seriesId}, ${JSON.stringify(b.metadata)}::jsonb, ${JSON.stringify(b.answers)}::jsonb,
                ${now}, ${now})
        RETURNING ${RETURNING}
      ),
      e AS (${event})
      ${reminders ? Prisma.sql`, n AS (${reminders})` : Prisma.empty}
      SELECT * FROM b`,
  );
  return row!;
}
