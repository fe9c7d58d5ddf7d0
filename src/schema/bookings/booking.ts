// Bookings (docs/api.md): create, read, list with filters, and the transitions.
// Scopes: bookings:read / bookings:write.
import type { Booking, BookingStatus, CancelledBy, ExpiredReason, Prisma } from '../../generated/prisma/client.js';
import type { Db } from '../../db/databases.js';
import { builder } from '../builder.js';
import { CustomerInput } from '../customers/index.js';
import { checkRange } from '../domain-validation.js';
import { MoneyType } from '../money.js';
import { isId } from '../../ids.js';
import {
  connectionType,
  nodeQuery,
  orderByOf,
  resolveConnection,
  ScheduleOrderEnum,
  relatedQuery,
} from '../connections.js';
import { found } from '../find-records.js';
import { legacyPageArgs } from '../pagination.js';
import { createBooking } from './create-booking.js';
import { rescheduleBooking } from './reschedule-booking.js';
import { updateBooking } from './update-booking.js';
import { BookingAnswerType, type BookingAnswer } from '../services/index.js';
import { z } from 'zod';
import { metadataFilter } from '../metadata.js';
import { parseInput } from '../validation.js';
import { transitionBooking, type BookingAction } from './transition-booking.js';
import { cancelBooking, quoteCancellation, type CancellationQuote } from './cancel-booking.js';
import { manageUrl, rotateManageLink } from '../core/index.js';
import { acceptOffer } from './accept-offer.js';
import { bookingIdsOfPage } from './list-bookings.js';
import { NodeInterface } from '../node.js';

export const BookingActorEnum = builder.enumType('BookingActor', {
  description:
    'Who cancels or reschedules (docs/api.md, Cancellation and deposits): a customer is bound by the cut-offs and the cancellation policy, a business is not',
  values: {
    business: { description: 'The business (the default): no cut-off, a full refund' },
    customer: { description: 'The customer: cut-offs and the late fee apply' },
  } satisfies Record<CancelledBy, { description: string }>,
});

const CancellationQuoteType = builder.objectRef<CancellationQuote>('CancellationQuote').implement({
  description: 'What a cancel would cost now; computed by the same function the cancel applies',
  fields: (t) => ({
    fee: t.exposeInt('fee', { description: 'Minor units kept (never more than was paid)' }),
    refundAmount: t.exposeInt('refundAmount', { description: 'Minor units refunded: what was paid minus the fee' }),
    freeUntil: t.expose('freeUntil', {
      type: 'DateTime',
      nullable: true,
      description: "Until when a customer's cancel is free; null when the service has no cancellation policy",
    }),
    allowed: t.exposeBoolean('allowed', {
      description:
        'Whether the cancel would be accepted now (the booking is pending or confirmed, and for a customer the cut-off has not passed)',
    }),
    deadline: t.expose('deadline', {
      type: 'DateTime',
      nullable: true,
      description: "A customer's cancellation cut-off; null for a business cancel",
    }),
  }),
});

export const BookingStatusEnum = builder.enumType('BookingStatus', {
  description:
    "A booking's state (docs/api.md, Bookings). The values are the strings REST and webhooks carry; " +
    'new states may be added, so treat the list as open',
  values: {
    pending: { description: 'Waiting for payment; holds its slot until holdExpiresAt' },
    confirmed: { description: 'Booked; holds its slot' },
    cancelled: { description: 'Cancelled by the business or the customer' },
    completed: { description: 'Took place' },
    no_show: { description: 'The customer did not come' },
    expired: { description: 'An unpaid pending booking whose hold ran out, or an offer that lapsed (expiredReason)' },
    waitlisted: {
      description: "On a full class's waitlist at waitlistPosition; holds no place (docs/api.md, Class waitlists)",
    },
    offered: {
      description: 'A freed class place reserved for this booking until offerExpiresAt; accept it to hold it',
    },
  } satisfies Record<BookingStatus, { description: string }>,
});

