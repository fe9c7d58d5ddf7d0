// /api/v1/class-schedules: recurring class timetables (docs/api.md, Class schedules), under the
// services:* scopes (docs/api.md, Class schedules).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Id, Nullable, PageQuery, PathId, Timestamp } from '../schemas.js';

const LocalDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'A local date, YYYY-MM-DD' });
const LocalTime = Type.String({
  pattern: '^([01]\\d|2[0-3]):[0-5]\\d$',
  description: "A local wall-clock time, HH:MM, in the company's time zone (the location's, when it names one)",
});
const RRule = Type.String({
  minLength: 1,
  maxLength: 512,
  description: 'An RFC 5545 RRULE value, e.g. FREQ=WEEKLY;BYDAY=MO,WE (docs/api.md, Recurrence rules)',
});
const Capacity = Type.Integer({ minimum: 1, maximum: 10_000 });
const ResourceIds = Type.Array(Id, {
  maxItems: 10,
  uniqueItems: true,
  description: 'Resources every session holds besides those the service requires; at the location, if any',
});
const Status = Type.Union([Type.Literal('active'), Type.Literal('stopped')]);

const ClassSchedule = Type.Object(
  {
    _id: Id,
    serviceId: Id,
    employeeId: Id,
    locationId: Nullable({ ...Id, description: "Where its sessions take place (its times in the location's zone)" }),
    resourceIds: Type.Array(Id, { description: 'Resources every session holds, besides those the service requires' }),
    localStartTime: Type.String(),
    rrule: Type.String(),
    capacity: Type.Integer(),
    startsOn: Type.String(),
    endsOn: Nullable(Type.String()),
    status: Status,
    generatedUntil: Timestamp,
    skippedOccurrences: Type.Array(
      Type.Object({
        startTime: Timestamp,
        reason: Type.Union(
          ['BOOKED', 'TIME_OFF', 'CLOSURE', 'NOT_QUALIFIED', 'SERVICE_INACTIVE', 'RESOURCE_BUSY'].map((r) =>
            Type.Literal(r),
          ),
        ),
        message: Type.String(),
      }),
    ),
    unchangedSessions: Type.Array(
      Type.Object({ classId: Id, startTime: Timestamp, reason: Type.Literal('HAS_BOOKINGS') }),
    ),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'ClassSchedule', title: 'Class schedule' },
);

const CreateClassSchedule = Type.Object(
  {
    serviceId: Id,
    employeeId: Id,
    localStartTime: LocalTime,
    rrule: RRule,
    capacity: Capacity,
    startsOn: LocalDate,
    endsOn: Type.Optional(Nullable(LocalDate)),
    locationId: Type.Optional(Nullable({ ...Id, description: 'A location of the company: times in its zone' })),
    resourceIds: Type.Optional(ResourceIds),
  },
  { additionalProperties: false },
);
const UpdateClassSchedule = Type.Object(
  {
    applyTo: Type.Literal('future'),
    employeeId: Type.Optional(Id),
    localStartTime: Type.Optional(LocalTime),
    rrule: Type.Optional(RRule),
    capacity: Type.Optional(Capacity),
    endsOn: Type.Optional(Nullable(LocalDate)),
    locationId: Type.Optional(Nullable({ ...Id, description: 'Another location; null: none' })),
    resourceIds: Type.Optional(ResourceIds),
  },
  { additionalProperties: false },
);

const ById = Type.Object({ id: PathId });
const tags = ['Class schedules'];

export default async function classScheduleRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/class-schedules',
    operationId: 'listClassSchedules',
    summary: 'List class schedules, newest first',
    tags,
    scope: 'services:read',
    list: true,
    request: {
      querystring: Type.Object(
        { ...PageQuery, serviceId: Type.Optional(Id), employeeId: Type.Optional(Id), status: Type.Optional(Status) },
        { additionalProperties: false },
      ),
    },
    response: ClassSchedule,
    query: 'classSchedules',
    variables: (req) => req.query,
  });
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/class-schedules',
    operationId: 'createClassSchedule',
    summary:
      'Create a recurring class timetable; its sessions are generated 12 weeks ahead (skippedOccurrences: those the instructor cannot teach)',
    tags,
    scope: 'services:write',
    request: { body: CreateClassSchedule },
    response: ClassSchedule,
    mutation: 'createClassSchedule',
    variables: (req) => ({ input: req.body }),
  });
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/class-schedules/:id',
    operationId: 'getClassSchedule',
    summary: 'Get a class schedule',
    tags,
    scope: 'services:read',
    request: { params: ById },
    response: ClassSchedule,
    query: 'classSchedule',
    variables: (req) => req.params,
  });
  graphqlRoute(app, deps, {
    method: 'PATCH',
    url: '/class-schedules/:id',
    operationId: 'updateClassSchedule',
    summary:
      'Change a schedule from now on (applyTo: future); future sessions with bookings stay as they are (unchangedSessions)',
    tags,
    scope: 'services:write',
    request: { params: ById, body: UpdateClassSchedule },
    response: ClassSchedule,
    mutation: 'updateClassSchedule',
    variables: (req) => ({ id: req.params.id, input: req.body }),
  });
  graphqlRoute(app, deps, {
    method: 'DELETE',
    url: '/class-schedules/:id',
    operationId: 'deleteClassSchedule',
    errors: ['INVALID_STATE_TRANSITION'],
    summary:
      'Stop a schedule: no more sessions, future empty sessions cancelled; those with bookings stay (unchangedSessions)',
    tags,
    scope: 'services:write',
    request: { params: ById },
    response: ClassSchedule,
    mutation: 'deleteClassSchedule',
    variables: (req) => req.params,
  });
}
