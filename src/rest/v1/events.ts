// GET /api/v1/events and /api/v1/events/:id (docs/api.md): the company's event log, newest first.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { EVENT_TYPES } from '../../schema/events/index.js';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Id, PageQuery, PathId, Timestamp } from '../schemas.js';

const Event = Type.Object(
  {
    _id: Id,
    type: Type.String({ description: 'The event type: booking.created, customer.updated, ... (an open set)' }),
    data: Type.Record(Type.String(), Type.Unknown()),
    createdAt: Timestamp,
  },
  { $id: 'Event', title: 'Event' },
);

const tags = ['Events'];

export default async function eventRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/events',
    summary: 'List events, newest first; from filters on createdAt',
    tags,
    scope: 'events:read',
    list: true,
    request: {
      querystring: Type.Object(
        {
          ...PageQuery,
          type: Type.Optional(Type.Union(EVENT_TYPES.map((e) => Type.Literal(e)))),
          from: Type.Optional(Timestamp),
        },
        { additionalProperties: false },
      ),
    },
    response: Event,
    query: 'events',
    variables: (req) => req.query,
  });
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/events/:id',
    summary: 'Get an event',
    tags,
    scope: 'events:read',
    request: { params: Type.Object({ id: PathId }) },
    response: Event,
    query: 'event',
    variables: (req) => req.params,
  });
}
