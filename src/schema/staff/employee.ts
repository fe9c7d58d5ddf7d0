// Employees, their working hours, the services they perform, and their time off
// (docs/api.md). Scopes: employees:read / employees:write.
import type { Employee, TimeOff } from '../../generated/prisma/client.js';
import { builder } from '../builder.js';
import { pageArgs, pageType, paginate } from '../pagination.js';
import { createEmployee } from './create-employee.js';
import { employeeInclude, findEmployee } from '../find-records.js';
import { createTimeOff, deleteTimeOff, listTimeOff } from './manage-time-off.js';
import { deactivateEmployee, updateEmployee } from './update-employee.js';
import { readWorkingHours, WEEKDAYS } from './working-hours.js';

type EmployeeRecord = Employee & { services: Array<{ serviceId: string }> };

const TimeRange = builder.objectRef<{ start: string; end: string }>('TimeRange').implement({
  description: 'A local time interval "HH:MM"–"HH:MM" in the company time zone',
  fields: (t) => ({
    start: t.exposeString('start', { description: 'Local start, HH:MM' }),
    end: t.exposeString('end', { description: 'Local end, HH:MM, after start' }),
  }),
});

const WorkingHours = builder.objectRef<ReturnType<typeof readWorkingHours>>('WorkingHours').implement({
  description: 'The weekly working hours: each weekday its intervals (none: a day off)',
  fields: (t) =>
    Object.fromEntries(
      WEEKDAYS.map((d) => [
        d,
        t.field({ type: [TimeRange], description: `The intervals worked on ${d}`, resolve: (w) => w[d] }),
      ]),
    ),
});

export const EmployeeType = builder.objectRef<EmployeeRecord>('Employee').implement({
  description: 'A member of staff who performs services and teaches classes',
  fields: (t) => ({
    _id: t.exposeID('id', { description: 'The employee id' }),
    name: t.exposeString('name', { description: 'Full name' }),
    email: t.exposeString('email', { nullable: true, description: 'E-mail address' }),
    phone: t.exposeString('phone', { nullable: true, description: 'Phone number in E.164' }),
    workingHours: t.field({
      type: WorkingHours,
      description: 'Weekly working hours in the company time zone',
      resolve: (e) => readWorkingHours(e.workingHours),
    }),
    serviceIds: t.idList({
      description: 'The services they perform',
      resolve: (e) => e.services.map((s) => s.serviceId),
    }),
    active: t.exposeBoolean('active', { description: 'Whether they can be booked (inactive staff stay readable)' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When they were added' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When they last changed' }),
  }),
});

export const TimeOffType = builder.objectRef<TimeOff>('TimeOff').implement({
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

const EmployeePage = pageType('Employee', EmployeeType);
const TimeOffPage = pageType('TimeOff', TimeOffType);

const TimeRangeInput = builder.inputType('TimeRangeInput', {
  description: 'A local time interval "HH:MM"–"HH:MM" in the company time zone',
  fields: (t) => ({
    start: t.string({ required: true, description: 'Local start, HH:MM' }),
    end: t.string({ required: true, description: 'Local end, HH:MM, after start' }),
  }),
});
const WorkingHoursInput = builder.inputType('WorkingHoursInput', {
  description: 'All seven weekdays; an empty list is a day off',
  fields: (t) =>
    Object.fromEntries(
      WEEKDAYS.map((d) => [
        d,
        t.field({ type: [TimeRangeInput], required: true, description: `The intervals worked on ${d}` }),
      ]),
    ),
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

builder.queryFields((t) => ({
  employees: t.field({
    type: EmployeePage,
    description: 'Employees, newest first',
    authScopes: read,
    args: {
      ...pageArgs(t.arg),
      active: t.arg.boolean({ description: 'Only active (true) or inactive (false) staff' }),
    },
    resolve: (_r, args, ctx) =>
      paginate(args, (q) =>
        ctx.db.employee.findMany({
          ...q,
          where: { ...q.where, companyId: company(ctx), ...(args.active != null ? { active: args.active } : {}) },
          include: employeeInclude,
        }),
      ),
  }),
  employee: t.field({
    type: EmployeeType,
    description: 'One employee by id',
    authScopes: read,
    args: { id: t.arg.id({ required: true, description: 'The employee id' }) },
    resolve: (_r, args, ctx) => findEmployee(ctx.db, company(ctx), String(args.id)),
  }),
  employeeTimeOff: t.field({
    type: TimeOffPage,
    description: "An employee's time off, newest first",
    authScopes: read,
    args: { employeeId: t.arg.id({ required: true, description: 'The employee id' }), ...pageArgs(t.arg) },
    resolve: (_r, args, ctx) =>
      listTimeOff(ctx.db, { companyId: company(ctx), employeeId: String(args.employeeId), page: args }),
  }),
}));

builder.mutationFields((t) => ({
  createEmployee: t.field({
    type: EmployeeType,
    description: 'Adds an employee',
    authScopes: write,
    args: { input: t.arg({ type: CreateEmployeeInput, required: true, description: 'The employee' }) },
    resolve: (_r, args, ctx) => createEmployee(ctx.db, { companyId: company(ctx), input: args.input }),
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
      updateEmployee(ctx.db, { companyId: company(ctx), employeeId: String(args.id), input: args.input }),
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
