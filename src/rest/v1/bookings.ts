// /api/v1/bookings and its transitions (docs/api.md).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Id, Metadata, MetadataPatch, Nullable, PageQuery, PathId, Timestamp } from '../schemas.js';
import { CreateCustomer } from './customers.js';

const Status = Type.Union(
  ['pending', 'confirmed', 'cancelled', 'completed', 'no_show', 'expired', 'waitlisted', 'offered'].map((s) =>
    Type.Literal(s),
  ),
  { description: 'An open list: new states may be added (docs/api.md, Booking states)' },
);

export const Notification = Type.Object(
  {
    _id: Id,
    bookingId: Id,
    channel: Type.Union([Type.Literal('email'), Type.Literal('webhook')]),
    offsetMinutes: Type.Integer({ description: 'Minutes before the start it was planned for' }),
    dueAt: { ...Timestamp, description: 'startTime − offsetMinutes' },
    status: Type.Union(
      ['scheduled', 'sent', 'failed', 'cancelled', 'skipped'].map((s) => Type.Literal(s)),
      { description: 'An open list: new states may be added' },
    ),
    sentAt: Nullable(Timestamp),
    reason: Nullable(
      Type.String({
        description:
          'Why it was skipped, cancelled or failed: due_time_passed, appointment_started, booking_cancelled, booking_rescheduled, booking_expired, booking_completed, booking_no_show, send_failed (an open list)',
      }),
    ),
    createdAt: Timestamp,
  },
  { $id: 'Notification', title: 'Notification (a planned reminder)' },
);

const Actor = (description: string) =>
  Type.Union([Type.Literal('business'), Type.Literal('customer')], { description });

const CancellationQuote = Type.Object(
  {
    fee: Type.Integer({ description: 'Minor units kept (never more than was paid)' }),
    refundAmount: Type.Integer({ description: 'Minor units refunded: what was paid minus the fee' }),
    freeUntil: Nullable({ ...Timestamp, description: "Until when a customer's cancel is free; null: no policy" }),
    allowed: Type.Boolean({ description: 'Whether the cancel would be accepted now' }),
    deadline: Nullable({ ...Timestamp, description: "A customer's cancellation cut-off; null for a business" }),
  },
  { title: 'Cancellation quote' },
);

const Answer = Type.Object(
  {
    questionId: Type.String(),
    label: Type.String({ description: "The question's label when the booking was made" }),
    type: Type.Union(['text', 'long_text', 'choice', 'multi_choice', 'boolean', 'phone'].map((s) => Type.Literal(s))),
    value: Type.Union([Type.String(), Type.Boolean(), Type.Array(Type.String())], {
      description: 'A string (text, long_text, choice, phone in E.164), a list of options (multi_choice) or a boolean',
    }),
  },
  { title: 'Answer' },
);

