// The operations of the app's own OpenAPI document, and an arbitrary request for each: path
// parameters, query string, body, content type, credential and headers, every part valid
// mostly and hostile now and then, plus whole requests that are hostile by construction
// (invalid UTF-8 bytes, JSON nested thousands deep, a wrong content type, a wrong method).
import fc from 'fast-check';
import { SchemaArbitraries, isIdName, kindOf, poolIdArb, type JsonSchema } from './schema-arbitrary.js';
import { Cursor, hostileSegments, hostileValue, Obj, Verbatim, type Value } from './values.js';

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
}

interface OpenApiDoc {
  paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string; required?: boolean; schema: JsonSchema }>; requestBody?: { content: Record<string, { schema: JsonSchema }> } }>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

/** Every /api/v1 operation of the document, in its order. */
export function operationsOf(doc: OpenApiDoc): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    if (!path.startsWith('/api/v1/')) continue;
    for (const [method, op] of Object.entries(methods)) {
      const params = op.parameters ?? [];
      const pick = (where: string) => params.filter((p) => p.in === where).map((p) => ({ name: p.name, schema: p.schema, required: p.required === true }));
      const body = op.requestBody?.content['application/json']?.schema;
      ops.push({ id: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path, pathParams: pick('path'), query: pick('query'), ...(body ? { body } : {}) });
    }
  }
  return ops;
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
const BAD_UTF8 = [[0xff], [0xfe], [0x80], [0xc3], [0xc0, 0xaf], [0xe0, 0x80, 0xaf], [0xed, 0xa0, 0x80], [0xed, 0xbf, 0xbf], [0xf4, 0x90, 0x80, 0x80], [0xe0, 0xa4], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xc3, 0x28]];

const GARBAGE_BODIES = [
  '', ' ', 'null', 'nul', '{', '{"a":1', '{"a":1}}', "{'a':1}", '\ufeff{}', '{}\u0000', 'a=1&b=2', '<xml/>', '[]', '""', '1e400', '{"a":1,}', '{"__proto__":{"x":1}}',
  '{"constructor":{"prototype":{"x":1}}}', '{"a":"\\ud800"}', '{"a":"\\u0000"}', '{"a":"\\x41"}', '{"a":01}', '{"a":NaN}', '{"a":Infinity}', '{"a":-0}', '{"a":.5}', '/*c*/{}',
  '{"a":1}{"a":2}', '\n\t{}\n', '{"":""}',
];

const CONTENT_TYPES = [
  'application/json', 'application/json; charset=utf-8', 'Application/JSON', 'application/json; charset=latin1', 'application/json;charset=utf-16', 'text/plain',
  'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/vnd.api+json', 'application/merge-patch+json', '*/*', '',
  'application/json, text/plain', 'garbage', 'application/json; charset=utf-8; charset=latin1', 'application/jsonx',
];

const QUERY_FRAGMENTS = [
  '%', '%zz', '%00', '%E0%A4%A', 'a[b]=1', '__proto__[x]=1', 'constructor[prototype][x]=1', '&&&', '=', '==', '?', ';', 'limit', 'limit=', 'limit=1&limit=2', '%26=%3D',
  'cursor=%00', 'a'.repeat(5_000), `x=${'%ff'.repeat(500)}`, 'from=0000-01-01T00:00:00.000Z', 'to=9999-12-31T23:59:59.999Z', 'status[]=a', 'limit=1e1', 'limit=0x10',
];

const EXTRA_HEADERS: Array<[string, string]> = [
  ['accept', 'text/html'], ['accept', 'application/xml;q=1, */*;q=0'], ['accept-encoding', 'gzip, br'], ['x-forwarded-for', '127.0.0.1'], ['x-request-id', 'fuzz'],
  ['origin', 'https://evil.example'], ['cookie', 'a=b'], ['user-agent', '\u00ff\u00fe'], ['accept-charset', 'utf-16'], ['content-encoding', 'gzip'],
  ['x-huge', 'a'.repeat(20_000)], ['x-http-method-override', 'DELETE'], ['authorization', 'Bearer second'],
];

const OTHER_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * Half the requests are clean (every part valid-shaped, so they reach the domain and change
 * it, which gives the hostile half real records to aim at), half hostile.
 */
export function requestArbitrary(ops: Operation[], clean: SchemaArbitraries, hostile: SchemaArbitraries): fc.Arbitrary<AbstractRequest> {
  return fc.oneof(...ops.map((op, i) => cleanRequest(op, i, clean)), ...ops.map((op, i) => hostileRequest(op, i, hostile)));
}

const noHeaders = fc.constant<Array<[string, string]>>([]);

function cleanRequest(op: Operation, index: number, schemas: SchemaArbitraries): fc.Arbitrary<AbstractRequest> {
  const queryParam = (p: Param): fc.Arbitrary<QueryPart[]> => {
    const value = p.name === 'cursor' ? fc.nat().map((n) => new Cursor(n)) : isIdName(p.name) ? poolIdArb(kindOf(p.name), true) : schemas.valid(p.schema, p.name);
    const present = value.map((v) => [{ key: p.name, value: v }]);
    return p.required ? present : fc.oneof({ weight: 2, arbitrary: fc.constant<QueryPart[]>([]) }, { weight: 1, arbitrary: present });
  };
  return fc.record({
    op: fc.constant(index),
    method: fc.constant(null),
    path: fc.tuple(...op.pathParams.map((p) => (isIdName(p.name) ? poolIdArb(paramKind(op, p.name), true) : schemas.valid(p.schema, p.name)))),
    query: fc.tuple(...op.query.map(queryParam)).map((parts) => parts.flat()),
    body: op.body ? schemas.valid(op.body, 'body').map((value): Body => ({ kind: 'json', value })) : fc.constant<Body>({ kind: 'none' }),
    contentType: fc.constant('default'),
    auth: fc.oneof({ weight: 4, arbitrary: fc.constant('test' as const) }, { weight: 1, arbitrary: fc.constant('live' as const) }),
    idempotencyKey: op.method === 'POST' ? fc.option(fc.nat().map((n) => `clean-${n}`), { freq: 3 }) : fc.constant(null),
    headers: noHeaders,
  });
}

