// /api/v1/employees, their time off and date overrides (docs/api.md). DELETE deactivates.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { graphqlRoute, type V1Deps } from '../route.js';
import {
  CalendarFeedUrl,
  Id,
  Metadata,
  MetadataPatch,
  Nullable,
  PageQuery,
  PathId,
  RotateCalendarFeed,
  Timestamp,
} from '../schemas.js';

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
const LocalTime = Type.String({
  pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$|^24:00$',
  description: 'HH:MM, local time in the company time zone',
});
const TimeRange = Type.Object({ start: LocalTime, end: LocalTime }, { additionalProperties: false });
const LocatedTimeRange = Type.Object(
  {
    start: LocalTime,
    end: LocalTime,
    locationId: Type.Optional(
      Nullable({ ...Id, description: "A location of the company: the interval's times are in its zone" }),
    ),
  },
  { additionalProperties: false },
);
/** An employee's week: an interval may name a location (docs/api.md, Locations). */
const EmployeeWorkingHours = Type.Object(
  Object.fromEntries(WEEKDAYS.map((d) => [d, Type.Array(LocatedTimeRange, { maxItems: 12 })])),
  {
    additionalProperties: false,
    description:
      'All seven weekdays; several intervals a day allowed; an empty list is a day off; an interval with locationId is at that location, in its time zone',
  },
);
type Hours = Record<string, Array<{ start: string; end: string; locationId?: string | null }>>;
/**
 * GraphQL answers locationId: null for an interval at no location; REST leaves it out, so the
 * hours of a company without locations read exactly as before locations existed.
 */
const withoutNullLocations = (e: { workingHours?: Hours }) =>
  e.workingHours
    ? {
        ...e,
        workingHours: Object.fromEntries(
          Object.entries(e.workingHours).map(([d, list]) => [
            d,
            list.map(({ locationId, ...r }) => (locationId ? { ...r, locationId } : r)),
          ]),
        ),
      }
    : e;

export const WorkingHours = Type.Object(
  Object.fromEntries(WEEKDAYS.map((d) => [d, Type.Array(TimeRange, { maxItems: 12 })])),
  {
    additionalProperties: false,
    description: 'All seven weekdays; several intervals a day allowed; an empty list is a day off',
  },
);

const ExternalCalendar = Type.Object(
  {
    _id: Id,
    name: Type.String(),
    url: Type.String({ description: 'Redacted: scheme and host only (the URL is a secret)' }),
    lastSuccessAt: Nullable(Timestamp),
    lastError: Nullable(Type.String()),
    lastErrorAt: Nullable(Timestamp),
  },
  { $id: 'ExternalCalendar', title: 'External calendar' },
);
const ExternalCalendarEntry = Type.Object(
  {
    id: Type.Optional(Id),
    url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description: 'The ICS URL: https in live (webcal:// is read as https://); a secret, answered redacted',
      }),
    ),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  {
    additionalProperties: false,
    description: '{ url, name } adds a calendar; { id } keeps one of the employee (with url or name to change it)',
  },
);

