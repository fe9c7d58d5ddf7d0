// Payments (docs/api.md) in GraphQL: payments, payment, createPayment, refundPayment.
// Scopes: payments:read / payments:write.
import { resolveArrayConnection } from '@pothos/plugin-relay';
import type { Payment, PaymentKind, PaymentStatus, Prisma } from '../../generated/prisma/client.js';
import { isId } from '../../ids.js';
import { builder } from '../builder.js';
import {
  connectionType,
  ListOrderEnum,
  nodeQuery,
  orderByOf,
  resolveConnection,
  relatedQuery,
} from '../connections.js';
import { found } from '../find-records.js';
import { MoneyType } from '../money.js';
import { legacyPageArgs } from '../pagination.js';
import { createPayment } from './create-payment.js';
import { refundPayment } from './refund-payment.js';
import { updatePayment } from './update-payment.js';
import { NodeInterface } from '../node.js';

export const PaymentStatusEnum = builder.enumType('PaymentStatus', {
  description: "A payment's state (docs/api.md, Payments); treat the list as open",
  values: {
    processing: { description: 'Created; the payments worker has not settled it yet' },
    succeeded: { description: 'Charged; a pending booking is confirmed by it' },
    failed: { description: 'Not charged; failureCode says why' },
    partially_refunded: { description: 'Charged, then refunded in part (amountRefunded); can be refunded further' },
    refunded: { description: 'Charged, then refunded in full' },
  } satisfies Record<PaymentStatus, { description: string }>,
});

export const PaymentKindEnum = builder.enumType('PaymentKind', {
  description: 'What a payment pays for (docs/api.md, Payments); treat the list as open',
  values: {
    full: { description: "The booking's whole price" },
    deposit: { description: "The service's deposit: the first payment, which confirms the booking" },
    balance: { description: 'The rest of the price, after a deposit' },
  } satisfies Record<PaymentKind, { description: string }>,
});

