// /api/v1/bookings and its transitions (docs/api.md).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Id, NoBody, Nullable, PageQuery, PathId, Timestamp } from '../schemas.js';
import { CustomerFields } from './customers.js';

const Status = Type.Union(['pending', 'confirmed', 'cancelled', 'completed', 'no_show', 'expired'].map((s) => Type.Literal(s)));

const Booking = Type.Object(
  {
    _id: Id,
    serviceId: Id,
    employeeId: Id,
    customerId: Id,
    classId: Nullable(Id),
    startTime: Timestamp,
    endTime: Timestamp,
    status: Status,
    notes: Nullable(Type.String()),
    cancelReason: Nullable(Type.String()),
    price: Type.Integer({ description: 'Minor units of currency' }),
    currency: Type.String(),
    holdExpiresAt: Nullable(Timestamp),
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
    customer: Type.Optional(
      Type.Object(
        { name: CustomerFields.name, email: CustomerFields.email, phone: Type.Optional(CustomerFields.phone), notes: Type.Optional(CustomerFields.notes) },
        { additionalProperties: false },
      ),
    ),
    notes: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
  },
  { additionalProperties: false, description: 'startTime for appointment services, classId for class services; customerId or customer' },
);

const FIELDS = '_id serviceId employeeId customerId classId startTime endTime status notes cancelReason price currency holdExpiresAt createdAt updatedAt';
const params = (req: FastifyRequest) => req.params as Record<string, string>;
const tags = ['Bookings'];

export default async function bookingRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute<{ bookings: unknown }>(app, deps, {
    method: 'GET', url: '/bookings', summary: 'List bookings, newest first; from/to filter on startTime', tags, scope: 'bookings:read', list: true,
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
      { additionalProperties: false },
    ),
    response: Booking,
    operation: `query($limit: Int, $cursor: String, $status: String, $from: DateTime, $to: DateTime, $employeeId: String, $customerId: String, $serviceId: String) {
      bookings(limit: $limit, cursor: $cursor, status: $status, from: $from, to: $to, employeeId: $employeeId, customerId: $customerId, serviceId: $serviceId) {
        data { ${FIELDS} } pagination { limit hasMore nextCursor } } }`,
    variables: (req) => req.query as Record<string, unknown>,
    select: (d) => d.bookings,
  });
  graphqlRoute<{ createBooking: unknown }>(app, deps, {
    method: 'POST', url: '/bookings', summary: 'Book a slot (picks a free qualified employee when none is named) or a class place', tags, scope: 'bookings:write',
    body: CreateBooking, response: Booking,
    operation: `mutation($input: CreateBookingInput!) { createBooking(input: $input) { ${FIELDS} } }`,
    variables: (req) => ({ input: req.body }),
    select: (d) => d.createBooking,
  });
  graphqlRoute<{ booking: unknown }>(app, deps, {
    method: 'GET', url: '/bookings/:id', summary: 'Get a booking', tags, scope: 'bookings:read',
    params: Type.Object({ id: PathId }), response: Booking,
    operation: `query($id: String!) { booking(id: $id) { ${FIELDS} } }`,
    variables: params,
    select: (d) => d.booking,
  });
  const simple: Array<[string, string, string]> = [
    ['confirm', 'confirmBooking', 'pending → confirmed'],
    ['complete', 'completeBooking', 'confirmed → completed (once startTime has passed)'],
    ['no-show', 'markBookingNoShow', 'confirmed → no_show (once startTime has passed)'],
  ];
  for (const [path, field, summary] of simple) {
    graphqlRoute<Record<string, unknown>>(app, deps, {
      method: 'POST', url: `/bookings/:id/${path}`, summary, tags, scope: 'bookings:write',
      params: Type.Object({ id: PathId }), body: NoBody, optionalBody: true, response: Booking,
      operation: `mutation($id: String!) { ${field}(id: $id) { ${FIELDS} } }`,
      variables: params,
      select: (d) => d[field],
    });
  }
  graphqlRoute<{ cancelBooking: unknown }>(app, deps, {
    method: 'POST', url: '/bookings/:id/cancel', summary: 'pending or confirmed → cancelled', tags, scope: 'bookings:write',
    params: Type.Object({ id: PathId }),
    body: Type.Object({ reason: Type.Optional(Nullable(Type.String({ maxLength: 500 }))) }, { additionalProperties: false }),
    optionalBody: true,
    response: Booking,
    operation: `mutation($id: String!, $reason: String) { cancelBooking(id: $id, reason: $reason) { ${FIELDS} } }`,
    variables: (req) => ({ id: params(req).id, reason: (req.body as { reason?: string } | undefined)?.reason ?? null }),
    select: (d) => d.cancelBooking,
  });
  graphqlRoute<{ rescheduleBooking: unknown }>(app, deps, {
    method: 'POST', url: '/bookings/:id/reschedule', summary: 'confirmed → confirmed at new times (same booking)', tags, scope: 'bookings:write',
    params: Type.Object({ id: PathId }),
    body: Type.Object({ startTime: Timestamp, employeeId: Type.Optional(Id) }, { additionalProperties: false }),
    response: Booking,
    operation: `mutation($id: String!, $startTime: DateTime!, $employeeId: String) { rescheduleBooking(id: $id, startTime: $startTime, employeeId: $employeeId) { ${FIELDS} } }`,
    variables: (req) => ({ id: params(req).id, ...(req.body as object) }),
    select: (d) => d.rescheduleBooking,
  });
}
