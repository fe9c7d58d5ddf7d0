// The operations of the app's own OpenAPI document, and an arbitrary request for each: path
// parameters, query string, body, content type, credential and headers, every part valid
// mostly and hostile now and then, plus whole requests that are hostile by construction
// (invalid UTF-8 bytes, JSON nested thousands deep, a wrong content type, a wrong method).
import fc from 'fast-check';
import { SchemaArbitraries, isIdName, kindOf, poolIdArb, type JsonSchema } from './schema-arbitrary.js';
import { Cursor, hostileSegments, hostileValue, Verbatim, type Value } from './values.js';

export interface Param {
  name: string;
  schema: JsonSchema;
  required: boolean;
}

export interface Operation {
  /** "POST /api/v1/bookings/{id}/cancel" */
  id: string;
  method: string;
  path: string;
  pathParams: Param[];
  query: Param[];
  body?: JsonSchema;
  /** The documented error responses: status → the `error.code`s it may carry. */
  errors: Record<string, string[]>;
}

interface OpenApiDoc {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Array<{ in: string; name: string; required?: boolean; schema: JsonSchema }>;
        requestBody?: { content: Record<string, { schema: JsonSchema }> };
        responses?: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
      }
    >
  >;
  components?: { schemas?: Record<string, JsonSchema> };
}

/** Every /api/v1 operation of the document, in its order. */
export function operationsOf(doc: OpenApiDoc): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    if (!path.startsWith('/api/v1/')) continue;
    for (const [method, op] of Object.entries(methods)) {
      const params = op.parameters ?? [];
      const pick = (where: string) =>
        params
          .filter((p) => p.in === where)
          .map((p) => ({ name: p.name, schema: p.schema, required: p.required === true }));
      const body = op.requestBody?.content['application/json']?.schema;
      ops.push({
        id: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        pathParams: pick('path'),
        query: pick('query'),
        ...(body ? { body } : {}),
        errors: documentedErrors(op.responses ?? {}),
      });
    }
  }
  return ops;
}

/** Each error status of an operation and the codes its schema allows (src/http/openapi-document.ts). */
function documentedErrors(responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>) {
  const errors: Record<string, string[]> = {};
  for (const [status, response] of Object.entries(responses)) {
    if (status === '200') continue;
    const schema = response.content?.['application/json']?.schema;
    const codes = schema?.properties?.error?.properties?.code?.enum ?? [];
    errors[status] = codes.filter((c): c is string => typeof c === 'string');
  }
  return errors;
}

/** Every enum and const string anywhere in the document, and "*". */
export function vocabularyOf(doc: OpenApiDoc): string[] {
  const words = new Set<string>(['*']);
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!v || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    if (Array.isArray(o.enum)) for (const e of o.enum) if (typeof e === 'string') words.add(e);
    if (typeof o.const === 'string') words.add(o.const);
    Object.values(o).forEach(walk);
  };
  walk(doc);
  return [...words];
}

/** The kind of record a path parameter names: the segment before it (`/bookings/{id}` → booking), or its own name (`{timeOffId}`). */
export function paramKind(op: Operation, name: string): string {
  if (name !== 'id') return kindOf(name);
  const segs = op.path.split('/');
  const at = segs.indexOf(`{${name}}`);
  return kindOf(segs[at - 1] ?? name);
}

export type Body =
  | { kind: 'none' }
  | { kind: 'json'; value: Value }
  /** The JSON text of `value` with bytes that are not UTF-8 put into its first string after `at`. */
  | { kind: 'bytes'; value: Value; at: number; bytes: number[] }
  | { kind: 'deep'; depth: number; open: string }
  | { kind: 'text'; text: string };

export type QueryPart = { key: string; value: Value | Verbatim | Cursor | undefined } | Verbatim;

export interface AbstractRequest {
  op: number;
  /** Another method on the operation's path. */
  method: string | null;
  path: Array<Value | Verbatim>;
  query: QueryPart[];
  body: Body;
  /** `default`: application/json when there is a body, none otherwise. */
  contentType: string | null;
  auth: 'test' | 'live' | 'none' | Verbatim;
  idempotencyKey: string | null;
  headers: Array<[string, string]>;
}

