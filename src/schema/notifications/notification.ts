// A booking's planned reminders in GraphQL (docs/api.md, Reminders): Booking.notifications and
// bookingNotifications(bookingId) behind GET /bookings/:id/notifications. Scope bookings:read.
import type { Notification, NotificationStatus } from '../../generated/prisma/client.js';
import { builder } from '../builder.js';
import {
  connectionType,
  ListOrderEnum,
  nodeQuery,
  orderByOf,
  resolveConnection,
  relatedQuery,
} from '../connections.js';
import { findBooking } from '../find-records.js';
import { legacyPageArgs } from '../pagination.js';
import { ReminderChannelEnum } from './reminder-type.js';
import { NodeInterface } from '../node.js';

export const NotificationStatusEnum = builder.enumType('NotificationStatus', {
  description: "A planned reminder's state; new states may be added, so treat the list as open",
  values: {
    scheduled: { description: 'Planned: the workers send it at dueAt' },
    sent: { description: 'Sent once: the e-mail written to the e-mail log or queue, or the webhook event written' },
    failed: { description: 'Sending kept failing (reason send_failed)' },
    cancelled: { description: 'Withdrawn before it was due: the booking was cancelled, moved or ended (reason)' },
    skipped: {
      description:
        'Not sent: its due time had passed when it was planned (due_time_passed), or the appointment had started by the time the workers got to it (appointment_started)',
    },
  } satisfies Record<NotificationStatus, { description: string }>,
});

export const NotificationType = builder.prismaObject('Notification', {
  interfaces: [NodeInterface],
  description: 'One planned reminder of a booking',
  fields: (t) => ({
    _id: t.exposeID('id', { description: 'The notification id' }),
    bookingId: t.exposeID('bookingId', { description: 'The booking it reminds of' }),
    channel: t.expose('channel', { type: ReminderChannelEnum, description: 'E-mail or webhook' }),
    offsetMinutes: t.exposeInt('offsetMinutes', { description: 'Minutes before the start it was planned for' }),
    dueAt: t.expose('dueAt', { type: 'DateTime', description: 'When it is (or was) due: startTime − offsetMinutes' }),
    status: t.expose('status', { type: NotificationStatusEnum, description: 'Its state' }),
    sentAt: t.expose('sentAt', { type: 'DateTime', nullable: true, description: 'When it was sent' }),
    reason: t.exposeString('reason', {
      nullable: true,
      description:
        'Why it was skipped, cancelled or failed: due_time_passed, appointment_started, booking_cancelled, booking_rescheduled, booking_expired, booking_completed, booking_no_show, send_failed (an open list)',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was planned' }),
  }),
});

export const NotificationConnection = connectionType<Notification>('Notification', NotificationType);

const read = { scope: 'bookings:read' } as const;

builder.queryFields((t) => ({
  bookingNotifications: t.connection(
    {
      type: NotificationType,
      description: "A booking's planned reminders, newest first unless ordered",
      authScopes: read,
      args: {
        bookingId: t.arg.id({ required: true, description: 'The booking id' }),
        ...legacyPageArgs(t.arg),
        orderBy: t.arg({ type: ListOrderEnum, description: 'The order (default NEWEST_FIRST)' }),
      },
      resolve: async (_r, a, ctx, info) => {
        const companyId = ctx.credential!.companyId;
        const booking = await findBooking(ctx.db, companyId, String(a.bookingId));
        const where = { companyId, bookingId: booking.id };
        const query = nodeQuery(ctx, info, 'Notification');
        return resolveConnection(
          a,
          a.orderBy,
          companyId,
          (q) => ctx.db.notification.findMany({ ...query, ...q, where: { ...q.where, ...where } }),
          () => ctx.db.notification.count({ where }),
        );
      },
    },
    NotificationConnection,
  ),
}));

builder.prismaObjectFields('Booking', (t) => ({
  notifications: t.relatedConnection(
    'notifications',
    {
      description: "The booking's planned reminders (needs bookings:read)",
      nullable: true,
      cursor: 'id',
      totalCount: true,
      authScopes: read,
      args: { orderBy: t.arg({ type: ListOrderEnum, description: 'The order (default NEWEST_FIRST)' }) },
      query: (a, ctx) => relatedQuery(a, ctx.credential!.companyId, { orderBy: orderByOf(a.orderBy) }),
    },
    NotificationConnection,
  ),
}));
