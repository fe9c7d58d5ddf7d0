// Payments (docs/api.md) in GraphQL: payments, payment, createPayment, refundPayment.
// Scopes: payments:read / payments:write.
import type { Payment, PaymentStatus } from '../../generated/prisma/client.js';
import { builder } from '../builder.js';
import { MoneyType } from '../money.js';
import { pageArgs, pageType, paginate } from '../pagination.js';
import { createPayment } from './create-payment.js';
import { findPayment, refundPayment } from './refund-payment.js';

export const PaymentStatusEnum = builder.enumType('PaymentStatus', {
  description: "A payment's state (docs/api.md, Payments); treat the list as open",
  values: {
    processing: { description: 'Created; the payments worker has not settled it yet' },
    succeeded: { description: 'Charged; a pending booking is confirmed by it' },
    failed: { description: 'Not charged; failureCode says why' },
    refunded: { description: 'Charged, then refunded in full' },
  } satisfies Record<PaymentStatus, { description: string }>,
});

export const PaymentType = builder.objectRef<Payment>('Payment').implement({
  description: 'A charge for a booking: processing, then succeeded or failed; succeeded can be refunded',
  fields: (t) => ({
    _id: t.exposeID('id', { description: 'The payment id' }),
    bookingId: t.exposeID('bookingId', { description: 'The id of the booking paid for' }),
    amountMoney: t.field({
      type: MoneyType,
      description: "What is charged: the service's price",
      resolve: (p) => ({ amount: p.amount, currency: p.currency }),
    }),
    amount: t.exposeInt('amount', {
      description: 'Minor units of currency',
      deprecationReason: 'Use amountMoney { amount currency }',
    }),
    currency: t.exposeString('currency', {
      description: 'ISO 4217 code of amount',
      deprecationReason: 'Use amountMoney { amount currency }',
    }),
    status: t.expose('status', { type: PaymentStatusEnum, description: 'The payment state' }),
    failureCode: t.exposeString('failureCode', {
      nullable: true,
      description: 'card_declined, insufficient_funds, resource_missing, processor_unavailable, ...',
    }),
    failureMessage: t.exposeString('failureMessage', {
      nullable: true,
      description: "Why it failed, in the processor's words",
    }),
    brand: t.exposeString('brand', { nullable: true, description: 'The card brand, e.g. visa' }),
    last4: t.exposeString('last4', { nullable: true, description: 'The last four digits of the card' }),
    refundedAt: t.expose('refundedAt', { type: 'DateTime', nullable: true, description: 'When it was refunded' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it last changed' }),
  }),
});

const PaymentPage = pageType<Payment>('Payment', PaymentType);

const CardInput = builder.inputType('CardInput', {
  description: 'Sandbox only: a test card',
  fields: (t) => ({
    number: t.string({ required: true, description: 'The card number, digits only, e.g. 4242424242424242' }),
    expMonth: t.int({ required: true, description: 'Expiry month, 1–12' }),
    expYear: t.int({ required: true, description: 'Expiry year, four digits' }),
    cvc: t.string({ required: true, description: 'Three digits' }),
  }),
});

const CreatePaymentInput = builder.inputType('CreatePaymentInput', {
  description: 'A charge for a booking: a test card in the sandbox, a payment method in live mode',
  fields: (t) => ({
    bookingId: t.id({ required: true, description: 'The booking to pay for' }),
    card: t.field({ type: CardInput, description: 'Sandbox: a test card' }),
    paymentMethod: t.string({ description: "Live: the processor's payment-method token" }),
  }),
});

builder.queryFields((t) => ({
  payments: t.field({
    type: PaymentPage,
    description: 'Payments, newest first',
    authScopes: { scope: 'payments:read' },
    args: { ...pageArgs(t.arg), bookingId: t.arg.id({ description: "Only this booking's payments" }) },
    resolve: (_r, args, ctx) =>
      paginate(args, (q) =>
        ctx.db.payment.findMany({
          ...q,
          where: {
            companyId: ctx.credential!.companyId,
            ...(args.bookingId ? { bookingId: String(args.bookingId) } : {}),
            ...q.where,
          },
        }),
      ),
  }),
  payment: t.field({
    type: PaymentType,
    description: 'One payment by id',
    authScopes: { scope: 'payments:read' },
    args: { id: t.arg.id({ required: true, description: 'The payment id' }) },
    resolve: (_r, { id }, ctx) => findPayment(ctx.db, ctx.credential!.companyId, String(id)),
  }),
}));

builder.mutationFields((t) => ({
  createPayment: t.field({
    type: PaymentType,
    description: 'Charges a booking: the payment starts processing and the payments worker settles it',
    authScopes: { scope: 'payments:write' },
    args: { input: t.arg({ type: CreatePaymentInput, required: true, description: 'The charge' }) },
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
    description: 'succeeded → refunded, in full',
    authScopes: { scope: 'payments:write' },
    args: { id: t.arg.id({ required: true, description: 'The payment id' }) },
    resolve: (_r, { id }, ctx) =>
      refundPayment(ctx.db, {
        companyId: ctx.credential!.companyId,
        mode: ctx.credential!.mode,
        config: ctx.config,
        id: String(id),
      }),
  }),
}));
