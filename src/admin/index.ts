// The admin area (docs/admin.md, issue 6) as one encapsulated Fastify plugin, registered with the
// prefix /admin (route paths below are relative to it):
// server-rendered HTML forms over the same use cases the API runs (see README, "Admin area").
// Form bodies and cookies are parsed only here. One guard serves every route: no session →
// the login page (the same form as OAuth's, posting to /oauth/login with next=/admin…); a POST
// without the session's CSRF token → 403 and nothing done. On a company page it then resolves
// the person's role there and applies the coarse role rules (src/admin/roles.ts: viewers read
// only, staff their sections only, integrator sections owner and admins only) → 403 and nothing
// done; and every successful post is written to the audit log (src/admin/audit-hook.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { loginPage } from '../auth/pages/login-page.js';
import { sendPage } from '../auth/pages/html.js';
import {
  endSession,
  isSafeNext,
  loginCsrfToken,
  readSession,
  sameSecret,
  registerPageSupport,
} from '../auth/sessions.js';
import { AppError, toAppError } from '../errors.js';
import { companyHasBegun } from '../schema/companies/index.js';
import { fieldsOf } from '../auth/pages/request-fields.js';
import type { Services } from '../services.js';
import { registerAssets } from './assets.js';
import { AdminNotFound, messagePage, sendAdmin } from './http.js';
import { registerApiKeyRoutes } from './routes/api-keys.js';
import { registerBookingRoutes } from './routes/bookings.js';
import { registerCalendarRoutes } from './routes/calendar.js';
import { registerCompanyRoutes } from './routes/companies.js';
import { registerCustomerRoutes, type CustomerExportAnswer } from './routes/customers.js';
import { registerEmailRoutes } from './routes/emails.js';
import { registerOAuthAppRoutes } from './routes/oauth-apps.js';
import { registerOverviewRoutes } from './routes/overview.js';
import { registerPaymentRoutes } from './routes/payments.js';
import { registerRequestLogRoutes } from './routes/request-logs.js';
import { registerServiceRoutes } from './routes/services.js';
import { registerClassRoutes } from './routes/classes.js';
import { registerSandboxRoutes } from './routes/sandbox.js';
import { registerSearchRoutes } from './routes/search.js';
import { registerStaffRoutes } from './routes/staff.js';
import { registerTeamRoutes } from './routes/team.js';
import { registerWebhookRoutes } from './routes/webhooks.js';
import { registerAuditHook } from './audit-hook.js';
import { companyPath } from './layout.js';
import { refusalFor } from './roles.js';
import { companiesOf, companyPageRest, layoutFor, modeOfRequest, resolveCompanyAccess } from './scope.js';

// The login form, the assets and an invitation link (which checks its own CSRF token).
const PUBLIC = /^\/admin\/(login|assets\/|invitations\/)/;

