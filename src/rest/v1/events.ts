// GET /api/v1/events and /api/v1/events/:id (docs/api.md): the company's event log, newest first.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { EVENT_TYPES } from '../../schema/events/index.js';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Id, Nullable, PageQuery, PathId, Timestamp } from '../schemas.js';

export const Event = Type.Object(
  {
    _id: Id,
    type: Type.String({ description: 'The event type: booking.created, customer.updated, ... (an open set)' }),
    data: Type.Record(Type.String(), Type.Unknown()),
    createdAt: Timestamp,
    position: Nullable(
      Type.Integer({
        minimum: 1,
        description:
          'Where the event stands in dispatch order, the cursor to resume from (after=). Null until the event is ' +
          'dispatched, a moment after it is written (and for a ping, which is never relayed)',
      }),
    ),
  },
  { $id: 'Event', title: 'Event' },
);

const tags = ['Events'];

export default async function eventRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/events',
    operationId: 'listEvents',
    summary: 'List events, newest first; or, with after, those dispatched after a position, oldest first',
    tags,
    scope: 'events:read',
    list: true,
    request: {
      querystring: Type.Object(
        {
          ...PageQuery,
          type: Type.Optional(Type.Union(EVENT_TYPES.map((e) => Type.Literal(e)))),
          from: Type.Optional(Timestamp),
          after: Type.Optional(
            Type.String({
              pattern: '^([0-9]{1,15}|[0-9a-f]{24})$',
              description:
                'Resume: the events dispatched after this position (or after the event with this _id), oldest first. ' +
                'Not _id order, which is not commit order',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    },
    response: Event,
    query: 'events',
    // Resuming by an event's _id stands for that event's position; positions are the cursor
    // (docs/api.md, Events), so an _id here is deprecated and will be refused.
    deprecation: {
      since: '2026-11-24',
      sunset: '2027-05-24',
      what: 'an event _id as `after`; send the position of the last event read (`position`)',
      when: (req) => req.query.after !== undefined && !/^[0-9]+$/.test(req.query.after),
    },
    // REST's `after` is GraphQL's `afterPosition` (GraphQL's `after` is the connection's cursor).
    variables: ({ query: { after, ...rest } }) => ({
      ...rest,
      ...(after !== undefined ? { afterPosition: after } : {}),
    }),
  });
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/events/:id',
    operationId: 'getEvent',
    summary: 'Get an event',
    tags,
    scope: 'events:read',
    request: { params: Type.Object({ id: PathId }) },
    response: Event,
    query: 'event',
    variables: (req) => req.params,
  });
}
