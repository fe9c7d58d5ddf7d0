// /api/v1/closures (docs/api.md): times the company or some employees are closed.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Id, Nullable, PageQuery, PathId, Timestamp } from '../schemas.js';

const Closure = Type.Object(
  {
    _id: Id,
    startTime: Timestamp,
    endTime: Timestamp,
    reason: Type.String({ description: 'Why; also the cancel reason of the bookings it cancelled' }),
    employeeIds: Nullable(
      Type.Array(Id, { description: 'The employees closed; null: the whole company (later employees included)' }),
    ),
    createdAt: Timestamp,
  },
  { $id: 'Closure', title: 'Closure' },
);

const CreateClosure = Type.Object(
  {
    startTime: Timestamp,
    endTime: { ...Timestamp, description: 'After startTime, at most 366 days later' },
    reason: Type.String({ minLength: 1, maxLength: 500 }),
    employeeIds: Type.Optional(
      Type.Array(Id, { minItems: 1, maxItems: 200, description: 'Left out: the whole company' }),
    ),
    cancelBookings: Type.Optional(
      Type.Boolean({
        description: 'Cancel the active bookings inside it (with the reason) instead of a 409 CONFLICT',
      }),
    ),
  },
  { additionalProperties: false },
);

const tags = ['Closures'];

export default async function closureRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/closures',
    operationId: 'listClosures',
    summary: 'List closures, newest first; from/to keep those overlapping that time',
    tags,
    scope: 'company:read',
    list: true,
    request: {
      querystring: Type.Object(
        { ...PageQuery, from: Type.Optional(Timestamp), to: Type.Optional(Timestamp) },
        { additionalProperties: false },
      ),
    },
    response: Closure,
    query: 'closures',
    variables: (req) => req.query,
  });
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/closures',
    operationId: 'createClosure',
    summary:
      'Close the company (or some employees) for a time; over active bookings 409 CONFLICT with details.bookingIds unless cancelBookings',
    tags,
    scope: 'company:write',
    request: { body: CreateClosure },
    response: Closure,
    mutation: 'createClosure',
    variables: (req) => ({ input: req.body }),
  });
  graphqlRoute(app, deps, {
    method: 'DELETE',
    url: '/closures/:id',
    operationId: 'deleteClosure',
    summary: 'Delete a closure; returns what was deleted',
    tags,
    scope: 'company:write',
    request: { params: Type.Object({ id: PathId }) },
    response: Closure,
    mutation: 'deleteClosure',
    variables: (req) => req.params,
  });
}
