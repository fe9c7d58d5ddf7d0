// Sending a due reminder, the domain's half (the workers' send-reminder job calls it inside one
// short transaction, and writes the e-mail in the same transaction when the claim says so).
//
// The claim is a version check in the database, never a lock held while anything is sent: one
// UPDATE takes the row from scheduled (at the version the job was made for) to sent, and only
// the transaction that did it goes on. Whatever it goes on to write (the reminder e-mail, with
// its unique notification_id, or the booking.reminder_due event) commits with the claim or not
// at all, so each reminder is recorded as sent once. A reschedule or cancel withdrawing the row
// meanwhile either committed first (the UPDATE finds it cancelled: nothing is sent) or waits on
// the row's lock until this commits (the reminder was for the time as it was until then).
//
// The booking is read after the claim, as it is committed: one that no longer holds a place or
// has moved (a path that did not withdraw its reminders) is not reminded, and one whose
// appointment has already started (the workers were down when it fell due) is recorded skipped
// rather than reminded late.
import type { Tx } from '../../db/databases.js';
import type {
  Booking,
  Company,
  Customer,
  Employee,
  Location,
  Notification,
  Service,
} from '../../generated/prisma/client.js';
import { recordBookingEvent } from '../core/index.js';
import { holdsPlace } from './plan-reminders.js';

/** After this many failed sends a reminder is recorded failed (the sweep stops retrying it). */
export const MAX_REMINDER_ATTEMPTS = 5;

export type ReminderBooking = Booking & {
  company: Company;
  customer: Customer;
  service: Service;
  employee: Employee;
  location: Location | null;
};

export type ReminderClaim =
  /** Not scheduled at that version (sent, withdrawn, or retried under a newer version), or not due yet. */
  | { outcome: 'none' }
  /** Claimed but not sent: recorded skipped or cancelled with the reason. */
  | { outcome: 'skipped' | 'cancelled'; reason: string }
  /** Claimed as sent: the caller writes the e-mail in the same transaction. */
  | { outcome: 'email'; notification: Notification; booking: ReminderBooking }
  /** Claimed as sent: the booking.reminder_due event is written. */
  | { outcome: 'webhook'; notification: Notification; eventId: string };

export async function claimDueReminder(
  tx: Tx,
  opts: { notificationId: string; version: number; now: Date },
): Promise<ReminderClaim> {
  const claimed = await tx.$queryRaw<Array<{ id: string }>>`
    UPDATE notifications
    SET status = 'sent', sent_at = ${opts.now}, version = version + 1, attempts = attempts + 1
    WHERE id = ${opts.notificationId} AND version = ${opts.version} AND status = 'scheduled'
      AND due_at <= ${opts.now}
    RETURNING id`;
  if (!claimed.length) return { outcome: 'none' };
  const notification = await tx.notification.findUniqueOrThrow({ where: { id: opts.notificationId } });
  const booking = await tx.booking.findUniqueOrThrow({
    where: { id: notification.bookingId },
    include: { company: true, customer: true, service: true, employee: true, location: true },
  });
  const plannedStart = notification.dueAt.getTime() + notification.offsetMinutes * 60_000;
  const notSent = async (status: 'skipped' | 'cancelled', reason: string): Promise<ReminderClaim> => {
    await tx.notification.update({ where: { id: notification.id }, data: { status, reason, sentAt: null } });
    return { outcome: status, reason };
  };
  if (!holdsPlace(booking)) return notSent('cancelled', `booking_${booking.status}`);
  // An erased customer has no address: a reminder planned afterwards (a move) is withdrawn.
  if (notification.channel === 'email' && booking.customer.erasedAt) return notSent('cancelled', 'customer_erased');
  if (booking.startTime.getTime() !== plannedStart) return notSent('cancelled', 'booking_rescheduled');
  if (booking.startTime.getTime() <= opts.now.getTime()) return notSent('skipped', 'appointment_started');
  if (notification.channel === 'webhook') {
    const event = await recordBookingEvent(tx, booking, 'booking.reminder_due', {
      reminderOffsetMinutes: notification.offsetMinutes,
      notificationId: notification.id,
    });
    return { outcome: 'webhook', notification, eventId: event.id };
  }
  return { outcome: 'email', notification, booking };
}

