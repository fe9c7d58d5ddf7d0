// Bookings (docs/api.md): create, read, list with filters, and the transitions.
// Scopes: bookings:read / bookings:write.
import type { Booking, BookingStatus, Prisma } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { builder } from '../builder.js';
import { CustomerInput } from '../customers/customer.js';
import { checkRange } from '../domain-validation.js';
import { pageType, paginate } from '../pagination.js';
import { createBooking } from './create-booking.js';
import { findBooking } from '../find-records.js';
import { rescheduleBooking } from './reschedule-booking.js';
import { transitionBooking, type BookingAction } from './transition-booking.js';

const STATUSES: BookingStatus[] = ['pending', 'confirmed', 'cancelled', 'completed', 'no_show', 'expired'];

export const BookingType = builder.objectRef<Booking>('Booking').implement({
  fields: (t) => ({
    _id: t.exposeID('id'),
    serviceId: t.exposeString('serviceId'),
    employeeId: t.exposeString('employeeId'),
    customerId: t.exposeString('customerId'),
    classId: t.exposeString('classSessionId', { nullable: true }),
    startTime: t.expose('startTime', { type: 'DateTime' }),
    endTime: t.expose('endTime', { type: 'DateTime' }),
    status: t.exposeString('status', { description: STATUSES.join(' | ') }),
    notes: t.exposeString('notes', { nullable: true }),
    cancelReason: t.exposeString('cancelReason', { nullable: true }),
    customerTimeZone: t.exposeString('customerTimeZone', {
      nullable: true,
      description: "The customer's IANA time zone, when given",
    }),
    price: t.exposeInt('price'),
    currency: t.exposeString('currency'),
    holdExpiresAt: t.expose('holdExpiresAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When an unpaid pending booking expires',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const BookingPage = pageType('Booking', BookingType);

const CreateBookingInput = builder.inputType('CreateBookingInput', {
  fields: (t) => ({
    serviceId: t.string({ required: true }),
    startTime: t.field({ type: 'DateTime' }),
    employeeId: t.string(),
    classId: t.string(),
    customerId: t.string(),
    customer: t.field({ type: CustomerInput }),
    notes: t.string(),
    customerTimeZone: t.string({ description: 'IANA time zone of the customer, e.g. America/New_York' }),
  }),
});

const read = { scope: 'bookings:read' } as const;
const write = { scope: 'bookings:write' } as const;

builder.queryFields((t) => ({
  bookings: t.field({
    type: BookingPage,
    authScopes: read,
    args: {
      limit: t.arg.int(),
      cursor: t.arg.string(),
      status: t.arg.string(),
      from: t.arg({ type: 'DateTime' }),
      to: t.arg({ type: 'DateTime' }),
      employeeId: t.arg.string(),
      customerId: t.arg.string(),
      serviceId: t.arg.string(),
    },
    resolve: (_r, a, ctx) => {
      if (a.status && !STATUSES.includes(a.status as BookingStatus))
        throw AppError.validation([{ path: 'status', message: `must be one of ${STATUSES.join(', ')}` }]);
      if (a.from && a.to) checkRange(a.from, a.to, { fromPath: 'from', toPath: 'to' });
      const where: Prisma.BookingWhereInput = {
        companyId: ctx.credential!.companyId,
        ...(a.status ? { status: a.status as BookingStatus } : {}),
        ...(a.employeeId ? { employeeId: a.employeeId } : {}),
        ...(a.customerId ? { customerId: a.customerId } : {}),
        ...(a.serviceId ? { serviceId: a.serviceId } : {}),
        ...(a.from || a.to ? { startTime: { ...(a.from ? { gte: a.from } : {}), ...(a.to ? { lt: a.to } : {}) } } : {}),
      };
      return paginate(a, (q) => ctx.db.booking.findMany({ ...q, where: { ...q.where, ...where } }));
    },
  }),
  booking: t.field({
    type: BookingType,
    authScopes: read,
    args: { id: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) => findBooking(ctx.db, ctx.credential!.companyId, args.id),
  }),
}));

const transition = (action: BookingAction, description: string) =>
  builder.mutationField(
    {
      confirm: 'confirmBooking',
      cancel: 'cancelBooking',
      complete: 'completeBooking',
      no_show: 'markBookingNoShow',
      expire: '',
    }[action],
    (t) =>
      t.field({
        type: BookingType,
        description,
        authScopes: write,
        args: { id: t.arg.string({ required: true }), ...(action === 'cancel' ? { reason: t.arg.string() } : {}) },
        resolve: (_r, args, ctx) =>
          transitionBooking(ctx.db, {
            companyId: ctx.credential!.companyId,
            bookingId: args.id,
            action,
            input:
              action === 'cancel' && (args as { reason?: string | null }).reason != null
                ? { reason: (args as { reason: string }).reason }
                : {},
          }),
      }),
  );

transition('confirm', 'pending → confirmed');
transition('cancel', 'pending or confirmed → cancelled');
transition('complete', 'confirmed → completed, once startTime has passed');
transition('no_show', 'confirmed → no_show, once startTime has passed');

builder.mutationFields((t) => ({
  createBooking: t.field({
    type: BookingType,
    authScopes: write,
    args: { input: t.arg({ type: CreateBookingInput, required: true }) },
    resolve: (_r, args, ctx) => createBooking(ctx.db, { company: ctx.credential!.company, input: args.input }),
  }),
  rescheduleBooking: t.field({
    type: BookingType,
    description: 'confirmed → confirmed at new times',
    authScopes: write,
    args: {
      id: t.arg.string({ required: true }),
      startTime: t.arg({ type: 'DateTime', required: true }),
      employeeId: t.arg.string(),
    },
    resolve: (_r, args, ctx) =>
      rescheduleBooking(ctx.db, {
        company: ctx.credential!.company,
        bookingId: args.id,
        input: { startTime: args.startTime, ...(args.employeeId != null ? { employeeId: args.employeeId } : {}) },
      }),
  }),
}));
