// Multi-service visits (docs/api.md, Visits). Scopes: bookings:read / bookings:write.
import { builder } from '../builder.js';
import { CustomerInput } from '../customers/index.js';
import { cancellationFields } from '../bookings/index.js';
import { createVisit } from './create-visit.js';
import { cancelVisit, findVisit, rescheduleVisit } from './manage-visit.js';
import { NodeInterface } from '../node.js';

export const VisitType = builder.prismaObject('Visit', {
  interfaces: [NodeInterface],
  description:
    'Services booked back to back for one customer, made, moved and cancelled as one; each item is an ordinary booking with this visitId',
  fields: (t) => ({
    _id: t.exposeID('id', { description: 'The visit id (24 hex characters)' }),
    customerId: t.exposeID('customerId', { description: 'The id of the customer' }),
    startTime: t.expose('startTime', { type: 'DateTime', description: 'When the first item starts' }),
    endTime: t.expose('endTime', { type: 'DateTime', description: 'When the last item ends' }),
    bookings: t.relation('bookings', {
      description: 'The items, in the order of the visit',
      query: { orderBy: [{ startTime: 'asc' }, { id: 'asc' }] },
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the visit was made' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When the visit last moved' }),
  }),
});

builder.prismaObjectFields('Booking', (t) => ({
  visitId: t.exposeID('visitId', {
    nullable: true,
    description: 'The multi-service visit this booking is one item of; null for a booking made alone',
  }),
}));

const VisitItemInput = builder.inputType('VisitItemInput', {
  description: 'One service of a visit',
  fields: (t) => ({
    serviceId: t.id({ required: true, description: 'An appointment service' }),
    employeeId: t.id({ description: 'Who; left out, a free qualified employee is picked' }),
  }),
});

const CreateVisitInput = builder.inputType('CreateVisitInput', {
  description: 'Services to book back to back from startTime, all or none; customerId or customer',
  fields: (t) => ({
    items: t.field({
      type: [VisitItemInput],
      required: true,
      description: 'The services in order, 1 to 10; each starts when the previous one ends (buffers included)',
    }),
    startTime: t.field({ type: 'DateTime', required: true, description: 'When the first item starts' }),
    customerId: t.id({ description: 'An existing customer' }),
    customer: t.field({ type: CustomerInput, description: 'A new customer (name and email), instead of customerId' }),
    notes: t.string({ description: 'Free text on every item, up to 5000 characters' }),
    customerTimeZone: t.string({ description: 'IANA time zone of the customer, e.g. America/New_York' }),
    metadata: t.field({ type: 'Metadata', description: 'Your own key/value pairs, on every item' }),
  }),
});

const CancelVisitInput = builder.inputType('VisitCancelInput', {
  description: 'What the cancellation of a visit says',
  fields: cancellationFields,
});

const RescheduleVisitInput = builder.inputType('VisitRescheduleInput', {
  description: 'Where a visit moves to; every item keeps its employee and its place in the order',
  fields: (t) => ({
    startTime: t.field({ type: 'DateTime', required: true, description: 'The new start of the first item' }),
    skipRules: t.boolean({
      description: 'Waives minimum notice, maximum advance, the slot interval and the daily limit for the new time',
    }),
  }),
});

const read = { scope: 'bookings:read' } as const;
const write = { scope: 'bookings:write' } as const;

/** GraphQL's absent and null optional fields left out, as REST leaves them out. */
const given = (o: object) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null));

builder.queryFields((t) => ({
  visit: t.field({
    type: VisitType,
    description: 'One multi-service visit by id',
    authScopes: read,
    args: { id: t.arg.id({ required: true, description: 'The visit id' }) },
    resolve: (_r, args, ctx) => findVisit(ctx.db, ctx.credential!.companyId, String(args.id)),
  }),
}));

builder.mutationFields((t) => ({
  createVisit: t.field({
    type: VisitType,
    description: 'Books services back to back for one customer, all or none',
    authScopes: write,
    args: { input: t.arg({ type: CreateVisitInput, required: true, description: 'The visit' }) },
    resolve: (_r, args, ctx) =>
      createVisit(ctx.db, {
        company: ctx.credential!.company,
        input: { ...given(args.input), items: args.input.items.map(given) },
      }),
  }),
  cancelVisit: t.field({
    type: VisitType,
    description: 'Cancels every item of the visit that is pending or confirmed, all or none',
    authScopes: write,
    args: {
      id: t.arg.id({ required: true, description: 'The visit id' }),
      input: t.arg({ type: CancelVisitInput, description: 'The reason, who cancels, and waiveFee' }),
    },
    resolve: (_r, args, ctx) =>
      cancelVisit(ctx.db, {
        company: ctx.credential!.company,
        mode: ctx.credential!.mode,
        config: ctx.config,
        visitId: String(args.id),
        input: given(args.input ?? {}),
      }),
  }),
  rescheduleVisit: t.field({
    type: VisitType,
    description: 'Moves every item of a confirmed visit to follow the new start, all or none',
    authScopes: write,
    args: {
      id: t.arg.id({ required: true, description: 'The visit id' }),
      input: t.arg({ type: RescheduleVisitInput, required: true, description: 'The new start' }),
    },
    resolve: (_r, args, ctx) =>
      rescheduleVisit(ctx.db, { company: ctx.credential!.company, visitId: String(args.id), input: given(args.input) }),
  }),
}));
