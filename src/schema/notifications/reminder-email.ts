// A reminder's e-mail (docs/api.md, Reminders), composed inside the transaction that claims the
// reminder (send-due-reminder.ts), so it exists exactly once: emails.notification_id is unique.
// Its Message-ID is derived from the notification, so a live e-mail sent again after a worker
// died mid-send (at-least-once over SMTP) carries the same Message-ID and a receiving system
// can tell it is the same message.
import type { Config } from '../../config.js';
import type { Notification, Prisma } from '../../generated/prisma/client.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { newId } from '../../ids.js';
import { manageUrl } from '../core/index.js';
import type { ReminderBooking } from './claim-reminder.js';
import { displayName, formatMailbox, renderEmail } from '../emails/index.js';

/** `<rem.<notification id>@<domain of the From address>>`: the same for every send of this reminder. */
export function reminderMessageId(notificationId: string, from: string): string {
  const domain = /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'bookings.localhost';
  return `<rem.${notificationId}@${domain}>`;
}

export function composeReminderEmail(o: {
  mode: Mode;
  from: string;
  config: Config;
  notification: Notification;
  booking: ReminderBooking;
  now: Date;
}): Prisma.EmailCreateManyInput {
  const { booking, notification } = o;
  const rendered = renderEmail({
    kind: 'booking_reminder',
    company: booking.company,
    customer: booking.customer,
    service: booking.service,
    employee: booking.employee,
    location: booking.location,
    booking: {
      id: booking.id,
      startTime: booking.startTime,
      endTime: booking.endTime,
      customerTimeZone: booking.customerTimeZone,
    },
    manageUrl: manageUrl(o.config, o.mode, booking),
  });
  const recipient = { name: displayName(booking.customer.name), address: booking.customer.email };
  return {
    id: newId(),
    companyId: booking.companyId,
    to: recipient.address,
    toName: recipient.name || null,
    from: o.from,
    subject: rendered.subject,
    text: rendered.text,
    html: rendered.html,
    headers: {
      From: o.from,
      // For the log only: the sender addresses recipient.address, never this string.
      To: formatMailbox(recipient),
      Subject: rendered.subject,
      Date: o.now.toUTCString(),
      'Message-ID': reminderMessageId(notification.id, o.from),
      'MIME-Version': '1.0',
      'Content-Type': 'multipart/alternative',
      'X-Booking-Id': booking.id,
      'X-Notification-Id': notification.id,
      'Auto-Submitted': 'auto-generated',
    },
    kind: 'booking_reminder',
    notificationId: notification.id,
    // Sandbox: kept in the e-mail log, not sent (docs/sandbox.md); live: sent by send-email.
    status: o.mode === 'test' ? 'logged' : 'queued',
  };
}
