// Employees, their working hours, the services they perform, and their time off
// (docs/api.md). Scopes: employees:read / employees:write.
import { resolveArrayConnection } from '@pothos/plugin-relay';
import type { Employee, Prisma, TimeOff } from '../../generated/prisma/client.js';
import { isId } from '../../ids.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import {
  connectionType,
  NamedListOrderEnum,
  nodeQuery,
  orderByOf,
  resolveConnection,
  ScheduleOrderEnum,
  relatedQuery,
} from '../connections.js';
import { legacyPageArgs } from '../pagination.js';
import { createEmployee } from './create-employee.js';
import { findEmployee, found } from '../find-records.js';
import { createTimeOff, deleteTimeOff } from './manage-time-off.js';
import { deactivateEmployee, updateEmployee } from './update-employee.js';
import { readWorkingHours, WEEKDAYS } from './working-hours.js';
import { NodeInterface } from '../node.js';

export const TimeRange = builder
  .objectRef<{ start: string; end: string; locationId?: string | null }>('TimeRange')
  .implement({
    description:
      'A local time interval "HH:MM"–"HH:MM" in the company time zone (or, when it names a location, in the location\'s)',
    fields: (t) => ({
      start: t.exposeString('start', { description: 'Local start, HH:MM' }),
      end: t.exposeString('end', { description: 'Local end, HH:MM, after start' }),
      locationId: t.id({
        nullable: true,
        description: 'The location an employee works at then (its zone applies); null: none named',
        resolve: (r) => r.locationId ?? null,
      }),
    }),
  });

export const WorkingHoursType = builder.objectRef<ReturnType<typeof readWorkingHours>>('WorkingHours').implement({
  description: 'The weekly working hours: each weekday its intervals (none: a day off)',
  fields: (t) =>
    Object.fromEntries(
      WEEKDAYS.map((d) => [
        d,
        t.field({ type: [TimeRange], description: `The intervals worked on ${d}`, resolve: (w) => w[d] }),
      ]),
    ),
});

export const EmployeeType = builder.prismaObject('Employee', {
  interfaces: [NodeInterface],
  description: 'A member of staff who performs services and teaches classes',
  fields: (t) => ({
    _id: t.exposeID('id', { description: 'The employee id' }),
    name: t.exposeString('name', { description: 'Full name' }),
    email: t.exposeString('email', { nullable: true, description: 'E-mail address' }),
    phone: t.exposeString('phone', { nullable: true, description: 'Phone number in E.164' }),
    workingHours: t.field({
      type: WorkingHoursType,
      description: 'Weekly working hours in the company time zone',
      resolve: (e) => readWorkingHours(e.workingHours),
    }),
    serviceIds: t.idList({
      description: 'The ids of the services they perform',
      select: { services: { select: { serviceId: true }, orderBy: { serviceId: 'asc' } } },
      resolve: (e) => e.services.map((s) => s.serviceId),
    }),
    active: t.exposeBoolean('active', { description: 'Whether they can be booked (inactive staff stay readable)' }),
    metadata: t.expose('metadata', {
      type: 'Metadata',
      description: 'Your own key/value pairs (docs/api.md, Metadata)',
    }),
    externalCalendars: t.relation('externalCalendars', {
      description: 'Their outside calendars, whose busy times block availability (URLs redacted)',
      query: { orderBy: { slot: 'asc' } },
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When they were added' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When they last changed' }),
  }),
});

builder.prismaObject('ExternalCalendar', {
  interfaces: [NodeInterface],
  description:
    "An employee's outside calendar (an ICS URL) whose busy times block availability like time off " +
    '(docs/api.md, External calendars)',
  fields: (t) => ({
    _id: t.exposeID('id', { description: 'The external calendar id' }),
    name: t.exposeString('name', { description: 'Its name' }),
    url: t.exposeString('urlRedacted', {
      description: 'The URL redacted: scheme and host only (the URL is a secret, never answered)',
    }),
    lastSuccessAt: t.expose('lastSuccessAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was last fetched successfully (a 304 Not Modified counts); null: not yet',
    }),
    lastError: t.exposeString('lastError', {
      nullable: true,
      description: 'Why the last fetch failed, if it did (the last good copy stays in force); null after a success',
    }),
    lastErrorAt: t.expose('lastErrorAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the last fetch failed, if it did',
    }),
  }),
});

