// /api/v1/visits (docs/api.md, Visits): several services booked back to back, as one.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Id, Metadata, Nullable, PathId, Timestamp } from '../schemas.js';
import { Booking } from './bookings.js';
import { CreateCustomer } from './customers.js';

const Visit = Type.Object(
  {
    _id: Id,
    customerId: Id,
    startTime: { ...Timestamp, description: 'When the first item starts' },
    endTime: { ...Timestamp, description: 'When the last item ends' },
    bookings: Type.Array(Booking, { description: 'The items, in the order of the visit, each with this visitId' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Visit', title: 'Visit (services booked back to back)' },
);

const CreateVisit = Type.Object(
  {
    items: Type.Array(
      Type.Object(
        {
          serviceId: Id,
          employeeId: Type.Optional(Id),
        },
        { additionalProperties: false },
      ),
      {
        minItems: 1,
        maxItems: 10,
        description:
          "The services in order; each starts at the previous one's end plus its buffer after and this one's buffer before",
      },
    ),
    startTime: Timestamp,
    customerId: Type.Optional(Id),
    customer: Type.Optional(CreateCustomer),
    notes: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
    customerTimeZone: Type.Optional(
      Nullable(Type.String({ maxLength: 64, description: 'IANA time zone of the customer, e.g. America/New_York' })),
    ),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false, description: 'customerId or customer; notes and metadata go on every item' },
);

const ById = Type.Object({ id: PathId });
const tags = ['Visits'];

export default async function visitRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/visits',
    operationId: 'createVisit',
    errors: ['SLOT_UNAVAILABLE'],
    summary: 'Book services back to back for one customer, all or none',
    description:
      'Every item is an ordinary booking with the visit id. A refusal is 409 SLOT_UNAVAILABLE whose details.reasons name the item (itemIndex) and the employee; nothing is written',
    tags,
    scope: 'bookings:write',
    request: { body: CreateVisit },
    response: Visit,
    mutation: 'createVisit',
    variables: (req) => ({ input: req.body }),
  });
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/visits/:id',
    operationId: 'getVisit',
    summary: 'Get a visit with its bookings',
    tags,
    scope: 'bookings:read',
    request: { params: ById },
    response: Visit,
    query: 'visit',
    variables: (req) => req.params,
  });
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/visits/:id/cancel',
    operationId: 'cancelVisit',
    errors: ['INVALID_STATE_TRANSITION', 'CUTOFF_PASSED'],
    summary: 'Cancel every pending or confirmed item of a visit, all or none',
    tags,
    scope: 'bookings:write',
    request: {
      params: ById,
      body: Type.Object(
        {
          reason: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
          cancelledBy: Type.Optional(
            Type.Union([Type.Literal('business'), Type.Literal('customer')], {
              description:
                'business (default): full refund, no cut-off; customer: the cut-off and the cancellation fee apply to each item',
            }),
          ),
          waiveFee: Type.Optional(Type.Boolean({ description: "No fee for a customer's cancel (default false)" })),
        },
        { additionalProperties: false },
      ),
    },
    optionalBody: true,
    response: Visit,
    mutation: 'cancelVisit',
    variables: (req) => ({ id: req.params.id, input: req.body ?? {} }),
  });
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/visits/:id/reschedule',
    operationId: 'rescheduleVisit',
    errors: ['SLOT_UNAVAILABLE', 'INVALID_STATE_TRANSITION'],
    summary: 'Move a confirmed visit: every item keeps its employee and follows the new start, all or none',
    tags,
    scope: 'bookings:write',
    request: {
      params: ById,
      body: Type.Object(
        {
          startTime: Timestamp,
          skipRules: Type.Optional(
            Type.Boolean({
              description:
                'A business only: waives minimum notice, maximum advance, the slot interval and the daily limit',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    },
    response: Visit,
    mutation: 'rescheduleVisit',
    variables: (req) => ({ id: req.params.id, input: req.body }),
  });
}