export const ExpiredReasonEnum = builder.enumType('ExpiredReason', {
  description: 'Why a booking expired; an open list',
  values: {
    hold_lapsed: { description: 'Its payment hold ran out unpaid' },
    offer_lapsed: { description: 'Its waitlist offer was not accepted by offerExpiresAt' },
  } satisfies Record<ExpiredReason, { description: string }>,
});

export const BookingType = builder.prismaObject('Booking', {
  interfaces: [NodeInterface],
  description: 'An appointment or a place in a class session, for one customer with one employee',
  fields: (t) => ({
    customer: t.relation('customer', {
      nullable: true,
      description: 'Who booked (needs customers:read)',
      authScopes: { scope: 'customers:read' },
    }),
    service: t.relation('service', {
      nullable: true,
      description: 'What was booked (needs services:read)',
      authScopes: { scope: 'services:read' },
    }),
    employee: t.relation('employee', {
      nullable: true,
      description: 'With whom: the employee, or the instructor of a class (needs employees:read)',
      authScopes: { scope: 'employees:read' },
    }),
    classSession: t.relation('classSession', {
      nullable: true,
      description: 'The class session, for a class booking (needs services:read)',
      authScopes: { scope: 'services:read' },
    }),
    _id: t.exposeID('id', { description: 'The booking id (24 hex characters)' }),
    serviceId: t.exposeID('serviceId', { description: 'The id of the booked service' }),
    employeeId: t.exposeID('employeeId', { description: 'The id of the employee (the instructor, for a class)' }),
    customerId: t.exposeID('customerId', { description: 'The id of the customer' }),
    classId: t.exposeID('classSessionId', {
      nullable: true,
      description: 'The id of the class session, for a class booking',
    }),
    startTime: t.expose('startTime', { type: 'DateTime', description: 'When the appointment or class starts' }),
    endTime: t.expose('endTime', { type: 'DateTime', description: "startTime plus the service's duration" }),
    status: t.expose('status', { type: BookingStatusEnum, description: 'The booking state' }),
    notes: t.exposeString('notes', { nullable: true, description: 'Free text given at booking' }),
    cancelReason: t.exposeString('cancelReason', { nullable: true, description: 'Why it was cancelled, if said' }),
    cancelledBy: t.expose('cancelledBy', {
      type: BookingActorEnum,
      nullable: true,
      description: 'Who cancelled it: business or customer; null unless cancelled',
    }),
    cancellationFee: t.exposeInt('cancellationFee', {
      nullable: true,
      description: 'Minor units kept as the cancellation fee; null unless cancelled',
    }),
    depositAmount: t.exposeInt('depositAmount', {
      nullable: true,
      description: "The service's deposit when booked: its first payment's amount (kind deposit); null: paid in full",
    }),
    customerTimeZone: t.exposeString('customerTimeZone', {
      nullable: true,
      description: "The customer's IANA time zone, when given",
    }),
    metadata: t.expose('metadata', {
      type: 'Metadata',
      description: 'Your own key/value pairs (docs/api.md, Metadata)',
    }),
    answers: t.field({
      type: [BookingAnswerType],
      description: "The answers to the service's questions, each with the question as asked when booked",
      resolve: (b) => (Array.isArray(b.answers) ? (b.answers as BookingAnswer[]) : []),
    }),
    priceMoney: t.field({
      type: MoneyType,
      description: 'What the booking costs: the service price when it was booked',
      resolve: (b) => ({ amount: b.price, currency: b.currency }),
    }),
    price: t.exposeInt('price', {
      description: 'Minor units of currency',
      deprecationReason: 'Use priceMoney { amount currency }',
    }),
    currency: t.exposeString('currency', {
      description: 'ISO 4217 code of price',
      deprecationReason: 'Use priceMoney { amount currency }',
    }),
    manageUrl: t.string({
      description:
        "The customer's manage link (BASE_URL/b/<token>): a secret URL where the customer sees the booking and can cancel or reschedule it without signing in, until it starts; it stops working 7 days after the booking ends or when rotated (rotateBookingManageLink). Needs bookings:read or bookings:write (a booking made or changed with bookings:write answers its link, to send the customer)",
      // Reached beside other objects (a payment's booking) it needs a bookings scope; a
      // bookings:write credential gets it in the answer of the booking it wrote.
      authScopes: (_b, _a, ctx) => ctx.credential?.scopes.has('bookings:write') || { scope: 'bookings:read' },
      select: { id: true, manageLinkVersion: true },
      resolve: (b, _a, ctx) => manageUrl(ctx.config, ctx.credential!.mode, b),
    }),
    holdExpiresAt: t.expose('holdExpiresAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When an unpaid pending booking expires',
    }),
    waitlistPosition: t.exposeInt('waitlistPosition', {
      nullable: true,
      description: "A waitlisted booking's place in its class's line (1 = next); null unless waitlisted",
    }),
    offerExpiresAt: t.expose('offerExpiresAt', {
      type: 'DateTime',
      nullable: true,
      description: 'Until when an offered booking may accept its place; null unless offered',
    }),
    expiredReason: t.expose('expiredReason', {
      type: ExpiredReasonEnum,
      nullable: true,
      description: 'Why an expired booking expired: hold_lapsed or offer_lapsed; null unless expired',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the booking was made' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When the booking last changed' }),
  }),
});