export const PaymentType = builder.prismaObject('Payment', {
  interfaces: [NodeInterface],
  description:
    'A charge for a booking or for a whole visit: processing, then succeeded or failed; succeeded can be refunded',
  fields: (t) => ({
    _id: t.exposeID('id', { description: 'The payment id' }),
    bookingId: t.exposeID('bookingId', {
      nullable: true,
      description: 'The id of the booking paid for; null for the payment of a whole visit (visitId)',
    }),
    visitId: t.exposeID('visitId', {
      nullable: true,
      description: 'The id of the visit paid for as one; null for the payment of one booking (bookingId)',
    }),
    booking: t.relation('booking', {
      nullable: true,
      description: 'The booking paid for (needs bookings:read); null for a visit payment',
      authScopes: { scope: 'bookings:read' },
    }),
    visit: t.relation('visit', {
      nullable: true,
      description: 'The visit paid for as one (needs bookings:read); null for a booking payment',
      authScopes: { scope: 'bookings:read' },
    }),
    amountMoney: t.field({
      type: MoneyType,
      description: "What is charged: the booking's price, or its deposit or balance; for a visit, its items' prices",
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
    kind: t.expose('kind', { type: PaymentKindEnum, description: 'full, or a deposit and then its balance' }),
    amountRefunded: t.exposeInt('amountRefunded', {
      description: 'Minor units refunded so far (0 up to amount)',
    }),
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
    refundedAt: t.expose('refundedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was last refunded (in part or in full)',
    }),
    metadata: t.expose('metadata', {
      type: 'Metadata',
      description: 'Your own key/value pairs (docs/api.md, Metadata)',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it last changed' }),
  }),
});

export const PaymentConnection = connectionType<Payment>('Payment', PaymentType);

const paymentFilterArgs = (t: ArgBuilder) => ({
  status: t({ type: PaymentStatusEnum, description: 'Only payments in this state' }),
  orderBy: t({ type: ListOrderEnum, description: 'The order (default NEWEST_FIRST)' }),
});
type ArgBuilder = Parameters<Parameters<typeof builder.queryField>[1]>[0]['arg'];
const paymentWhere = (
  companyId: string,
  a: { status?: PaymentStatus | null; bookingId?: string | number | null; visitId?: string | number | null },
): Prisma.PaymentWhereInput => ({
  companyId,
  ...(a.status ? { status: a.status } : {}),
  ...(a.bookingId != null ? { bookingId: String(a.bookingId) } : {}),
  ...(a.visitId != null ? { visitId: String(a.visitId) } : {}),
});
const read = { scope: 'payments:read' } as const;

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
  description:
    'A charge for a booking or a whole visit (exactly one of bookingId and visitId): a test card in the sandbox, a payment method in live mode',
  fields: (t) => ({
    bookingId: t.id({ description: 'The booking to pay for' }),
    visitId: t.id({
      description: "The visit to pay for as one: its pending and confirmed items' prices, in one payment",
    }),
    card: t.field({ type: CardInput, description: 'Sandbox: a test card' }),
    paymentMethod: t.string({ description: "Live: the processor's payment-method token" }),
    metadata: t.field({ type: 'Metadata', description: 'Your own key/value pairs, up to 50 string values' }),
  }),
});

const UpdatePaymentInput = builder.inputType('UpdatePaymentInput', {
  description: 'What of a payment can change: its metadata',
  fields: (t) => ({
    metadata: t.field({
      type: 'Metadata',
      description: 'Keys to set, merged into the stored ones; a key set to null is removed',
    }),
  }),
});

const RefundPaymentInput = builder.inputType('RefundPaymentInput', {
  description: 'A refund of part of a payment',
  fields: (t) => ({
    amount: t.int({ description: 'Minor units to refund, 1 up to what is left; left out, all that is left' }),
  }),
});

builder.queryFields((t) => ({
  payments: t.connection(
    {
      type: PaymentType,
      description: 'Payments, newest first unless ordered',
      authScopes: read,
      args: {
        ...legacyPageArgs(t.arg),
        bookingId: t.arg.id({ description: "Only this booking's payments" }),
        visitId: t.arg.id({ description: "Only this visit's payments (a visit paid as one)" }),
        ...paymentFilterArgs(t.arg),
      },
      resolve: (_r, a, ctx, info) => {
        const where = paymentWhere(ctx.credential!.companyId, a);
        const query = nodeQuery(ctx, info, 'Payment');
        return resolveConnection(
          a,
          a.orderBy,
          ctx.credential!.companyId,
          (q) => ctx.db.payment.findMany({ ...query, ...q, where: { ...q.where, ...where } }),
          () => ctx.db.payment.count({ where }),
        );
      },
    },
    PaymentConnection,
  ),
  payment: t.prismaField({
    type: 'Payment',
    description: 'One payment by id',
    authScopes: read,
    args: { id: t.arg.id({ required: true, description: 'The payment id' }) },
    resolve: async (query, _r, { id }, ctx) =>
      found(
        isId(String(id))
          ? await ctx.db.payment.findFirst({
              ...query,
              where: { id: String(id), companyId: ctx.credential!.companyId },
            })
          : null,
        'payment',
      ),
  }),
}));

for (const [model, description] of [
  ['Booking', 'The payments of this booking'],
  ['Company', "The company's payments"],
  ['Visit', 'The payments of this visit paid as one (at most one standing)'],
] as const) {
  builder.prismaObjectFields(model, (t) => ({
    payments: t.relatedConnection(
      'payments',
      {
        description: `${description} (needs payments:read)`,
        nullable: true,
        cursor: 'id',
        totalCount: true,
        authScopes: read,
        args: paymentFilterArgs(t.arg),
        query: (a, ctx) => {
          const companyId = ctx.credential!.companyId;
          return relatedQuery(a, companyId, { where: paymentWhere(companyId, a), orderBy: orderByOf(a.orderBy) });
        },
      },
      PaymentConnection,
    ),
  }));
}

// A customer's payments are those of their bookings and visits: loaded with the customer, paged in memory.
builder.prismaObjectFields('Customer', (t) => ({
  payments: t.connection(
    {
      type: PaymentType,
      nullable: true,
      description: "The payments of the customer's bookings and visits, newest first (needs payments:read)",
      authScopes: read,
      select: (_args, _ctx, nestedSelection) => ({
        bookings: { select: { payments: nestedSelection(true) } },
        visits: { select: { payments: nestedSelection(true) } },
      }),
      resolve: (c, args) => {
        const list = [...c.bookings.flatMap((b) => b.payments), ...c.visits.flatMap((v) => v.payments)].sort((x, y) =>
          x.id < y.id ? 1 : x.id > y.id ? -1 : 0,
        );
        return { ...resolveArrayConnection({ args }, list), totalCount: list.length };
      },
    },
    PaymentConnection,
  ),
}));

builder.mutationFields((t) => ({
  createPayment: t.field({
    type: PaymentType,
    description:
      'Charges a booking, or a whole visit: the payment starts processing and the payments worker settles it',
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
    description:
      'Refunds all that is left of a succeeded or partially refunded payment, or input.amount of it (→ partially_refunded until nothing is left, then refunded)',
    authScopes: { scope: 'payments:write' },
    args: {
      id: t.arg.id({ required: true, description: 'The payment id' }),
      input: t.arg({ type: RefundPaymentInput, description: 'How much; left out, all that is left' }),
    },
    resolve: (_r, { id, input }, ctx) =>
      refundPayment(ctx.db, {
        companyId: ctx.credential!.companyId,
        mode: ctx.credential!.mode,
        config: ctx.config,
        id: String(id),
        input: input?.amount != null ? { amount: input.amount } : {},
      }),
  }),
  updatePayment: t.field({
    type: PaymentType,
    description: "Changes a payment's metadata (merged; a key set to null is removed) and writes payment.updated",
    authScopes: { scope: 'payments:write' },
    args: {
      id: t.arg.id({ required: true, description: 'The payment id' }),
      input: t.arg({ type: UpdatePaymentInput, required: true, description: 'The metadata to merge' }),
    },
    resolve: (_r, { id, input }, ctx) =>
      updatePayment(ctx.db, { companyId: ctx.credential!.companyId, paymentId: String(id), input }),
  }),
}));
