// The OpenAPI document's `webhooks` (docs/webhooks.md): one entry per event type, the headers
// every delivery carries (both signature schemes, src/webhooks/signature.ts) and the body
// `{ event, timestamp, data }` with the `data` each event really carries (the use cases'
// booking-events.ts, manage-customers.ts, erase-customer.ts, refund-payment.ts, manage-class-sessions.ts and
// send-test-webhook.ts). test/http/openapi-examples.test.ts checks real deliveries against them.
import { Type, type TSchema } from '@sinclair/typebox';
import type { OpenAPIV3_1 } from 'openapi-types';
import { EVENT_TYPES, type EventType } from '../schema/events/index.js';

const Id = Type.String({ pattern: '^[0-9a-f]{24}$' });
const Timestamp = Type.String({ format: 'date-time', description: 'UTC, e.g. 2026-03-31T08:00:00.000Z' });
const Metadata = Type.Record(Type.String(), Type.String(), { description: "The record's metadata after the change" });
const Actor = Type.Union([Type.Literal('business'), Type.Literal('customer')]);
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

const STATUSES = ['pending', 'confirmed', 'cancelled', 'completed', 'no_show', 'expired', 'waitlisted', 'offered'];
const Status = Type.Union(
  STATUSES.map((s) => Type.Literal(s)),
  { description: 'A booking status (an open set)' },
);

const booking = {
  bookingId: Id,
  customerId: Id,
  serviceId: Id,
  employeeId: Id,
  startTime: Timestamp,
  endTime: Timestamp,
  status: { ...Status, description: "The booking's status after the change (an open set)" },
  classId: Type.Optional({ ...Id, description: 'Class bookings only' }),
  visitId: Type.Optional({ ...Id, description: 'Items of a multi-service visit only' }),
  seriesId: Type.Optional({ ...Id, description: 'Occurrences of a booking series only' }),
  locationId: Type.Optional({ ...Id, description: 'Where it takes place, for a company with locations only' }),
  metadata: Metadata,
  answers: Type.Array(
    Type.Object({
      questionId: Type.String(),
      label: Type.String(),
      type: Type.String(),
      value: Type.Union([Type.String(), Type.Boolean(), Type.Array(Type.String())]),
    }),
    { description: "Answers to the service's questions" },
  ),
};

const BookingData = Type.Object(booking, { title: 'Booking event data' });
const CreatedData = Type.Object(
  {
    ...booking,
    fromWaitlist: Type.Optional(
      Type.Boolean({ description: 'true when a waitlisted or offered booking first holds a place' }),
    ),
  },
  { title: 'booking.created data' },
);
const ExpiredData = Type.Object(
  {
    ...booking,
    expiredReason: Type.Optional(
      Type.String({ description: 'hold_lapsed (a payment hold ran out) or offer_lapsed (an open set)' }),
    ),
  },
  { title: 'booking.expired data' },
);
const WaitlistedData = Type.Object(
  { ...booking, waitlistPosition: Type.Integer({ minimum: 1, description: 'Its place in the line (1 = next)' }) },
  { title: 'booking.waitlisted data' },
);
const OfferedData = Type.Object(
  {
    ...booking,
    offerExpiresAt: { ...Timestamp, description: 'Until when POST /bookings/{id}/accept-offer claims it' },
  },
  { title: 'booking.offered data' },
);
const RescheduledData = Type.Object(
  {
    ...booking,
    previousStartTime: Timestamp,
    previousEndTime: Timestamp,
    previousEmployeeId: Type.Optional({ ...Id, description: 'When the employee changed' }),
    previousLocationId: Type.Optional(
      Nullable({ ...Id, description: 'When its class session moved to another location (null: it had none)' }),
    ),
    rescheduledBy: Type.Optional({
      ...Actor,
      description: 'By POST /reschedule (absent when its class session moved)',
    }),
    calendarSequence: Type.Integer({ description: "The booking's calendar revision after this move" }),
  },
  { title: 'booking.rescheduled data' },
);
const CancelledData = Type.Object(
  {
    ...booking,
    reason: Nullable(Type.String({ description: 'The reason given; class_cancelled when its session was cancelled' })),
    previousStatus: Type.Optional({
      ...Status,
      description:
        'The status it was cancelled from: waitlisted or offered when its customer left a waitlist (no place was held)',
    }),
    cancelledBy: Type.Optional(Nullable(Actor)),
    cancellationFee: Type.Optional(Nullable(Type.Integer({ description: 'Minor units kept (0 when free)' }))),
    refundAmount: Type.Optional(Type.Integer({ description: 'By POST /cancel: minor units refunded' })),
  },
  { title: 'booking.cancelled data' },
);
const ReminderData = Type.Object(
  {
    ...booking,
    reminderOffsetMinutes: Type.Integer({ description: 'Minutes before startTime the reminder is' }),
    notificationId: Id,
  },
  { title: 'booking.reminder_due data' },
);