export const BookingConnection = connectionType<Booking>('Booking', BookingType);

/** The filters of every list of bookings (the REST list's query parameters). */
const bookingFilterArgs = (t: ArgBuilder) => ({
  status: t({ type: BookingStatusEnum, description: 'Only bookings in this state' }),
  from: t({ type: 'DateTime', description: 'Only bookings starting at or after this instant' }),
  to: t({ type: 'DateTime', description: 'Only bookings starting before this instant' }),
  employeeId: t.id({ description: "Only this employee's bookings" }),
  customerId: t.id({ description: "Only this customer's bookings" }),
  serviceId: t.id({ description: 'Only bookings of this service' }),
  metadata: t({
    type: 'Metadata',
    description: 'Only bookings whose metadata has this one key with this value, e.g. {orderRef: "A-17"}',
  }),
  orderBy: t({ type: ScheduleOrderEnum, description: 'The order (default NEWEST_FIRST)' }),
});
type ArgBuilder = Parameters<Parameters<typeof builder.queryField>[1]>[0]['arg'];

interface BookingFilters {
  status?: BookingStatus | null;
  from?: Date | null;
  to?: Date | null;
  employeeId?: string | number | null;
  customerId?: string | number | null;
  serviceId?: string | number | null;
  metadata?: unknown;
}

function bookingWhere(companyId: string, a: BookingFilters): Prisma.BookingWhereInput {
  if (a.from && a.to) checkRange(a.from, a.to, { fromPath: 'from', toPath: 'to' });
  const metadata = a.metadata != null ? parseInput(z.object({ metadata: metadataFilter }), a).metadata : null;
  const [metadataKey, metadataValue] = metadata ? Object.entries(metadata)[0]! : [];
  return {
    companyId,
    ...(a.status ? { status: a.status } : {}),
    ...(a.employeeId != null ? { employeeId: String(a.employeeId) } : {}),
    ...(a.customerId != null ? { customerId: String(a.customerId) } : {}),
    ...(a.serviceId != null ? { serviceId: String(a.serviceId) } : {}),
    ...(metadataKey !== undefined ? { metadata: { path: [metadataKey], equals: metadataValue } } : {}),
    ...(a.from || a.to ? { startTime: { ...(a.from ? { gte: a.from } : {}), ...(a.to ? { lt: a.to } : {}) } } : {}),
  };
}

/** A list of bookings under another record: its filters, in the credential's company. */
const relatedBookings = (description: string) =>
  ({
    description: `${description} (needs bookings:read)`,
    nullable: true,
    cursor: 'id',
    totalCount: true,
    authScopes: { scope: 'bookings:read' },
    args: {},
  }) as const;

