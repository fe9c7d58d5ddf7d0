// What the OpenAPI document says beyond the route schemas @fastify/swagger turns into paths
// (docs/api.md, "OpenAPI"): tags, servers and security schemes, each operation's error codes and
// headers, examples recorded from a test run, and the webhooks.
import type { OpenAPIV3_1 } from 'openapi-types';
import { SCOPE_DESCRIPTIONS } from '../auth/pages/consent-page.js';
import type { ErrorCode } from '../errors.js';
import { webhooksSection } from './webhook-payloads.js';

export type Doc = OpenAPIV3_1.Document;
type Operation = OpenAPIV3_1.OperationObject & {
  'x-optional-body'?: true;
  'x-error-codes'?: Record<string, ErrorCode[]>;
  'x-deprecation'?: true;
};
type Response = OpenAPIV3_1.ResponseObject;

/** The resources the operations are grouped by (each route names its tag), in reading order. */
export const TAGS: OpenAPIV3_1.TagObject[] = [
  { name: 'Company', description: 'The company the credential belongs to: its profile and calendar feed' },
  { name: 'Services', description: 'What can be booked: appointment and class services, their rules and prices' },
  { name: 'Locations', description: "The company's sites: address, time zone, phone" },
  { name: 'Resources', description: 'Rooms and equipment that bookings of the services requiring them hold' },
  { name: 'Employees', description: 'Who is booked: working hours, time off, date overrides, calendar feeds' },
  { name: 'Customers', description: 'Who books' },
  { name: 'Classes', description: 'Scheduled sessions of class services, booked by place' },
  { name: 'Class schedules', description: 'Recurring class timetables that generate class sessions ahead' },
  { name: 'Closures', description: 'Days or hours the whole company is closed' },
  { name: 'Availability', description: 'Free slots, and why a time is not free' },
  { name: 'Bookings', description: 'Bookings and their transitions: confirm, cancel, reschedule, complete, no-show' },
  {
    name: 'Booking series',
    description: 'An appointment at every occurrence of a recurrence rule, made all or none and cancelled as one',
  },
  {
    name: 'Visits',
    description: 'Several services booked back to back for one customer, made, moved and cancelled as one',
  },
  { name: 'Payments', description: 'Payments for bookings and their refunds' },
  { name: 'Webhooks', description: 'Webhook endpoints and their deliveries (docs/webhooks.md)' },
  { name: 'Events', description: 'The event history every webhook delivery comes from' },
  { name: 'Reports', description: 'Booking statistics' },
  { name: 'E-mail', description: 'The sandbox e-mail log' },
  { name: 'Test clocks', description: "A sandbox company's own now, moved forward on request (docs/sandbox.md)" },
  { name: 'Request logs', description: "The company's API requests of the last 30 days (docs/api.md)" },
  { name: 'Webhook events', description: 'What the service POSTs to your webhook endpoints (docs/webhooks.md)' },
];

/** Where requests go (BASE_URL) and where OAuth is (AUTH_URL), see docs.ts. */
export interface Origins {
  api: string;
  auth: string;
}

export function securitySchemes(auth: string): Record<string, OpenAPIV3_1.SecuritySchemeObject> {
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

const integer = { type: 'integer' } as const;
const string = { type: 'string' } as const;

/** The response headers of docs/api.md (the names as sent; HTTP compares them case-blind). */
const HEADERS: Record<string, OpenAPIV3_1.HeaderObject> = {
  'X-Request-Id': {
    description: "This request's id, also `meta.requestId`: yours when you sent a sane X-Request-Id, else `req_…`",
    schema: string,
  },
  'RateLimit-Limit': { description: 'Requests allowed per window (one second) for this credential', schema: integer },
  'RateLimit-Remaining': { description: 'Requests left in the current window', schema: integer },
  'RateLimit-Reset': { description: 'Seconds until the window resets', schema: integer },
  'API-Version': {
    description:
      'The API version this answer is given in (the API-Version request header, or the company pin); on every answer once the credential is known',
    schema: string,
  },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: integer },
  'Idempotent-Replayed': {
    description: 'true: this is the kept answer of an earlier request with the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
  },
  Deprecation: {
    description: 'RFC 9745: when this use of the API was deprecated, `@<seconds since 1970>`',
    schema: string,
  },
  Sunset: { description: 'RFC 8594: the HTTP date this use of the API stops working', schema: string },
};

