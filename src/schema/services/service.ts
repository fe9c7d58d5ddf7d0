// Services (docs/api.md). Scopes: services:read / services:write.
import type { Service } from '../../generated/prisma/client.js';
import { builder } from '../builder.js';
import { pageType, paginate } from '../pagination.js';
import { findService, serviceInclude } from '../find-records.js';
import { createService, deactivateService, updateService } from './manage-services.js';

type ServiceRecord = Service & { employees: Array<{ employeeId: string }> };

export const ServiceType = builder.objectRef<ServiceRecord>('Service').implement({
  fields: (t) => ({
    _id: t.exposeID('id'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    kind: t.exposeString('kind', { description: 'appointment or class' }),
    durationMinutes: t.exposeInt('durationMinutes'),
    price: t.exposeInt('price', { description: "Minor units of the company's currency" }),
    bufferBeforeMinutes: t.exposeInt('bufferBeforeMinutes'),
    bufferAfterMinutes: t.exposeInt('bufferAfterMinutes'),
    employeeIds: t.stringList({ resolve: (s) => s.employees.map((e) => e.employeeId) }),
    requiresPayment: t.exposeBoolean('requiresPayment'),
    active: t.exposeBoolean('active'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const ServicePage = pageType('Service', ServiceType);

const serviceInput = (create: boolean) =>
  builder.inputType(create ? 'CreateServiceInput' : 'UpdateServiceInput', {
    fields: (t) => ({
      name: t.string({ required: create }),
      description: t.string(),
      ...(create ? { kind: t.string() } : {}),
      durationMinutes: t.int({ required: create }),
      price: t.int(),
      bufferBeforeMinutes: t.int(),
      bufferAfterMinutes: t.int(),
      employeeIds: t.stringList(),
      requiresPayment: t.boolean(),
      active: t.boolean(),
    }),
  });
const CreateServiceInput = serviceInput(true);
const UpdateServiceInput = serviceInput(false);

const read = { scope: 'services:read' } as const;
const write = { scope: 'services:write' } as const;

builder.queryFields((t) => ({
  services: t.field({
    type: ServicePage,
    authScopes: read,
    args: { limit: t.arg.int(), cursor: t.arg.string(), active: t.arg.boolean(), kind: t.arg.string() },
    resolve: (_r, args, ctx) =>
      paginate(args, (q) =>
        ctx.db.service.findMany({
          ...q,
          where: {
            ...q.where,
            companyId: ctx.credential!.companyId,
            ...(args.active != null ? { active: args.active } : {}),
            ...(args.kind === 'appointment' || args.kind === 'class' ? { kind: args.kind } : {}),
          },
          include: serviceInclude,
        }),
      ),
  }),
  service: t.field({
    type: ServiceType,
    authScopes: read,
    args: { id: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) => findService(ctx.db, ctx.credential!.companyId, args.id),
  }),
}));

builder.mutationFields((t) => ({
  createService: t.field({
    type: ServiceType,
    authScopes: write,
    args: { input: t.arg({ type: CreateServiceInput, required: true }) },
    resolve: (_r, args, ctx) => createService(ctx.db, { companyId: ctx.credential!.companyId, input: args.input }),
  }),
  updateService: t.field({
    type: ServiceType,
    authScopes: write,
    args: { id: t.arg.string({ required: true }), input: t.arg({ type: UpdateServiceInput, required: true }) },
    resolve: (_r, args, ctx) =>
      updateService(ctx.db, { companyId: ctx.credential!.companyId, serviceId: args.id, input: args.input }),
  }),
  deactivateService: t.field({
    type: ServiceType,
    description: 'Deactivates: the service stays readable with its history but can no longer be booked',
    authScopes: write,
    args: { id: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) => deactivateService(ctx.db, { companyId: ctx.credential!.companyId, serviceId: args.id }),
  }),
}));
