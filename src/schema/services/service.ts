// Services (docs/api.md). Scopes: services:read / services:write.
import { resolveArrayConnection } from '@pothos/plugin-relay';
import type { Prisma, Service, ServiceKind } from '../../generated/prisma/client.js';
import { isId } from '../../ids.js';
import { builder } from '../builder.js';
import {
  connectionType,
  NamedListOrderEnum,
  nodeQuery,
  orderByOf,
  resolveConnection,
  relatedQuery,
} from '../connections.js';
import { serviceBookingRules } from '../booking-rules.js';
import { BookingRulesInput, ServiceBookingRulesType } from '../booking-rules-type.js';
import { serviceReminders, ReminderInput, ReminderType } from '../notifications/index.js';
import { storedCancellationPolicy, type CancellationPolicy } from './cancellation-policy.js';
import { MoneyType } from '../money.js';
import { legacyPageArgs } from '../pagination.js';
import { found } from '../find-records.js';
import { createService, deactivateService, updateService } from './manage-services.js';
import { ServiceQuestionInput, ServiceQuestionType } from './question-types.js';
import { storedQuestions } from './questions.js';
import { ResourceKindEnum } from '../resources/index.js';
import { storedWaitlist, type WaitlistConfig } from './waitlist-config.js';
import { NodeInterface } from '../node.js';

export const ServiceKindEnum = builder.enumType('ServiceKind', {
  description: 'How a service is booked',
  values: {
    appointment: { description: 'A slot with one employee, booked at any free time (availability slots)' },
    class: { description: 'A place in a scheduled class session with a capacity' },
  } satisfies Record<ServiceKind, { description: string }>,
});

const LateFeeType = builder.objectRef<CancellationPolicy['lateFee']>('LateFee').implement({
  description: 'The fee of a late customer cancellation: a percent of the price or a fixed amount (one is null)',
  fields: (t) => ({
    percent: t.int({
      nullable: true,
      description: "A percent (0–100) of the booking's price",
      resolve: (f) => ('percent' in f ? f.percent : null),
    }),
    amount: t.int({
      nullable: true,
      description: 'A fixed amount in minor units',
      deprecationReason: 'Use amountMoney { amount currency }',
      resolve: (f) => ('amount' in f ? f.amount : null),
    }),
    amountMoney: t.field({
      type: MoneyType,
      nullable: true,
      description: "A fixed amount, in the company's currency",
      resolve: (f, _a, ctx) =>
        'amount' in f ? { amount: f.amount, currency: ctx.credential!.company.currency } : null,
    }),
  }),
});

const CancellationPolicyType = builder.objectRef<CancellationPolicy>('CancellationPolicy').implement({
  description:
    'What a customer cancellation costs: free until freeUntilMinutesBefore the start, then the late fee, never more than was paid',
  fields: (t) => ({
    freeUntilMinutesBefore: t.exposeInt('freeUntilMinutesBefore', {
      description: 'A customer cancel is free until this many minutes before the start',
    }),
    lateFee: t.field({ type: LateFeeType, description: 'The fee after that', resolve: (p) => p.lateFee }),
  }),
});

const LateFeeInput = builder.inputType('LateFeeInput', {
  description: 'Exactly one of percent and amount',
  fields: (t) => ({
    percent: t.int({ description: "A percent (0–100) of the booking's price" }),
    amount: t.int({ description: 'A fixed amount in minor units, at most the price' }),
  }),
});

const CancellationPolicyInput = builder.inputType('CancellationPolicyInput', {
  description: 'What a customer cancellation costs',
  fields: (t) => ({
    freeUntilMinutesBefore: t.int({ required: true, description: 'Free until this many minutes before the start' }),
    lateFee: t.field({ type: LateFeeInput, required: true, description: 'The fee after that' }),
  }),
});

const WaitlistOfferModeEnum = builder.enumType('WaitlistOfferMode', {
  description: 'How a freed class place goes to the first in line (docs/api.md, Class waitlists)',
  values: {
    auto: { description: 'At once: the booking becomes confirmed (pending when paid up front)' },
    offer: {
      description: 'As an offer until offerExpiresAt, accepted with acceptBookingOffer; unclaimed, it passes on',
    },
  } satisfies Record<WaitlistConfig['offerMode'], { description: string }>,
});

