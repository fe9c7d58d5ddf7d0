// /api/v1/customers/:id/erase and /export (docs/api.md, Customers: erase and export). Apart
// from customers.ts because the export is made of the other resources' schemas, and bookings.ts
// already takes the customer's.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import type { Credential } from '../../auth/credentials.js';
import type { Company } from '../../generated/prisma/client.js';
import { EXPORT_LIMIT } from '../../schema/customer-exports/index.js';
import { createContext } from '../../schema/context.js';
import type { Services } from '../../services.js';
import { success } from '../envelope.js';
import { compileRestOperation } from '../operation.js';
import { graphqlRoute, type V1Deps } from '../route.js';
import { deriveOperation } from '../selection.js';
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

/** The export's body for the admin area's download: `customerExport(company, id, requestId)`. */
export type CustomerExportAnswer = (company: Company, customerId: string, requestId: string) => Promise<unknown>;

/**
 * GET /customers/:id/export's answer (envelope and all) for the admin area's Export button
 * (docs/admin.md, Customers), so the download is the API's JSON byte for byte and not a second
 * rendering of it: the same operation, compiled from the same response schema, run for the
 * signed-in account's company with customers:read as the only scope. src/app.ts hands it to the
 * admin plugin (transports do not import each other).
 */
export function customerExportAnswer(schema: GraphQLSchema, services: Services): CustomerExportAnswer {
  const op = compileRestOperation<unknown>(
    schema,
    deriveOperation(schema, 'query', 'customerExport', CustomerExport),
    'customerExport',
  );
  return async (company, customerId, requestId) => {
    // Not a stored credential: nothing resolves, logs or touches it; it carries the company,
    // its mode and the one scope the operation checks.
    const credential: Credential = {
      kind: 'api_key',
      id: '',
      name: 'admin area',
      hash: '',
      mode: company.mode,
      companyId: company.id,
      accountId: company.accountId,
      clientId: null,
      grantId: null,
      scopes: new Set(['customers:read']),
      company,
      expiresAt: null,
    };
    const data = await op.run(createContext({ credential, services, requestId }), { id: customerId });
    return success(data, requestId);
  };
}