const payment = {
  paymentId: Id,
  bookingId: Type.Optional({ ...Id, description: "The booking paid for; left out for a visit's payment" }),
  visitId: Type.Optional({ ...Id, description: 'The visit paid for as one; left out for a booking payment' }),
  amount: Type.Integer({ description: 'Minor units' }),
  currency: Type.String(),
  status: Type.String({
    description: 'processing, succeeded, failed, partially_refunded, refunded (an open set)',
  }),
  kind: Type.Union([Type.Literal('full'), Type.Literal('deposit'), Type.Literal('balance')]),
  amountRefunded: Type.Integer(),
  failureCode: Type.Optional(Type.String({ description: 'payment.failed: card_declined, insufficient_funds, …' })),
  metadata: Metadata,
};
const PaymentData = Type.Object(payment, { title: 'Payment event data' });
const RefundedData = Type.Object(
  {
    ...payment,
    amount: Type.Integer({ description: "This refund's amount, minor units" }),
    paymentAmount: Type.Integer({ description: "The payment's amount" }),
  },
  { title: 'payment.refunded data' },
);
const CustomerData = Type.Object(
  { customerId: Id, name: Type.String(), email: Type.String(), phone: Nullable(Type.String()), metadata: Metadata },
  { title: 'Customer event data' },
);
const CustomerErasedData = Type.Object(
  {
    customerId: Id,
    erasedAt: { ...Timestamp, description: "When the customer's personal data was replaced" },
  },
  { title: 'customer.erased data', description: 'Only ids and the time: the event itself holds no personal data' },
);
const ClassCancelledData = Type.Object(
  {
    classId: Id,
    serviceId: Id,
    employeeId: Id,
    startTime: Timestamp,
    endTime: Timestamp,
    capacity: Type.Integer(),
    locationId: Type.Optional({ ...Id, description: 'Where it was to take place, for a session at a location only' }),
    reason: Nullable(Type.String()),
    cancelledBookingIds: Type.Array(Id, { description: 'The bookings cancelled with it' }),
  },
  { title: 'class.cancelled data' },
);
const PingData = Type.Object({ endpointId: Id, message: Type.String() }, { title: 'ping data' });

/** The `data` of each event type. */
export const EVENT_DATA: Record<EventType, TSchema> = {
  'booking.created': CreatedData,
  'booking.confirmed': BookingData,
  'booking.rescheduled': RescheduledData,
  'booking.cancelled': CancelledData,
  'booking.completed': BookingData,
  'booking.no_show': BookingData,
  'booking.expired': ExpiredData,
  'booking.waitlisted': WaitlistedData,
  'booking.offered': OfferedData,
  'booking.offer_expired': ExpiredData,
  'booking.updated': BookingData,
  'booking.reminder_due': ReminderData,
  'payment.succeeded': PaymentData,
  'payment.failed': PaymentData,
  'payment.refunded': RefundedData,
  'payment.updated': PaymentData,
  'customer.created': CustomerData,
  'customer.updated': CustomerData,
  'customer.erased': CustomerErasedData,
  'class.cancelled': ClassCancelledData,
  ping: PingData,
};

