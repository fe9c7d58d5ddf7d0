// Booking series (docs/api.md, Booking series). Scopes: bookings:read / bookings:write.
import { builder } from '../builder.js';
import { CustomerInput } from '../customers/index.js';
import { BookingActorEnum } from '../bookings/index.js';
import { ReasonType } from '../availability/index.js';
import { createBookingSeries, type SkippedOccurrence } from './create-booking-series.js';
import { cancelBookingSeries, findBookingSeries } from './manage-booking-series.js';
import { NodeInterface } from '../node.js';

const SkippedOccurrenceType = builder.objectRef<SkippedOccurrence>('SkippedOccurrence').implement({
  description: 'An occurrence of a series that was not booked, and why',
  fields: (t) => ({
    index: t.exposeInt('index', { description: 'Its position in the rule, from 0' }),
    startTime: t.field({
      type: 'DateTime',
      description: 'When it would have started',
      resolve: (o) => new Date(o.startTime),
    }),
    reasons: t.field({
      type: [ReasonType],
      description: 'Why it could not be booked (the reasons of /availability/explain)',
      resolve: (o) => o.reasons,
    }),
  }),
});

export const BookingSeriesType = builder.prismaObject('BookingSeries', {
  interfaces: [NodeInterface],
  description:
    'One appointment service for one customer at the times of a recurrence rule; each occurrence is an ordinary booking with this seriesId',
  fields: (t) => ({
    _id: t.exposeID('id', { description: 'The series id (24 hex characters)' }),
    serviceId: t.exposeID('serviceId', { description: 'The service booked' }),
    employeeId: t.exposeID('employeeId', {
      nullable: true,
      description: 'The employee named at creation; null: each occurrence took a free qualified one',
    }),
    customerId: t.exposeID('customerId', { description: 'The id of the customer' }),
    locationId: t.exposeID('locationId', {
      nullable: true,
      description:
        'Where every occurrence takes place: the location named, else that of the working interval its first start fell in; null: none',
    }),
    rrule: t.exposeString('rrule', { description: 'The recurrence rule (RFC 5545 RRULE), as normalised' }),
    timeZone: t.exposeString('timeZone', {
      description: "The IANA zone whose wall-clock time the rule keeps: the location's, else the company's",
    }),
    startTime: t.expose('startTime', { type: 'DateTime', description: 'The first start asked for' }),
    bookings: t.relation('bookings', {
      description: 'The booked occurrences, in time order',
      query: { orderBy: [{ startTime: 'asc' }, { id: 'asc' }] },
    }),
    skipped: t.field({
      type: [SkippedOccurrenceType],
      description: 'The occurrences a partial series (allowPartial) could not book; empty otherwise',
      resolve: (s) => (Array.isArray(s.skipped) ? (s.skipped as unknown as SkippedOccurrence[]) : []),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the series was made' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When the series last changed' }),
  }),
});

builder.prismaObjectFields('Booking', (t) => ({
  seriesId: t.exposeID('seriesId', {
    nullable: true,
    description: 'The booking series this booking is one occurrence of; null otherwise',
  }),
}));

const CreateBookingSeriesInput = builder.inputType('CreateBookingSeriesInput', {
  description: 'An appointment at every occurrence of a rule, all or none unless allowPartial; customerId or customer',
  fields: (t) => ({
    serviceId: t.id({ required: true, description: 'An appointment service' }),
    employeeId: t.id({ description: 'Who; left out, a free qualified employee per occurrence (the same when free)' }),
    customerId: t.id({ description: 'An existing customer' }),
    customer: t.field({ type: CustomerInput, description: 'A new customer (name and email), instead of customerId' }),
    startTime: t.field({
      type: 'DateTime',
      required: true,
      description: "The first start; its local date and time in the series' zone are the rule's DTSTART",
    }),
    locationId: t.id({
      description: "A location of the company: every occurrence there, the rule in its zone (default: startTime's)",
    }),
    rrule: t.string({
      required: true,
      description: 'RFC 5545 RRULE: FREQ DAILY, WEEKLY, MONTHLY or YEARLY, with COUNT (at most 52) or UNTIL',
    }),
    allowPartial: t.boolean({ description: 'Book the occurrences that fit and report the rest (default false)' }),
    notes: t.string({ description: 'Free text on every occurrence, up to 5000 characters' }),
    customerTimeZone: t.string({ description: 'IANA time zone of the customer, e.g. America/New_York' }),
    metadata: t.field({ type: 'Metadata', description: 'Your own key/value pairs, on every occurrence' }),
  }),
});

const CancelBookingSeriesInput = builder.inputType('CancelBookingSeriesInput', {
  description: 'Which occurrences of a series to cancel, and what the cancellation says',
  fields: (t) => ({
    from: t.field({
      type: 'DateTime',
      description: 'Only the occurrences starting at or after this instant; left out, all of them',
    }),
    reason: t.string({ description: 'Why, up to 500 characters' }),
    cancelledBy: t.field({
      type: BookingActorEnum,
      description: 'Who cancels; default business (full refund, no cut-off)',
    }),
    waiveFee: t.boolean({ description: "No fee for this customer's cancel (default false)" }),
  }),
});

const given = (o: object) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null));

builder.queryFields((t) => ({
  bookingSeries: t.field({
    type: BookingSeriesType,
    description: 'One booking series by id',
    authScopes: { scope: 'bookings:read' },
    args: { id: t.arg.id({ required: true, description: 'The series id' }) },
    resolve: (_r, args, ctx) => findBookingSeries(ctx.db, ctx.credential!.companyId, String(args.id)),
  }),
}));

builder.mutationFields((t) => ({
  createBookingSeries: t.field({
    type: BookingSeriesType,
    description: 'Books an appointment at every occurrence of a recurrence rule, all or none unless allowPartial',
    authScopes: { scope: 'bookings:write' },
    args: { input: t.arg({ type: CreateBookingSeriesInput, required: true, description: 'The series' }) },
    resolve: (_r, args, ctx) =>
      createBookingSeries(ctx.db, { company: ctx.credential!.company, input: given(args.input) }),
  }),
  cancelBookingSeries: t.field({
    type: BookingSeriesType,
    description: 'Cancels every pending or confirmed occurrence (from an instant on, if given), all or none',
    authScopes: { scope: 'bookings:write' },
    args: {
      id: t.arg.id({ required: true, description: 'The series id' }),
      input: t.arg({ type: CancelBookingSeriesInput, description: 'from, reason, who cancels, waiveFee' }),
    },
    resolve: (_r, args, ctx) =>
      cancelBookingSeries(ctx.db, {
        company: ctx.credential!.company,
        mode: ctx.credential!.mode,
        config: ctx.config,
        seriesId: String(args.id),
        input: given(args.input ?? {}),
      }),
  }),
}));
