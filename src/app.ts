// buildApp: the whole HTTP surface as one Fastify instance (as in the graphql-yoga
// examples and fastify/demo). server.ts only listens; tests build the app the same way.
import { readFileSync } from 'node:fs';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import { authenticateRequest } from './auth/authenticate.js';
import oauthServer from './auth/oauth/index.js';
import { registerRateLimit } from './auth/rate-limit.js';
import adminArea from './admin/index.js';
import { AppError } from './errors.js';
import { accessLog } from './http/access-log.js';
import { registerDocs } from './http/docs.js';
import { GRAPHIQL_PAGE_HEADERS, registerGraphiQL } from './http/graphiql.js';
import { createGraphQLServer } from './http/graphql.js';
import { registerHealth } from './http/health.js';
import { registerHome } from './http/home.js';
import { registerLlms } from './http/llms.js';
import managePages from './http/manage/index.js';
import calendarFeeds from './http/calendar-feeds.js';
import { registerMetrics } from './http/metrics.js';
import { registerRequestLogs } from './http/request-logs.js';
import { clientErrorHandler } from './rest/client-error.js';
import { frameworkErrorHandler, registerErrorHandling, registerNotFoundHandler } from './rest/error-handler.js';
import { BODY_LIMIT, registerJsonParser } from './rest/json-body.js';
import apiV1 from './rest/v1/index.js';
import { customerExportAnswer } from './rest/v1/customer-privacy.js';
import { ErrorEnvelope } from './rest/schemas.js';
import { schemaSerializerOptions } from './rest/serialize.js';
import { requestId } from './rest/request-id.js';
import { validatorCompiler } from './rest/validation.js';
import { liveEvents } from './schema/events/index.js';
import { schema } from './schema/index.js';
import { setAvailabilityCache } from './schema/availability/index.js';
import { setReportCache } from './schema/reports/index.js';
import type { Services } from './services.js';
import type { Config } from './config.js';

const AUTHENTICATED = /^\/(api\/|graphql(\/|\?|$))/;
// The customer's manage links (/b/<token>) and calendar feeds (/calendar/<token>.ics) carry
// their secret in the path: HTTPS only too.
const HTTPS_ONLY = /^\/(api\/|graphql|oauth\/|admin(\/|\?|$)|b\/|calendar\/)/;

// The client's address: req.ip follows X-Forwarded-For only through the hops TRUST_PROXY
// trusts (a hop count or the proxies' addresses, never every hop: see config.ts), so a client
// cannot claim loopback by sending `X-Forwarded-For: 127.0.0.1`. Not the socket's peer, which
// behind a proxy on the same host is always loopback.
function isLoopback(req: FastifyRequest): boolean {
  const ip = req.ip ?? '';
  return ip === '127.0.0.1' || ip === '::1' || ip === '::ffff:127.0.0.1';
}

/**
 * Fastify's trust setting for TRUST_PROXY. A hop count becomes a function: Fastify 5 trusts
 * nothing for a bare number, since a count cannot tell the proxy from a client connecting
 * directly; it is right only when the port is reachable through the proxies alone (README).
 */
export function trustedProxies(
  setting: Config['TRUST_PROXY'],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting !== 'number') return setting;
  return (_address, hop) => hop < setting;
}