// Invalid UTF-8: a lone continuation byte, overlong forms, UTF-16 surrogates, code points past
// U+10FFFF, truncated sequences, bytes never used.
const BAD_UTF8 = [
  [0xff],
  [0xfe],
  [0x80],
  [0xc3],
  [0xc0, 0xaf],
  [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf],
  [0xf4, 0x90, 0x80, 0x80],
  [0xe0, 0xa4],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xc3, 0x28],
];

const GARBAGE_BODIES = [
  '',
  ' ',
  'null',
  'nul',
  '{',
  '{"a":1',
  '{"a":1}}',
  "{'a':1}",
  '\ufeff{}',
  '{}\u0000',
  'a=1&b=2',
  '<xml/>',
  '[]',
  '""',
  '1e400',
  '{"a":1,}',
  '{"__proto__":{"x":1}}',
  '{"constructor":{"prototype":{"x":1}}}',
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  '{"a":"\\x41"}',
  '{"a":01}',
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":-0}',
  '{"a":.5}',
  '/*c*/{}',
  '{"a":1}{"a":2}',
  '\n\t{}\n',
  '{"":""}',
];

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'Application/JSON',
  'application/json; charset=latin1',
  'application/json;charset=utf-16',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/vnd.api+json',
  'application/merge-patch+json',
  '*/*',
  '',
  'application/json, text/plain',
  'garbage',
  'application/json; charset=utf-8; charset=latin1',
  'application/jsonx',
];

const QUERY_FRAGMENTS = [
  '%',
  '%zz',
  '%00',
  '%E0%A4%A',
  'a[b]=1',
  '__proto__[x]=1',
  'constructor[prototype][x]=1',
  '&&&',
  '=',
  '==',
  '?',
  ';',
  'limit',
  'limit=',
  'limit=1&limit=2',
  '%26=%3D',
  'cursor=%00',
  'a'.repeat(5_000),
  `x=${'%ff'.repeat(500)}`,
  'from=0000-01-01T00:00:00.000Z',
  'to=9999-12-31T23:59:59.999Z',
  'status[]=a',
  'limit=1e1',
  'limit=0x10',
];

const EXTRA_HEADERS: Array<[string, string]> = [
  ['accept', 'text/html'],
  ['accept', 'application/xml;q=1, */*;q=0'],
  ['accept-encoding', 'gzip, br'],
  ['x-forwarded-for', '127.0.0.1'],
  ['x-request-id', 'fuzz'],
  ['origin', 'https://evil.example'],
  ['cookie', 'a=b'],
  ['user-agent', '\u00ff\u00fe'],
  ['accept-charset', 'utf-16'],
  ['content-encoding', 'gzip'],
  ['x-huge', 'a'.repeat(20_000)],
  ['x-http-method-override', 'DELETE'],
  ['authorization', 'Bearer second'],
];

const OTHER_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * Half the requests are clean (every part valid-shaped, so they reach the domain and change
 * it, which gives the hostile half real records to aim at), half hostile.
 */
export function requestArbitrary(
  ops: Operation[],
  clean: SchemaArbitraries,
  hostile: SchemaArbitraries,
): fc.Arbitrary<AbstractRequest> {
  return fc.oneof(
    ...ops.map((op, i) => cleanRequest(op, i, clean)),
    ...ops.map((op, i) => hostileRequest(op, i, clean, hostile)),
  );
}

