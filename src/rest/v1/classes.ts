// /api/v1/classes: sessions of class services (docs/api.md), under the services:* scopes.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Id, Nullable, PageQuery, PathId, Timestamp } from '../schemas.js';

const ClassSession = Type.Object(
  {
    _id: Id,
    serviceId: Id,
    employeeId: Id,
    startTime: Timestamp,
    endTime: Timestamp,
    capacity: Type.Integer(),
    bookedCount: Type.Integer(),
    status: Type.Union([Type.Literal('scheduled'), Type.Literal('cancelled')]),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'ClassSession', title: 'Class session' },
);

const Capacity = Type.Integer({ minimum: 1, maximum: 10_000 });
const CreateClass = Type.Object(
  { serviceId: Id, employeeId: Id, startTime: Timestamp, endTime: Type.Optional(Timestamp), capacity: Capacity },
  { additionalProperties: false },
);
const UpdateClass = Type.Partial(Type.Object({ employeeId: Id, startTime: Timestamp, endTime: Timestamp, capacity: Capacity }), { additionalProperties: false });
const CancelClass = Type.Object({ reason: Type.Optional(Nullable(Type.String({ maxLength: 500 }))) }, { additionalProperties: false });

const FIELDS = '_id serviceId employeeId startTime endTime capacity bookedCount status createdAt updatedAt';
const params = (req: FastifyRequest) => req.params as Record<string, string>;
const tags = ['Classes'];

export default async function classRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute<{ classSessions: unknown }>(app, deps, {
    method: 'GET', url: '/classes', summary: 'List class sessions, newest first; from/to filter on startTime', tags, scope: 'services:read', list: true,
    querystring: Type.Object(
      {
        ...PageQuery,
        serviceId: Type.Optional(Id),
        employeeId: Type.Optional(Id),
        status: Type.Optional(Type.Union([Type.Literal('scheduled'), Type.Literal('cancelled')])),
        from: Type.Optional(Timestamp),
        to: Type.Optional(Timestamp),
      },
      { additionalProperties: false },
    ),
    response: ClassSession,
    operation: `query($limit: Int, $cursor: String, $serviceId: String, $employeeId: String, $status: String, $from: DateTime, $to: DateTime) {
      classSessions(limit: $limit, cursor: $cursor, serviceId: $serviceId, employeeId: $employeeId, status: $status, from: $from, to: $to) { data { ${FIELDS} } pagination { limit hasMore nextCursor } } }`,
    variables: (req) => req.query as Record<string, unknown>,
    select: (d) => d.classSessions,
  });
  graphqlRoute<{ createClassSession: unknown }>(app, deps, {
    method: 'POST', url: '/classes', summary: 'Schedule a session of a class service', tags, scope: 'services:write',
    body: CreateClass, response: ClassSession,
    operation: `mutation($input: CreateClassSessionInput!) { createClassSession(input: $input) { ${FIELDS} } }`,
    variables: (req) => ({ input: req.body }),
    select: (d) => d.createClassSession,
  });
  graphqlRoute<{ classSession: unknown }>(app, deps, {
    method: 'GET', url: '/classes/:id', summary: 'Get a class session', tags, scope: 'services:read',
    params: Type.Object({ id: PathId }), response: ClassSession,
    operation: `query($id: String!) { classSession(id: $id) { ${FIELDS} } }`,
    variables: params,
    select: (d) => d.classSession,
  });
  graphqlRoute<{ updateClassSession: unknown }>(app, deps, {
    method: 'PATCH', url: '/classes/:id', summary: 'Change a scheduled session; new times move its bookings', tags, scope: 'services:write',
    params: Type.Object({ id: PathId }), body: UpdateClass, response: ClassSession,
    operation: `mutation($id: String!, $input: UpdateClassSessionInput!) { updateClassSession(id: $id, input: $input) { ${FIELDS} } }`,
    variables: (req) => ({ id: params(req).id, input: req.body }),
    select: (d) => d.updateClassSession,
  });
  graphqlRoute<{ cancelClassSession: unknown }>(app, deps, {
    method: 'POST', url: '/classes/:id/cancel', summary: 'Cancel a session and all its bookings', tags, scope: 'services:write',
    params: Type.Object({ id: PathId }), body: CancelClass, optionalBody: true, response: ClassSession,
    operation: `mutation($id: String!, $reason: String) { cancelClassSession(id: $id, reason: $reason) { ${FIELDS} } }`,
    variables: (req) => ({ id: params(req).id, reason: (req.body as { reason?: string } | undefined)?.reason ?? null }),
    select: (d) => d.cancelClassSession,
  });
}