export async function buildApp(services: Services): Promise<FastifyInstance> {
  const { config } = services;
  // Switched per database of this app: another app in the same process keeps its own setting.
  const modeDbs = [services.dbs.live.prisma, services.dbs.test.prisma];
  setAvailabilityCache(modeDbs, config.AVAILABILITY_CACHE === 'on');
  setReportCache(modeDbs, config.REPORT_CACHE === 'on');
  // Fastify's instance type is generic in its logger; ours is typed as the base logger.
  const logger: FastifyBaseLogger = services.logger;
  const app = Fastify({
    loggerInstance: logger,
    logController: accessLog(config),
    genReqId: requestId,
    requestIdHeader: false,
    bodyLimit: BODY_LIMIT,
    trustProxy: trustedProxies(config.TRUST_PROXY),
    // Requests still arriving on kept-alive connections while the server closes get the 503
    // envelope from the hook below (Fastify's own 503 has no envelope, request id or Retry-After).
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    routerOptions: { maxParamLength: 200 },
    // What the router and Node's HTTP parser refuse before any route runs answers in the
    // envelope too (docs/api.md), not with Fastify's or Node's own bodies.
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    // Routes outside /api/v1 keep Fastify's schema serializer (the /api/v1 ones write with
    // JSON.stringify, src/rest/serialize.ts), with the same options as that module's check.
    serializerOpts: schemaSerializerOptions,
    ...(config.TLS_CERT && config.TLS_KEY
      ? { https: { cert: readFileSync(config.TLS_CERT), key: readFileSync(config.TLS_KEY) } }
      : {}),
  });
  app.setValidatorCompiler(validatorCompiler);
  // JSON only; the OAuth endpoints register the form parser in their own context.
  registerJsonParser(app);
  app.removeContentTypeParser('text/plain');
  registerErrorHandling(app);
  app.addSchema(ErrorEnvelope);

  app.decorateRequest('credential', null);
  app.decorateRequest('authError', null);

  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });

  // Spec, "Security rules for clients": only HTTPS. In production plain HTTP is refused for
  // the API and OAuth (loopback excepted, for health checks and local tools).
  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
    if (closing) {
      // Fastify already answers with Connection: close; the client retries elsewhere.
      throw new AppError('SERVICE_UNAVAILABLE', 'This instance is shutting down; retry the request', {
        headers: { 'retry-after': '1' },
      });
    }
    if (config.isProduction) {
      reply.header('strict-transport-security', 'max-age=63072000; includeSubDomains');
      if (req.protocol !== 'https' && !isLoopback(req) && HTTPS_ONLY.test(req.url)) {
        throw new AppError('FORBIDDEN', 'HTTPS is required');
      }
    }
    if (AUTHENTICATED.test(req.url)) await authenticateRequest(req, services);
  });

  // Every /api/v1 and /graphql request of a company, written in batches (docs/api.md, Request logs).
  registerRequestLogs(app, services);

  await registerRateLimit(app, services);
  registerNotFoundHandler(app, app.rateLimit());
  // After the rate limiter: its routes get RateLimit-* like every other (docs/api.md).
  registerMetrics(app);
  await registerDocs(app, config);
  // llms.txt, llms-full.txt and docs/<page>.md for agents (docs/api.md, Docs for agents).
  registerLlms(app, config);
  registerHealth(app, services);

  await app.register(apiV1, { prefix: '/api/v1', services, schema });
  await app.register(oauthServer, { services });
  await app.register(adminArea, {
    prefix: '/admin',
    services,
    customerExport: customerExportAnswer(schema, services),
  });
  await app.register(managePages, { prefix: '/b', services });
  await app.register(calendarFeeds, { prefix: '/calendar', services });

  // GraphiQL in development only (docs/graphql.md): production serves no in-browser query tool.
  const renderGraphiQL = config.NODE_ENV === 'development' ? await registerGraphiQL(app) : undefined;
  const yoga = createGraphQLServer(services, { renderGraphiQL });
  // Live subscriptions never end by themselves: closing ends them (their clients reconnect to
  // another instance with Last-Event-ID), so the server's close does not wait on them.
  app.addHook('preClose', async () => liveEvents(services).endAll());
  registerHome(app, { graphiql: renderGraphiQL !== undefined });
  app.route({
    url: '/graphql',
    method: ['GET', 'POST'],
    schema: { hide: true },
    handler: async (req, reply) => {
      const response = await yoga.handleNodeRequestAndResponse(req, reply, { req, reply });
      response.headers.forEach((value, key) => void reply.header(key, value));
      // The one HTML answer is GraphiQL's page, which needs a page's headers.
      if (response.headers.get('content-type')?.startsWith('text/html')) reply.headers(GRAPHIQL_PAGE_HEADERS);
      reply.status(response.status);
      // A JSON answer is sent as text, so the request log can see its errors (http/request-logs.ts);
      // streams (subscriptions over SSE, incremental delivery) go as they are.
      if (/json/.test(response.headers.get('content-type') ?? '')) reply.send(await response.text());
      else reply.send(response.body);
      return reply;
    },
  });

  return app;
}