export function cleanRequest(op: Operation, index: number, schemas: SchemaArbitraries): fc.Arbitrary<AbstractRequest> {
  const queryParam = (p: Param): fc.Arbitrary<QueryPart[]> => {
    const value =
      p.name === 'cursor'
        ? fc.nat().map((n) => new Cursor(n))
        : isIdName(p.name)
          ? poolIdArb(kindOf(p.name), true)
          : schemas.valid(p.schema, p.name);
    const present = value.map((v) => [{ key: p.name, value: v }]);
    return p.required
      ? present
      : fc.oneof({ weight: 2, arbitrary: fc.constant<QueryPart[]>([]) }, { weight: 1, arbitrary: present });
  };
  return fc.record({
    op: fc.constant(index),
    method: fc.constant(null),
    path: fc.tuple(
      ...op.pathParams.map((p) =>
        isIdName(p.name) ? poolIdArb(paramKind(op, p.name), true) : schemas.valid(p.schema, p.name),
      ),
    ),
    query: fc.tuple(...op.query.map(queryParam)).map((parts) => parts.flat()),
    body: op.body
      ? schemas.valid(op.body, 'body').map((value): Body => ({ kind: 'json', value }))
      : fc.constant<Body>({ kind: 'none' }),
    contentType: fc.constant('default'),
    auth: fc.oneof(
      { weight: 4, arbitrary: fc.constant('test' as const) },
      { weight: 1, arbitrary: fc.constant('live' as const) },
    ),
    idempotencyKey:
      op.method === 'POST'
        ? fc.option(
            fc.nat().map((n) => `clean-${n}`),
            { freq: 3 },
          )
        : fc.constant(null),
    headers: fc.constant<Array<[string, string]>>([]),
  });
}

type Mutation = (r: AbstractRequest) => AbstractRequest;
const weighted = <T>(weight: number, arbitrary: fc.Arbitrary<T>) => ({ weight, arbitrary });

/**
 * A clean request with one to three parts made hostile: a path parameter, a query parameter
 * (a hostile value, repeated, empty, without `=`), stray query text, body fields, the whole
 * body (another JSON type, nesting thousands deep, bytes that are not UTF-8, not JSON), the
 * content type, the method, the credential, the Idempotency-Key or another header. The rest
 * stays valid, so the hostile part is what the app has to judge, deep in the request.
 */
