// GET /api/v1/events and /api/v1/events/:id (docs/api.md): the company's event log, newest first.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { EVENT_TYPES } from '../../schema/events.js';
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

const FIELDS = '_id type data createdAt';
const tags = ['Events'];

export default async function eventRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute<{ events: unknown }>(app, deps, {
    method: 'GET', url: '/events', summary: 'List events, newest first; from filters on createdAt', tags, scope: 'events:read', list: true,
    querystring: Type.Object(
      { ...PageQuery, type: Type.Optional(Type.Union(EVENT_TYPES.map((e) => Type.Literal(e)))), from: Type.Optional(Timestamp) },
      { additionalProperties: false },
    ),
    response: Event,
    operation: `query($limit: Int, $cursor: String, $type: String, $from: DateTime) { events(limit: $limit, cursor: $cursor, type: $type, from: $from) { data { ${FIELDS} } pagination { limit hasMore nextCursor } } }`,
    variables: (req) => req.query as Record<string, unknown>,
    select: (d) => d.events,
  });
  graphqlRoute<{ event: unknown }>(app, deps, {
    method: 'GET', url: '/events/:id', summary: 'Get an event', tags, scope: 'events:read',
    params: Type.Object({ id: PathId }), response: Event,
    operation: `query($id: String!) { event(id: $id) { ${FIELDS} } }`,
    variables: (req: FastifyRequest) => req.params as Record<string, string>,
    select: (d) => d.event,
  });
}
