// GET /api/v1/availability (docs/api.md).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { findAvailability, type Availability as Found, type VisitSlotItem } from '../../schema/availability/index.js';
import { toIsoTimestamp } from '../../schema/iso-timestamp.js';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Id, Timestamp } from '../schemas.js';

const VisitSlotItem = Type.Object({
  serviceId: Id,
  startTime: Timestamp,
  endTime: Timestamp,
  employeeIds: Type.Array(Id),
});
const Slot = Type.Object({
  startTime: Timestamp,
  endTime: { ...Timestamp, description: 'With serviceIds: when the last service ends' },
  employeeIds: Type.Array(Id, { description: 'With serviceIds: the employees free for the first service' }),
  items: Type.Optional(
    Type.Array(VisitSlotItem, {
      description: 'With serviceIds only: each service back to back, its times and the employees free for it',
    }),
  ),
});
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
        'OUTSIDE_WORKING_HOURS, TIME_OFF, DATE_OVERRIDE, CLOSURE, BOOKED, BUFFER, MIN_NOTICE, MAX_ADVANCE, OFF_INTERVAL, DAILY_LIMIT, NOT_QUALIFIED, SERVICE_INACTIVE, CLASS_FULL, NO_SESSION, EXTERNAL_BUSY, RESOURCE_BUSY (an open list)',
    }),
    message: Type.String(),
    employeeId: Type.Optional(Id),
    resourceId: Type.Optional(Id),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { title: 'Why a time cannot be booked' },
);
const Explanation = Type.Object(
  { available: Type.Boolean(), employeeIds: Type.Array(Id), reasons: Type.Array(Reason) },
  { $id: 'AvailabilityExplanation', title: 'Whether a start can be booked, with whom, and why not' },
);

type ExplainedReason = {
  code: string;
  message: string;
  employeeId: string | null;
  resourceId: string | null;
  details: unknown;
};

/** GraphQL answers null for what a reason lacks; REST leaves it out, as in a refusal's details.reasons. */
const withoutNulls = (r: ExplainedReason) => ({
  code: r.code,
  message: r.message,
  ...(r.employeeId != null ? { employeeId: r.employeeId } : {}),
  ...(r.resourceId != null ? { resourceId: r.resourceId } : {}),
  ...(r.details != null ? { details: r.details } : {}),
});

// A month of slots answered from the availability cache is the same array for as long as the
// cached month is current and the clock stays between the same two starts (cutEntry in
// src/schema/availability/availability-cache.ts, which checks the month's availability versions
// on every request); the arrays are never changed. So the body of an array, written once, is
// kept beside it and written again as it is: completing a month of slots through GraphQL,
// JSON.stringify and encoding the string cost most of the request's CPU (see
// docs/performance.md, "Availability bodies").
// eslint-disable-next-line no-restricted-syntax -- process state: availability bodies
const written = new WeakMap<object, Buffer>();

const item = (i: VisitSlotItem) => ({
  serviceId: i.serviceId,
  startTime: toIsoTimestamp(i.startTime),
  endTime: toIsoTimestamp(i.endTime),
  employeeIds: i.employeeIds,
});

/** `data` as the GraphQL operation would give it (the DateTime scalar's strings), in JSON. */
function availabilityJson(a: Found): Buffer {
  const list = a.kind === 'appointment' ? a.slots : a.sessions;
  let body = written.get(list);
  if (body) return body;
  const data =
    a.kind === 'appointment'
      ? {
          slots: a.slots.map((s: (typeof a.slots)[number] & { items?: VisitSlotItem[] }) => ({
            startTime: toIsoTimestamp(s.startTime),
            endTime: toIsoTimestamp(s.endTime),
            employeeIds: s.employeeIds,
            ...(s.items ? { items: s.items.map(item) } : {}),
          })),
        }
      : {
          sessions: a.sessions.map((s) => ({
            classId: s.classId,
            startTime: toIsoTimestamp(s.startTime),
            endTime: toIsoTimestamp(s.endTime),
            employeeId: s.employeeId,
            capacity: s.capacity,
            spotsLeft: s.spotsLeft,
          })),
        };
  body = Buffer.from(JSON.stringify(data));
  written.set(list, body);
  return body;
}

export default async function availabilityRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/availability',
    operationId: 'getAvailability',
    summary:
      'Free slots of an appointment service (15-minute steps), or of a whole visit (serviceIds), or the sessions of a class service; at most 31 days',
    tags: ['Availability'],
    scope: 'availability:read',
    request: {
      querystring: Type.Object(
        {
          serviceId: Type.Optional(Id),
          serviceIds: Type.Optional(
            Type.String({
              pattern: '^[0-9a-f]{24}(,[0-9a-f]{24}){0,9}$',
              description:
                "Instead of serviceId: a visit's services in order, comma-separated (at most 10): the starts where all of them fit back to back (POST /visits)",
            }),
          ),
          from: Timestamp,
          to: Timestamp,
          employeeId: Type.Optional(Id),
          locationId: Type.Optional({ ...Id, description: 'Only working intervals and resources at this location' }),
        },
        { additionalProperties: false },
      ),
    },
    response: Availability,
    // The field's use case, as its resolver calls it; REST sends the one list that applies
    // (GraphQL answers both, one of them null).
    query: 'availability',
    variables: (req) => ({ ...req.query, serviceIds: req.query.serviceIds?.split(',') }),
    direct: {
      value: (ctx, input) => findAvailability(ctx.db, { company: ctx.credential!.company, input }),
      json: availabilityJson,
    },
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
        {
          serviceId: Id,
          startTime: Timestamp,
          employeeId: Type.Optional(Id),
          locationId: Type.Optional({
            ...Id,
            description: 'As on /availability: only working intervals and resources at this location',
          }),
        },
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