const WaitlistType = builder.objectRef<WaitlistConfig>('Waitlist').implement({
  description: "A class service's waitlist: who may join a full session and how freed places are given",
  fields: (t) => ({
    enabled: t.exposeBoolean('enabled', { description: 'Whether a full session takes new names' }),
    maxSize: t.exposeInt('maxSize', { description: 'The most bookings waiting per session' }),
    offerMode: t.expose('offerMode', { type: WaitlistOfferModeEnum, description: 'auto or offer' }),
    offerMinutes: t.exposeInt('offerMinutes', {
      description: 'offer mode: how long an offer lasts (never past the start)',
    }),
    cutoffMinutes: t.exposeInt('cutoffMinutes', {
      description: 'No promotion or offer once the session starts within this many minutes',
    }),
  }),
});

const WaitlistInput = builder.inputType('WaitlistInput', {
  description: "A class service's waitlist; left-out fields take their defaults",
  fields: (t) => ({
    enabled: t.boolean({ required: true, description: 'Whether a full session takes new names' }),
    maxSize: t.int({ description: '1–1000, default 20' }),
    offerMode: t.field({ type: WaitlistOfferModeEnum, description: 'Default auto' }),
    offerMinutes: t.int({ description: 'offer mode: 1–10080 minutes an offer lasts, default 60' }),
    cutoffMinutes: t.int({
      description: 'No promotion or offer once the session starts within this many minutes: 0–10080, default 60',
    }),
  }),
});

export const ServiceType = builder.prismaObject('Service', {
  interfaces: [NodeInterface],
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
      description: 'The ids of the employees who perform it',
      select: { employees: { select: { employeeId: true }, orderBy: { employeeId: 'asc' } } },
      resolve: (s) => s.employees.map((e) => e.employeeId),
    }),
    requiresPayment: t.exposeBoolean('requiresPayment', {
      description: 'Whether a booking stays pending until paid',
    }),
    depositAmount: t.exposeInt('depositAmount', {
      nullable: true,
      description:
        'Minor units paid first when requiresPayment (a payment of kind deposit, which confirms the booking); the balance is paid later',
    }),
    cancellationPolicy: t.field({
      type: CancellationPolicyType,
      nullable: true,
      description: 'What a customer cancellation costs; null: always free',
      resolve: (s) => storedCancellationPolicy(s.cancellationPolicy),
    }),
    bookingRules: t.field({
      type: ServiceBookingRulesType,
      description: "Overrides of the company's booking rules (null fields inherit)",
      resolve: (s) => serviceBookingRules(s.bookingRules),
    }),
    reminders: t.field({
      type: [ReminderType],
      nullable: true,
      description: "The service's own reminders, replacing the company's; null inherits the company's",
      resolve: (s) => serviceReminders(s.reminders),
    }),
    questions: t.field({
      type: [ServiceQuestionType],
      description: 'The questions a booking of it answers (answers on Booking), in the order asked',
      resolve: (s) => storedQuestions(s.questions),
    }),
    waitlist: t.field({
      type: WaitlistType,
      nullable: true,
      description: "A class service's waitlist; null: none (a full session refuses with CLASS_FULL)",
      resolve: (s) => storedWaitlist(s.waitlist),
    }),
    active: t.exposeBoolean('active', { description: 'Whether it can be booked (inactive services stay readable)' }),
    metadata: t.expose('metadata', {
      type: 'Metadata',
      description: 'Your own key/value pairs (docs/api.md, Metadata)',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it last changed' }),
  }),
});

export const ServiceConnection = connectionType<Service>('Service', ServiceType);

const serviceFilterArgs = (t: ArgBuilder) => ({
  active: t.boolean({ description: 'Only active (true) or inactive (false) services' }),
  kind: t({ type: ServiceKindEnum, description: 'Only services of this kind' }),
  orderBy: t({ type: NamedListOrderEnum, description: 'The order (default NEWEST_FIRST)' }),
});
type ArgBuilder = Parameters<Parameters<typeof builder.queryField>[1]>[0]['arg'];

