// Reminder settings in GraphQL (docs/api.md, Reminders): the company's list, a service's own list
// (null inherits the company's), and the input both take.
import type { ReminderChannel } from '../../generated/prisma/client.js';
import { builder } from '../builder.js';
import type { Reminder } from './reminders.js';

export const ReminderChannelEnum = builder.enumType('ReminderChannel', {
  description: 'How a reminder reaches the customer',
  values: {
    email: { description: 'An e-mail to the customer (logged in the sandbox, sent over SMTP when live)' },
    webhook: { description: 'A booking.reminder_due webhook event, for integrators who send their own message' },
  } satisfies Record<ReminderChannel, { description: string }>,
});

export const ReminderType = builder.objectRef<Reminder>('Reminder').implement({
  description: 'One reminder every booking gets, offsetMinutes before its start',
  fields: (t) => ({
    offsetMinutes: t.exposeInt('offsetMinutes', { description: 'Minutes before the start, 5–20160 (14 days)' }),
    channel: t.field({ type: ReminderChannelEnum, description: 'E-mail or webhook', resolve: (r) => r.channel }),
  }),
});

export const ReminderInput = builder.inputType('ReminderInput', {
  description: 'One reminder: offsetMinutes before the start, by e-mail or webhook',
  fields: (t) => ({
    offsetMinutes: t.int({ required: true, description: 'Minutes before the start, 5–20160 (14 days)' }),
    channel: t.field({ type: ReminderChannelEnum, required: true, description: 'E-mail or webhook' }),
  }),
});
