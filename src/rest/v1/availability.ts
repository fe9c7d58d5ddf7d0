// GET /api/v1/availability (docs/api.md).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Id, Timestamp } from '../schemas.js';

const Slot = Type.Object({ startTime: Timestamp, endTime: Timestamp, employeeIds: Type.Array(Id) });
const Session = Type.Object({
  classId: Id,
  startTime: Timestamp,
  endTime: Timestamp,
  employeeId: Id,
  capacity: Type.Integer(),
  spotsLeft: Type.Integer(),
});
const Availability = Type.Union(
  [Type.Object({ slots: Type.Array(Slot) }), Type.Object({ sessions: Type.Array(Session) })],
  {
    $id: 'Availability',
    title: 'Availability: slots for appointment services, sessions for class services',
  },
);

type Found = { slots: unknown[] | null; sessions: unknown[] | null };

export default async function availabilityRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/availability',
    summary:
      'Free slots of an appointment service (15-minute steps), or the sessions of a class service; at most 31 days',
    tags: ['Availability'],
    scope: 'availability:read',
    request: {
      querystring: Type.Object(
        { serviceId: Id, from: Timestamp, to: Timestamp, employeeId: Type.Optional(Id) },
        { additionalProperties: false },
      ),
    },
    response: Availability,
    // GraphQL answers both lists, one of them null; REST sends the one that applies.
    query: 'availability',
    variables: (req) => req.query,
    select: (a: Found) => (a.slots ? { slots: a.slots } : { sessions: a.sessions }),
  });
}
