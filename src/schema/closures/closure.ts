// Closures (docs/api.md). Scopes: company:read / company:write.
import type { Closure } from '../../generated/prisma/client.js';
import { builder } from '../builder.js';
import {
  connectionType,
  nodeQuery,
  orderByOf,
  resolveConnection,
  ScheduleOrderEnum,
  relatedQuery,
} from '../connections.js';
import { legacyPageArgs } from '../pagination.js';
import { closureFilter, createClosure, deleteClosure } from './manage-closures.js';
import { NodeInterface } from '../node.js';

export const ClosureType = builder.prismaObject('Closure', {
  interfaces: [NodeInterface],
  description:
    'A time the whole company or some employees are closed: not offered by availability, and a booking inside it is refused',
  fields: (t) => ({
    _id: t.exposeID('id', { description: 'The closure id' }),
    startTime: t.expose('startTime', { type: 'DateTime', description: 'When it starts' }),
    endTime: t.expose('endTime', { type: 'DateTime', description: 'When it ends (exclusive)' }),
    reason: t.exposeString('reason', {
      description: 'Why; also the cancel reason of the bookings it cancelled',
    }),
    employeeIds: t.idList({
      nullable: true,
      description: 'The employees closed; null: the whole company (employees added later included)',
      resolve: (c) => (c.employeeIds.length === 0 ? null : c.employeeIds),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was entered' }),
  }),
});

const ClosureConnection = connectionType<Closure>('Closure', ClosureType);

const CreateClosureInput = builder.inputType('CreateClosureInput', {
  description: 'A new closure',
  fields: (t) => ({
    startTime: t.field({ type: 'DateTime', required: true, description: 'When it starts' }),
    endTime: t.field({ type: 'DateTime', required: true, description: 'When it ends, after startTime (≤ 366 days)' }),
    reason: t.string({ required: true, description: 'Why (≤ 500 characters); given to cancelled bookings' }),
    employeeIds: t.idList({ description: 'The employees closed; left out: the whole company' }),
    cancelBookings: t.boolean({
      description:
        'Cancel the active bookings inside it (with the reason) instead of refusing with CONFLICT; default false',
    }),
  }),
});

const company = (ctx: { credential: { companyId: string } | null }) => ctx.credential!.companyId;

builder.queryFields((t) => ({
  closures: t.connection(
    {
      type: ClosureType,
      description: 'Closures, newest first unless ordered; with from/to only those overlapping that time',
      authScopes: { scope: 'company:read' },
      args: {
        ...legacyPageArgs(t.arg),
        from: t.arg({ type: 'DateTime', description: 'Only closures ending after this instant' }),
        to: t.arg({ type: 'DateTime', description: 'Only closures starting before this instant' }),
        orderBy: t.arg({ type: ScheduleOrderEnum, description: 'The order (default NEWEST_FIRST)' }),
      },
      resolve: (_r, a, ctx, info) => {
        const where = closureFilter(company(ctx), { from: a.from, to: a.to });
        const query = nodeQuery(ctx, info, 'Closure');
        return resolveConnection(
          a,
          a.orderBy,
          company(ctx),
          (q) => ctx.db.closure.findMany({ ...query, ...q, where: { ...q.where, ...where } }),
          () => ctx.db.closure.count({ where }),
        );
      },
    },
    ClosureConnection,
  ),
}));

builder.mutationFields((t) => ({
  createClosure: t.field({
    type: ClosureType,
    description:
      'Closes the company or some employees for a time; over active bookings CONFLICT (details.bookingIds) unless cancelBookings',
    authScopes: { scope: 'company:write' },
    args: { input: t.arg({ type: CreateClosureInput, required: true, description: 'The closure' }) },
    resolve: (_r, args, ctx) =>
      createClosure(ctx.db, {
        company: ctx.credential!.company,
        mode: ctx.credential!.mode,
        config: ctx.config,
        input: args.input,
      }),
  }),
  deleteClosure: t.field({
    type: ClosureType,
    description: 'Deletes a closure (bookings it cancelled stay cancelled); returns what was deleted',
    authScopes: { scope: 'company:write' },
    args: { id: t.arg.id({ required: true, description: 'The closure id' }) },
    resolve: (_r, args, ctx) => deleteClosure(ctx.db, { companyId: company(ctx), closureId: String(args.id) }),
  }),
}));

builder.prismaObjectFields('Company', (t) => ({
  closures: t.relatedConnection(
    'closures',
    {
      description: "The company's closures (needs company:read)",
      nullable: true,
      cursor: 'id',
      totalCount: true,
      authScopes: { scope: 'company:read' },
      args: {
        from: t.arg({ type: 'DateTime', description: 'Only closures ending after this instant' }),
        to: t.arg({ type: 'DateTime', description: 'Only closures starting before this instant' }),
        orderBy: t.arg({ type: ScheduleOrderEnum, description: 'The order (default NEWEST_FIRST)' }),
      },
      query: (a, ctx) =>
        relatedQuery(a, company(ctx), {
          where: closureFilter(company(ctx), { from: a.from, to: a.to }),
          orderBy: orderByOf(a.orderBy),
        }),
    },
    ClosureConnection,
  ),
}));
