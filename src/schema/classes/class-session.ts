// Class sessions (docs/api.md). Classes are sessions of services, so they use the
// services:read / services:write scopes (the scope list, docs/oauth.md, has no classes scope).
import type { ClassSession, Prisma } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { builder } from '../builder.js';
import { checkRange } from '../domain-validation.js';
import { pageType, paginate } from '../pagination.js';
import { findClassSession } from '../find-records.js';
import { cancelClassSession, createClassSession, updateClassSession } from './manage-class-sessions.js';

export const ClassSessionType = builder.objectRef<ClassSession>('ClassSession').implement({
  fields: (t) => ({
    _id: t.exposeID('id'),
    serviceId: t.exposeString('serviceId'),
    employeeId: t.exposeString('employeeId', { description: 'The instructor' }),
    startTime: t.expose('startTime', { type: 'DateTime' }),
    endTime: t.expose('endTime', { type: 'DateTime' }),
    capacity: t.exposeInt('capacity'),
    bookedCount: t.exposeInt('bookedCount'),
    status: t.exposeString('status', { description: 'scheduled or cancelled' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const ClassSessionPage = pageType('ClassSession', ClassSessionType);

const CreateClassSessionInput = builder.inputType('CreateClassSessionInput', {
  fields: (t) => ({
    serviceId: t.string({ required: true }),
    employeeId: t.string({ required: true }),
    startTime: t.field({ type: 'DateTime', required: true }),
    endTime: t.field({ type: 'DateTime', description: 'Defaults to startTime + the service duration' }),
    capacity: t.int({ required: true }),
  }),
});
const UpdateClassSessionInput = builder.inputType('UpdateClassSessionInput', {
  fields: (t) => ({
    employeeId: t.string(),
    startTime: t.field({ type: 'DateTime' }),
    endTime: t.field({ type: 'DateTime' }),
    capacity: t.int(),
  }),
});

const read = { scope: 'services:read' } as const;
const write = { scope: 'services:write' } as const;

builder.queryFields((t) => ({
  classSessions: t.field({
    type: ClassSessionPage,
    authScopes: read,
    args: {
      limit: t.arg.int(),
      cursor: t.arg.string(),
      serviceId: t.arg.string(),
      employeeId: t.arg.string(),
      status: t.arg.string(),
      from: t.arg({ type: 'DateTime' }),
      to: t.arg({ type: 'DateTime' }),
    },
    resolve: (_r, args, ctx) => {
      if (args.status && args.status !== 'scheduled' && args.status !== 'cancelled') {
        throw AppError.validation([{ path: 'status', message: 'must be scheduled or cancelled' }]);
      }
      if (args.from && args.to) checkRange(args.from, args.to, { fromPath: 'from', toPath: 'to' });
      const where: Prisma.ClassSessionWhereInput = {
        companyId: ctx.credential!.companyId,
        ...(args.serviceId ? { serviceId: args.serviceId } : {}),
        ...(args.employeeId ? { employeeId: args.employeeId } : {}),
        ...(args.status ? { status: args.status as 'scheduled' | 'cancelled' } : {}),
        ...(args.from || args.to
          ? { startTime: { ...(args.from ? { gte: args.from } : {}), ...(args.to ? { lt: args.to } : {}) } }
          : {}),
      };
      return paginate(args, (q) => ctx.db.classSession.findMany({ ...q, where: { ...q.where, ...where } }));
    },
  }),
  classSession: t.field({
    type: ClassSessionType,
    authScopes: read,
    args: { id: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) => findClassSession(ctx.db, ctx.credential!.companyId, args.id),
  }),
}));

builder.mutationFields((t) => ({
  createClassSession: t.field({
    type: ClassSessionType,
    authScopes: write,
    args: { input: t.arg({ type: CreateClassSessionInput, required: true }) },
    resolve: (_r, args, ctx) => createClassSession(ctx.db, { companyId: ctx.credential!.companyId, input: args.input }),
  }),
  updateClassSession: t.field({
    type: ClassSessionType,
    authScopes: write,
    args: { id: t.arg.string({ required: true }), input: t.arg({ type: UpdateClassSessionInput, required: true }) },
    resolve: (_r, args, ctx) =>
      updateClassSession(ctx.db, { companyId: ctx.credential!.companyId, classId: args.id, input: args.input }),
  }),
  cancelClassSession: t.field({
    type: ClassSessionType,
    description: 'Cancels the session and every live booking in it',
    authScopes: write,
    args: { id: t.arg.string({ required: true }), reason: t.arg.string() },
    resolve: (_r, args, ctx) =>
      cancelClassSession(ctx.db, {
        companyId: ctx.credential!.companyId,
        classId: args.id,
        input: args.reason != null ? { reason: args.reason } : {},
      }),
  }),
}));
