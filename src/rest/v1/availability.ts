// GET /api/v1/availability (docs/api.md).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Id, Timestamp } from '../schemas.js';

const Slot = Type.Object({ startTime: Timestamp, endTime: Timestamp, employeeIds: Type.Array(Id) });
const Session = Type.Object({ classId: Id, startTime: Timestamp, endTime: Timestamp, employeeId: Id, capacity: Type.Integer(), spotsLeft: Type.Integer() });
const Availability = Type.Union([Type.Object({ slots: Type.Array(Slot) }), Type.Object({ sessions: Type.Array(Session) })], {
  $id: 'Availability',
  title: 'Availability: slots for appointment services, sessions for class services',
});

export default async function availabilityRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute<{ availability: { slots: unknown[] | null; sessions: unknown[] | null } }>(app, deps, {
    method: 'GET',
    url: '/availability',
    summary: 'Free slots of an appointment service (15-minute steps), or the sessions of a class service; at most 31 days',
    tags: ['Availability'],
    scope: 'availability:read',
    querystring: Type.Object({ serviceId: Id, from: Timestamp, to: Timestamp, employeeId: Type.Optional(Id) }, { additionalProperties: false }),
    response: Availability,
    operation: `query($serviceId: String!, $from: DateTime!, $to: DateTime!, $employeeId: String) {
      availability(serviceId: $serviceId, from: $from, to: $to, employeeId: $employeeId) {
        slots { startTime endTime employeeIds } sessions { classId startTime endTime employeeId capacity spotsLeft } } }`,
    variables: (req) => req.query as Record<string, unknown>,
    select: (d) => (d.availability.slots ? { slots: d.availability.slots } : { sessions: d.availability.sessions }),
  });
}
