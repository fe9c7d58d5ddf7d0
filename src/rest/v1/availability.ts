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

const Reason = Type.Object(
  {
    code: Type.String({
      description:
        'OUTSIDE_WORKING_HOURS, TIME_OFF, DATE_OVERRIDE, CLOSURE, BOOKED, BUFFER, MIN_NOTICE, MAX_ADVANCE, OFF_INTERVAL, DAILY_LIMIT, NOT_QUALIFIED, SERVICE_INACTIVE, CLASS_FULL, NO_SESSION, EXTERNAL_BUSY (an open list)',
    }),
    message: Type.String(),
    employeeId: Type.Optional(Id),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { title: 'Why a time cannot be booked' },
);
const Explanation = Type.Object(
  { available: Type.Boolean(), employeeIds: Type.Array(Id), reasons: Type.Array(Reason) },
  { $id: 'AvailabilityExplanation', title: 'Whether a start can be booked, with whom, and why not' },
);

type ExplainedReason = { code: string; message: string; employeeId: string | null; details: unknown };

/** GraphQL answers null for what a reason lacks; REST leaves it out, as in a refusal's details.reasons. */
const withoutNulls = (r: ExplainedReason) => ({
  code: r.code,
  message: r.message,
  ...(r.employeeId != null ? { employeeId: r.employeeId } : {}),
  ...(r.details != null ? { details: r.details } : {}),
});

type Found = { slots: unknown[] | null; sessions: unknown[] | null };

export default async function availabilityRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/availability',
    operationId: 'getAvailability',
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
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/availability/explain',
    operationId: 'explainAvailability',
    summary:
      'Whether a service can be booked at one start (by one employee, if named), with whom, and every reason why not',
    tags: ['Availability'],
    scope: 'availability:read',
    request: {
      querystring: Type.Object(
        { serviceId: Id, startTime: Timestamp, employeeId: Type.Optional(Id) },
        { additionalProperties: false },
      ),
    },
    response: Explanation,
    query: 'availabilityExplanation',
    variables: (req) => req.query,
    select: (e: { available: boolean; employeeIds: string[]; reasons: ExplainedReason[] }) => ({
      ...e,
      reasons: e.reasons.map(withoutNulls),
    }),
  });
}
