// OpenAPI 3.1 generated from the route schemas (@fastify/swagger), served at /openapi.json,
// and a rendered reference at /docs (@fastify/swagger-ui, whose assets ship in the package,
// so the page needs no internet). docs/api.md, "OpenAPI", says what the document holds.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { existsSync, readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { deepFreeze } from '../frozen.js';
import { packageFile } from '../package-files.js';
import { API_VERSIONS } from '../schema/companies/index.js';
import {
  documentForTag,
  finishDocument,
  securitySchemes,
  tagSlug,
  TAGS,
  withOrigins,
  type Doc,
  type Examples,
  type Origins,
} from './openapi-document.js';

// The request headers of every /api/v1 operation (docs/api.md): API-Version and X-Request-Id,
// and Idempotency-Key on every POST. The hooks that read them are one for the prefix
// (src/rest/api-version.ts, request-id.ts, idempotency.ts), so the reference adds them here.
const API_VERSION = {
  type: 'string',
  enum: [...API_VERSIONS],
  description:
    "The API version to answer in (date-named); without it, the company's pinned version. The answer echoes it in an API-Version header",
} as const;
const REQUEST_ID = {
  type: 'string',
  pattern: '^[A-Za-z0-9._:-]{8,128}$',
  description:
    'Your id for this request, kept as meta.requestId and X-Request-Id when it matches; otherwise one is made',
} as const;
const IDEMPOTENCY_KEY = {
  type: 'string',
  pattern: '^[\\x21-\\x7e]{1,255}$',
  description:
    'A key of yours (a UUID): retrying the same request with the same key within 24 h replays the first answer (Idempotent-Replayed: true) instead of doing it twice',
} as const;
const headersOf = (method: string) => ({
  type: 'object',
  properties: {
    'API-Version': API_VERSION,
    'X-Request-Id': REQUEST_ID,
    ...(method === 'POST' ? { 'Idempotency-Key': IDEMPOTENCY_KEY } : {}),
  },
});

// Examples of every operation's request and answer, recorded from the app by
// test/http/openapi-examples.test.ts (UPDATE_EXAMPLES=1) and checked against the schemas there.
export const EXAMPLES_FILE = packageFile('src', 'http', 'openapi-examples.json');
function readExamples(): Examples {
  const none: Examples = { operations: {}, errors: {}, webhooks: {} };
  if (!existsSync(EXAMPLES_FILE)) return none;
  return { ...none, ...(JSON.parse(readFileSync(EXAMPLES_FILE, 'utf8')) as Partial<Examples>) };
}

/** The hash of the inline style Swagger UI sets while rendering (Chromium names it when refused). */
const SWAGGER_UI_INLINE_STYLE = 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w=';
const VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">';

/** The part of the reference /docs opens with: the one most people come for. */
export const FIRST_PART = 'Bookings';
/** The picker's entry for the whole document. */
export const ALL_OPERATIONS = 'All operations (large)';

/**
 * The picker at the top of /docs (Swagger UI's `urls`): one small document per tag, the part
 * most people come for first, and the whole document last. A phone or a slow machine renders
 * one part at once instead of the 1.5 MB whole (issue 41).
 */
export const DOCS_PARTS = deepFreeze([
  ...[FIRST_PART, ...TAGS.map((t) => t.name).filter((n) => n !== FIRST_PART)].map((name) => ({
    name,
    url: `/docs/openapi/${tagSlug(name)}.json`,
  })),
  { name: ALL_OPERATIONS, url: '/openapi.json' },
]);

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
      const method = String(route.method);
      return {
        schema: { ...schema, headers: headersOf(method), ...(optionalBody ? { 'x-optional-body': true } : {}) },
        url,
      };
    },
    transformObject: (documents) =>
      'openapiObject' in documents
        ? finishDocument(documents.openapiObject as Doc, built, readExamples())
        : documents.swaggerObject,
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });

  const originsOf = (req: FastifyRequest): Origins => {
    const origin = `${req.protocol}://${req.host}`;
    return { api: origin, auth: config.AUTH_URL ?? origin };
  };
  // Each tag's part of the document, built once when the app is ready from its own copy of the
  // whole, and frozen: every request reads the same parts, none can change them.
  let parts: ReadonlyMap<string, Doc> | null = null;
  app.addHook('onReady', async () => {
    const whole = structuredClone(app.swagger()) as unknown as Doc;
    parts = deepFreeze(new Map(TAGS.map((t) => [tagSlug(t.name), documentForTag(whole, t.name)])));
  });
  // An answer built from the Host header must not be kept by a shared cache (metadata.ts).
  const documentFor = (req: FastifyRequest, reply: FastifyReply, part?: Doc): Doc => {
    const doc = part ?? (app.swagger() as unknown as Doc);
    if (fixed) return doc;
    reply.header('cache-control', 'no-store').header('vary', 'Host, X-Forwarded-Host, X-Forwarded-Proto');
    return withOrigins(doc, originsOf(req));
  };

  // The page loads nothing from elsewhere: Swagger UI's assets, and the theme and accessible
  // names of src/http/assets/, come from this app; no validator badge. Its CSP says so (no
  // https: fonts or styles, no validator image host), and "try it" calls this origin.
  // Deep links stay off: Swagger UI renders them as links inside each operation's toggle
  // button (nested interactive controls, too small to hit), docs/api.md names operations instead.
  const asset = (name: string) => readFileSync(packageFile('src', 'http', 'assets', name), 'utf8');
  // Swagger UI's page has no viewport: a phone lays it out 980 px wide and cuts its text. Its
  // routes get the tag from a hook of their own context (no other route pays for it).
  await app.register(async (docs) => {
    docs.addHook('onSend', async (req, reply, payload) =>
      typeof payload === 'string' && String(reply.getHeader('content-type')).startsWith('text/html')
        ? payload.replace('<meta charset="UTF-8">', `<meta charset="UTF-8">\n${VIEWPORT}`)
        : payload,
    );
    await docs.register(swaggerUi, {
      routePrefix: '/docs',
      // Plain code blocks: the highlighter's colours fail contrast on its dark background.
      uiConfig: {
        docExpansion: 'list',
        deepLinking: false,
        validatorUrl: null,
        syntaxHighlight: false,
        // The first entry is what the page opens with.
        urls: DOCS_PARTS.map((p) => ({ ...p })),
      },
      theme: {
        title: 'Booking API reference',
        css: [{ filename: 'docs-theme.css', content: asset('docs-theme.css') }],
        js: [{ filename: 'docs-a11y.js', content: asset('docs-a11y.js') }],
      },
      staticCSP: true,
      transformStaticCSP: (header) =>
        header
          .replace(/ https:/g, '')
          .replace(/ validator\.swagger\.io/g, '')
          .replace(/ upgrade-insecure-requests;/, '')
          // The one inline style Swagger UI applies as it renders (by its hash, nothing else inline).
          .replace("style-src 'self'", `style-src 'self' 'unsafe-hashes' '${SWAGGER_UI_INLINE_STYLE}'`),
      transformSpecification: (_doc, req, reply) => documentFor(req, reply),
      transformSpecificationClone: false,
    });
  });
  app.get('/openapi.json', { schema: { hide: true } }, async (req, reply) => documentFor(req, reply));
  app.get<{ Params: { file: string } }>('/docs/openapi/:file', { schema: { hide: true } }, async (req, reply) => {
    const part = /^([a-z0-9-]+)\.json$/.exec(req.params.file)?.[1];
    const doc = part ? parts?.get(part) : undefined;
    if (!doc) throw AppError.notFound('part of the API reference');
    return documentFor(req, reply, doc);
  });
}