const header = (name: string): OpenAPIV3_1.ReferenceObject => ({ $ref: `#/components/headers/${name}` });

const ERROR_DESCRIPTIONS: Record<string, string> = {
  400: 'The request is invalid: `details[]` names each field (`path`) and what is wrong; nothing was changed',
  401: 'No credential, or one that is unknown, expired or revoked',
  403: 'The credential lacks the scope the operation needs (INSUFFICIENT_SCOPE), or may not do this (FORBIDDEN)',
  404: "No such record in this credential's company and mode",
  409: 'The request conflicts with the current state of the records, or with an earlier request with the same Idempotency-Key',
  413: 'The body is larger than the limit',
  429: 'Too many requests: retry after Retry-After seconds',
  500: 'An unexpected error; nothing is known to have changed. Retry later',
  503: 'A dependency is down or this instance is shutting down: retry after Retry-After seconds',
};

/**
 * The error envelope (components.schemas.ErrorEnvelope) with `error.code` narrowed to the codes
 * this response can carry: a whole copy rather than an allOf, so that generated clients get one
 * type and example checkers see `message` and `details` declared beside `code`.
 */
function errorSchema(codes: ErrorCode[], envelope: OpenAPIV3_1.SchemaObject): OpenAPIV3_1.SchemaObject {
  const schema = structuredClone(envelope) as OpenAPIV3_1.SchemaObject & {
    properties: { error: { properties: { code: OpenAPIV3_1.SchemaObject } } };
  };
  delete schema.title;
  schema.properties.error.properties.code = {
    type: 'string',
    enum: codes,
    description:
      'The codes this operation answers with this status today (docs/api.md, Errors). The set may grow: treat an unknown code by its HTTP status',
  };
  return schema;
}

/** An operation's request and response examples (recorded: docs.ts). */
export interface OperationExamples {
  request?: unknown;
  response?: unknown;
}

/** The recorded examples: by operationId, an error body by status, a delivery by event type. */
export interface Examples {
  operations: Record<string, OperationExamples>;
  errors: Record<string, unknown>;
  webhooks: Record<string, unknown>;
}

function finishOperation(
  op: Operation,
  method: string,
  examples: OperationExamples | undefined,
  errorExamples: Record<string, unknown>,
  envelope: OpenAPIV3_1.SchemaObject,
): void {
  // @fastify/swagger marks every declared body required; an action whose body may be left
  // out (src/rest/route.ts, optionalBody and actions that take no fields) is not.
  if (op['x-optional-body'] && op.requestBody && !('$ref' in op.requestBody)) op.requestBody.required = false;
  delete op['x-optional-body'];
  const body = op.requestBody && !('$ref' in op.requestBody) ? op.requestBody.content['application/json'] : undefined;
  if (body && examples?.request !== undefined) body.example = examples.request;

  const post = method === 'post';
  const common: Record<string, OpenAPIV3_1.ReferenceObject> = {
    'X-Request-Id': header('X-Request-Id'),
    'RateLimit-Limit': header('RateLimit-Limit'),
    'RateLimit-Remaining': header('RateLimit-Remaining'),
    'RateLimit-Reset': header('RateLimit-Reset'),
    'API-Version': header('API-Version'),
  };
  type Headers = Record<string, OpenAPIV3_1.ReferenceObject>;
  const replayed: Headers = post ? { 'Idempotent-Replayed': header('Idempotent-Replayed') } : {};
  const codes = op['x-error-codes'] ?? {};
  delete op['x-error-codes'];
  for (const [status, response] of Object.entries(op.responses ?? {}) as Array<[string, Response]>) {
    if (status === '200') {
      response.description = 'OK: the envelope with `data`';
      response.headers = {
        ...common,
        ...replayed,
        ...(op['x-deprecation'] ? { Deprecation: header('Deprecation'), Sunset: header('Sunset') } : {}),
      };
      const media = response.content?.['application/json'];
      if (media && examples?.response !== undefined) media.example = examples.response;
      continue;
    }
    const statusCodes = codes[status] ?? [];
    response.description = ERROR_DESCRIPTIONS[status] ?? 'An error';
    const example = errorExamples[status];
    response.content = {
      'application/json': { schema: errorSchema(statusCodes, envelope), ...(example !== undefined ? { example } : {}) },
    };
    response.headers = {
      ...common,
      // Kept answers of an earlier request are replayed, errors included, but for refusals before
      // the work starts (src/rest/idempotency.ts).
      ...(['400', '404', '409'].includes(status) ? replayed : {}),
      ...(['429', '503'].includes(status) || (status === '409' && post)
        ? { 'Retry-After': header('Retry-After') }
        : {}),
    };
  }
  delete op['x-deprecation'];
}

