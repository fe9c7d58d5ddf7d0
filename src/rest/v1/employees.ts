// /api/v1/employees and their time off (docs/api.md). DELETE deactivates.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Id, Nullable, PageQuery, PathId, Timestamp } from '../schemas.js';

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
const LocalTime = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$|^24:00$', description: 'HH:MM, local time in the company time zone' });
const TimeRange = Type.Object({ start: LocalTime, end: LocalTime }, { additionalProperties: false });
const WorkingHours = Type.Object(Object.fromEntries(WEEKDAYS.map((d) => [d, Type.Array(TimeRange, { maxItems: 12 })])), {
  additionalProperties: false,
  description: 'All seven weekdays; several intervals a day allowed; an empty list is a day off',
});

export const Employee = Type.Object(
  {
    _id: Id,
    name: Type.String(),
    email: Nullable(Type.String()),
    phone: Nullable(Type.String()),
    workingHours: WorkingHours,
    serviceIds: Type.Array(Id),
    active: Type.Boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Employee', title: 'Employee' },
);

const EmployeeFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  email: Nullable(Type.String({ maxLength: 254 })),
  phone: Nullable(Type.String({ maxLength: 32 })),
  workingHours: WorkingHours,
  serviceIds: Type.Array(Id, { maxItems: 200, description: 'The services this employee performs' }),
  active: Type.Boolean(),
};
const CreateEmployee = Type.Object(
  { ...EmployeeFields, ...Object.fromEntries(Object.entries(EmployeeFields).filter(([k]) => k !== 'name').map(([k, v]) => [k, Type.Optional(v)])) },
  { additionalProperties: false },
);
const UpdateEmployee = Type.Partial(Type.Object(EmployeeFields), { additionalProperties: false });

const TimeOff = Type.Object(
  { _id: Id, employeeId: Id, startTime: Timestamp, endTime: Timestamp, reason: Nullable(Type.String()), createdAt: Timestamp },
  { $id: 'TimeOff', title: 'Time off' },
);
const CreateTimeOff = Type.Object(
  { startTime: Timestamp, endTime: Timestamp, reason: Type.Optional(Nullable(Type.String({ maxLength: 500 }))) },
  { additionalProperties: false },
);

const FIELDS = `_id name email phone active serviceIds createdAt updatedAt workingHours { ${WEEKDAYS.map((d) => `${d} { start end }`).join(' ')} }`;
const TIME_OFF = '_id employeeId startTime endTime reason createdAt';
const PAGE = 'pagination { limit hasMore nextCursor }';
const params = (req: FastifyRequest) => req.params as Record<string, string>;
const query = (req: FastifyRequest) => req.query as Record<string, unknown>;
const tags = ['Employees'];

export default async function employeeRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute<{ employees: unknown }>(app, deps, {
    method: 'GET', url: '/employees', summary: 'List employees, newest first', tags, scope: 'employees:read', list: true,
    querystring: Type.Object({ ...PageQuery, active: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
    response: Employee,
    operation: `query($limit: Int, $cursor: String, $active: Boolean) { employees(limit: $limit, cursor: $cursor, active: $active) { data { ${FIELDS} } ${PAGE} } }`,
    variables: query,
    select: (d) => d.employees,
  });
  graphqlRoute<{ createEmployee: unknown }>(app, deps, {
    method: 'POST', url: '/employees', summary: 'Create an employee', tags, scope: 'employees:write',
    body: CreateEmployee, response: Employee,
    operation: `mutation($input: CreateEmployeeInput!) { createEmployee(input: $input) { ${FIELDS} } }`,
    variables: (req) => ({ input: req.body }),
    select: (d) => d.createEmployee,
  });
  graphqlRoute<{ employee: unknown }>(app, deps, {
    method: 'GET', url: '/employees/:id', summary: 'Get an employee', tags, scope: 'employees:read',
    params: Type.Object({ id: PathId }), response: Employee,
    operation: `query($id: String!) { employee(id: $id) { ${FIELDS} } }`,
    variables: params,
    select: (d) => d.employee,
  });
  graphqlRoute<{ updateEmployee: unknown }>(app, deps, {
    method: 'PATCH', url: '/employees/:id', summary: 'Change an employee; serviceIds replaces the set', tags, scope: 'employees:write',
    params: Type.Object({ id: PathId }), body: UpdateEmployee, response: Employee,
    operation: `mutation($id: String!, $input: UpdateEmployeeInput!) { updateEmployee(id: $id, input: $input) { ${FIELDS} } }`,
    variables: (req) => ({ id: params(req).id, input: req.body }),
    select: (d) => d.updateEmployee,
  });
  graphqlRoute<{ deactivateEmployee: unknown }>(app, deps, {
    method: 'DELETE', url: '/employees/:id', summary: 'Deactivate an employee (kept with their history, no longer bookable)', tags, scope: 'employees:write',
    params: Type.Object({ id: PathId }), response: Employee,
    operation: `mutation($id: String!) { deactivateEmployee(id: $id) { ${FIELDS} } }`,
    variables: params,
    select: (d) => d.deactivateEmployee,
  });
  graphqlRoute<{ employeeTimeOff: unknown }>(app, deps, {
    method: 'GET', url: '/employees/:id/time-off', summary: "List an employee's time off, newest first", tags, scope: 'employees:read', list: true,
    params: Type.Object({ id: PathId }), querystring: Type.Object(PageQuery, { additionalProperties: false }), response: TimeOff,
    operation: `query($id: String!, $limit: Int, $cursor: String) { employeeTimeOff(employeeId: $id, limit: $limit, cursor: $cursor) { data { ${TIME_OFF} } ${PAGE} } }`,
    variables: (req) => ({ ...query(req), id: params(req).id }),
    select: (d) => d.employeeTimeOff,
  });
  graphqlRoute<{ createTimeOff: unknown }>(app, deps, {
    method: 'POST', url: '/employees/:id/time-off', summary: 'Add time off for an employee', tags, scope: 'employees:write',
    params: Type.Object({ id: PathId }), body: CreateTimeOff, response: TimeOff,
    operation: `mutation($id: String!, $input: CreateTimeOffInput!) { createTimeOff(employeeId: $id, input: $input) { ${TIME_OFF} } }`,
    variables: (req) => ({ id: params(req).id, input: req.body }),
    select: (d) => d.createTimeOff,
  });
  graphqlRoute<{ deleteTimeOff: unknown }>(app, deps, {
    method: 'DELETE', url: '/employees/:id/time-off/:timeOffId', summary: 'Remove time off; returns what was removed', tags, scope: 'employees:write',
    params: Type.Object({ id: PathId, timeOffId: PathId }), response: TimeOff,
    operation: `mutation($id: String!, $timeOffId: String!) { deleteTimeOff(employeeId: $id, id: $timeOffId) { ${TIME_OFF} } }`,
    variables: params,
    select: (d) => d.deleteTimeOff,
  });
}
