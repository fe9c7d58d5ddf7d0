// Payments (docs/api.md) in GraphQL: payments, payment, createPayment, refundPayment.
// Scopes: payments:read / payments:write.
import type { Payment } from '../../generated/prisma/client.js';
import { builder } from '../builder.js';
import { pageType, paginate } from '../pagination.js';
import { createPayment } from './create-payment.js';
import { findPayment, refundPayment } from './refund-payment.js';

export const PaymentType = builder.objectRef<Payment>('Payment').implement({
  description: 'A charge for a booking: processing, then succeeded or failed; succeeded can be refunded',
  fields: (t) => ({
    _id: t.exposeID('id'),
    bookingId: t.exposeString('bookingId'),
    amount: t.exposeInt('amount', { description: 'Minor units of currency' }),
    currency: t.exposeString('currency'),
    status: t.exposeString('status', { description: 'processing, succeeded, failed or refunded' }),
    failureCode: t.exposeString('failureCode', {
      nullable: true,
      description: 'card_declined, insufficient_funds, resource_missing, processor_unavailable, ...',
    }),
    failureMessage: t.exposeString('failureMessage', {
      nullable: true,
      description: "Why it failed, in the processor's words",
    }),
    brand: t.exposeString('brand', { nullable: true }),
    last4: t.exposeString('last4', { nullable: true }),
    refundedAt: t.expose('refundedAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const PaymentPage = pageType<Payment>('Payment', PaymentType);

const CardInput = builder.inputType('CardInput', {
  description: 'Sandbox only: a test card',
  fields: (t) => ({
    number: t.string({ required: true }),
    expMonth: t.int({ required: true }),
    expYear: t.int({ required: true }),
    cvc: t.string({ required: true }),
  }),
});

const CreatePaymentInput = builder.inputType('CreatePaymentInput', {
  fields: (t) => ({
    bookingId: t.string({ required: true }),
    card: t.field({ type: CardInput, description: 'Sandbox: a test card' }),
    paymentMethod: t.string({ description: "Live: the processor's payment-method token" }),
  }),
});

builder.queryFields((t) => ({
  payments: t.field({
    type: PaymentPage,
    authScopes: { scope: 'payments:read' },
    args: { limit: t.arg.int(), cursor: t.arg.string(), bookingId: t.arg.string() },
    resolve: (_r, args, ctx) =>
      paginate(args, (q) =>
        ctx.db.payment.findMany({
          ...q,
          where: {
            companyId: ctx.credential!.companyId,
            ...(args.bookingId ? { bookingId: args.bookingId } : {}),
            ...q.where,
          },
        }),
      ),
  }),
  payment: t.field({
    type: PaymentType,
    authScopes: { scope: 'payments:read' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => findPayment(ctx.db, ctx.credential!.companyId, String(id)),
  }),
}));

builder.mutationFields((t) => ({
  createPayment: t.field({
    type: PaymentType,
    authScopes: { scope: 'payments:write' },
    args: { input: t.arg({ type: CreatePaymentInput, required: true }) },
    resolve: (_r, { input }, ctx) =>
      createPayment(ctx.db, {
        companyId: ctx.credential!.companyId,
        mode: ctx.credential!.mode,
        config: ctx.config,
        input: Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined && v !== null)),
      }),
  }),
  refundPayment: t.field({
    type: PaymentType,
    authScopes: { scope: 'payments:write' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) =>
      refundPayment(ctx.db, {
        companyId: ctx.credential!.companyId,
        mode: ctx.credential!.mode,
        config: ctx.config,
        id: String(id),
      }),
  }),
}));