/**
 * A send that failed (its transaction rolled back, so nothing of it exists): counted, with its
 * error, under a new version so the sweep makes a new job for it; after MAX_REMINDER_ATTEMPTS
 * it is recorded failed.
 */
export async function recordReminderFailure(
  tx: Tx,
  opts: { notificationId: string; version: number; error: string },
): Promise<void> {
  await tx.$executeRaw`
    UPDATE notifications
    SET attempts = attempts + 1, last_error = ${opts.error.slice(0, 1000)}, version = version + 1,
        status = CASE WHEN attempts + 1 >= ${MAX_REMINDER_ATTEMPTS} THEN 'failed'::"NotificationStatus" ELSE status END,
        reason = CASE WHEN attempts + 1 >= ${MAX_REMINDER_ATTEMPTS} THEN 'send_failed' ELSE reason END
    WHERE id = ${opts.notificationId} AND version = ${opts.version} AND status = 'scheduled'`;
}

/**
 * Scheduled reminders due by `now` (the sweep), oldest due first. Due by the company's domain
 * time (docs/sandbox.md, Test clocks): `now` for companies on the real time, the clock's time for
 * a sandbox company attached to a test clock. Two halves, each on its own index.
 */
export async function dueReminders(
  tx: Tx,
  opts: { now: Date; olderThanMs?: number; limit: number },
): Promise<Array<{ id: string; version: number; dueAt: Date }>> {
  const olderThan = opts.olderThanMs ?? 0;
  const before = new Date(opts.now.getTime() - olderThan);
  return tx.$queryRaw<Array<{ id: string; version: number; dueAt: Date }>>`
    SELECT id, version, due_at AS "dueAt" FROM (
      (SELECT n.id, n.version, n.due_at
       FROM notifications n JOIN companies c ON c.id = n.company_id
       WHERE n.status = 'scheduled' AND n.due_at <= ${before} AND c.test_clock_id IS NULL
       ORDER BY n.due_at LIMIT ${opts.limit})
      UNION ALL
      (SELECT n.id, n.version, n.due_at
       FROM test_clocks tc JOIN companies c ON c.test_clock_id = tc.id JOIN notifications n ON n.company_id = c.id
       WHERE n.status = 'scheduled' AND n.due_at <= tc.frozen_time - make_interval(secs => ${olderThan / 1000}::double precision)
       ORDER BY n.due_at LIMIT ${opts.limit})
    ) d
    ORDER BY due_at LIMIT ${opts.limit}`;
}

/** The scheduled reminders of some bookings (the relay enqueues each as a delayed job). */
export async function scheduledRemindersOf(
  tx: Tx,
  bookingIds: string[],
): Promise<Array<{ id: string; version: number; dueAt: Date }>> {
  if (!bookingIds.length) return [];
  return tx.notification.findMany({
    where: { bookingId: { in: bookingIds }, status: 'scheduled' },
    select: { id: true, version: true, dueAt: true },
  });
}

/**
 * Why a live reminder e-mail, queued when its reminder was claimed, should no longer go out over
 * SMTP (its booking was cancelled or moved since, or its appointment has started), or null. The
 * e-mail's sender asks just before it talks to the SMTP server, so a cancel that commits while
 * the e-mail waits for its turn withdraws it too.
 */
export async function reminderWithdrawnReason(tx: Tx, opts: { notificationId: string; now: Date }) {
  const n = await tx.notification.findUnique({
    where: { id: opts.notificationId },
    include: { booking: { select: { status: true, startTime: true } } },
  });
  if (!n) return 'reminder_gone';
  if (!holdsPlace(n.booking)) return `booking_${n.booking.status}`;
  if (n.booking.startTime.getTime() !== n.dueAt.getTime() + n.offsetMinutes * 60_000) return 'booking_rescheduled';
  if (n.booking.startTime.getTime() <= opts.now.getTime()) return 'appointment_started';
  return null;
}