const serviceWhere = (
  companyId: string,
  a: { active?: boolean | null; kind?: ServiceKind | null },
): Prisma.ServiceWhereInput => ({
  companyId,
  ...(a.active != null ? { active: a.active } : {}),
  ...(a.kind ? { kind: a.kind } : {}),
});

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
      depositAmount: t.int({ description: 'Minor units paid first, at most the price; null removes it' }),
      cancellationPolicy: t.field({
        type: CancellationPolicyInput,
        description: 'What a customer cancellation costs; null removes it',
      }),
      bookingRules: t.field({ type: BookingRulesInput, description: "Overrides of the company's booking rules" }),
      reminders: t.field({
        type: [ReminderInput],
        description:
          "The service's own reminders (the whole list, replacing the company's): up to 5; [] for none, null to inherit the company's",
      }),
      questions: t.field({
        type: [ServiceQuestionInput],
        description: 'Up to 20 questions asked when it is booked; on update the list replaces the stored one',
      }),
      waitlist: t.field({
        type: WaitlistInput,
        description: 'Class services: the waitlist of a full session; null removes it',
      }),
      active: t.boolean({ description: 'Whether it can be booked' }),
      requiredResourceIds: t.idList({
        description: 'Resources every booking of it holds, all of them (at most 10, no duplicates); [] for none',
      }),
      requiredResourceKinds: t.field({
        type: [ResourceKindEnum],
        description: 'Kinds of which every booking holds any one free resource (each at most once); [] for none',
      }),
      metadata: t.field({
        type: 'Metadata',
        description: create
          ? 'Your own key/value pairs, up to 50 string values'
          : 'Keys to set, merged into the stored ones; a key set to null is removed',
      }),
    }),
  });
const CreateServiceInput = serviceInput(true);
const UpdateServiceInput = serviceInput(false);

const read = { scope: 'services:read' } as const;
const write = { scope: 'services:write' } as const;

builder.queryFields((t) => ({
  services: t.connection(
    {
      type: ServiceType,
      description: 'Services, newest first unless ordered',
      authScopes: read,
      args: { ...legacyPageArgs(t.arg), ...serviceFilterArgs(t.arg) },
      resolve: (_r, a, ctx, info) => {
        const where = serviceWhere(ctx.credential!.companyId, a);
        const query = nodeQuery(ctx, info, 'Service');
        return resolveConnection(
          a,
          a.orderBy,
          ctx.credential!.companyId,
          (q) => ctx.db.service.findMany({ ...query, ...q, where: { ...q.where, ...where } }),
          () => ctx.db.service.count({ where }),
        );
      },
    },
    ServiceConnection,
  ),
  service: t.prismaField({
    type: 'Service',
    description: 'One service by id',
    authScopes: read,
    args: { id: t.arg.id({ required: true, description: 'The service id' }) },
    resolve: async (query, _r, args, ctx) =>
      found(
        isId(String(args.id))
          ? await ctx.db.service.findFirst({
              ...query,
              where: { id: String(args.id), companyId: ctx.credential!.companyId },
            })
          : null,
        'service',
      ),
  }),
}));

// The services an employee performs, through the employee_services join, loaded with the
// employee and paged in memory (a handful per employee).

builder.prismaObjectFields('Employee', (t) => ({
  services: t.connection(
    {
      type: ServiceType,
      nullable: true,
      description: 'The services they perform (needs services:read)',
      authScopes: read,
      select: { services: { select: { service: true }, orderBy: { serviceId: 'asc' } } },
      resolve: (e, args) => {
        const list = e.services.map((l) => l.service);
        return { ...resolveArrayConnection({ args }, list), totalCount: list.length };
      },
    },
    ServiceConnection,
  ),
}));

builder.prismaObjectFields('Company', (t) => ({
  services: t.relatedConnection(
    'services',
    {
      description: "The company's services (needs services:read)",
      nullable: true,
      cursor: 'id',
      totalCount: true,
      authScopes: read,
      args: serviceFilterArgs(t.arg),
      query: (a, ctx) => {
        const companyId = ctx.credential!.companyId;
        return relatedQuery(a, companyId, { where: serviceWhere(companyId, a), orderBy: orderByOf(a.orderBy) });
      },
    },
    ServiceConnection,
  ),
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