const CreateBookingInput = builder.inputType('CreateBookingInput', {
  description: 'startTime for appointment services, classId for class services; customerId or customer',
  fields: (t) => ({
    serviceId: t.id({ required: true, description: 'The service to book' }),
    startTime: t.field({ type: 'DateTime', description: 'Appointment services: when it starts' }),
    employeeId: t.id({ description: 'Who; left out, a free qualified employee is picked' }),
    classId: t.id({ description: 'Class services: the class session' }),
    customerId: t.id({ description: 'An existing customer' }),
    customer: t.field({ type: CustomerInput, description: 'A new customer (name and email), instead of customerId' }),
    notes: t.string({ description: 'Free text, up to 5000 characters' }),
    customerTimeZone: t.string({ description: 'IANA time zone of the customer, e.g. America/New_York' }),
    answers: t.field({
      type: 'JSON',
      description:
        'Answers to the service\'s questions by question id, e.g. { allergies: "none", firstVisit: true }: a string for text, long_text, choice and phone, a list of options for multi_choice, a boolean for boolean',
    }),
    metadata: t.field({ type: 'Metadata', description: 'Your own key/value pairs, up to 50 string values' }),
    skipRules: t.boolean({
      description:
        "A business's walk-in: waives minimum notice, maximum advance, the slot interval and the daily limit " +
        '(never working hours, closures, time off or overlaps); default false',
    }),
    waitlist: t.boolean({
      description:
        'Class services: when the session is full, join its waitlist (status waitlisted) instead of a CLASS_FULL refusal; default false',
    }),
  }),
});

const UpdateBookingInput = builder.inputType('UpdateBookingInput', {
  description: 'What of a booking can change outside its transitions: its notes and metadata',
  fields: (t) => ({
    notes: t.string({ description: 'Free text, up to 5000 characters; null clears it' }),
    metadata: t.field({
      type: 'Metadata',
      description: 'Keys to set, merged into the stored ones; a key set to null is removed',
    }),
  }),
});

type InputFields = Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0];

/** The fields of a cancellation, of one booking or of a whole visit (docs/api.md, Cancellation). */
export const cancellationFields = (t: InputFields) => ({
  reason: t.string({ description: 'Why, up to 500 characters' }),
  cancelledBy: t.field({
    type: BookingActorEnum,
    description: 'Who cancels; default business (full refund, no cut-off)',
  }),
  waiveFee: t.boolean({ description: "No fee for this customer's cancel (default false)" }),
});

const CancelBookingInput = builder.inputType('CancelBookingInput', {
  description: 'What a cancellation says',
  fields: cancellationFields,
});

const RescheduleBookingInput = builder.inputType('RescheduleBookingInput', {
  description: 'Where a confirmed booking moves to',
  fields: (t) => ({
    startTime: t.field({ type: 'DateTime', required: true, description: 'The new start' }),
    employeeId: t.id({ description: 'Another employee; left out, the same one' }),
    rescheduledBy: t.field({
      type: BookingActorEnum,
      description: 'Who reschedules; default business (a customer is bound by the reschedule cut-off)',
    }),
    skipRules: t.boolean({
      description:
        'A business only: waives minimum notice, maximum advance, the slot interval and the daily limit for the new time',
    }),
  }),
});

const read = { scope: 'bookings:read' } as const;
const write = { scope: 'bookings:write' } as const;

