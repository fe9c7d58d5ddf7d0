// Employees, their working hours, the services they perform, and their time off
// (docs/api.md). Scopes: employees:read / employees:write.
import type { Employee, TimeOff } from '../../generated/prisma/client.js';
import { builder } from '../builder.js';
import { pageType } from '../pagination.js';
import { createEmployee } from './create-employee.js';
import { employeeInclude, findEmployee } from '../find-records.js';
import { createTimeOff, deleteTimeOff, listTimeOff } from './manage-time-off.js';
import { deactivateEmployee, updateEmployee } from './update-employee.js';
import { paginate } from '../pagination.js';
import { readWorkingHours, WEEKDAYS } from './working-hours.js';

type EmployeeRecord = Employee & { services: Array<{ serviceId: string }> };

const TimeRange = builder.objectRef<{ start: string; end: string }>('TimeRange').implement({
  description: 'A local time interval "HH:MM"–"HH:MM" in the company time zone',
  fields: (t) => ({ start: t.exposeString('start'), end: t.exposeString('end') }),
});

const WorkingHours = builder.objectRef<ReturnType<typeof readWorkingHours>>('WorkingHours').implement({
  fields: (t) => Object.fromEntries(WEEKDAYS.map((d) => [d, t.field({ type: [TimeRange], resolve: (w) => w[d] })])),
});

export const EmployeeType = builder.objectRef<EmployeeRecord>('Employee').implement({
  fields: (t) => ({
    _id: t.exposeID('id'),
    name: t.exposeString('name'),
    email: t.exposeString('email', { nullable: true }),
    phone: t.exposeString('phone', { nullable: true }),
    workingHours: t.field({ type: WorkingHours, resolve: (e) => readWorkingHours(e.workingHours) }),
    serviceIds: t.stringList({ resolve: (e) => e.services.map((s) => s.serviceId) }),
    active: t.exposeBoolean('active'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

export const TimeOffType = builder.objectRef<TimeOff>('TimeOff').implement({
  fields: (t) => ({
    _id: t.exposeID('id'),
    employeeId: t.exposeString('employeeId'),
    startTime: t.expose('startTime', { type: 'DateTime' }),
    endTime: t.expose('endTime', { type: 'DateTime' }),
    reason: t.exposeString('reason', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const EmployeePage = pageType('Employee', EmployeeType);
const TimeOffPage = pageType('TimeOff', TimeOffType);

const TimeRangeInput = builder.inputType('TimeRangeInput', {
  fields: (t) => ({ start: t.string({ required: true }), end: t.string({ required: true }) }),
});
const WorkingHoursInput = builder.inputType('WorkingHoursInput', {
  description: 'All seven weekdays; an empty list is a day off',
  fields: (t) => Object.fromEntries(WEEKDAYS.map((d) => [d, t.field({ type: [TimeRangeInput], required: true })])),
});
const employeeInputFields = (required: boolean) =>
  builder.inputType(required ? 'CreateEmployeeInput' : 'UpdateEmployeeInput', {
    fields: (t) => ({
      name: t.string({ required }),
      email: t.string(),
      phone: t.string(),
      workingHours: t.field({ type: WorkingHoursInput }),
      serviceIds: t.stringList(),
      active: t.boolean(),
    }),
  });
const CreateEmployeeInput = employeeInputFields(true);
const UpdateEmployeeInput = employeeInputFields(false);
const CreateTimeOffInput = builder.inputType('CreateTimeOffInput', {
  fields: (t) => ({
    startTime: t.field({ type: 'DateTime', required: true }),
    endTime: t.field({ type: 'DateTime', required: true }),
    reason: t.string(),
  }),
});

const read = { scope: 'employees:read' } as const;
const write = { scope: 'employees:write' } as const;
const company = (ctx: { credential: { companyId: string } | null }) => ctx.credential!.companyId;

builder.queryFields((t) => ({
  employees: t.field({
    type: EmployeePage,
    authScopes: read,
    args: { limit: t.arg.int(), cursor: t.arg.string(), active: t.arg.boolean() },
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
    authScopes: read,
    args: { id: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) => findEmployee(ctx.db, company(ctx), args.id),
  }),
  employeeTimeOff: t.field({
    type: TimeOffPage,
    authScopes: read,
    args: { employeeId: t.arg.string({ required: true }), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: (_r, args, ctx) =>
      listTimeOff(ctx.db, { companyId: company(ctx), employeeId: args.employeeId, page: args }),
  }),
}));

builder.mutationFields((t) => ({
  createEmployee: t.field({
    type: EmployeeType,
    authScopes: write,
    args: { input: t.arg({ type: CreateEmployeeInput, required: true }) },
    resolve: (_r, args, ctx) => createEmployee(ctx.db, { companyId: company(ctx), input: args.input }),
  }),
  updateEmployee: t.field({
    type: EmployeeType,
    authScopes: write,
    args: { id: t.arg.string({ required: true }), input: t.arg({ type: UpdateEmployeeInput, required: true }) },
    resolve: (_r, args, ctx) =>
      updateEmployee(ctx.db, { companyId: company(ctx), employeeId: args.id, input: args.input }),
  }),
  deactivateEmployee: t.field({
    type: EmployeeType,
    description: 'Deactivates: the employee stays readable with their history but is no longer bookable',
    authScopes: write,
    args: { id: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) => deactivateEmployee(ctx.db, { companyId: company(ctx), employeeId: args.id }),
  }),
  createTimeOff: t.field({
    type: TimeOffType,
    authScopes: write,
    args: { employeeId: t.arg.string({ required: true }), input: t.arg({ type: CreateTimeOffInput, required: true }) },
    resolve: (_r, args, ctx) =>
      createTimeOff(ctx.db, { companyId: company(ctx), employeeId: args.employeeId, input: args.input }),
  }),
  deleteTimeOff: t.field({
    type: TimeOffType,
    authScopes: write,
    args: { employeeId: t.arg.string({ required: true }), id: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) =>
      deleteTimeOff(ctx.db, { companyId: company(ctx), employeeId: args.employeeId, timeOffId: args.id }),
  }),
}));
