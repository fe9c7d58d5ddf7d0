// OpenAPI 3.1 generated from the route schemas (@fastify/swagger), served at /openapi.json,
// and a rendered reference at /docs (@fastify/swagger-ui, whose assets ship in the package,
// so the page needs no internet).
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
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

export async function registerDocs(app: FastifyInstance, baseUrl: string | undefined): Promise<void> {
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
      servers: baseUrl ? [{ url: baseUrl }] : [],
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description: 'API key (svc_sk_live_/svc_sk_test_) or OAuth access token',
          },
        },
      },
      security: [{ bearer: [] }],
    },
    transform: ({ schema, url }) =>
      url.startsWith('/api/v1/') && schema && !schema.hide
        ? { schema: { ...schema, headers: API_VERSION_HEADER }, url }
        : { schema, url },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true, validatorUrl: null },
    staticCSP: true,
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
