// A customer's export in GraphQL (docs/api.md, Customers: erase and export): customerExport(id),
// behind GET /customers/:id/export. Scope customers:read. Its lists are the subjects' own types.
import { BookingType } from '../bookings/index.js';
import { builder } from '../builder.js';
import { EmailType } from '../emails/index.js';
import { EventObject } from '../events/index.js';
import { NotificationType } from '../notifications/index.js';
import { PaymentType } from '../payments/index.js';
import { CustomerType } from '../customers/index.js';
import { exportCustomer, EXPORT_LIMIT, type CustomerExport } from './export-customer.js';

const CustomerExportType = builder.objectRef<CustomerExport>('CustomerExport').implement({
  description: `Everything the company holds about one customer. Each list: at most ${EXPORT_LIMIT} items, newest first`,
  fields: (t) => ({
    exportedAt: t.expose('exportedAt', { type: 'DateTime', description: 'When the export was taken' }),
    customer: t.field({ type: CustomerType, description: 'The customer', resolve: (x) => x.customer }),
    bookings: t.field({
      type: [BookingType],
      description: 'Their bookings, with answers and notes',
      resolve: (x) => x.bookings,
    }),
    payments: t.field({
      type: [PaymentType],
      description:
        'The payments of their bookings; refunds are amountRefunded and refundedAt, and payment.refunded events',
      resolve: (x) => x.payments,
    }),
    notifications: t.field({
      type: [NotificationType],
      description: 'The reminders planned or sent for their bookings',
      resolve: (x) => x.notifications,
    }),
    emails: t.field({
      type: [EmailType],
      description: 'E-mails to them or about their bookings, as composed (sent live, logged in the sandbox)',
      resolve: (x) => x.emails,
    }),
    events: t.field({
      type: [EventObject],
      description: 'Events about them: their customer events and those of their bookings and payments',
      resolve: (x) => x.events,
    }),
    truncated: t.exposeBoolean('truncated', {
      description: `True when a list had more than ${EXPORT_LIMIT} items and holds only the newest`,
    }),
  }),
});

builder.queryFields((t) => ({
  customerExport: t.field({
    type: CustomerExportType,
    description: 'Everything held about one customer (docs/api.md, Customers: erase and export)',
    authScopes: { scope: 'customers:read' },
    args: { id: t.arg.id({ required: true, description: 'The customer id' }) },
    resolve: (_r, args, ctx) =>
      exportCustomer(ctx.db, { companyId: ctx.credential!.companyId, customerId: String(args.id) }),
  }),
}));