function hostileRequest(
  op: Operation,
  index: number,
  clean: SchemaArbitraries,
  schemas: SchemaArbitraries,
): fc.Arbitrary<AbstractRequest> {
  const mutations: Array<{ weight: number; arbitrary: fc.Arbitrary<Mutation> }> = [];
  op.pathParams.forEach((p, i) => {
    const value = fc.oneof(schemas.hostile(p.schema, p.name), hostileSegments, poolIdArb(paramKind(op, p.name)));
    mutations.push(
      weighted(
        6,
        value.map((v): Mutation => (r) => ({ ...r, path: r.path.map((x, j) => (j === i ? v : x)) })),
      ),
    );
  });
  for (const p of op.query) {
    const valid = isIdName(p.name) ? poolIdArb(kindOf(p.name)) : schemas.valid(p.schema, p.name);
    const bad = schemas.hostile(p.schema, p.name);
    const parts: fc.Arbitrary<QueryPart[]> = fc.oneof(
      weighted(
        6,
        bad.map((value) => [{ key: p.name, value }]),
      ),
      weighted(
        2,
        fc
          .array(fc.oneof(valid, bad), { minLength: 2, maxLength: 3 })
          .map((vs) => vs.map((value) => ({ key: p.name, value }))),
      ),
      weighted(
        1,
        fc.constantFrom<Value | undefined>('', undefined).map((value) => [{ key: p.name, value }]),
      ),
      weighted(1, fc.constant<QueryPart[]>([])),
    );
    const replace = (r: AbstractRequest, with_: QueryPart[]) => [
      ...r.query.filter((q) => q instanceof Verbatim || q.key !== p.name),
      ...with_,
    ];
    mutations.push(
      weighted(
        Math.max(1, Math.round(12 / op.query.length)),
        parts.map((w): Mutation => (r) => ({ ...r, query: replace(r, w) })),
      ),
    );
  }
  const strayQuery = fc.oneof(
    fc.constantFrom(...QUERY_FRAGMENTS).map((t): QueryPart => new Verbatim(t)),
    fc
      .tuple(fc.constantFrom('unknown', 'mode', 'companyId', '', '__proto__'), hostileValue)
      .map(([key, value]): QueryPart => ({ key, value })),
  );
  mutations.push(
    weighted(
      2,
      fc
        .array(strayQuery, { minLength: 1, maxLength: 2 })
        .map((extra): Mutation => (r) => ({ ...r, query: [...extra, ...r.query] })),
    ),
  );

  const body = (b: fc.Arbitrary<Body>) => b.map((value): Mutation => (r) => ({ ...r, body: value }));
  if (op.body) {
    const fields = schemas.value(op.body, 'body');
    mutations.push(weighted(12, body(fields.map((value) => ({ kind: 'json', value })))));
    mutations.push(weighted(2, body(hostileValue.map((value) => ({ kind: 'json', value })))));
    mutations.push(
      weighted(
        2,
        body(
          fc
            .record({
              depth: fc.constantFrom(33, 100, 1_000, 5_000, 100_000),
              open: fc.constantFrom('[', '{"a":', '{"a":['),
            })
            .map((d) => ({ kind: 'deep', ...d })),
        ),
      ),
    );
    mutations.push(
      weighted(
        4,
        body(
          fc
            .record({ value: clean.valid(op.body, 'body'), at: fc.nat(), bytes: fc.constantFrom(...BAD_UTF8) })
            .map((b) => ({ kind: 'bytes', ...b })),
        ),
      ),
    );
    mutations.push(
      weighted(
        2,
        body(
          fc.oneof(
            fc.constantFrom(...GARBAGE_BODIES).map((text): Body => ({ kind: 'text', text })),
            fc.constant<Body>({ kind: 'none' }),
          ),
        ),
      ),
    );
  } else {
    mutations.push(
      weighted(
        2,
        body(
          fc.oneof(
            hostileValue.map((value): Body => ({ kind: 'json', value })),
            fc.constantFrom(...GARBAGE_BODIES).map((text): Body => ({ kind: 'text', text })),
          ),
        ),
      ),
    );
  }
  mutations.push(
    weighted(
      2,
      fc
        .constantFrom<string | null>(null, ...CONTENT_TYPES)
        .map((contentType): Mutation => (r) => ({ ...r, contentType })),
    ),
  );
  mutations.push(
    weighted(
      1,
      fc
        .constantFrom(...OTHER_METHODS.filter((m) => m !== op.method))
        .map((method): Mutation => (r) => ({ ...r, method })),
    ),
  );
  const badAuth = fc.constantFrom(
    'Bearer svc_sk_test_' + 'x'.repeat(40),
    'Basic Zm9vOmJhcg==',
    'Bearer ' + 'a'.repeat(5_000),
    'Bearer',
    'Bearer  ',
    'bearer svc_at_live_',
    'Bearer svc_sk_live_\u00ff',
  );
  mutations.push(
    weighted(
      1,
      fc
        .oneof(
          fc.constant<AbstractRequest['auth']>('none'),
          badAuth.map((t) => new Verbatim(t)),
        )
        .map((auth): Mutation => (r) => ({ ...r, auth })),
    ),
  );
  if (op.method === 'POST') {
    const key = fc.oneof(
      fc.nat({ max: 20 }).map((n) => `fuzz-${n}`),
      fc.constantFrom('', ' ', 'a'.repeat(256), 'ключ', 'a b', '\u00ff'),
    );
    mutations.push(
      weighted(
        2,
        key.map((idempotencyKey): Mutation => (r) => ({ ...r, idempotencyKey })),
      ),
    );
  }
  mutations.push(
    weighted(
      1,
      fc.subarray(EXTRA_HEADERS, { minLength: 1, maxLength: 2 }).map((headers): Mutation => (r) => ({ ...r, headers })),
    ),
  );

  return fc
    .tuple(cleanRequest(op, index, clean), fc.array(fc.oneof(...mutations), { minLength: 1, maxLength: 3 }))
    .map(([request, applied]) => applied.reduce((r, m) => m(r), request));
}
