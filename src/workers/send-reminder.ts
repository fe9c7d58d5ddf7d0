// Sends one due reminder (docs/api.md, Reminders): the domain's sendDueReminder, the claim (a version check, status
// scheduled → sent) and what the reminder is (its e-mail row, or the booking.reminder_due event
// the outbox relay delivers to webhook endpoints) in ONE short transaction, so a reminder is
// recorded as sent exactly once and nothing is held while a message travels. A sandbox e-mail
// is written to the log by that transaction (exactly once); a live one is queued and sent by
// send-email over SMTP after the commit (at least once, with a Message-ID derived from the
// notification). A worker killed before the commit leaves the reminder scheduled for the sweep;
// one killed after it has nothing left to do for it.
import type { Services } from '../services.js';
import { recordReminderFailure, sendDueReminder } from '../schema/notifications/index.js';
import type { JobContext } from './job-types.js';

export async function sendReminder(
  ctx: JobContext,
  p: { mode: 'live' | 'test'; notificationId: string; version: number; sweep?: number },
): Promise<void> {
  const { services } = ctx;
  const db = services.dbs.forMode(p.mode);
  let emailToSend: string | null;
  try {
    // Judged at the company's domain time: a sandbox company on a test clock gets its
    // reminders when the clock passes them (docs/sandbox.md, Test clocks), not by the wall clock.
    const sent = await db.$transaction((tx) =>
      sendDueReminder(tx, {
        notificationId: p.notificationId,
        version: p.version,
        mode: p.mode,
        config: services.config,
      }),
    );
    emailToSend = sent.emailToSend;
    const outcome = sent.outcome;
    if (outcome !== 'none')
      services.logger.debug({ mode: p.mode, notificationId: p.notificationId, outcome }, 'reminder handled');
  } catch (err) {
    // Nothing of the send exists (its transaction rolled back): count the failure on the row.
    const error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    await db.$transaction((tx) =>
      recordReminderFailure(tx, { notificationId: p.notificationId, version: p.version, error }),
    );
    services.logger.warn(
      { mode: p.mode, notificationId: p.notificationId, err: { message: error } },
      'reminder could not be sent; the sweep retries it',
    );
    return;
  }
  if (emailToSend)
    await ctx
      .enqueue('send-email', { mode: p.mode, emailId: emailToSend })
      .catch((err: Error) => logWarn(services, err));
}

const logWarn = (services: Services, err: Error) =>
  services.logger.warn({ err: { message: err.message } }, 'enqueue failed; the sweep will retry');
