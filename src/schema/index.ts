// Imports every type file and builds the schema (Pothos app-layout).
import { GraphQLDeferDirective, GraphQLStreamDirective } from '@graphql-tools/utils';
import { specifiedDirectives } from 'graphql';
import { builder } from './builder.js';
import './availability/availability.js';
import './bookings/booking.js';
import './classes/class-session.js';
import './class-schedules/class-schedule.js';
import './closures/closure.js';
import './companies/company.js';
import './webhooks/webhook-endpoint.js';
import './payments/payment.js';
import './emails/email.js';
import './customers/customer.js';
import './staff/employee.js';
import './staff/date-override.js';
import './events/event.js';
import './notifications/notification.js';
import './services/service.js';
import './resources/resource.js';
import './locations/location.js';
import './reports/booking-stats.js';
import './calendars/calendar-feed-url.js';
import './test-clocks/test-clock.js';
import './request-logs/request-log.js';
import './visits/visit.js';
import './booking-series/booking-series.js';
import './customer-exports/customer-export.js';

// `@defer` and `@stream` (docs/graphql.md, Deferred parts) are declared in the schema itself, so
// the published schema, introspection, trusted documents and /graphql all know them; graphql-yoga's
// defer-stream plugin (src/http/graphql.ts) finds them declared and answers them incrementally.
export const schema = builder.toSchema({
  sortSchema: true,
  directives: [...specifiedDirectives, GraphQLDeferDirective, GraphQLStreamDirective],
});
