// Date overrides (docs/api.md): one local day's working hours of an employee, replacing the
// weekly ones. Scopes: employees:read / employees:write.
import type { DateOverride } from '../../generated/prisma/client.js';
import { builder } from '../builder.js';
import { pageArgs, pageType } from '../pagination.js';
import { deleteDateOverride, listDateOverrides, putDateOverride } from './date-overrides.js';
import { TimeRange, TimeRangeInput } from './employee.js';
import { readDayRanges } from './working-hours.js';

export const DateOverrideType = builder.objectRef<DateOverride>('DateOverride').implement({
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

const DateOverridePage = pageType('DateOverride', DateOverrideType);

const company = (ctx: { credential: { companyId: string } | null }) => ctx.credential!.companyId;

builder.queryFields((t) => ({
  employeeDateOverrides: t.field({
    type: DateOverridePage,
    description: "An employee's date overrides, newest first; from/to bound their dates (inclusive)",
    authScopes: { scope: 'employees:read' },
    args: {
      employeeId: t.arg.id({ required: true, description: 'The employee id' }),
      from: t.arg.string({ description: 'Only dates on or after this local date, YYYY-MM-DD' }),
      to: t.arg.string({ description: 'Only dates on or before this local date, YYYY-MM-DD' }),
      ...pageArgs(t.arg),
    },
    resolve: (_r, args, ctx) =>
      listDateOverrides(ctx.db, {
        companyId: company(ctx),
        employeeId: String(args.employeeId),
        input: { from: args.from, to: args.to },
        page: args,
      }),
  }),
}));

builder.mutationFields((t) => ({
  putDateOverride: t.field({
    type: DateOverrideType,
    description:
      "Sets one local day's working hours of an employee (replacing any override of that date); CONFLICT (details.bookingIds) if active bookings would fall outside them",
    authScopes: { scope: 'employees:write' },
    args: {
      employeeId: t.arg.id({ required: true, description: 'The employee id' }),
      date: t.arg.string({ required: true, description: 'The local date, YYYY-MM-DD, in the company time zone' }),
      intervals: t.arg({
        type: [TimeRangeInput],
        required: true,
        description: 'The local intervals worked that day (≤ 12, not overlapping); empty: off that day',
      }),
    },
    resolve: (_r, args, ctx) =>
      putDateOverride(ctx.db, {
        companyId: company(ctx),
        employeeId: String(args.employeeId),
        date: args.date,
        input: { intervals: args.intervals },
      }),
  }),
  deleteDateOverride: t.field({
    type: DateOverrideType,
    description:
      'Removes a date override (the weekly hours apply again); CONFLICT if active bookings would fall outside them; returns what was removed',
    authScopes: { scope: 'employees:write' },
    args: {
      employeeId: t.arg.id({ required: true, description: 'The employee id' }),
      date: t.arg.string({ required: true, description: 'The local date, YYYY-MM-DD' }),
    },
    resolve: (_r, args, ctx) =>
      deleteDateOverride(ctx.db, { companyId: company(ctx), employeeId: String(args.employeeId), date: args.date }),
  }),
}));
