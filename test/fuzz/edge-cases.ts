// The edge sweep that starts every run: each operation's clean request with one part replaced
// by each of a few known-hard values, so that every slot meets them once whatever the budget:
// year 0000 and 9999 (and offsets that carry a time past them) in every time parameter and
// field, undecodable and over-long path segments in every path parameter, repeated and
// undecodable query strings in every list, and every body nested deep, not UTF-8, with an
// unpaired surrogate, 100 kB long, empty and of the wrong content type. Random requests follow.
import type { AbstractRequest, Body, Operation, QueryPart } from './operations.js';
import type { JsonSchema } from './schema-arbitrary.js';
import { Obj, Verbatim, type Value } from './values.js';

const TIMES = [
  '0000-01-01T00:00:00.000Z',
  '0001-01-01T00:30:00+01:00',
  '1969-12-31T23:59:59Z',
  '9999-12-31T23:59:59.999Z',
  '9999-12-31T23:00:00-05:00',
  '2030-02-30T10:00:00Z',
  '2030-06-15T24:00:00Z',
  '2030-06-15T10:00:00.1234567891Z',
  '2030-06-15T10:00:00+14:00',
  '2030-06-15T10:00:00',
];

const SEGMENTS = ['a'.repeat(250), '%', '%zz', '%00', '%E0%A4%A'].map((t) => new Verbatim(t));

const QUERIES = ['limit=1&limit=2', 'limit=1e308', 'limit=-0', 'cursor=%00', '%E0%A4%A', 'unknown=1'].map(
  (t) => new Verbatim(t),
);

const isTime = (s: JsonSchema | undefined): boolean => !!s && (s.format === 'date-time' || !!s.anyOf?.some(isTime));
const isString = (s: JsonSchema | undefined): boolean => !!s && (s.type === 'string' || !!s.anyOf?.some(isString));

/** `body` with field `name` set to `value` (added when the clean body left it out). */
function withField(body: Body, name: string, value: Value): Body {
  const entries = body.kind === 'json' && body.value instanceof Obj ? body.value.entries : [];
  return { kind: 'json', value: new Obj([...entries.filter(([k]) => k !== name), [name, value]]) };
}

export function edgeCases(
  ops: Operation[],
  cleanOf: (op: Operation, index: number) => AbstractRequest,
): AbstractRequest[] {
  const out: AbstractRequest[] = [];
  ops.forEach((op, index) => {
    const base = cleanOf(op, index);
    op.pathParams.forEach((_, j) => {
      for (const seg of SEGMENTS) out.push({ ...base, path: base.path.map((x, k) => (k === j ? seg : x)) });
    });
    for (const q of op.query.filter((p) => isTime(p.schema))) {
      const others = base.query.filter(
        (p): p is Exclude<QueryPart, Verbatim> => !(p instanceof Verbatim) && p.key !== q.name,
      );
      for (const time of TIMES) out.push({ ...base, query: [...others, { key: q.name, value: time }] });
    }
    if (op.query.some((p) => p.name === 'limit'))
      for (const q of QUERIES) out.push({ ...base, query: [...base.query, q] });
    if (!op.body) return;
    const props = Object.entries(op.body.properties ?? {});
    for (const [name] of props.filter(([, s]) => isTime(s)))
      for (const time of TIMES) out.push({ ...base, body: withField(base.body, name, time) });
    const text = props.find(([, s]) => isString(s) && !isTime(s) && !s.pattern)?.[0];
    if (text)
      for (const v of ['\ud800', 'a\udc00b', 'x'.repeat(100_000)])
        out.push({ ...base, body: withField(base.body, text, v) });
    const json = base.body.kind === 'json' ? base.body.value : new Obj([]);
    out.push(
      { ...base, body: { kind: 'deep', depth: 1_000, open: '[' } },
      { ...base, body: { kind: 'bytes', value: json, at: 0, bytes: [0xed, 0xa0, 0x80] } },
      { ...base, body: { kind: 'bytes', value: json, at: 0, bytes: [0xff] } },
      { ...base, body: { kind: 'none' } },
      { ...base, contentType: 'text/plain' },
      { ...base, body: { kind: 'json', value: [json] } },
    );
  });
  return out;
}
