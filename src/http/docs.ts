// OpenAPI 3.1 generated from the route schemas (@fastify/swagger), served at /openapi.json,
// and a rendered reference at /docs (@fastify/swagger-ui, whose assets ship in the package,
// so the page needs no internet). docs/api.md, "OpenAPI", says what the document holds.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OpenAPIV3_1 } from 'openapi-types';
import { SCOPE_DESCRIPTIONS } from '../auth/pages/consent-page.js';
import type { Config } from '../config.js';
import { API_VERSIONS } from '../schema/companies/index.js';

// Every /api/v1 operation takes API-Version (docs/api.md, Versions); the hook that reads it is
// one for the prefix (src/rest/api-version.ts), so the reference adds it to each operation here.
const API_VERSION_HEADER = {
  type: 'object',
  properties: {
    'API-Version': {
      type: 'string',
      enum: [...API_VERSIONS],
      description:
        "The API version to answer in (date-named); without it, the company's pinned version. The answer echoes it in an API-Version header",
    },
  },
} as const;

/** The resources the operations are grouped by (each route names its tag), in reading order. */
const TAGS: OpenAPIV3_1.TagObject[] = [
  { name: 'Company', description: 'The company the credential belongs to: its profile and calendar feed' },
  { name: 'Services', description: 'What can be booked: appointment and class services, their rules and prices' },
  { name: 'Employees', description: 'Who is booked: working hours, time off, date overrides, calendar feeds' },
  { name: 'Customers', description: 'Who books' },
  { name: 'Classes', description: 'Scheduled sessions of class services, booked by place' },
  { name: 'Closures', description: 'Days or hours the whole company is closed' },
  { name: 'Availability', description: 'Free slots, and why a time is not free' },
  { name: 'Bookings', description: 'Bookings and their transitions: confirm, cancel, reschedule, complete, no-show' },
  { name: 'Payments', description: 'Payments for bookings and their refunds' },
  { name: 'Webhooks', description: 'Webhook endpoints and their deliveries (docs/webhooks.md)' },
  { name: 'Events', description: 'The event history every webhook delivery comes from' },
  { name: 'Reports', description: 'Booking statistics' },
  { name: 'E-mail', description: 'The sandbox e-mail log' },
  { name: 'Test clocks', description: "A sandbox company's own now, moved forward on request (docs/sandbox.md)" },
  { name: 'Request logs', description: "The company's API requests of the last 30 days (docs/api.md)" },
];

/**
 * The origin the reference points requests and OAuth at: BASE_URL (and AUTH_URL for OAuth);
 * without them, the origin the document was asked for, so that "try it" on /docs calls the
 * server that served the page (as the OAuth metadata does without AUTH_URL, metadata.ts).
 */
interface Origins {
  api: string;
  auth: string;
}

type Doc = OpenAPIV3_1.Document;

function securitySchemes(auth: string): Record<string, OpenAPIV3_1.SecuritySchemeObject> {
  return {
    bearer: {
      type: 'http',
      scheme: 'bearer',
      description:
        'An API key (`svc_sk_live_…`, `svc_sk_test_…` for the sandbox), which carries every scope, or an OAuth access token',
    },
    oauth2: {
      type: 'oauth2',
      description:
        'OAuth 2.1 authorization code flow (docs/oauth.md). PKCE with `code_challenge_method=S256` is supported for every client and required for public ones; the token is sent as `Authorization: Bearer <access token>`. Each operation lists the one scope it needs.',
      flows: {
        authorizationCode: {
          authorizationUrl: `${auth}/oauth/authorize`,
          tokenUrl: `${auth}/oauth/token`,
          refreshUrl: `${auth}/oauth/token`,
          scopes: { ...SCOPE_DESCRIPTIONS },
        },
      },
    },
  };
}

/** The generated document, finished: tags, servers and security schemes; body-less actions. */
function finish(doc: Doc, origins: Origins): Doc {
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item ?? {}) as Array<OpenAPIV3_1.OperationObject & { 'x-optional-body'?: true }>) {
      if (typeof op !== 'object' || !op || !('responses' in op)) continue;
      // @fastify/swagger marks every declared body required; an action whose body may be left
      // out (src/rest/route.ts, optionalBody and actions that take no fields) is not.
      if (op['x-optional-body']) {
        if (op.requestBody && !('$ref' in op.requestBody)) op.requestBody.required = false;
        delete op['x-optional-body'];
      }
    }
  }
  return withOrigins({ ...doc, tags: TAGS }, origins);
}

function withOrigins(doc: Doc, origins: Origins): Doc {
  return {
    ...doc,
    servers: [{ url: origins.api, description: 'This server' }],
    components: {
      ...doc.components,
      securitySchemes: securitySchemes(origins.auth),
    },
  };
}

export async function registerDocs(
  app: FastifyInstance,
  config: Pick<Config, 'BASE_URL' | 'AUTH_URL' | 'PORT'>,
): Promise<void> {
  // Without BASE_URL the document is built for the default local origin and each answer
  // points at the origin it was asked for (originsOf).
  const fixed = config.BASE_URL !== undefined;
  const defaultOrigin = config.BASE_URL ?? `http://localhost:${config.PORT}`;
  const built: Origins = { api: defaultOrigin, auth: config.AUTH_URL ?? defaultOrigin };
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Booking API',
        version: 'v1',
        description:
          'Appointment bookings for salons, clinics and gyms. Every response is an envelope: ' +
          '`{ status, data | error, meta: { timestamp, version, requestId } }`. Authenticate with ' +
          '`Authorization: Bearer <API key or OAuth access token>`; a `svc_sk_test_` key selects the sandbox.',
      },
      components: { securitySchemes: securitySchemes(built.auth) },
      security: [{ bearer: [] }],
    },
    transform: ({ schema, url, route }) => {
      if (!url.startsWith('/api/v1/') || !schema || schema.hide) return { schema, url };
      const optionalBody = (route.config as { optionalBody?: boolean } | undefined)?.optionalBody === true;
      return {
        schema: { ...schema, headers: API_VERSION_HEADER, ...(optionalBody ? { 'x-optional-body': true } : {}) },
        url,
      };
    },
    transformObject: (documents) =>
      'openapiObject' in documents ? finish(documents.openapiObject as Doc, built) : documents.swaggerObject,
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });

  const originsOf = (req: FastifyRequest): Origins => {
    const origin = `${req.protocol}://${req.host}`;
    return { api: origin, auth: config.AUTH_URL ?? origin };
  };
  // An answer built from the Host header must not be kept by a shared cache (metadata.ts).
  const documentFor = (req: FastifyRequest, reply: FastifyReply): Doc => {
    const doc = app.swagger() as unknown as Doc;
    if (fixed) return doc;
    reply.header('cache-control', 'no-store').header('vary', 'Host, X-Forwarded-Host, X-Forwarded-Proto');
    return withOrigins(doc, originsOf(req));
  };

  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true, validatorUrl: null },
    staticCSP: true,
    transformSpecification: (_doc, req, reply) => documentFor(req, reply),
    transformSpecificationClone: false,
  });
  app.get('/openapi.json', { schema: { hide: true } }, async (req, reply) => documentFor(req, reply));
}
