// /api/v1/booking-series (docs/api.md, Booking series): an appointment at every occurrence of a
// recurrence rule, made all or none (or partly, with allowPartial) and cancelled as one.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Id, Metadata, Nullable, PathId, Timestamp } from '../schemas.js';
import { Booking } from './bookings.js';
import { CreateCustomer } from './customers.js';

const Reason = Type.Object(
  {
    code: Type.String({ description: 'A code of /availability/explain (an open list)' }),
    message: Type.String(),
    employeeId: Type.Optional(Id),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { title: 'Why a time cannot be booked' },
);

const Skipped = Type.Object(
  {
    index: Type.Integer({ description: 'Its position in the rule, from 0' }),
    startTime: Timestamp,
    reasons: Type.Array(Reason),
  },
  { title: 'An occurrence that was not booked' },
);

const BookingSeries = Type.Object(
  {
    _id: Id,
    serviceId: Id,
    employeeId: Nullable({ ...Id, description: 'The employee named at creation; null: a free one per occurrence' }),
    customerId: Id,
    locationId: Nullable({
      ...Id,
      description: 'Where every occurrence takes place (the one named, else where its first start falls); null: none',
    }),
    rrule: Type.String({ description: 'The recurrence rule (RFC 5545 RRULE), as normalised' }),
    timeZone: Type.String({
      description: "The IANA zone whose wall-clock time the occurrences keep: the location's, else the company's",
    }),
    startTime: { ...Timestamp, description: 'The first start asked for' },
    bookings: Type.Array(Booking, { description: 'The booked occurrences in time order, each with this seriesId' }),
    skipped: Type.Array(Skipped, {
      description: 'The occurrences a partial series (allowPartial) could not book, and why; empty otherwise',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'BookingSeries', title: 'Booking series' },
);

const CreateBookingSeries = Type.Object(
  {
    serviceId: Id,
    employeeId: Type.Optional(Id),
    customerId: Type.Optional(Id),
    customer: Type.Optional(CreateCustomer),
    startTime: {
      ...Timestamp,
      description:
        "The first start; its local date and time in the series' zone (the location's, else the company's) are DTSTART",
    },
    locationId: Type.Optional(
      Nullable({
        ...Id,
        description:
          "A location of the company: every occurrence in the employees' intervals there, the rule in its zone",
      }),
    ),
    rrule: Type.String({
      maxLength: 512,
      description:
        'RFC 5545 RRULE, e.g. FREQ=WEEKLY;COUNT=8: FREQ DAILY, WEEKLY, MONTHLY or YEARLY, with COUNT (at most 52) or UNTIL (at most 52 occurrences)',
    }),
    allowPartial: Type.Optional(
      Type.Boolean({ description: 'Book the occurrences that fit and report the rest in skipped (default false)' }),
    ),
    notes: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
    customerTimeZone: Type.Optional(
      Nullable(Type.String({ maxLength: 64, description: 'IANA time zone of the customer, e.g. America/New_York' })),
    ),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false, description: 'customerId or customer; notes and metadata go on every occurrence' },
);

type Found = { skipped: Array<{ reasons: Array<Record<string, unknown>> }> };

/** GraphQL answers null for what a reason lacks; REST leaves it out, as in a refusal's details.reasons. */
const withoutNulls = (s: Found) => ({
  ...s,
  skipped: s.skipped.map((o) => ({
    ...o,
    reasons: o.reasons.map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v != null))),
  })),
});

const ById = Type.Object({ id: PathId });
const tags = ['Booking series'];

export default async function bookingSeriesRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/booking-series',
    operationId: 'createBookingSeries',
    errors: ['SLOT_UNAVAILABLE'],
    summary: 'Book an appointment at every occurrence of a recurrence rule, all or none unless allowPartial',
    description:
      "The rule expands at startTime's wall-clock time in the company's zone. A refusal is 409 SLOT_UNAVAILABLE with details.occurrences [{ index, startTime, reasons }] and details.reasons (each with occurrenceIndex); nothing is written",
    tags,
    scope: 'bookings:write',
    request: { body: CreateBookingSeries },
    response: BookingSeries,
    mutation: 'createBookingSeries',
    variables: (req) => ({ input: req.body }),
    select: withoutNulls,
  });
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/booking-series/:id',
    operationId: 'getBookingSeries',
    summary: 'Get a booking series with its bookings',
    tags,
    scope: 'bookings:read',
    request: { params: ById },
    response: BookingSeries,
    query: 'bookingSeries',
    variables: (req) => req.params,
    select: withoutNulls,
  });
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/booking-series/:id/cancel',
    operationId: 'cancelBookingSeries',
    errors: ['INVALID_STATE_TRANSITION', 'CUTOFF_PASSED'],
    summary: 'Cancel every pending or confirmed occurrence (or those from an instant on), all or none',
    tags,
    scope: 'bookings:write',
    request: {
      params: ById,
      body: Type.Object(
        {
          from: Type.Optional({
            ...Timestamp,
            description: 'Only the occurrences starting at or after this instant; left out, all of them',
          }),
          reason: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
          cancelledBy: Type.Optional(
            Type.Union([Type.Literal('business'), Type.Literal('customer')], {
              description:
                'business (default): full refund, no cut-off; customer: the cut-off and the cancellation fee apply to each occurrence',
            }),
          ),
          waiveFee: Type.Optional(Type.Boolean({ description: "No fee for a customer's cancel (default false)" })),
        },
        { additionalProperties: false },
      ),
    },
    optionalBody: true,
    response: BookingSeries,
    mutation: 'cancelBookingSeries',
    variables: (req) => ({ id: req.params.id, input: req.body ?? {} }),
    select: withoutNulls,
  });
}