export default async function adminArea(
  app: FastifyInstance,
  opts: {
    services: Services;
    /** GET /api/v1/customers/:id/export's answer, for the Export button (src/app.ts passes it). */
    customerExport?: CustomerExportAnswer;
  },
): Promise<void> {
  const { services } = opts;
  await registerPageSupport(app);
  app.decorateRequest('adminSession', null);
  app.decorateRequest('adminAccess', null);
  app.decorateRequest('adminCompanies', null);
  registerAssets(app);
  registerAuditHook(app, services);

  const loginRedirect = (req: FastifyRequest) => {
    const next = req.method === 'GET' && isSafeNext(req.url) ? req.url : '/admin';
    return `/admin/login?next=${encodeURIComponent(next)}`;
  };

  app.addHook('preHandler', async (req, reply) => {
    if (PUBLIC.test(req.url)) return;
    const active = await readSession(services, req);
    if (!active) return reply.redirect(loginRedirect(req), 303);
    req.adminSession = active;
    // Every state change is a POST carrying the session's CSRF token (SameSite=Lax is the
    // second line, not the only one).
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      // Forms only: a JSON or other body is not something these pages ever send.
      if (
        !String(req.headers['content-type'] ?? '')
          .toLowerCase()
          .startsWith('application/x-www-form-urlencoded')
      ) {
        return sendAdmin(
          reply,
          415,
          messagePage(null, 415, 'Unsupported form', 'This page accepts HTML form posts only.'),
        );
      }
      const given = fieldsOf(req.body).csrf_token;
      if (!sameSecret(active.session.csrfToken, given)) {
        req.log.warn({ accountId: active.account.id, url: req.url }, 'admin form without a valid CSRF token');
        return sendAdmin(
          reply,
          403,
          messagePage(null, 403, 'Form expired', 'This form is no longer valid. Reload the page and try again.'),
        );
      }
    }
    // A company page: the person's role there, afresh on every request (a changed role or a
    // removal counts at once). Not theirs to see → NOT_FOUND → the 404 page.
    const access = await resolveCompanyAccess(services, req);
    if (access) {
      const rest = companyPageRest(req);
      // Staff have no company profile: their day starts at the calendar.
      if (access.role === 'staff' && rest.length === 0 && req.method === 'GET')
        return reply.redirect(companyPath(access.company, '/calendar'), 303);
      const refusal = refusalFor(access, req.method, rest);
      if (refusal) {
        req.log.info({ accountId: active.account.id, role: access.role, url: req.url }, 'admin: refused by role');
        const ctx = await layoutFor(services, req, access.company.mode, undefined, access.company, access);
        return sendAdmin(reply, 403, messagePage(ctx, 403, refusal.title, refusal.message));
      }
    }
  });

  app.setErrorHandler(async (err, req, reply) => {
    // The error page stays in the mode the person was in (the switch and the side navigation).
    const ctx = req.adminSession ? await layoutFor(services, req, modeOfRequest(req)).catch(() => null) : null;
    // The code and status are the one table's (src/errors.ts), as for every other surface; the
    // page says them in words.
    const error = err instanceof AdminNotFound ? AppError.notFound('page') : toAppError(err);
    if (error.code === 'SERVICE_UNAVAILABLE')
      req.log.warn({ err: error.cause ?? error }, 'admin page: a dependency is down');
    else if (error.status >= 500) req.log.error({ err: error.cause ?? error }, 'admin page failed');
    const retryAfter = error.headers?.['retry-after'];
    if (retryAfter) reply.header('retry-after', retryAfter);
    const [title, message] = pageText(error);
    return sendAdmin(reply, error.status, messagePage(ctx, error.status, title, message));
  });

  app.setNotFoundHandler(async (req, reply) => {
    const ctx = req.adminSession ? await layoutFor(services, req, modeOfRequest(req)) : null;
    return sendAdmin(
      reply,
      404,
      messagePage(ctx, 404, 'Not found', 'There is nothing here, or it is not yours to see.'),
    );
  });

  // The same login form as OAuth's (docs/oauth.md); it posts to /oauth/login, which returns here.
  app.get('/login', { schema: { hide: true } }, async (req, reply) => {
    const given = fieldsOf(req.query).next;
    const next = isSafeNext(given) ? given : '/admin';
    if (await readSession(services, req)) return reply.redirect(next, 303);
    return sendPage(
      reply,
      200,
      loginPage({
        action: '/oauth/login',
        csrfToken: loginCsrfToken(req, reply),
        next,
        intro: 'Sign in to the admin area.',
      }),
    );
  });

  app.post('/logout', { schema: { hide: true } }, async (req, reply) => {
    await endSession(services, req, reply);
    return reply.redirect('/admin/login', 303);
  });

  // Home: the live company when there is exactly one, else the list of the mode that has any.
  // A newcomer whose one live company has not begun (no service and no staff yet: the demo's
  // first login) lands on their sample salon in test mode instead, a business at work; the live
  // company, which says in words how to begin, is the mode switch away.
  app.get('/', { schema: { hide: true } }, async (req, reply) => {
    const { account } = req.adminSession!;
    const live = await companiesOf(services, account.id, 'live');
    if (live.length === 1) {
      const only = live[0]!;
      const salon = (await companyHasBegun(services.dbs, only.id))
        ? null
        : (await companiesOf(services, account.id, 'test')).find(
            (c) => c.accountId === account.id && c.template === 'hair_salon',
          );
      return reply.redirect(
        salon ? `/admin/test/companies/${salon.id}/overview` : `/admin/live/companies/${only.id}`,
        303,
      );
    }
    return reply.redirect(live.length ? '/admin/live' : '/admin/test', 303);
  });

  registerCompanyRoutes(app, services);
  registerApiKeyRoutes(app, services);
  registerOAuthAppRoutes(app, services);
  registerCalendarRoutes(app, services);
  registerBookingRoutes(app, services);
  registerSandboxRoutes(app, services);
  registerEmailRoutes(app, services);
  registerWebhookRoutes(app, services);
  registerStaffRoutes(app, services);
  registerServiceRoutes(app, services);
  registerClassRoutes(app, services);
  registerCustomerRoutes(app, services, opts.customerExport);
  registerRequestLogRoutes(app, services);
  registerTeamRoutes(app, services);
  registerPaymentRoutes(app, services);
  registerSearchRoutes(app, services);
  registerOverviewRoutes(app, services);
}

/** The title and sentence of an error page. A client error's own message is safe to show. */
function pageText(error: AppError): [string, string] {
  if (error.code === 'NOT_FOUND') return ['Not found', 'There is nothing here, or it is not yours to see.'];
  if (error.code === 'RATE_LIMITED') return ['Too many requests', 'Wait a moment and try again.'];
  if (error.code === 'SERVICE_UNAVAILABLE')
    return ['Service unavailable', 'A service we depend on is unavailable; try again in a moment.'];
  if (error.status >= 500) return ['Something went wrong', 'Something went wrong on our side; try again later.'];
  return ['Invalid request', error.message];
}
