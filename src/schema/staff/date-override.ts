// Date overrides (docs/api.md): one local day's working hours of an employee, replacing the
// weekly ones. Scopes: employees:read / employees:write.
import type { DateOverride } from '../../generated/prisma/client.js';
import { builder } from '../builder.js';
import {
  connectionType,
  ListOrderEnum,
  nodeQuery,
  orderByOf,
  resolveConnection,
  relatedQuery,
} from '../connections.js';
import { legacyPageArgs } from '../pagination.js';
import { dateOverrideFilter, dateRange, deleteDateOverride, putDateOverride } from './date-overrides.js';
import { TimeRange, TimeRangeInput } from './employee.js';
import { readDayRanges } from './working-hours.js';
import { NodeInterface } from '../node.js';

export const DateOverrideType = builder.prismaObject('DateOverride', {
  interfaces: [NodeInterface],
  description: "One local day's working hours of an employee, in place of the weekly hours of that weekday",
  fields: (t) => ({
    _id: t.exposeID('id', { description: 'The date override id' }),
    employeeId: t.exposeID('employeeId', { description: 'The employee' }),
    date: t.exposeString('date', { description: 'The local date, YYYY-MM-DD, in the company time zone' }),
    intervals: t.field({
      type: [TimeRange],
      description: 'The local intervals worked that day, sorted; empty: off that day',
      resolve: (o) => readDayRanges(o.intervals),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was first set' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it last changed' }),
  }),
});

const DateOverrideConnection = connectionType<DateOverride>('DateOverride', DateOverrideType);

const company = (ctx: { credential: { companyId: string } | null }) => ctx.credential!.companyId;

builder.queryFields((t) => ({
  employeeDateOverrides: t.connection(
    {
      type: DateOverrideType,
      description: "An employee's date overrides, newest first unless ordered; from/to bound their dates (inclusive)",
      authScopes: { scope: 'employees:read' },
      args: {
        employeeId: t.arg.id({ required: true, description: 'The employee id' }),
        from: t.arg.string({ description: 'Only dates on or after this local date, YYYY-MM-DD' }),
        to: t.arg.string({ description: 'Only dates on or before this local date, YYYY-MM-DD' }),
        ...legacyPageArgs(t.arg),
        orderBy: t.arg({ type: ListOrderEnum, description: 'The order (default NEWEST_FIRST)' }),
      },
      resolve: async (_r, a, ctx, info) => {
        const where = await dateOverrideFilter(ctx.db, {
          companyId: company(ctx),
          employeeId: String(a.employeeId),
          input: { from: a.from, to: a.to },
        });
        const query = nodeQuery(ctx, info, 'DateOverride');
        return resolveConnection(
          a,
          a.orderBy,
          company(ctx),
          (q) => ctx.db.dateOverride.findMany({ ...query, ...q, where: { ...q.where, ...where } }),
          () => ctx.db.dateOverride.count({ where }),
        );
      },
    },
    DateOverrideConnection,
  ),
}));

const PutDateOverrideInput = builder.inputType('PutDateOverrideInput', {
  description: "One local day's working hours of an employee",
  fields: (t) => ({
    date: t.string({ required: true, description: 'The local date, YYYY-MM-DD, in the company time zone' }),
    intervals: t.field({
      type: [TimeRangeInput],
      required: true,
      description: 'The local intervals worked that day (≤ 12, not overlapping); empty: off that day',
    }),
  }),
});

const DeleteDateOverrideInput = builder.inputType('DeleteDateOverrideInput', {
  description: 'Which date override to remove',
  fields: (t) => ({
    date: t.string({ required: true, description: 'The local date, YYYY-MM-DD, in the company time zone' }),
  }),
});

builder.mutationFields((t) => ({
  putDateOverride: t.field({
    type: DateOverrideType,
    description:
      "Sets one local day's working hours of an employee (replacing any override of that date); CONFLICT (details.bookingIds) if active bookings would fall outside them",
    authScopes: { scope: 'employees:write' },
    args: {
      employeeId: t.arg.id({ required: true, description: 'The employee id' }),
      input: t.arg({ type: PutDateOverrideInput, description: 'The date and its intervals' }),
      date: t.arg.string({
        description: 'The local date, YYYY-MM-DD, in the company time zone',
        deprecationReason: 'Use input { date intervals }',
      }),
      intervals: t.arg({
        type: [TimeRangeInput],
        description: 'The local intervals worked that day (≤ 12, not overlapping); empty: off that day',
        deprecationReason: 'Use input { date intervals }',
      }),
    },
    // The input object wins; without it the old arguments are read, each named when missing.
    resolve: (_r, args, ctx) =>
      putDateOverride(ctx.db, {
        companyId: company(ctx),
        employeeId: String(args.employeeId),
        date: args.input ? args.input.date : args.date,
        input: { intervals: args.input ? args.input.intervals : args.intervals },
      }),
  }),
  deleteDateOverride: t.field({
    type: DateOverrideType,
    description:
      'Removes a date override (the weekly hours apply again); CONFLICT if active bookings would fall outside them; returns what was removed',
    authScopes: { scope: 'employees:write' },
    args: {
      employeeId: t.arg.id({ required: true, description: 'The employee id' }),
      input: t.arg({ type: DeleteDateOverrideInput, description: 'The date of the override' }),
      date: t.arg.string({ description: 'The local date, YYYY-MM-DD', deprecationReason: 'Use input { date }' }),
    },
    resolve: (_r, args, ctx) =>
      deleteDateOverride(ctx.db, {
        companyId: company(ctx),
        employeeId: String(args.employeeId),
        date: args.input ? args.input.date : args.date,
      }),
  }),
}));

builder.prismaObjectFields('Employee', (t) => ({
  dateOverrides: t.relatedConnection(
    'dateOverrides',
    {
      description: 'Their date overrides (needs employees:read)',
      nullable: true,
      cursor: 'id',
      totalCount: true,
      authScopes: { scope: 'employees:read' },
      args: {
        from: t.arg.string({ description: 'Only dates on or after this local date, YYYY-MM-DD' }),
        to: t.arg.string({ description: 'Only dates on or before this local date, YYYY-MM-DD' }),
        orderBy: t.arg({ type: ListOrderEnum, description: 'The order (default NEWEST_FIRST)' }),
      },
      query: (a, ctx) =>
        relatedQuery(a, company(ctx), {
          where: { companyId: company(ctx), ...dateRange({ from: a.from, to: a.to }) },
          orderBy: orderByOf(a.orderBy),
        }),
    },
    DateOverrideConnection,
  ),
}));