const WHEN: Record<EventType, string> = {
  'booking.created':
    'A booking first holds a place: it is made (confirmed, or pending when the service requires payment), or a waitlisted or offered class booking is promoted (fromWaitlist: true)',
  'booking.confirmed': 'A pending booking is confirmed: its payment succeeded, or POST /confirm',
  'booking.rescheduled': 'A confirmed booking moves to new times (POST /reschedule, or its class session moved)',
  'booking.cancelled': 'A booking is cancelled (POST /cancel, or its class session was cancelled)',
  'booking.completed': 'A booking is marked completed',
  'booking.no_show': 'A booking is marked as a no-show',
  'booking.expired': "A pending booking's payment hold ran out (expiredReason hold_lapsed)",
  'booking.waitlisted': "A booking joined a full class's waitlist (status waitlisted, waitlistPosition)",
  'booking.offered': 'A freed class place is offered to the first in line (status offered, offerExpiresAt)',
  'booking.offer_expired':
    'An offer was not accepted by offerExpiresAt: the booking is expired (expiredReason offer_lapsed) and the place passes to the next in line',
  'booking.updated': "A booking's notes or metadata changed",
  'booking.reminder_due': 'A webhook reminder of a booking fell due',
  'payment.succeeded': 'A payment settled successfully',
  'payment.failed': 'A payment was declined or failed',
  'payment.refunded': 'A payment was refunded (once per refund, partial or full)',
  'payment.updated': "A payment's metadata changed",
  'customer.created': 'A customer is created (also by a booking with a new inline customer)',
  'customer.updated': 'A customer is changed',
  'customer.erased':
    "A customer is erased (POST /customers/{id}/erase): their personal data was replaced everywhere it was held, earlier events' payloads included; delete your own copies",
  'class.cancelled': 'A class session is cancelled (each of its bookings also gets booking.cancelled)',
  ping: 'The test button or POST /webhook-endpoints/{id}/test; sent to that endpoint only',
};

const header = (description: string, example?: string): OpenAPIV3_1.ParameterObject => ({
  in: 'header',
  name: '',
  required: true,
  description,
  schema: { type: 'string', ...(example ? { examples: [example] } : {}) },
});

/** The headers of every delivery (docs/webhooks.md, "A delivery"). */
const DELIVERY_HEADERS: Array<[string, string]> = [
  ['X-Webhook-Id', "The event's id: the same on every retry of it, so de-duplicate on it"],
  ['X-Webhook-Event', 'The event type'],
  ['X-Webhook-Token', "The endpoint's token (whtok_…), for receivers that compare a token"],
  [
    'X-Signature',
    't=<unix seconds>,v1=<hex HMAC-SHA256(secret bytes, "<t>.<raw body>")>; one more v1= per old secret during a rotation',
  ],
  ['webhook-id', 'Standard Webhooks: the event id'],
  ['webhook-timestamp', 'Standard Webhooks: unix seconds of the attempt'],
  [
    'webhook-signature',
    'Standard Webhooks: v1,<base64 HMAC-SHA256(secret bytes, "<id>.<timestamp>.<raw body>")>, space-separated during a rotation',
  ],
  ['User-Agent', 'booking-service-webhooks/1'],
];

/** camelCase of an event type: booking.no_show → BookingNoShow. */
const pascal = (type: string) =>
  type
    .split(/[._]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');

/** The `webhooks` of the document; `examples` are recorded deliveries by event type. */
export function webhooksSection(
  examples: Record<string, unknown>,
): Record<string, { post: OpenAPIV3_1.OperationObject }> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => {
      const body = Type.Object(
        {
          event: Type.Literal(type),
          timestamp: Type.Integer({ description: 'When the event happened, milliseconds since the epoch' }),
          data: EVENT_DATA[type],
        },
        { title: `${type} delivery` },
      );
      const operation: OpenAPIV3_1.OperationObject = {
        operationId: `receive${pascal(type)}`,
        summary: type,
        description: `${WHEN[type]}. Delivered as a signed POST to every endpoint subscribed to it (docs/webhooks.md).`,
        tags: ['Webhook events'],
        security: [],
        parameters: DELIVERY_HEADERS.map(([name, description]) => ({ ...header(description), name })),
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: body,
              ...(examples[type] !== undefined ? { example: examples[type] } : {}),
            },
          },
        },
        responses: {
          '200': { description: 'Any 2xx within 10 seconds acknowledges the delivery; anything else is retried' },
          '410': { description: 'Gone: the endpoint is disabled and gets no more deliveries' },
        },
      };
      return [type, { post: operation }];
    }),
  );
}