builder.queryFields((t) => ({
  bookings: t.connection(
    {
      type: BookingType,
      description: 'Bookings of every status unless filtered, newest first unless ordered',
      authScopes: read,
      args: { ...legacyPageArgs(t.arg), ...bookingFilterArgs(t.arg) },
      resolve: (_r, a, ctx, info) => {
        const companyId = ctx.credential!.companyId;
        const where = bookingWhere(companyId, a);
        const query = nodeQuery(ctx, info, 'Booking');
        return resolveConnection(
          a,
          a.orderBy,
          companyId,
          async (q) => {
            // One status or a from/to window, ordered by id: the page's ids first (bookingIdsOfPage,
            // which reads them as their values need), then their records with what the document selects.
            const byId = q.orderBy.length === 1 ? q.orderBy[0]!.id : undefined;
            if (!(a.status || a.from || a.to) || a.metadata != null || !byId)
              return ctx.db.booking.findMany({ ...query, ...q, where: { ...q.where, ...where } });
            const bound = q.where.id;
            const ids = await bookingIdsOfPage(ctx.db, {
              companyId,
              ...(a.status ? { status: a.status } : {}),
              ...(a.employeeId != null ? { employeeId: String(a.employeeId) } : {}),
              ...(a.customerId != null ? { customerId: String(a.customerId) } : {}),
              ...(a.serviceId != null ? { serviceId: String(a.serviceId) } : {}),
              from: a.from,
              to: a.to,
              ...(bound ? { beyond: 'lt' in bound ? bound.lt : bound.gt } : {}),
              newestFirst: byId === 'desc',
              take: q.take,
            });
            return ctx.db.booking.findMany({ ...query, where: { companyId, id: { in: ids } }, orderBy: q.orderBy });
          },
          () => ctx.db.booking.count({ where }),
        );
      },
    },
    BookingConnection,
  ),
  booking: t.prismaField({
    type: 'Booking',
    description: 'One booking by id',
    authScopes: read,
    args: { id: t.arg.id({ required: true, description: 'The booking id' }) },
    resolve: async (query, _r, args, ctx) =>
      found(
        isId(String(args.id))
          ? await ctx.db.booking.findFirst({
              ...query,
              where: { id: String(args.id), companyId: ctx.credential!.companyId },
            })
          : null,
        'booking',
      ),
  }),
  cancellationQuote: t.field({
    type: CancellationQuoteType,
    description: 'What cancelling this booking would cost now; changes nothing',
    authScopes: read,
    args: {
      id: t.arg.id({ required: true, description: 'The booking id' }),
      cancelledBy: t.arg({ type: BookingActorEnum, description: 'Who would cancel; default business' }),
    },
    resolve: (_r, args, ctx) =>
      quoteCancellation(ctx.db, {
        company: ctx.credential!.company,
        bookingId: String(args.id),
        input: args.cancelledBy ? { cancelledBy: args.cancelledBy } : {},
      }),
  }),
}));

// The bookings of the records a booking refers to, each a connection with the list's filters.
for (const [model, description] of [
  ['Customer', "The customer's bookings"],
  ['Employee', "The employee's bookings (as instructor too)"],
  ['Service', 'The bookings of this service'],
  ['ClassSession', 'The roster: the bookings of this class session'],
  ['Company', "The company's bookings"],
] as const) {
  builder.prismaObjectFields(model, (t) => ({
    bookings: t.relatedConnection(
      'bookings',
      {
        ...relatedBookings(description),
        args: bookingFilterArgs(t.arg),
        query: (a, ctx) => {
          const companyId = ctx.credential!.companyId;
          return relatedQuery(a, companyId, { where: bookingWhere(companyId, a), orderBy: orderByOf(a.orderBy) });
        },
      },
      BookingConnection,
    ),
  }));
}

const transition = (action: BookingAction, description: string) =>
  builder.mutationField(
    {
      confirm: 'confirmBooking',
      cancel: 'cancelBooking',
      complete: 'completeBooking',
      no_show: 'markBookingNoShow',
      expire: '',
      lapse: '',
    }[action],
    (t) =>
      t.field({
        type: BookingType,
        description,
        authScopes: write,
        args: { id: t.arg.id({ required: true, description: 'The booking id' }) },
        resolve: (_r, args, ctx) =>
          transitionBooking(ctx.db, { companyId: ctx.credential!.companyId, bookingId: String(args.id), action }),
      }),
  );

transition('confirm', 'pending → confirmed');
transition('complete', 'confirmed → completed, once startTime has passed');
transition('no_show', 'confirmed → no_show, once startTime has passed');

/**
 * A booking a use case has just written, with the relations the field's selection asks for
 * (Pothos's `query`). The rooms and equipment an appointment holds (`resourceIds`) come with it
 * from the write (insertAppointment), so an answer that asks for nothing else is not read again
 * after the commit; any other relation is read in one statement, as Pothos would.
 */
async function asSelected(
  db: Db,
  query: { include?: Record<string, unknown>; select?: Record<string, unknown> },
  booking: Booking & { resourceHolds?: Array<{ resourceId: string }> },
) {
  const relations = Object.keys(query.include ?? {});
  const carried = !query.select && relations.every((r) => r === 'resourceHolds' && booking.resourceHolds);
  return carried ? booking : db.booking.findUniqueOrThrow({ ...query, where: { id: booking.id } });
}

