// Notifications: the reminders planned for each booking, and their sending.
// The public face of this subject: transports import it from here, never a file inside.
// Its GraphQL type (notification.ts) is registered by src/schema/index.ts.
export * from './claim-reminder.js';
export * from './plan-reminders.js';
export * from './reminders.js';
export * from './list-notifications.js';
export * from './send-due-reminder.js';
export { ReminderInput, ReminderType } from './reminder-type.js';
export { NotificationType } from './notification.js';
