// OpenAPI 3.1 generated from the route schemas (@fastify/swagger), served at /openapi.json,
// and a rendered reference at /docs (@fastify/swagger-ui, whose assets ship in the package,
// so the page needs no internet).
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

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
