// Class sessions (docs/api.md). Classes are sessions of services, so they use the
// services:read / services:write scopes (the scope list, docs/oauth.md, has no classes scope).
import type { ClassSession, ClassStatus, Prisma } from '../../generated/prisma/client.js';
import { builder } from '../builder.js';
import { checkRange } from '../domain-validation.js';
import { isId } from '../../ids.js';
import { connectionType, nodeQuery, orderByOf, resolveConnection, ScheduleOrderEnum } from '../connections.js';
import { legacyPageArgs } from '../pagination.js';
import { found } from '../find-records.js';
import { cancelClassSession, createClassSession, updateClassSession } from './manage-class-sessions.js';

export const ClassStatusEnum = builder.enumType('ClassStatus', {
  description: "A class session's state",
  values: {
    scheduled: { description: 'Takes place; bookable while places are left' },
    cancelled: { description: 'Cancelled, with every live booking in it' },
  } satisfies Record<ClassStatus, { description: string }>,
});

export const ClassSessionType = builder.prismaObject('ClassSession', {
  description: 'One session of a class service: a time, an instructor and a number of places',
  fields: (t) => ({
    _id: t.exposeID('id', { description: 'The class session id (classId in REST and bookings)' }),
    serviceId: t.exposeID('serviceId', { description: 'The id of the class service' }),
    employeeId: t.exposeID('employeeId', { description: 'The id of the instructor' }),
    service: t.relation('service', {
      nullable: true,
      description: 'The class service (needs services:read)',
      authScopes: { scope: 'services:read' },
    }),
    startTime: t.expose('startTime', { type: 'DateTime', description: 'When it starts' }),
    endTime: t.expose('endTime', { type: 'DateTime', description: 'When it ends' }),
    capacity: t.exposeInt('capacity', { description: 'How many places it has' }),
    bookedCount: t.exposeInt('bookedCount', { description: 'How many places are held (pending or confirmed)' }),
    status: t.expose('status', { type: ClassStatusEnum, description: 'The session state' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it last changed' }),
  }),
});

export const ClassSessionConnection = connectionType<ClassSession>('ClassSession', ClassSessionType);

const classFilterArgs = (t: ArgBuilder) => ({
  serviceId: t.id({ description: 'Only sessions of this class service' }),
  employeeId: t.id({ description: "Only this instructor's sessions" }),
  status: t({ type: ClassStatusEnum, description: 'Only sessions in this state' }),
  from: t({ type: 'DateTime', description: 'Only sessions starting at or after this instant' }),
  to: t({ type: 'DateTime', description: 'Only sessions starting before this instant' }),
  orderBy: t({ type: ScheduleOrderEnum, description: 'The order (default NEWEST_FIRST)' }),
});
type ArgBuilder = Parameters<Parameters<typeof builder.queryField>[1]>[0]['arg'];

function classWhere(
  companyId: string,
  a: {
    serviceId?: string | number | null;
    employeeId?: string | number | null;
    status?: ClassStatus | null;
    from?: Date | null;
    to?: Date | null;
  },
): Prisma.ClassSessionWhereInput {
  if (a.from && a.to) checkRange(a.from, a.to, { fromPath: 'from', toPath: 'to' });
  return {
    companyId,
    ...(a.serviceId != null ? { serviceId: String(a.serviceId) } : {}),
    ...(a.employeeId != null ? { employeeId: String(a.employeeId) } : {}),
    ...(a.status ? { status: a.status } : {}),
    ...(a.from || a.to ? { startTime: { ...(a.from ? { gte: a.from } : {}), ...(a.to ? { lt: a.to } : {}) } } : {}),
  };
}

const CreateClassSessionInput = builder.inputType('CreateClassSessionInput', {
  description: 'A new session of a class service',
  fields: (t) => ({
    serviceId: t.id({ required: true, description: 'The class service' }),
    employeeId: t.id({ required: true, description: 'The instructor' }),
    startTime: t.field({ type: 'DateTime', required: true, description: 'When it starts' }),
    endTime: t.field({ type: 'DateTime', description: 'Defaults to startTime + the service duration' }),
    capacity: t.int({ required: true, description: 'How many places' }),
  }),
});
const UpdateClassSessionInput = builder.inputType('UpdateClassSessionInput', {
  description: 'The fields to change; the rest stay',
  fields: (t) => ({
    employeeId: t.id({ description: 'Another instructor' }),
    startTime: t.field({ type: 'DateTime', description: 'A new start' }),
    endTime: t.field({ type: 'DateTime', description: 'A new end' }),
    capacity: t.int({ description: 'A new number of places, not below those held' }),
  }),
});
const CancelClassSessionInput = builder.inputType('CancelClassSessionInput', {
  description: 'What a cancellation says',
  fields: (t) => ({ reason: t.string({ description: 'Why, given to every booking cancelled with it' }) }),
});

const read = { scope: 'services:read' } as const;
const write = { scope: 'services:write' } as const;

builder.queryFields((t) => ({
  classSessions: t.connection(
    {
      type: ClassSessionType,
      description: 'Class sessions, newest first unless ordered',
      authScopes: read,
      args: { ...legacyPageArgs(t.arg), ...classFilterArgs(t.arg) },
      resolve: (_r, a, ctx, info) => {
        const where = classWhere(ctx.credential!.companyId, a);
        const query = nodeQuery(ctx, info, 'ClassSession');
        return resolveConnection(
          a,
          a.orderBy,
          (q) => ctx.db.classSession.findMany({ ...query, ...q, where: { ...q.where, ...where } }),
          () => ctx.db.classSession.count({ where }),
        );
      },
    },
    ClassSessionConnection,
  ),
  classSession: t.prismaField({
    type: 'ClassSession',
    description: 'One class session by id',
    authScopes: read,
    args: { id: t.arg.id({ required: true, description: 'The class session id' }) },
    resolve: async (query, _r, args, ctx) =>
      found(
        isId(String(args.id))
          ? await ctx.db.classSession.findFirst({
              ...query,
              where: { id: String(args.id), companyId: ctx.credential!.companyId },
            })
          : null,
        'class session',
      ),
  }),
}));

for (const [model, relation, description] of [
  ['Service', 'classSessions', 'The sessions of this class service'],
  ['Company', 'classSessions', "The company's class sessions"],
  ['Employee', 'classSessions', 'The class sessions they teach'],
] as const) {
  builder.prismaObjectFields(model, (t) => ({
    [relation]: t.relatedConnection(
      relation,
      {
        description: `${description} (needs services:read)`,
        nullable: true,
        cursor: 'id',
        totalCount: true,
        authScopes: read,
        args: classFilterArgs(t.arg),
        query: (a, ctx) => ({ where: classWhere(ctx.credential!.companyId, a), orderBy: orderByOf(a.orderBy) }),
      },
      ClassSessionConnection,
    ),
  }));
}

builder.mutationFields((t) => ({
  createClassSession: t.field({
    type: ClassSessionType,
    description: 'Schedules a session of a class service',
    authScopes: write,
    args: { input: t.arg({ type: CreateClassSessionInput, required: true, description: 'The session' }) },
    resolve: (_r, args, ctx) => createClassSession(ctx.db, { companyId: ctx.credential!.companyId, input: args.input }),
  }),
  updateClassSession: t.field({
    type: ClassSessionType,
    description: 'Changes the given fields of a scheduled session',
    authScopes: write,
    args: {
      id: t.arg.id({ required: true, description: 'The class session id' }),
      input: t.arg({ type: UpdateClassSessionInput, required: true, description: 'The fields to change' }),
    },
    resolve: (_r, args, ctx) =>
      updateClassSession(ctx.db, { companyId: ctx.credential!.companyId, classId: String(args.id), input: args.input }),
  }),
  cancelClassSession: t.field({
    type: ClassSessionType,
    description: 'Cancels the session and every live booking in it',
    authScopes: write,
    args: {
      id: t.arg.id({ required: true, description: 'The class session id' }),
      input: t.arg({ type: CancelClassSessionInput, description: 'The reason, if any' }),
      reason: t.arg.string({ description: 'Why', deprecationReason: 'Use input { reason }' }),
    },
    resolve: (_r, args, ctx) => {
      const reason = args.input ? args.input.reason : args.reason;
      return cancelClassSession(ctx.db, {
        companyId: ctx.credential!.companyId,
        classId: String(args.id),
        input: reason != null ? { reason } : {},
      });
    },
  }),
}));
