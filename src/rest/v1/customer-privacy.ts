// /api/v1/customers/:id/erase and /export (docs/api.md, Customers: erase and export). Apart
// from customers.ts because the export is made of the other resources' schemas, and bookings.ts
// already takes the customer's.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { EXPORT_LIMIT } from '../../schema/customers/index.js';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Timestamp } from '../schemas.js';
import { Booking, Notification } from './bookings.js';
import { ById, Customer, tags } from './customers.js';
import { Event } from './events.js';
import { Email, Payment } from './payments.js';

const ExportBooking = Type.Omit(Booking, ['manageUrl'], {
  title: 'Booking (in an export)',
  description: 'A booking as GET /bookings/{id} answers it, without its manage link',
});

const CustomerExport = Type.Object(
  {
    exportedAt: { ...Timestamp, description: 'When the export was taken' },
    customer: Customer,
    bookings: Type.Array(ExportBooking, { description: 'Their bookings, with answers and notes' }),
    payments: Type.Array(Payment, {
      description:
        'The payments of their bookings; refunds are amountRefunded and refundedAt (and payment.refunded events)',
    }),
    notifications: Type.Array(Notification, { description: 'Reminders planned or sent for their bookings' }),
    emails: Type.Array(Email, {
      description: 'E-mails to them or about their bookings, as composed (sent when live, logged in the sandbox)',
    }),
    events: Type.Array(Event, {
      description: 'Events about them: their customer events and those of their bookings and payments',
    }),
    truncated: Type.Boolean({
      description: `True when a list had more than ${EXPORT_LIMIT} items: each list holds at most ${EXPORT_LIMIT}, newest first`,
    }),
  },
  { title: 'Customer export' },
);

export default async function customerPrivacyRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/customers/:id/erase',
    operationId: 'eraseCustomer',
    summary: 'Erase a customer: replace their personal data everywhere it is held; cannot be undone',
    description:
      "Replaces the customer's name, e-mail, phone, notes and metadata, and every copy of them (event payloads, e-mails, webhook attempt excerpts, request logs, booking answers and notes), keeps their bookings and payments anonymous, and emits customer.erased. Afterwards the customer cannot be changed or booked (409 CONFLICT) and their manage links open nothing. Erasing again is 409 CONFLICT with details.erasedAt.",
    tags,
    scope: 'customers:write',
    request: { params: ById },
    response: Customer,
    mutation: 'eraseCustomer',
    variables: (req) => req.params,
  });
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/customers/:id/export',
    operationId: 'exportCustomer',
    summary: 'Everything held about a customer',
    description: `The customer, their bookings (answers and notes included), the payments of those bookings, their reminders, the e-mails to them or about their bookings and the events about them. Each list holds at most ${EXPORT_LIMIT} items, newest first; truncated says one was cut.`,
    tags,
    scope: 'customers:read',
    request: { params: ById },
    response: CustomerExport,
    query: 'customerExport',
    variables: (req) => req.params,
  });
}