export const TimeOffType = builder.prismaObject('TimeOff', {
  interfaces: [NodeInterface],
  description: 'A time an employee is away and cannot be booked',
  fields: (t) => ({
    _id: t.exposeID('id', { description: 'The time-off id' }),
    employeeId: t.exposeID('employeeId', { description: 'The id of the employee away' }),
    startTime: t.expose('startTime', { type: 'DateTime', description: 'When it starts' }),
    endTime: t.expose('endTime', { type: 'DateTime', description: 'When it ends' }),
    reason: t.exposeString('reason', { nullable: true, description: 'Why, if said' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was entered' }),
  }),
});

export const EmployeeConnection = connectionType<Employee>('Employee', EmployeeType);
const TimeOffConnection = connectionType<TimeOff>('TimeOff', TimeOffType);

const employeeFilterArgs = (t: ArgBuilder) => ({
  active: t.boolean({ description: 'Only active (true) or inactive (false) staff' }),
  orderBy: t({ type: NamedListOrderEnum, description: 'The order (default NEWEST_FIRST)' }),
});
type ArgBuilder = Parameters<Parameters<typeof builder.queryField>[1]>[0]['arg'];
const employeeWhere = (companyId: string, a: { active?: boolean | null }): Prisma.EmployeeWhereInput => ({
  companyId,
  ...(a.active != null ? { active: a.active } : {}),
});

export const TimeRangeInput = builder.inputType('TimeRangeInput', {
  description: 'A local time interval "HH:MM"–"HH:MM" in the company time zone',
  fields: (t) => ({
    start: t.string({ required: true, description: 'Local start, HH:MM' }),
    end: t.string({ required: true, description: 'Local end, HH:MM, after start' }),
    locationId: t.id({
      description: "An employee's weekly interval only: a location of the company, whose zone its times are in",
    }),
  }),
});
export const WorkingHoursInput = builder.inputType('WorkingHoursInput', {
  description: 'All seven weekdays; an empty list is a day off; an interval may name a location',
  fields: (t) =>
    Object.fromEntries(
      WEEKDAYS.map((d) => [
        d,
        t.field({ type: [TimeRangeInput], required: true, description: `The intervals worked on ${d}` }),
      ]),
    ),
});
const ExternalCalendarInput = builder.inputType('ExternalCalendarInput', {
  description: 'An outside calendar: { url, name } adds one, { id } keeps one (name or url to change it)',
  fields: (t) => ({
    id: t.id({ description: 'An existing external calendar of this employee, to keep' }),
    url: t.string({
      description: 'The ICS URL (https in live; webcal:// is read as https://), at most 2048 characters; a secret',
    }),
    name: t.string({ description: 'Its name, at most 100 characters' }),
  }),
});
const employeeInputFields = (required: boolean) =>
  builder.inputType(required ? 'CreateEmployeeInput' : 'UpdateEmployeeInput', {
    description: required ? 'A new employee' : 'The fields to change; the rest stay',
    fields: (t) => ({
      name: t.string({ required, description: 'Full name' }),
      email: t.string({ description: 'E-mail address' }),
      phone: t.string({ description: 'Phone number in E.164' }),
      workingHours: t.field({ type: WorkingHoursInput, description: 'Weekly working hours' }),
      serviceIds: t.idList({ description: 'The services they perform' }),
      active: t.boolean({ description: 'Whether they can be booked' }),
      metadata: t.field({
        type: 'Metadata',
        description: required
          ? 'Your own key/value pairs, up to 50 string values'
          : 'Keys to set, merged into the stored ones; a key set to null is removed',
      }),
      externalCalendars: t.field({
        type: [ExternalCalendarInput],
        description: required
          ? 'Outside calendars (ICS URLs), up to 5'
          : 'The outside calendars, replacing the set (an entry with id keeps that calendar), up to 5',
      }),
    }),
  });
const CreateEmployeeInput = employeeInputFields(true);
const UpdateEmployeeInput = employeeInputFields(false);
const CreateTimeOffInput = builder.inputType('CreateTimeOffInput', {
  description: 'A time away',
  fields: (t) => ({
    startTime: t.field({ type: 'DateTime', required: true, description: 'When it starts' }),
    endTime: t.field({ type: 'DateTime', required: true, description: 'When it ends' }),
    reason: t.string({ description: 'Why' }),
  }),
});

const read = { scope: 'employees:read' } as const;
const write = { scope: 'employees:write' } as const;
const company = (ctx: { credential: { companyId: string } | null }) => ctx.credential!.companyId;
const urlRules = (ctx: Context) => ({ mode: ctx.credential!.mode, config: ctx.config });

builder.queryFields((t) => ({
  employees: t.connection(
    {
      type: EmployeeType,
      description: 'Employees, newest first unless ordered',
      authScopes: read,
      args: { ...legacyPageArgs(t.arg), ...employeeFilterArgs(t.arg) },
      resolve: (_r, a, ctx, info) => {
        const where = employeeWhere(company(ctx), a);
        const query = nodeQuery(ctx, info, 'Employee');
        return resolveConnection(
          a,
          a.orderBy,
          company(ctx),
          (q) => ctx.db.employee.findMany({ ...query, ...q, where: { ...q.where, ...where } }),
          () => ctx.db.employee.count({ where }),
        );
      },
    },
    EmployeeConnection,
  ),
  employee: t.prismaField({
    type: 'Employee',
    description: 'One employee by id',
    authScopes: read,
    args: { id: t.arg.id({ required: true, description: 'The employee id' }) },
    resolve: async (query, _r, args, ctx) =>
      found(
        isId(String(args.id))
          ? await ctx.db.employee.findFirst({ ...query, where: { id: String(args.id), companyId: company(ctx) } })
          : null,
        'employee',
      ),
  }),
  employeeTimeOff: t.connection(
    {
      type: TimeOffType,
      description: "An employee's time off, newest first",
      authScopes: read,
      args: {
        employeeId: t.arg.id({ required: true, description: 'The employee id' }),
        ...legacyPageArgs(t.arg),
        orderBy: t.arg({ type: ScheduleOrderEnum, description: 'The order (default NEWEST_FIRST)' }),
      },
      resolve: async (_r, a, ctx, info) => {
        const employee = await findEmployee(ctx.db, company(ctx), String(a.employeeId));
        const where = { companyId: company(ctx), employeeId: employee.id };
        const query = nodeQuery(ctx, info, 'TimeOff');
        return resolveConnection(
          a,
          a.orderBy,
          company(ctx),
          (q) => ctx.db.timeOff.findMany({ ...query, ...q, where: { ...q.where, ...where } }),
          () => ctx.db.timeOff.count({ where }),
        );
      },
    },
    TimeOffConnection,
  ),
}));

builder.prismaObjectFields('Employee', (t) => ({
  timeOff: t.relatedConnection(
    'timeOff',
    {
      description: 'Their time off (needs employees:read)',
      nullable: true,
      cursor: 'id',
      totalCount: true,
      authScopes: read,
      args: {
        from: t.arg({ type: 'DateTime', description: 'Only time off ending after this instant' }),
        to: t.arg({ type: 'DateTime', description: 'Only time off starting before this instant' }),
        orderBy: t.arg({ type: ScheduleOrderEnum, description: 'The order (default NEWEST_FIRST)' }),
      },
      query: (a, ctx) =>
        relatedQuery(a, company(ctx), {
          where: {
            companyId: company(ctx),
            ...(a.from ? { endTime: { gt: a.from } } : {}),
            ...(a.to ? { startTime: { lt: a.to } } : {}),
          },
          orderBy: orderByOf(a.orderBy),
        }),
    },
    TimeOffConnection,
  ),
}));

// The employees who perform a service, through the employee_services join, loaded with the
// service and paged in memory (a handful per service).

builder.prismaObjectFields('Service', (t) => ({
  employees: t.connection(
    {
      type: EmployeeType,
      nullable: true,
      description: 'The employees who perform it (needs employees:read)',
      authScopes: read,
      select: { employees: { select: { employee: true }, orderBy: { employeeId: 'asc' } } },
      resolve: (s, args) => {
        const list = s.employees.map((l) => l.employee);
        return { ...resolveArrayConnection({ args }, list), totalCount: list.length };
      },
    },
    EmployeeConnection,
  ),
}));

builder.prismaObjectFields('ClassSession', (t) => ({
  instructor: t.relation('employee', {
    nullable: true,
    description: 'Who teaches it (needs employees:read)',
    authScopes: read,
  }),
}));

builder.prismaObjectFields('Company', (t) => ({
  employees: t.relatedConnection(
    'employees',
    {
      description: "The company's staff (needs employees:read)",
      nullable: true,
      cursor: 'id',
      totalCount: true,
      authScopes: read,
      args: employeeFilterArgs(t.arg),
      query: (a, ctx) =>
        relatedQuery(a, company(ctx), { where: employeeWhere(company(ctx), a), orderBy: orderByOf(a.orderBy) }),
    },
    EmployeeConnection,
  ),
}));

builder.mutationFields((t) => ({
  createEmployee: t.field({
    type: EmployeeType,
    description: 'Adds an employee',
    authScopes: write,
    args: { input: t.arg({ type: CreateEmployeeInput, required: true, description: 'The employee' }) },
    resolve: (_r, args, ctx) =>
      createEmployee(ctx.db, { companyId: company(ctx), input: args.input, urls: urlRules(ctx) }),
  }),
  updateEmployee: t.field({
    type: EmployeeType,
    description: 'Changes the given fields of an employee',
    authScopes: write,
    args: {
      id: t.arg.id({ required: true, description: 'The employee id' }),
      input: t.arg({ type: UpdateEmployeeInput, required: true, description: 'The fields to change' }),
    },
    resolve: (_r, args, ctx) =>
      updateEmployee(ctx.db, {
        companyId: company(ctx),
        employeeId: String(args.id),
        input: args.input,
        urls: urlRules(ctx),
      }),
  }),
  deactivateEmployee: t.field({
    type: EmployeeType,
    description: 'Deactivates: the employee stays readable with their history but is no longer bookable',
    authScopes: write,
    args: { id: t.arg.id({ required: true, description: 'The employee id' }) },
    resolve: (_r, args, ctx) => deactivateEmployee(ctx.db, { companyId: company(ctx), employeeId: String(args.id) }),
  }),
  createTimeOff: t.field({
    type: TimeOffType,
    description: 'Enters a time an employee is away',
    authScopes: write,
    args: {
      employeeId: t.arg.id({ required: true, description: 'The employee id' }),
      input: t.arg({ type: CreateTimeOffInput, required: true, description: 'The time away' }),
    },
    resolve: (_r, args, ctx) =>
      createTimeOff(ctx.db, { companyId: company(ctx), employeeId: String(args.employeeId), input: args.input }),
  }),
  deleteTimeOff: t.field({
    type: TimeOffType,
    description: 'Deletes a time off; returns what was deleted',
    authScopes: write,
    args: {
      employeeId: t.arg.id({ required: true, description: 'The employee id' }),
      id: t.arg.id({ required: true, description: 'The time-off id' }),
    },
    resolve: (_r, args, ctx) =>
      deleteTimeOff(ctx.db, {
        companyId: company(ctx),
        employeeId: String(args.employeeId),
        timeOffId: String(args.id),
      }),
  }),
}));
