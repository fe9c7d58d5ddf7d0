// Services (docs/api.md). Scopes: services:read / services:write.
import type { Service, ServiceKind } from '../../generated/prisma/client.js';
import { builder } from '../builder.js';
import { MoneyType } from '../money.js';
import { pageArgs, pageType, paginate } from '../pagination.js';
import { findService, serviceInclude } from '../find-records.js';
import { createService, deactivateService, updateService } from './manage-services.js';

type ServiceRecord = Service & { employees: Array<{ employeeId: string }> };

export const ServiceKindEnum = builder.enumType('ServiceKind', {
  description: 'How a service is booked',
  values: {
    appointment: { description: 'A slot with one employee, booked at any free time (availability slots)' },
    class: { description: 'A place in a scheduled class session with a capacity' },
  } satisfies Record<ServiceKind, { description: string }>,
});

export const ServiceType = builder.objectRef<ServiceRecord>('Service').implement({
  description: 'Something the company sells: an appointment of a fixed duration, or a class',
  fields: (t) => ({
    _id: t.exposeID('id', { description: 'The service id' }),
    name: t.exposeString('name', { description: 'What customers see' }),
    description: t.exposeString('description', { nullable: true, description: 'Longer text for customers' }),
    kind: t.expose('kind', { type: ServiceKindEnum, description: 'Appointment or class' }),
    durationMinutes: t.exposeInt('durationMinutes', { description: 'How long one appointment or class lasts' }),
    priceMoney: t.field({
      type: MoneyType,
      description: "The price, in the company's currency",
      resolve: (s, _a, ctx) => ({ amount: s.price, currency: ctx.credential!.company.currency }),
    }),
    price: t.exposeInt('price', {
      description: "Minor units of the company's currency",
      deprecationReason: 'Use priceMoney { amount currency }',
    }),
    bufferBeforeMinutes: t.exposeInt('bufferBeforeMinutes', {
      description: "Minutes of the employee's time blocked before each appointment",
    }),
    bufferAfterMinutes: t.exposeInt('bufferAfterMinutes', {
      description: "Minutes of the employee's time blocked after each appointment",
    }),
    employeeIds: t.idList({
      description: 'The employees who perform it',
      resolve: (s) => s.employees.map((e) => e.employeeId),
    }),
    requiresPayment: t.exposeBoolean('requiresPayment', {
      description: 'Whether a booking stays pending until paid',
    }),
    active: t.exposeBoolean('active', { description: 'Whether it can be booked (inactive services stay readable)' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it last changed' }),
  }),
});

const ServicePage = pageType('Service', ServiceType);

const serviceInput = (create: boolean) =>
  builder.inputType(create ? 'CreateServiceInput' : 'UpdateServiceInput', {
    description: create ? 'A new service' : 'The fields to change; the rest stay',
    fields: (t) => ({
      name: t.string({ required: create, description: 'What customers see' }),
      description: t.string({ description: 'Longer text for customers' }),
      ...(create ? { kind: t.field({ type: ServiceKindEnum, description: 'Default appointment' }) } : {}),
      durationMinutes: t.int({ required: create, description: 'Minutes' }),
      price: t.int({ description: "Minor units of the company's currency (default 0)" }),
      bufferBeforeMinutes: t.int({ description: 'Minutes blocked before each appointment' }),
      bufferAfterMinutes: t.int({ description: 'Minutes blocked after each appointment' }),
      employeeIds: t.idList({ description: 'The employees who perform it' }),
      requiresPayment: t.boolean({ description: 'Whether bookings stay pending until paid' }),
      active: t.boolean({ description: 'Whether it can be booked' }),
    }),
  });
const CreateServiceInput = serviceInput(true);
const UpdateServiceInput = serviceInput(false);

const read = { scope: 'services:read' } as const;
const write = { scope: 'services:write' } as const;

builder.queryFields((t) => ({
  services: t.field({
    type: ServicePage,
    description: 'Services, newest first',
    authScopes: read,
    args: {
      ...pageArgs(t.arg),
      active: t.arg.boolean({ description: 'Only active (true) or inactive (false) services' }),
      kind: t.arg({ type: ServiceKindEnum, description: 'Only services of this kind' }),
    },
    resolve: (_r, args, ctx) =>
      paginate(args, (q) =>
        ctx.db.service.findMany({
          ...q,
          where: {
            ...q.where,
            companyId: ctx.credential!.companyId,
            ...(args.active != null ? { active: args.active } : {}),
            ...(args.kind ? { kind: args.kind } : {}),
          },
          include: serviceInclude,
        }),
      ),
  }),
  service: t.field({
    type: ServiceType,
    description: 'One service by id',
    authScopes: read,
    args: { id: t.arg.id({ required: true, description: 'The service id' }) },
    resolve: (_r, args, ctx) => findService(ctx.db, ctx.credential!.companyId, String(args.id)),
  }),
}));

builder.mutationFields((t) => ({
  createService: t.field({
    type: ServiceType,
    description: 'Creates a service',
    authScopes: write,
    args: { input: t.arg({ type: CreateServiceInput, required: true, description: 'The service' }) },
    resolve: (_r, args, ctx) => createService(ctx.db, { companyId: ctx.credential!.companyId, input: args.input }),
  }),
  updateService: t.field({
    type: ServiceType,
    description: 'Changes the given fields of a service',
    authScopes: write,
    args: {
      id: t.arg.id({ required: true, description: 'The service id' }),
      input: t.arg({ type: UpdateServiceInput, required: true, description: 'The fields to change' }),
    },
    resolve: (_r, args, ctx) =>
      updateService(ctx.db, { companyId: ctx.credential!.companyId, serviceId: String(args.id), input: args.input }),
  }),
  deactivateService: t.field({
    type: ServiceType,
    description: 'Deactivates: the service stays readable with its history but can no longer be booked',
    authScopes: write,
    args: { id: t.arg.id({ required: true, description: 'The service id' }) },
    resolve: (_r, args, ctx) =>
      deactivateService(ctx.db, { companyId: ctx.credential!.companyId, serviceId: String(args.id) }),
  }),
}));
