// Class sessions (docs/api.md). Classes are sessions of services, so they use the
// services:read / services:write scopes (the scope list, docs/oauth.md, has no classes scope).
import type { ClassSession, ClassStatus, Prisma } from '../../generated/prisma/client.js';
import { builder } from '../builder.js';
import { checkRange } from '../domain-validation.js';
import { pageArgs, pageType, paginate } from '../pagination.js';
import { findClassSession } from '../find-records.js';
import { cancelClassSession, createClassSession, updateClassSession } from './manage-class-sessions.js';

export const ClassStatusEnum = builder.enumType('ClassStatus', {
  description: "A class session's state",
  values: {
    scheduled: { description: 'Takes place; bookable while places are left' },
    cancelled: { description: 'Cancelled, with every live booking in it' },
  } satisfies Record<ClassStatus, { description: string }>,
});

export const ClassSessionType = builder.objectRef<ClassSession>('ClassSession').implement({
  description: 'One session of a class service: a time, an instructor and a number of places',
  fields: (t) => ({
    _id: t.exposeID('id', { description: 'The class session id (classId in REST and bookings)' }),
    serviceId: t.exposeID('serviceId', { description: 'The id of the class service' }),
    employeeId: t.exposeID('employeeId', { description: 'The id of the instructor' }),
    startTime: t.expose('startTime', { type: 'DateTime', description: 'When it starts' }),
    endTime: t.expose('endTime', { type: 'DateTime', description: 'When it ends' }),
    capacity: t.exposeInt('capacity', { description: 'How many places it has' }),
    bookedCount: t.exposeInt('bookedCount', { description: 'How many places are held (pending or confirmed)' }),
    status: t.expose('status', { type: ClassStatusEnum, description: 'The session state' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it last changed' }),
  }),
});

const ClassSessionPage = pageType('ClassSession', ClassSessionType);

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
  classSessions: t.field({
    type: ClassSessionPage,
    description: 'Class sessions, newest first',
    authScopes: read,
    args: {
      ...pageArgs(t.arg),
      serviceId: t.arg.id({ description: 'Only sessions of this class service' }),
      employeeId: t.arg.id({ description: "Only this instructor's sessions" }),
      status: t.arg({ type: ClassStatusEnum, description: 'Only sessions in this state' }),
      from: t.arg({ type: 'DateTime', description: 'Only sessions starting at or after this instant' }),
      to: t.arg({ type: 'DateTime', description: 'Only sessions starting before this instant' }),
    },
    resolve: (_r, args, ctx) => {
      if (args.from && args.to) checkRange(args.from, args.to, { fromPath: 'from', toPath: 'to' });
      const where: Prisma.ClassSessionWhereInput = {
        companyId: ctx.credential!.companyId,
        ...(args.serviceId ? { serviceId: String(args.serviceId) } : {}),
        ...(args.employeeId ? { employeeId: String(args.employeeId) } : {}),
        ...(args.status ? { status: args.status } : {}),
        ...(args.from || args.to
          ? { startTime: { ...(args.from ? { gte: args.from } : {}), ...(args.to ? { lt: args.to } : {}) } }
          : {}),
      };
      return paginate(args, (q) => ctx.db.classSession.findMany({ ...q, where: { ...q.where, ...where } }));
    },
  }),
  classSession: t.field({
    type: ClassSessionType,
    description: 'One class session by id',
    authScopes: read,
    args: { id: t.arg.id({ required: true, description: 'The class session id' }) },
    resolve: (_r, args, ctx) => findClassSession(ctx.db, ctx.credential!.companyId, String(args.id)),
  }),
}));

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