builder.mutationFields((t) => ({
  createBooking: t.prismaField({
    type: 'Booking',
    description: 'Books a slot (picking a free qualified employee when none is named) or a class place',
    authScopes: write,
    args: { input: t.arg({ type: CreateBookingInput, required: true, description: 'The booking' }) },
    resolve: async (query, _r, args, ctx) =>
      asSelected(ctx.db, query, await createBooking(ctx.db, { company: ctx.credential!.company, input: args.input })),
  }),
  acceptBookingOffer: t.field({
    type: BookingType,
    description: 'offered → confirmed (pending when the service is paid for up front): claims the reserved class place',
    authScopes: write,
    args: { id: t.arg.id({ required: true, description: 'The booking id' }) },
    resolve: (_r, args, ctx) => acceptOffer(ctx.db, { company: ctx.credential!.company, bookingId: String(args.id) }),
  }),
  updateBooking: t.field({
    type: BookingType,
    description: "Changes a booking's notes and metadata (merged; a key set to null is removed), in any state",
    authScopes: write,
    args: {
      id: t.arg.id({ required: true, description: 'The booking id' }),
      input: t.arg({ type: UpdateBookingInput, required: true, description: 'The fields to change' }),
    },
    resolve: (_r, args, ctx) =>
      updateBooking(ctx.db, { companyId: ctx.credential!.companyId, bookingId: String(args.id), input: args.input }),
  }),
  rescheduleBooking: t.field({
    type: BookingType,
    description: 'confirmed → confirmed at new times',
    authScopes: write,
    args: {
      id: t.arg.id({ required: true, description: 'The booking id' }),
      input: t.arg({ type: RescheduleBookingInput, description: 'The new time (and employee)' }),
      startTime: t.arg({ type: 'DateTime', description: 'The new start', deprecationReason: 'Use input' }),
      employeeId: t.arg.id({ description: 'Another employee', deprecationReason: 'Use input' }),
    },
    resolve: (_r, args, ctx) => {
      const startTime = args.input?.startTime ?? args.startTime;
      const employeeId = args.input ? args.input.employeeId : args.employeeId;
      const rescheduledBy = args.input?.rescheduledBy;
      const skipRules = args.input?.skipRules;
      return rescheduleBooking(ctx.db, {
        company: ctx.credential!.company,
        bookingId: String(args.id),
        input: {
          startTime,
          ...(employeeId != null ? { employeeId: String(employeeId) } : {}),
          ...(rescheduledBy != null ? { rescheduledBy } : {}),
          ...(skipRules != null ? { skipRules } : {}),
        },
      });
    },
  }),
  rotateBookingManageLink: t.field({
    type: BookingType,
    description:
      "Revokes the booking's manage link: every earlier manageUrl of it stops working; the booking comes back with its new manageUrl",
    authScopes: write,
    args: { id: t.arg.id({ required: true, description: 'The booking id' }) },
    resolve: (_r, args, ctx) =>
      rotateManageLink(ctx.db, { companyId: ctx.credential!.companyId, bookingId: String(args.id) }),
  }),
  cancelBooking: t.field({
    type: BookingType,
    description:
      'pending or confirmed → cancelled; refunds what was paid, minus the cancellation fee for a customer cancel',
    authScopes: write,
    args: {
      id: t.arg.id({ required: true, description: 'The booking id' }),
      input: t.arg({ type: CancelBookingInput, description: 'The reason, who cancels, and waiveFee' }),
      reason: t.arg.string({ description: 'Why', deprecationReason: 'Use input { reason }' }),
    },
    resolve: async (_r, args, ctx) => {
      const reason = args.input ? args.input.reason : args.reason;
      const input = Object.fromEntries(
        Object.entries({ ...args.input, reason }).filter(([, v]) => v !== undefined && v !== null),
      );
      const { booking } = await cancelBooking(ctx.db, {
        company: ctx.credential!.company,
        mode: ctx.credential!.mode,
        config: ctx.config,
        bookingId: String(args.id),
        input,
      });
      return booking;
    },
  }),
}));
