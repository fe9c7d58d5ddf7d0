// The /api/v1 prefix: one hook authenticates it all (an encapsulated plugin, as in the Fastify Plugins Guide).
import type { FastifyInstance } from 'fastify';
import { requireCredential } from '../../auth/authenticate.js';
import { registerApiVersion } from '../api-version.js';
import { registerIdempotency } from '../idempotency.js';
import type { V1Deps } from '../route.js';
import availabilityRoutes from './availability.js';
import bookingRoutes from './bookings.js';
import classRoutes from './classes.js';
import classScheduleRoutes from './class-schedules.js';
import closureRoutes from './closures.js';
import customerRoutes from './customers.js';
import customerPrivacyRoutes from './customer-privacy.js';
import employeeRoutes from './employees.js';
import eventRoutes from './events.js';
import meRoutes from './me.js';
import webhookRoutes from './webhook-endpoints.js';
import paymentRoutes from './payments.js';
import reportRoutes from './reports.js';
import requestLogRoutes from './request-logs.js';
import serviceRoutes from './services.js';
import resourceRoutes from './resources.js';
import locationRoutes from './locations.js';
import testClockRoutes from './test-clocks.js';
import visitRoutes from './visits.js';
import bookingSeriesRoutes from './booking-series.js';

export default async function apiV1(app: FastifyInstance, deps: V1Deps): Promise<void> {
  // preValidation: an unauthenticated request is a 401 before its body is judged.
  app.addHook('preValidation', async (req) => {
    requireCredential(req);
  });
  // Then the API version it is answered in (API-Version, or the company's pin).
  registerApiVersion(app);
  const { services, schema } = deps;
  // Every POST below honours Idempotency-Key (docs/api.md).
  registerIdempotency(app, services);
  await app.register(meRoutes, { services, schema });
  await app.register(webhookRoutes, { services, schema });
  await app.register(paymentRoutes, { services, schema });
  await app.register(employeeRoutes, { services, schema });
  await app.register(serviceRoutes, { services, schema });
  await app.register(resourceRoutes, { services, schema });
  await app.register(locationRoutes, { services, schema });
  await app.register(customerRoutes, { services, schema });
  await app.register(customerPrivacyRoutes, { services, schema });
  await app.register(classRoutes, { services, schema });
  await app.register(classScheduleRoutes, { services, schema });
  await app.register(closureRoutes, { services, schema });
  await app.register(availabilityRoutes, { services, schema });
  await app.register(bookingRoutes, { services, schema });
  await app.register(visitRoutes, { services, schema });
  await app.register(bookingSeriesRoutes, { services, schema });
  await app.register(eventRoutes, { services, schema });
  await app.register(reportRoutes, { services, schema });
  await app.register(testClockRoutes, { services, schema });
  await app.register(requestLogRoutes, { services, schema });
}