/** The generated document, finished: tags, headers, errors, examples; then servers and schemes. */
export function finishDocument(doc: Doc, origins: Origins, examples: Examples): Doc {
  const envelope = doc.components?.schemas?.ErrorEnvelope;
  if (!envelope) throw new Error('the OpenAPI document has no ErrorEnvelope schema');
  for (const item of Object.values(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item ?? {}) as Array<[string, Operation]>) {
      if (typeof op !== 'object' || !op || !('responses' in op)) continue;
      const own = op.operationId ? examples.operations[op.operationId] : undefined;
      finishOperation(op, method, own, examples.errors, envelope);
    }
  }
  // openapi-types declares 3.1 path items with 3.0 operations; the object is a 3.1 one.
  // Each error response carries its own copy of the envelope, so the shared one is no longer referenced.
  const { ErrorEnvelope: _shared, ...schemas } = doc.components?.schemas ?? {};
  const webhooks = webhooksSection(examples.webhooks) as unknown as Doc['webhooks'];
  return withOrigins(
    { ...doc, tags: TAGS, webhooks, components: { ...doc.components, schemas, headers: { ...HEADERS } } },
    origins,
  );
}

export function withOrigins(doc: Doc, origins: Origins): Doc {
  return {
    ...doc,
    servers: [{ url: origins.api, description: 'This server' }],
    components: { ...doc.components, securitySchemes: securitySchemes(origins.auth) },
  };
}

/** A tag's name in a URL: "Booking series" → "booking-series". */
export const tagSlug = (tag: string) =>
  tag
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** The schemas a part of the document refers to, and those they refer to in turn. */
function referencedSchemas(part: unknown, schemas: Record<string, unknown>): Set<string> {
  const found = new Set<string>();
  const visit = (value: unknown) => {
    for (const m of JSON.stringify(value).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      const name = decodeURIComponent(m[1]!.replace(/~1/g, '/').replace(/~0/g, '~'));
      if (found.has(name) || !(name in schemas)) continue;
      found.add(name);
      visit(schemas[name]);
    }
  };
  visit(part);
  return found;
}

/**
 * One tag's part of the finished document (/docs/openapi/<slug>.json): its operations (or, for
 * the webhook events, its webhooks), the schemas they refer to, and the rest of the document's
 * frame (info, servers, security, headers). A small document a phone renders at once.
 */
export function documentForTag(doc: Doc, tag: string): Doc {
  const tagged = (op: unknown) =>
    typeof op === 'object' && op !== null && ((op as { tags?: string[] }).tags ?? []).includes(tag);
  const paths: NonNullable<Doc['paths']> = {};
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const kept = Object.entries(item ?? {}).filter(
      ([key, op]) => !['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'].includes(key) || tagged(op),
    );
    if (kept.some(([, op]) => tagged(op))) paths[path] = Object.fromEntries(kept);
  }
  const webhooks = Object.fromEntries(
    Object.entries(doc.webhooks ?? {}).filter(([, item]) => Object.values(item ?? {}).some(tagged)),
  ) as Doc['webhooks'];
  const schemas = (doc.components?.schemas ?? {}) as Record<string, unknown>;
  const used = referencedSchemas({ paths, webhooks }, schemas);
  return {
    ...doc,
    info: {
      ...doc.info,
      description: `${doc.info.description ?? ''}\n\nThis page shows one part of the reference: ${tag}. Pick another part at the top, or "All operations" for the whole document (also at /openapi.json).`,
    },
    tags: (doc.tags ?? []).filter((t) => t.name === tag),
    paths,
    webhooks,
    components: {
      ...doc.components,
      schemas: Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name))) as NonNullable<
        Doc['components']
      >['schemas'],
    },
  };
}