const Employee = Type.Object(
  {
    _id: Id,
    name: Type.String(),
    email: Nullable(Type.String()),
    phone: Nullable(Type.String()),
    workingHours: EmployeeWorkingHours,
    serviceIds: Type.Array(Id),
    active: Type.Boolean(),
    metadata: Metadata,
    externalCalendars: Type.Array(ExternalCalendar),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Employee', title: 'Employee' },
);

const EmployeeFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  email: Nullable(Type.String({ maxLength: 254 })),
  phone: Nullable(Type.String({ maxLength: 32 })),
  workingHours: EmployeeWorkingHours,
  serviceIds: Type.Array(Id, { maxItems: 200, description: 'The services this employee performs' }),
  active: Type.Boolean(),
  externalCalendars: Type.Array(ExternalCalendarEntry, {
    maxItems: 5,
    description: 'Outside calendars whose busy times block availability; on update, replaces the set',
  }),
};
const CreateEmployee = Type.Object(
  {
    ...EmployeeFields,
    ...Object.fromEntries(
      Object.entries(EmployeeFields)
        .filter(([k]) => k !== 'name')
        .map(([k, v]) => [k, Type.Optional(v)]),
    ),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
const UpdateEmployee = Type.Partial(Type.Object({ ...EmployeeFields, metadata: MetadataPatch }), {
  additionalProperties: false,
});

const TimeOff = Type.Object(
  {
    _id: Id,
    employeeId: Id,
    startTime: Timestamp,
    endTime: Timestamp,
    reason: Nullable(Type.String()),
    createdAt: Timestamp,
  },
  { $id: 'TimeOff', title: 'Time off' },
);
const CreateTimeOff = Type.Object(
  { startTime: Timestamp, endTime: Timestamp, reason: Type.Optional(Nullable(Type.String({ maxLength: 500 }))) },
  { additionalProperties: false },
);

const LocalDate = Type.String({
  pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
  description: 'A local date YYYY-MM-DD in the company time zone',
});
const DateOverride = Type.Object(
  {
    _id: Id,
    employeeId: Id,
    date: LocalDate,
    intervals: Type.Array(TimeRange, { description: 'The local intervals worked that day; empty: off that day' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'DateOverride', title: 'Date override' },
);
const PutDateOverride = Type.Object(
  {
    intervals: Type.Array(TimeRange, {
      maxItems: 12,
      description: 'The local intervals worked that day, not overlapping; [] is a day off',
    }),
  },
  { additionalProperties: false },
);
// The date is judged by the use case (a 400 naming `date`), not as a path id (a 404).
const ByDate = Type.Object({
  id: PathId,
  date: Type.String({ maxLength: 40, description: 'A local date YYYY-MM-DD in the company time zone' }),
});

const ById = Type.Object({ id: PathId });
const tags = ['Employees'];

export default async function employeeRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/employees',
    operationId: 'listEmployees',
    summary: 'List employees, newest first',
    tags,
    scope: 'employees:read',
    list: true,
    request: {
      querystring: Type.Object(
        { ...PageQuery, active: Type.Optional(Type.Boolean()) },
        { additionalProperties: false },
      ),
    },
    response: Employee,
    select: withoutNullLocations,
    query: 'employees',
    variables: (req) => req.query,
  });
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/employees',
    operationId: 'createEmployee',
    summary: 'Create an employee',
    tags,
    scope: 'employees:write',
    request: { body: CreateEmployee },
    response: Employee,
    select: withoutNullLocations,
    mutation: 'createEmployee',
    variables: (req) => ({ input: req.body }),
  });
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/employees/:id',
    operationId: 'getEmployee',
    summary: 'Get an employee',
    tags,
    scope: 'employees:read',
    request: { params: ById },
    response: Employee,
    select: withoutNullLocations,
    query: 'employee',
    variables: (req) => req.params,
  });
  graphqlRoute(app, deps, {
    method: 'PATCH',
    url: '/employees/:id',
    operationId: 'updateEmployee',
    summary: 'Change an employee; serviceIds replaces the set',
    tags,
    scope: 'employees:write',
    request: { params: ById, body: UpdateEmployee },
    response: Employee,
    select: withoutNullLocations,
    mutation: 'updateEmployee',
    variables: (req) => ({ id: req.params.id, input: req.body }),
  });
  graphqlRoute(app, deps, {
    method: 'DELETE',
    url: '/employees/:id',
    operationId: 'deleteEmployee',
    summary: 'Deactivate an employee (kept with their history, no longer bookable)',
    tags,
    scope: 'employees:write',
    request: { params: ById },
    response: Employee,
    select: withoutNullLocations,
    mutation: 'deactivateEmployee',
    variables: (req) => req.params,
  });
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/employees/:id/time-off',
    operationId: 'listEmployeeTimeOff',
    summary: "List an employee's time off, newest first",
    tags,
    scope: 'employees:read',
    list: true,
    request: { params: ById, querystring: Type.Object(PageQuery, { additionalProperties: false }) },
    response: TimeOff,
    query: 'employeeTimeOff',
    variables: (req) => ({ ...req.query, employeeId: req.params.id }),
  });
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/employees/:id/calendar-feed/rotate',
    operationId: 'rotateEmployeeCalendarFeed',
    summary:
      "Create the employee's calendar feed or give it a new secret URL (the old one stops at once); includeNotes puts bookings' notes in it",
    tags,
    scope: 'employees:write',
    request: { params: ById, body: RotateCalendarFeed },
    optionalBody: true,
    response: CalendarFeedUrl,
    mutation: 'rotateEmployeeCalendarFeed',
    variables: (req) => ({ employeeId: req.params.id, input: req.body }),
  });
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/employees/:id/time-off',
    operationId: 'createEmployeeTimeOff',
    summary: 'Add time off for an employee',
    tags,
    scope: 'employees:write',
    request: { params: ById, body: CreateTimeOff },
    response: TimeOff,
    mutation: 'createTimeOff',
    variables: (req) => ({ employeeId: req.params.id, input: req.body }),
  });
  graphqlRoute(app, deps, {
    method: 'DELETE',
    url: '/employees/:id/time-off/:timeOffId',
    operationId: 'deleteEmployeeTimeOff',
    summary: 'Remove time off; returns what was removed',
    tags,
    scope: 'employees:write',
    request: { params: Type.Object({ id: PathId, timeOffId: PathId }) },
    response: TimeOff,
    mutation: 'deleteTimeOff',
    variables: (req) => ({ employeeId: req.params.id, id: req.params.timeOffId }),
  });
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/employees/:id/date-overrides',
    operationId: 'listEmployeeDateOverrides',
    summary: "List an employee's date overrides, newest first; from/to bound their dates (inclusive)",
    tags,
    scope: 'employees:read',
    list: true,
    request: {
      params: ById,
      querystring: Type.Object(
        { ...PageQuery, from: Type.Optional(LocalDate), to: Type.Optional(LocalDate) },
        { additionalProperties: false },
      ),
    },
    response: DateOverride,
    query: 'employeeDateOverrides',
    variables: (req) => ({ ...req.query, employeeId: req.params.id }),
  });
  graphqlRoute(app, deps, {
    method: 'PUT',
    url: '/employees/:id/date-overrides/:date',
    operationId: 'setEmployeeDateOverride',
    summary:
      "Set one local day's working hours (replacing the weekly ones); 409 CONFLICT if active bookings would fall outside them",
    tags,
    scope: 'employees:write',
    request: { params: ByDate, body: PutDateOverride },
    response: DateOverride,
    mutation: 'putDateOverride',
    variables: (req) => ({ employeeId: req.params.id, date: req.params.date, intervals: req.body.intervals }),
  });
  graphqlRoute(app, deps, {
    method: 'DELETE',
    url: '/employees/:id/date-overrides/:date',
    operationId: 'deleteEmployeeDateOverride',
    summary: 'Remove a date override (the weekly hours apply again); returns what was removed',
    tags,
    scope: 'employees:write',
    request: { params: ByDate },
    response: DateOverride,
    mutation: 'deleteDateOverride',
    variables: (req) => ({ employeeId: req.params.id, date: req.params.date }),
  });
}
