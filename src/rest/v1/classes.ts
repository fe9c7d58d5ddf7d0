// /api/v1/classes: sessions of class services (docs/api.md), under the services:* scopes.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Id, Nullable, PageQuery, PathId, Timestamp } from '../schemas.js';

const ClassSession = Type.Object(
  {
    _id: Id,
    serviceId: Id,
    employeeId: Id,
    scheduleId: Nullable(Id),
    locationId: Nullable({ ...Id, description: 'Where it takes place; null: no location named' }),
    resourceIds: Type.Array(Id, {
      description: "Resources it holds besides those the service requires (its schedule's, or those given)",
    }),
    startTime: Timestamp,
    endTime: Timestamp,
    capacity: Type.Integer(),
    bookedCount: Type.Integer({ description: 'Places held: pending and confirmed bookings' }),
    offeredCount: Type.Integer({ description: 'Places reserved for offered waitlist bookings' }),
    spotsLeft: Type.Integer({ description: 'capacity − bookedCount − offeredCount' }),
    waitlistCount: Type.Integer({ description: 'Bookings waiting on its waitlist (status waitlisted)' }),
    status: Type.Union([Type.Literal('scheduled'), Type.Literal('cancelled')]),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'ClassSession', title: 'Class session' },
);

const Capacity = Type.Integer({ minimum: 1, maximum: 10_000 });
const ResourceIds = Type.Array(Id, {
  maxItems: 10,
  uniqueItems: true,
  description: 'Resources it holds besides those the service requires; at its location, if any',
});
const LocationId = Nullable({ ...Id, description: 'A location of the company where it takes place' });
const CreateClass = Type.Object(
  {
    serviceId: Id,
    employeeId: Id,
    startTime: Timestamp,
    endTime: Type.Optional(Timestamp),
    capacity: Capacity,
    locationId: Type.Optional(LocationId),
    resourceIds: Type.Optional(Nullable(ResourceIds)),
  },
  { additionalProperties: false },
);
const UpdateClass = Type.Partial(
  Type.Object({
    employeeId: Id,
    startTime: Timestamp,
    endTime: Timestamp,
    capacity: Capacity,
    locationId: LocationId,
    resourceIds: Nullable(ResourceIds),
  }),
  { additionalProperties: false },
);
const CancelClass = Type.Object(
  { reason: Type.Optional(Nullable(Type.String({ maxLength: 500 }))) },
  { additionalProperties: false },
);

const ById = Type.Object({ id: PathId });
const tags = ['Classes'];

export default async function classRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/classes',
    operationId: 'listClasses',
    summary: 'List class sessions, newest first; from/to filter on startTime',
    tags,
    scope: 'services:read',
    list: true,
    request: {
      querystring: Type.Object(
        {
          ...PageQuery,
          serviceId: Type.Optional(Id),
          employeeId: Type.Optional(Id),
          scheduleId: Type.Optional(Id),
          locationId: Type.Optional(Id),
          status: Type.Optional(Type.Union([Type.Literal('scheduled'), Type.Literal('cancelled')])),
          from: Type.Optional(Timestamp),
          to: Type.Optional(Timestamp),
        },
        { additionalProperties: false },
      ),
    },
    response: ClassSession,
    query: 'classSessions',
    variables: (req) => req.query,
  });
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/classes',
    operationId: 'createClass',
    errors: ['SLOT_UNAVAILABLE'],
    summary: 'Schedule a session of a class service',
    tags,
    scope: 'services:write',
    request: { body: CreateClass },
    response: ClassSession,
    mutation: 'createClassSession',
    variables: (req) => ({ input: req.body }),
  });
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/classes/:id',
    operationId: 'getClass',
    summary: 'Get a class session',
    tags,
    scope: 'services:read',
    request: { params: ById },
    response: ClassSession,
    query: 'classSession',
    variables: (req) => req.params,
  });
  graphqlRoute(app, deps, {
    method: 'PATCH',
    url: '/classes/:id',
    operationId: 'updateClass',
    errors: ['SLOT_UNAVAILABLE'],
    summary: 'Change a scheduled session; new times or a new location move its bookings',
    tags,
    scope: 'services:write',
    request: { params: ById, body: UpdateClass },
    response: ClassSession,
    mutation: 'updateClassSession',
    variables: (req) => ({ id: req.params.id, input: req.body }),
  });
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/classes/:id/cancel',
    operationId: 'cancelClass',
    errors: ['INVALID_STATE_TRANSITION'],
    summary: 'Cancel a session and all its bookings',
    tags,
    scope: 'services:write',
    request: { params: ById, body: CancelClass },
    optionalBody: true,
    response: ClassSession,
    mutation: 'cancelClassSession',
    variables: (req) => ({ id: req.params.id, input: { reason: req.body.reason ?? null } }),
  });
}