export const Booking = Type.Object(
  {
    _id: Id,
    serviceId: Id,
    employeeId: Id,
    customerId: Id,
    classId: Nullable(Id),
    locationId: Nullable({ ...Id, description: 'Where it takes place; null for a company without locations' }),
    resourceIds: Type.Array(Id, {
      description:
        'The rooms and equipment it holds (or held, once cancelled or over) for the same time as its employee, buffers included',
    }),
    startTime: Timestamp,
    endTime: Timestamp,
    status: Status,
    notes: Nullable(Type.String()),
    cancelReason: Nullable(Type.String()),
    cancelledBy: Nullable(Actor('Who cancelled it; null unless cancelled')),
    cancellationFee: Nullable(
      Type.Integer({ description: 'Minor units kept as the cancellation fee; null unless cancelled' }),
    ),
    depositAmount: Nullable(
      Type.Integer({
        description: "The service's deposit when booked: the first payment's amount; null: paid in full",
      }),
    ),
    customerTimeZone: Nullable(Type.String({ description: "The customer's IANA time zone, when given" })),
    seriesId: Nullable({ ...Id, description: 'The booking series this booking is one occurrence of; null otherwise' }),
    visitId: Nullable({
      ...Id,
      description: 'The multi-service visit this booking is one item of; null when booked alone',
    }),
    answers: Type.Array(Answer, { description: "Answers to the service's questions, in the order asked" }),
    metadata: Metadata,
    price: Type.Integer({ description: 'Minor units of currency' }),
    currency: Type.String(),
    manageUrl: Type.String({
      format: 'uri',
      description:
        "The customer's manage link (BASE_URL/b/<token>): see and cancel or reschedule the booking without signing in. A secret: stops working 7 days after the booking ends, or when rotated",
    }),
    holdExpiresAt: Nullable(Timestamp),
    waitlistPosition: Nullable(
      Type.Integer({ description: "A waitlisted booking's place in its class's line (1 = next); null otherwise" }),
    ),
    offerExpiresAt: Nullable({
      ...Timestamp,
      description: 'Until when an offered booking may accept its place; null otherwise',
    }),
    expiredReason: Nullable(
      Type.String({ description: 'Why an expired booking expired: hold_lapsed or offer_lapsed (an open list)' }),
    ),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Booking', title: 'Booking' },
);

const CreateBooking = Type.Object(
  {
    serviceId: Id,
    startTime: Type.Optional(Timestamp),
    employeeId: Type.Optional(Id),
    classId: Type.Optional(Id),
    customerId: Type.Optional(Id),
    customer: Type.Optional(CreateCustomer),
    notes: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
    customerTimeZone: Type.Optional(
      Nullable(Type.String({ maxLength: 64, description: 'IANA time zone of the customer, e.g. America/New_York' })),
    ),
    answers: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          "Answers to the service's questions by question id: a string (text, long_text, choice, phone), a list of options (multi_choice) or a boolean",
      }),
    ),
    metadata: Type.Optional(Metadata),
    skipRules: Type.Optional(
      Type.Boolean({
        description:
          "A business's walk-in: waives minimum notice, maximum advance, the slot interval and the daily limit (never working hours, closures, time off or overlaps)",
      }),
    ),
    waitlist: Type.Optional(
      Type.Boolean({
        description:
          'Class services: when the session is full, join its waitlist (status waitlisted, waitlistPosition) instead of a 409 CLASS_FULL; refused with CLASS_FULL (details.reason WAITLIST_FULL or WAITLIST_CLOSED) when the line cannot take it',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'startTime for appointment services, classId for class services; customerId or customer',
  },
);

const UpdateBooking = Type.Object(
  {
    notes: Type.Optional(Nullable(Type.String({ maxLength: 5000, description: 'Free text; null clears it' }))),
    metadata: Type.Optional(MetadataPatch),
  },
  { additionalProperties: false, title: 'Booking changes' },
);

// `?metadata[orderRef]=A-17`: Fastify's query-string parser keeps the brackets in the name, so
// the filter is one property named `metadata[<key>]` (any key: the use case judges it).
const METADATA_PARAM = /^metadata\[(.*)\]$/s;
const metadataFilter = (query: Record<string, unknown>) => {
  const entries = Object.entries(query).flatMap(([name, value]) => {
    const key = METADATA_PARAM.exec(name)?.[1];
    return key === undefined ? [] : [[key, value] as const];
  });
  return entries.length > 0 ? Object.fromEntries(entries) : null;
};

const ById = Type.Object({ id: PathId });
const tags = ['Bookings'];

export default async function bookingRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/bookings',
    operationId: 'listBookings',
    summary: 'List bookings, newest first; from/to filter on startTime',
    tags,
    scope: 'bookings:read',
    list: true,
    request: {
      querystring: Type.Object(
        {
          ...PageQuery,
          status: Type.Optional(Status),
          from: Type.Optional(Timestamp),
          to: Type.Optional(Timestamp),
          employeeId: Type.Optional(Id),
          customerId: Type.Optional(Id),
          serviceId: Type.Optional(Id),
        },
        {
          additionalProperties: false,
          patternProperties: {
            [METADATA_PARAM.source]: Type.String({
              description: 'metadata[key]=value: only bookings whose metadata has this key with this value (one key)',
            }),
          },
        },
      ),
    },
    response: Booking,
    query: 'bookings',
    variables: (req) => {
      const { status, from, to, employeeId, customerId, serviceId, limit, cursor } = req.query;
      return {
        status,
        from,
        to,
        employeeId,
        customerId,
        serviceId,
        limit,
        cursor,
        metadata: metadataFilter(req.query),
      };
    },
  });
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/bookings',
    operationId: 'createBooking',
    errors: ['SLOT_UNAVAILABLE', 'CLASS_FULL'],
    summary: 'Book a slot (picks a free qualified employee when none is named) or a class place',
    tags,
    scope: 'bookings:write',
    request: { body: CreateBooking },
    response: Booking,
    mutation: 'createBooking',
    variables: (req) => ({ input: req.body }),
  });
  graphqlRoute(app, deps, {
    method: 'PATCH',
    url: '/bookings/:id',
    operationId: 'updateBooking',
    summary: "Change a booking's notes and metadata (merged; a key set to null is removed); writes booking.updated",
    tags,
    scope: 'bookings:write',
    request: { params: ById, body: UpdateBooking },
    response: Booking,
    mutation: 'updateBooking',
    variables: (req) => ({ id: req.params.id, input: req.body }),
  });
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/bookings/:id',
    operationId: 'getBooking',
    summary: 'Get a booking',
    tags,
    scope: 'bookings:read',
    request: { params: ById },
    response: Booking,
    query: 'booking',
    variables: (req) => req.params,
  });
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/bookings/:id/notifications',
    operationId: 'listBookingNotifications',
    summary: "List a booking's planned reminders (scheduled, sent, failed, cancelled, skipped), newest first",
    tags,
    scope: 'bookings:read',
    list: true,
    request: { params: ById, querystring: Type.Object(PageQuery, { additionalProperties: false }) },
    response: Notification,
    query: 'bookingNotifications',
    variables: (req) => ({ ...req.query, bookingId: req.params.id }),
  });
  // [path, GraphQL field (also the operationId), summary, description]
  const simple: Array<[string, string, string, string]> = [
    ['confirm', 'confirmBooking', 'Confirm a booking', 'pending → confirmed'],
    ['complete', 'completeBooking', 'Complete a booking', 'confirmed → completed (once startTime has passed)'],
    ['no-show', 'markBookingNoShow', 'Mark a booking as a no-show', 'confirmed → no_show (once startTime has passed)'],
  ];
  for (const [path, field, summary, description] of simple) {
    graphqlRoute(app, deps, {
      method: 'POST',
      url: `/bookings/:id/${path}`,
      operationId: field,
      errors: ['INVALID_STATE_TRANSITION'],
      summary,
      description,
      tags,
      scope: 'bookings:write',
      request: { params: ById },
      response: Booking,
      mutation: field,
      variables: (req) => req.params,
    });
  }
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/bookings/:id/accept-offer',
    operationId: 'acceptBookingOffer',
    errors: ['INVALID_STATE_TRANSITION'],
    summary: 'Accept a waitlist offer',
    description:
      'offered → confirmed (pending when the service is paid for up front), before offerExpiresAt; writes booking.created with fromWaitlist: true',
    tags,
    scope: 'bookings:write',
    request: { params: ById },
    response: Booking,
    mutation: 'acceptBookingOffer',
    variables: (req) => req.params,
  });
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/bookings/:id/cancel',
    operationId: 'cancelBooking',
    errors: ['INVALID_STATE_TRANSITION', 'CUTOFF_PASSED'],
    summary: 'Cancel a booking',
    description: 'pending or confirmed → cancelled; waitlisted or offered → cancelled (leaving the waitlist, free)',
    tags,
    scope: 'bookings:write',
    request: {
      params: ById,
      body: Type.Object(
        {
          reason: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
          cancelledBy: Type.Optional(
            Actor('business (default): full refund, no cut-off; customer: the cut-off and the cancellation fee apply'),
          ),
          waiveFee: Type.Optional(Type.Boolean({ description: "No fee for a customer's cancel (default false)" })),
        },
        { additionalProperties: false },
      ),
    },
    optionalBody: true,
    response: Booking,
    mutation: 'cancelBooking',
    variables: (req) => ({
      id: req.params.id,
      input: {
        reason: req.body.reason ?? null,
        cancelledBy: req.body.cancelledBy ?? null,
        waiveFee: req.body.waiveFee ?? null,
      },
    }),
  });
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/bookings/:id/cancellation-quote',
    operationId: 'getBookingCancellationQuote',
    summary: 'What cancelling the booking would cost now (fee, refund); changes nothing',
    tags,
    scope: 'bookings:read',
    request: {
      params: ById,
      querystring: Type.Object(
        { cancelledBy: Type.Optional(Actor('Who would cancel; default business')) },
        { additionalProperties: false },
      ),
    },
    response: CancellationQuote,
    query: 'cancellationQuote',
    variables: (req) => ({ id: req.params.id, cancelledBy: req.query.cancelledBy ?? null }),
  });
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/bookings/:id/manage-link/rotate',
    operationId: 'rotateBookingManageLink',
    summary:
      "Revoke the booking's manage link: earlier manageUrls stop working; returns the booking with its new manageUrl",
    tags,
    scope: 'bookings:write',
    request: { params: ById },
    response: Booking,
    mutation: 'rotateBookingManageLink',
    variables: (req) => req.params,
  });
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/bookings/:id/reschedule',
    operationId: 'rescheduleBooking',
    errors: ['SLOT_UNAVAILABLE', 'INVALID_STATE_TRANSITION', 'CUTOFF_PASSED'],
    summary: 'Reschedule a booking',
    description: 'confirmed → confirmed at new times (same booking)',
    tags,
    scope: 'bookings:write',
    request: {
      params: ById,
      body: Type.Object(
        {
          startTime: Timestamp,
          employeeId: Type.Optional(Id),
          rescheduledBy: Type.Optional(
            Actor('business (default): no cut-off; customer: refused after the reschedule cut-off'),
          ),
          skipRules: Type.Optional(
            Type.Boolean({
              description:
                'A business only: waives minimum notice, maximum advance, the slot interval and the daily limit for the new time',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    },
    response: Booking,
    mutation: 'rescheduleBooking',
    variables: (req) => ({ id: req.params.id, input: req.body }),
  });
}
