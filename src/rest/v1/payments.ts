// /api/v1/payments (docs/api.md) and /api/v1/emails (the sandbox e-mail log).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { PAYMENT_METHOD_TOKEN_PATTERN } from '../../payments/payment-method-token.js';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Id, Metadata, MetadataPatch, Nullable, Timestamp } from '../schemas.js';

export const Payment = Type.Object(
  {
    _id: Id,
    bookingId: Nullable({ ...Id, description: 'The booking paid for; null for the payment of a whole visit' }),
    visitId: Nullable({ ...Id, description: 'The visit paid for as one; null for the payment of one booking' }),
    amount: Type.Integer({
      description: "Minor units of currency: the booking's price (or deposit, balance), or the sum of a visit's items",
    }),
    currency: Type.String(),
    status: Type.Union(
      ['processing', 'succeeded', 'failed', 'partially_refunded', 'refunded'].map((s) => Type.Literal(s)),
      { description: 'An open list: new states may be added' },
    ),
    kind: Type.Union(
      ['full', 'deposit', 'balance'].map((s) => Type.Literal(s)),
      {
        description: 'full; or deposit (the first payment of a service with a depositAmount) and then balance',
      },
    ),
    amountRefunded: Type.Integer({ description: 'Minor units refunded so far, 0 up to amount' }),
    failureCode: Nullable(Type.String({ description: 'card_declined, insufficient_funds, ...' })),
    failureMessage: Nullable(Type.String({ description: "Why it failed, in the processor's words" })),
    brand: Nullable(Type.String()),
    last4: Nullable(Type.String()),
    refundedAt: Nullable({ ...Timestamp, description: 'When it was last refunded' }),
    metadata: Metadata,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'Payment' },
);

const CreatePayment = Type.Object(
  {
    bookingId: Type.Optional({ ...Id, description: 'The booking to pay for; or visitId, not both' }),
    visitId: Type.Optional({
      ...Id,
      description: "A visit to pay for as one: the sum of its pending and confirmed items' prices; or bookingId",
    }),
    card: Type.Optional(
      Type.Object(
        {
          number: Type.String({ pattern: '^[0-9]{12,19}$', description: 'Sandbox test card number, digits only' }),
          expMonth: Type.Integer({ minimum: 1, maximum: 12 }),
          expYear: Type.Integer({ minimum: 1000, maximum: 9999 }),
          cvc: Type.String({ pattern: '^[0-9]{3}$' }),
        },
        { additionalProperties: false, description: 'Sandbox only; refused in live mode' },
      ),
    ),
    paymentMethod: Type.Optional(
      Type.String({
        maxLength: 255,
        pattern: PAYMENT_METHOD_TOKEN_PATTERN,
        description:
          "Live only: the processor's payment-method token (pm_..., or a card token tok_...); never a card number",
      }),
    ),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false, title: 'New payment', description: 'Exactly one of bookingId and visitId' },
);

const RefundPayment = Type.Object(
  {
    amount: Type.Optional(
      Type.Integer({ description: 'Minor units to refund, 1 up to what is left; left out, all that is left' }),
    ),
  },
  { additionalProperties: false, title: 'Refund' },
);

const UpdatePayment = Type.Object(
  { metadata: Type.Optional(MetadataPatch) },
  { additionalProperties: false, title: 'Payment changes' },
);

export const Email = Type.Object(
  {
    _id: Id,
    to: Type.String(),
    from: Type.String(),
    subject: Type.String(),
    text: Type.String(),
    html: Type.String(),
    headers: Type.Record(Type.String(), Type.String()),
    attachments: Type.Array(
      Type.Object({
        filename: Type.String({ description: 'e.g. invite.ics' }),
        contentType: Type.String({ description: 'e.g. text/calendar; charset=utf-8; method=REQUEST' }),
        content: Type.String({ description: 'The file as text' }),
      }),
      { description: "Files it carries: a booking e-mail's calendar invitation (docs/calendars.md)" },
    ),
    kind: Nullable(Type.String()),
    createdAt: Timestamp,
  },
  { title: 'E-mail (sandbox log)' },
);

const Params = Type.Object({ id: Id });
const ListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);
const PaymentListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
    bookingId: Type.Optional(Id),
    visitId: Type.Optional(Id),
  },
  { additionalProperties: false },
);

export default async function paymentRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/payments',
    operationId: 'listPayments',
    summary: 'Payments, newest first',
    tags: ['Payments'],
    scope: 'payments:read',
    list: true,
    request: { querystring: PaymentListQuery },
    response: Payment,
    query: 'payments',
    variables: (req) => req.query,
  });
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/payments',
    operationId: 'createPayment',
    errors: ['INVALID_STATE_TRANSITION'],
    summary: 'Pay for a booking, or a whole visit; the payment is processing until the payments worker settles it',
    tags: ['Payments'],
    scope: 'payments:write',
    request: { body: CreatePayment },
    response: Payment,
    mutation: 'createPayment',
    variables: (req) => ({ input: req.body }),
  });
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/payments/:id',
    operationId: 'getPayment',
    summary: 'One payment',
    tags: ['Payments'],
    scope: 'payments:read',
    request: { params: Params },
    response: Payment,
    query: 'payment',
    variables: (req) => req.params,
  });
  graphqlRoute(app, deps, {
    method: 'PATCH',
    url: '/payments/:id',
    operationId: 'updatePayment',
    summary: "Change a payment's metadata (merged; a key set to null is removed); writes payment.updated",
    tags: ['Payments'],
    scope: 'payments:write',
    request: { params: Params, body: UpdatePayment },
    response: Payment,
    mutation: 'updatePayment',
    variables: (req) => ({ id: req.params.id, input: req.body }),
  });
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/payments/:id/refund',
    operationId: 'refundPayment',
    errors: ['INVALID_STATE_TRANSITION'],
    summary: 'Refund all that is left of a payment, or `amount` of it (a partial refund)',
    tags: ['Payments'],
    scope: 'payments:write',
    request: { params: Params, body: RefundPayment },
    optionalBody: true,
    response: Payment,
    mutation: 'refundPayment',
    variables: (req) => ({
      id: req.params.id,
      input: req.body.amount !== undefined ? { amount: req.body.amount } : null,
    }),
  });
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/emails',
    operationId: 'listEmails',
    summary: 'The sandbox e-mail log, newest first (test companies only)',
    tags: ['E-mail'],
    scope: 'emails:read',
    list: true,
    request: { querystring: ListQuery },
    response: Email,
    query: 'emails',
    variables: (req) => req.query,
  });
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/emails/:id',
    operationId: 'getEmail',
    summary: 'One logged e-mail with recipient, headers, text and HTML',
    tags: ['E-mail'],
    scope: 'emails:read',
    request: { params: Params },
    response: Email,
    query: 'email',
    variables: (req) => req.params,
  });
}