function hostileRequest(op: Operation, index: number, schemas: SchemaArbitraries): fc.Arbitrary<AbstractRequest> {
  const pathParam = (p: Param) =>
    fc.oneof(
      { weight: 14, arbitrary: isIdName(p.name) ? poolIdArb(paramKind(op, p.name)) : schemas.valid(p.schema, p.name) },
      { weight: 1, arbitrary: hostileValue },
      { weight: 2, arbitrary: hostileSegments },
    );
  const queryParam = (p: Param): fc.Arbitrary<QueryPart[]> => {
    const valid = isIdName(p.name) ? poolIdArb(kindOf(p.name)) : schemas.valid(p.schema, p.name);
    const one = fc.oneof({ weight: 8, arbitrary: valid }, { weight: 1, arbitrary: hostileValue });
    return fc.oneof(
      { weight: p.required ? 1 : 6, arbitrary: fc.constant<QueryPart[]>([]) },
      { weight: 8, arbitrary: one.map((value) => [{ key: p.name, value }]) },
      { weight: 1, arbitrary: fc.array(one, { minLength: 2, maxLength: 3 }).map((vs) => vs.map((value) => ({ key: p.name, value }))) },
      { weight: 1, arbitrary: fc.constantFrom<Value | undefined>('', undefined).map((value) => [{ key: p.name, value }]) },
    );
  };
  const extraQuery: fc.Arbitrary<QueryPart[]> = fc.oneof(
    { weight: 10, arbitrary: fc.constant<QueryPart[]>([]) },
    {
      weight: 1,
      arbitrary: fc.array(
        fc.oneof(
          fc.constantFrom(...QUERY_FRAGMENTS).map((t) => new Verbatim(t)),
          fc.tuple(fc.constantFrom('unknown', 'limit', 'cursor', 'mode', 'companyId', ''), hostileValue).map(([key, value]) => ({ key, value })),
        ),
        { minLength: 1, maxLength: 3 },
      ),
    },
  );
  const query = fc.tuple(extraQuery, ...op.query.map(queryParam)).map((parts) => parts.flat());

  const bodyValue = op.body ? schemas.value(op.body, 'body') : fc.constant<Value>(new Obj([]));
  const body: fc.Arbitrary<Body> = op.body
    ? fc.oneof(
        { weight: 24, arbitrary: bodyValue.map((value) => ({ kind: 'json' as const, value })) },
        { weight: 1, arbitrary: hostileValue.map((value) => ({ kind: 'json' as const, value })) },
        { weight: 1, arbitrary: fc.record({ depth: fc.constantFrom(33, 100, 1_000, 5_000, 100_000), open: fc.constantFrom('[', '{"a":', '{"a":[') }).map((d) => ({ kind: 'deep' as const, ...d })) },
        { weight: 2, arbitrary: fc.record({ value: bodyValue, at: fc.nat(), bytes: fc.constantFrom(...BAD_UTF8) }).map((b) => ({ kind: 'bytes' as const, ...b })) },
        { weight: 1, arbitrary: fc.constantFrom(...GARBAGE_BODIES).map((text) => ({ kind: 'text' as const, text })) },
        { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
      )
    : fc.oneof(
        { weight: 24, arbitrary: fc.constant({ kind: 'none' as const }) },
        { weight: 1, arbitrary: hostileValue.map((value) => ({ kind: 'json' as const, value })) },
        { weight: 1, arbitrary: fc.constantFrom(...GARBAGE_BODIES).map((text) => ({ kind: 'text' as const, text })) },
      );

  return fc.record({
    op: fc.constant(index),
    method: fc.oneof({ weight: 40, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom(...OTHER_METHODS.filter((m) => m !== op.method)) }),
    path: fc.tuple(...op.pathParams.map(pathParam)),
    query,
    body,
    contentType: fc.oneof({ weight: 20, arbitrary: fc.constant('default') }, { weight: 1, arbitrary: fc.constantFrom<string | null>(null, ...CONTENT_TYPES) }),
    auth: fc.oneof(
      { weight: 40, arbitrary: fc.constant('test' as const) },
      { weight: 8, arbitrary: fc.constant('live' as const) },
      { weight: 1, arbitrary: fc.constant('none' as const) },
      { weight: 1, arbitrary: fc.constantFrom('Bearer svc_sk_test_' + 'x'.repeat(40), 'Basic Zm9vOmJhcg==', 'Bearer ' + 'a'.repeat(5_000), 'Bearer', 'Bearer  ', 'bearer svc_at_live_', 'Bearer svc_sk_live_\u00ff').map((t) => new Verbatim(t)) },
    ),
    idempotencyKey:
      op.method === 'POST'
        ? fc.oneof(
            { weight: 12, arbitrary: fc.constant(null) },
            { weight: 3, arbitrary: fc.nat().map((n) => `fuzz-${n}`) },
            { weight: 1, arbitrary: fc.constantFrom('fuzz-reused', '', ' ', 'a'.repeat(256), 'ключ', 'a b', '\u00ff') },
          )
        : fc.constant(null),
    headers: fc.oneof({ weight: 20, arbitrary: noHeaders }, { weight: 1, arbitrary: fc.subarray(EXTRA_HEADERS, { minLength: 1, maxLength: 2 }) }),
  });
}
