// The event types (docs/webhooks.md, Events): what the outbox records, webhooks deliver, the
// events stream carries and `svc listen` / `svc trigger` name. An open list for clients.
export const EVENT_TYPES = [
  'booking.created',
  'booking.confirmed',
  'booking.rescheduled',
  'booking.cancelled',
  'booking.completed',
  'booking.no_show',
  'booking.expired',
  'booking.updated',
  'booking.reminder_due',
  'booking.waitlisted',
  'booking.offered',
  'booking.offer_expired',
  'payment.succeeded',
  'payment.failed',
  'payment.refunded',
  'payment.updated',
  'customer.created',
  'customer.updated',
  'customer.erased',
  'class.cancelled',
  'ping',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/**
 * The events the outbox relay fans out to subscribed endpoints. A `ping` is not one: it is
 * meant for the one endpoint whose test button made it, so sendTestWebhook writes it already
 * dispatched, together with its delivery.
 */
export type OutboxEventType = Exclude<EventType, 'ping'>;

/** Every type but `ping`: what a company's events stream carries. */
export const OUTBOX_EVENT_TYPES = EVENT_TYPES.filter((t): t is OutboxEventType => t !== 'ping');
