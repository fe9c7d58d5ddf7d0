// Planning and withdrawing a booking's reminders (docs/api.md, Reminders). Both run inside the
// transaction that changes the booking, called by every use case that creates a booking, moves
// it, or ends its hold on a place (create, reschedule, class session moved or cancelled, cancel,
// expire, complete, no-show): the rows exist if and only if the change does.
//
// A reminder whose due time has already passed when it is planned is recorded as `skipped`
// (reason due_time_passed), never sent late. Withdrawing only touches `scheduled` rows with one
// UPDATE: a send that claimed a row first (send-reminder.ts holds that row's lock until it
// commits) makes this UPDATE wait and then leave the row as sent; a withdrawal first makes the
// send's claim find nothing to send. So a reminder and the change that withdraws it never both win.
import { sqlRows, type Transaction, type Tx } from '../../db/databases.js';
import { Prisma, type Booking } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import { effectiveReminders } from './reminders.js';

/** A booking holds a place while pending or confirmed (docs/api.md, Booking states): only then is it reminded. */
export const holdsPlace = (b: Pick<Booking, 'status'>) => b.status === 'pending' || b.status === 'confirmed';

/** Why reminders stop being scheduled (an open list; docs/api.md, Reminders). */
export type WithdrawReason =
  'booking_cancelled' | 'booking_rescheduled' | 'booking_expired' | 'booking_completed' | 'booking_no_show';

/** A booking's reminder settings and its company's, as a caller read them (findServiceToBook). */
export interface ReminderSettings {
  reminders: unknown;
  company: { reminders: unknown };
}

/**
 * The INSERT of a booking's reminders (the service's own, else the company's): one row each, due
 * offsetMinutes before the start; one whose due time is not after `now` is recorded skipped.
 * Null when none is planned.
 */
export function reminderInsert(
  booking: Pick<Booking, 'id' | 'companyId' | 'status' | 'startTime'>,
  settings: ReminderSettings,
  now: Date,
): Prisma.Sql | null {
  if (!holdsPlace(booking)) return null;
  const reminders = effectiveReminders(settings.company.reminders, settings.reminders);
  if (!reminders.length) return null;
  const rows = reminders.map((r) => {
    const dueAt = new Date(booking.startTime.getTime() - r.offsetMinutes * 60_000);
    const late = dueAt.getTime() <= now.getTime();
    return {
      id: newId(),
      channel: r.channel,
      offsetMinutes: r.offsetMinutes,
      dueAt: dueAt.toISOString(),
      status: late ? 'skipped' : 'scheduled',
      reason: late ? 'due_time_passed' : null,
    };
  });
  // One INSERT of every row. Not Prisma's createMany: its query plan is never cached, and
  // compiling it again cost a good share of a booking's CPU (see docs/performance.md,
  // "CPU per request, issue 22 §4").
  return Prisma.sql`
    INSERT INTO notifications (id, company_id, booking_id, channel, offset_minutes, due_at, status, reason, created_at)
    SELECT r.id, ${booking.companyId}, ${booking.id}, r.channel::"ReminderChannel", r.offset_minutes, r.due_at,
           r.status::"NotificationStatus", r.reason, ${new Date()}
    FROM unnest(${rows.map((r) => r.id)}::text[], ${rows.map((r) => r.channel)}::text[],
                ${rows.map((r) => r.offsetMinutes)}::int[], ${rows.map((r) => r.dueAt)}::timestamptz[],
                ${rows.map((r) => r.status)}::text[], ${rows.map((r) => r.reason)}::text[])
           AS r(id, channel, offset_minutes, due_at, status, reason)`;
}

/** The service's and its company's reminder settings, read for a booking (in either kind of transaction). */
export async function reminderSettings(tx: Transaction, serviceId: string): Promise<ReminderSettings> {
  const [row] = await sqlRows<{ reminders: unknown; companyReminders: unknown }>(
    tx,
    Prisma.sql`
      SELECT s.reminders, c.reminders AS "companyReminders"
      FROM services s JOIN companies c ON c.id = s.company_id WHERE s.id = ${serviceId}`,
  );
  if (!row) throw AppError.notFound('service');
  return { reminders: row.reminders, company: { reminders: row.companyReminders } };
}

/** Plans the booking's reminders (reminderInsert) inside the caller's transaction; how many. */
export async function planReminders(
  tx: Tx,
  booking: Booking,
  opts: {
    now: Date;
    /** The service's and its company's reminder settings when the caller read them this request. */
    settings?: ReminderSettings;
  },
): Promise<number> {
  if (!holdsPlace(booking)) return 0;
  const settings = opts.settings ?? (await reminderSettings(tx, booking.serviceId));
  const insert = reminderInsert(booking, settings, opts.now);
  return insert ? tx.$executeRaw(insert) : 0;
}

/** Withdraws the booking's scheduled reminders (status cancelled, with the reason). */
export async function cancelReminders(tx: Tx, bookingId: string, reason: WithdrawReason): Promise<number> {
  return tx.$executeRaw`
    UPDATE notifications SET status = 'cancelled', reason = ${reason}, version = version + 1
    WHERE booking_id = ${bookingId} AND status = 'scheduled'`;
}

/** A moved booking: its scheduled reminders withdrawn and new ones planned for its new start. */
export async function replanReminders(tx: Tx, booking: Booking, opts: { now: Date }): Promise<void> {
  await cancelReminders(tx, booking.id, 'booking_rescheduled');
  await planReminders(tx, booking, opts);
}
