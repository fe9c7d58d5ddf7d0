// Sending one due reminder (docs/api.md, Reminders), in the caller's one short transaction: the
// claim (claim-reminder.ts) and what the reminder is (its e-mail row, or the booking.reminder_due
// event the claim writes). The workers' send-reminder job calls it, and so does a test clock's
// advance (docs/sandbox.md, Test clocks), each reminder at the clock time it fell due.
import type { Tx } from '../../db/databases.js';
import type { Config } from '../../config.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { domainNow } from '../domain-time.js';
import { claimDueReminder, type ReminderClaim } from './claim-reminder.js';
import { composeReminderEmail } from './reminder-email.js';

export async function sendDueReminder(
  tx: Tx,
  opts: {
    notificationId: string;
    version: number;
    mode: Mode;
    config: Config;
    /** The domain time it is judged at; unset: the company's (its test clock's, or the real time). */
    now?: Date;
  },
): Promise<{ outcome: ReminderClaim['outcome']; emailToSend: string | null }> {
  let now = opts.now;
  if (!now) {
    const n = await tx.notification.findUnique({ where: { id: opts.notificationId }, select: { companyId: true } });
    if (!n) return { outcome: 'none', emailToSend: null };
    now = await domainNow(tx, n.companyId);
  }
  const claim = await claimDueReminder(tx, { notificationId: opts.notificationId, version: opts.version, now });
  if (claim.outcome !== 'email') return { outcome: claim.outcome, emailToSend: null };
  const email = composeReminderEmail({
    mode: opts.mode,
    from: opts.config.EMAIL_FROM,
    config: opts.config,
    notification: claim.notification,
    booking: claim.booking,
    // The e-mail's Date header is a record of when it was written: the real time.
    now: new Date(),
  });
  await tx.email.create({ data: email });
  return { outcome: 'email', emailToSend: email.status === 'queued' ? email.id : null };
}
