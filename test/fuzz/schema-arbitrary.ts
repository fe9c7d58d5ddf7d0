// An arbitrary for a value of a JSON Schema (as the app's OpenAPI document states it), with a
// chance at every node of a hostile value instead, of a required field left out or of a field
// the schema does not know. Most values are valid, so requests get past validation and reach
// the domain: ids are ids the app has answered with (matched by field name: `serviceId` takes
// an id learnt from /services), times are future hours or slots the app offered.
import fc from 'fast-check';
import { hexOfLength, hostileIds, hostileTimes, hostileValue, Obj, PoolId, Time, type Value } from './values.js';

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  $ref?: string;
  description?: string;
}

export interface SchemaContext {
  /** Resolves `#/components/schemas/X`. */
  resolve(ref: string): JsonSchema;
  /** Every enum string of the document ("*" included): the words a free string field may want (`events`). */
  vocabulary: string[];
  /** How many valid values per hostile one, at each node; 0: valid values only. */
  validWeight: number;
}

/** "services" → "service", "timeOffId" → "timeoff", "webhook-deliveries" → "webhookdelivery". */
export function kindOf(name: string): string {
  const s = name
    .replace(/Ids?$/, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
  if (s.endsWith('sses')) return s.slice(0, -2);
  if (s.endsWith('ies')) return `${s.slice(0, -3)}y`;
  if (s.endsWith('s') && !s.endsWith('ss')) return s.slice(0, -1);
  return s;
}

const ID_PATTERN = /\[0-9a-f\]\{24\}/;
export const isIdName = (name: string) => name === 'id' || /Ids?$/.test(name);

/** An id learnt from the app; unless `onlyKnown`, now and then one of the other mode or one that does not exist. */
export function poolIdArb(kind: string, onlyKnown = false): fc.Arbitrary<Value> {
  if (onlyKnown) return fc.nat().map((n) => new PoolId(kind, n, false));
  return fc.oneof(
    { weight: 16, arbitrary: fc.nat().map((n) => new PoolId(kind, n, false)) },
    { weight: 1, arbitrary: fc.nat().map((n) => new PoolId(kind, n, true)) },
    { weight: 1, arbitrary: fc.nat().map((n) => hexOfLength(24, n)) },
  );
}

/** Valid times: whole or half hours from a month back to two months ahead, or an offered slot. */
export const timeArb: fc.Arbitrary<Value> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .record({ h: fc.integer({ min: -24 * 30, max: 24 * 60 }), m: fc.constantFrom(0, 0, 30), s: fc.nat({ max: 5 }) })
      .map(({ h, m, s }) => new Time(h, m, s, 0)),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ k: fc.integer({ min: 1, max: 1_000_000 }), s: fc.nat({ max: 5 }) })
      .map(({ k, s }) => new Time(0, 0, s, k)),
  },
);

/** An end: up to two weeks after the time before it (`to` after `from`, `endTime` after `startTime`). */
const laterArb: fc.Arbitrary<Value> = fc
  .record({ h: fc.integer({ min: 1, max: 24 * 14 }), m: fc.constantFrom(0, 30), s: fc.nat({ max: 5 }) })
  .map(({ h, m, s }) => new Time(h, m, s, 0, true));

// Values whose meaning a schema cannot state, by field name.
const HINTS: Record<string, fc.Arbitrary<Value>> = {
  email: fc.nat().map((n) => `fuzz${n}@example.com`),
  phone: fc.oneof(
    fc.constantFrom('+14155550123', '+493012345678', '+447700900123'),
    fc.nat({ max: 9_999_999 }).map((n) => `+4930${n}`),
  ),
  url: fc.constantFrom(
    'https://example.com/hooks',
    'http://127.0.0.1:9/hook',
    'https://hooks.example.org/a?b=c',
    'http://localhost:1/x',
  ),
  timezone: fc.constantFrom(
    'Europe/Berlin',
    'America/New_York',
    'UTC',
    'Asia/Kolkata',
    'Australia/Lord_Howe',
    'Pacific/Chatham',
    'Europe/Nowhere',
  ),
  currency: fc.constantFrom('EUR', 'USD', 'JPY', 'GBP', 'XXX'),
  number: fc.constantFrom('4242424242424242', '4000000000000002', '4000000000009995', '4111111111111111'),
  cvc: fc.constantFrom('123', '999'),
  expYear: fc.integer({ min: 2020, max: 2040 }),
  durationMinutes: fc.constantFrom(15, 30, 45, 60, 90, 120),
  capacity: fc.integer({ min: 1, max: 20 }),
  workingHours: fc.constantFrom(
    week('09:00', '17:00', 5),
    week('00:00', '24:00', 7),
    week('08:00', '12:00', 6),
    week('', '', 0),
  ),
};

/** Working hours from `start` to `end` on the first `days` weekdays. */
function week(start: string, end: string, days: number): Value {
  const names = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
  return new Obj(
    names.map(
      (d, i) =>
        [
          d,
          i < days
            ? [
                new Obj([
                  ['start', start],
                  ['end', end],
                ]),
              ]
            : [],
        ] as const,
    ),
  );
}

export class SchemaArbitraries {
  constructor(private readonly ctx: SchemaContext) {}

  /** A value for `schema` at field `name`: valid mostly, hostile now and then. */
  value(schema: JsonSchema, name: string): fc.Arbitrary<Value> {
    if (!this.ctx.validWeight) return this.valid(schema, name);
    return fc.oneof(
      { weight: this.ctx.validWeight, arbitrary: this.valid(schema, name) },
      { weight: 1, arbitrary: this.hostile(schema, name) },
    );
  }

  /** A hostile value, aimed at the field's kind half the time (edge times for a time, odd ids for an id). */
  hostile(schema: JsonSchema, name: string): fc.Arbitrary<Value> {
    const s = schema.$ref ? this.ctx.resolve(schema.$ref) : schema;
    const alternatives = s.anyOf ?? s.oneOf ?? [s];
    if (alternatives.some((a) => a.format === 'date-time')) return fc.oneof(hostileTimes, hostileValue);
    if (isIdName(name) || alternatives.some((a) => a.pattern && ID_PATTERN.test(a.pattern)))
      return fc.oneof(hostileIds, hostileValue);
    return hostileValue;
  }

  valid(schema: JsonSchema, name: string): fc.Arbitrary<Value> {
    const hint = HINTS[name];
    if (hint) return hint;
    if (schema.$ref) return this.valid(this.ctx.resolve(schema.$ref), name);
    const alternatives = schema.anyOf ?? schema.oneOf;
    if (alternatives) return fc.oneof(...alternatives.map((s) => this.valid(s, name)));
    if (schema.allOf) return this.valid(Object.assign({}, ...schema.allOf), name);
    if (schema.const !== undefined) return fc.constant(schema.const as Value);
    if (schema.enum) return fc.constantFrom(...(schema.enum as Value[]));
    const type = Array.isArray(schema.type)
      ? schema.type
      : schema.type
        ? [schema.type]
        : schema.properties
          ? ['object']
          : [];
    if (type.length > 1) return fc.oneof(...type.map((t) => this.valid({ ...schema, type: t }, name)));
    switch (type[0]) {
      case 'string':
        return this.string(schema, name);
      case 'integer':
      case 'number':
        return this.number(schema, type[0] === 'integer');
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array':
        return fc.array(this.value(schema.items ?? {}, name.replace(/s$/, '')), {
          minLength: schema.minItems ?? 0,
          maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 4, 4)),
        });
      case 'object':
        return this.object(schema);
      default:
        return fc.jsonValue({ maxDepth: 2 }).map((v) => v as Value);
    }
  }

  private string(schema: JsonSchema, name: string): fc.Arbitrary<Value> {
    const max = schema.maxLength ?? 10_000;
    const fits = (s: string) => s.length >= (schema.minLength ?? 0) && s.length <= max;
    if ((schema.pattern && ID_PATTERN.test(schema.pattern)) || isIdName(name))
      return poolIdArb(kindOf(name), !this.ctx.validWeight);
    if (schema.format === 'date-time')
      return /^(to|end)/i.test(name)
        ? fc.oneof({ weight: 3, arbitrary: laterArb }, { weight: 1, arbitrary: timeArb })
        : timeArb;
    // Free text that names an event (webhook subscriptions): the document's own event names.
    const events = this.ctx.vocabulary.filter((w) => w === '*' || /^[a-z_]+\.[a-z_]+$/.test(w));
    if (name === 'event' && events.length) return fc.constantFrom(...events);
    if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern)).filter(fits);
    const plain = fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(max, 40) });
    const words = this.ctx.vocabulary.filter(fits);
    return words.length
      ? fc.oneof({ weight: 3, arbitrary: plain }, { weight: 1, arbitrary: fc.constantFrom(...words) })
      : plain;
  }

  private number(schema: JsonSchema, integer: boolean): fc.Arbitrary<Value> {
    const min = schema.minimum ?? 0;
    const max = schema.maximum ?? min + 1_000;
    const inRange = [min, max, 1, 2, 5, 10, 20, 30, 60, 100, 4500].filter((n) => n >= min && n <= max);
    const any = integer ? fc.integer({ min, max }) : fc.double({ min, max, noNaN: true });
    return fc.oneof(any, fc.constantFrom(...inRange));
  }

  /** Required fields always, optional ones half the time; now and then one left out or one unknown added. */
  private object(schema: JsonSchema): fc.Arbitrary<Value> {
    const props = Object.entries(schema.properties ?? {});
    const required = new Set(schema.required ?? []);
    const model = Object.fromEntries(props.map(([k, s]) => [k, this.value(s, k)]));
    const record = fc.record(model, { requiredKeys: props.map(([k]) => k).filter((k) => required.has(k)) });
    // A record or its id (`customer` or `customerId`), not both: a valid request names it once.
    if (!this.ctx.validWeight) {
      return fc.tuple(record, fc.boolean()).map(([rec, keepId]) => {
        const entries = Object.entries(rec as Record<string, Value>);
        const both = (k: string) => entries.some(([x]) => x === k) && entries.some(([x]) => x === `${k}Id`);
        return new Obj(
          entries.filter(([k]) => !(both(k) && keepId) && !(k.endsWith('Id') && both(k.slice(0, -2)) && !keepId)),
        );
      });
    }
    const mutation = fc.oneof(
      { weight: 30, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.nat().map((n) => ({ drop: n })) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(
            fc.constantFrom(
              'status',
              'companyId',
              '_id',
              'id',
              'bookedCount',
              'unknownField',
              'createdAt',
              '__proto__',
              'x'.repeat(300),
            ),
            hostileValue,
          )
          .map(([k, v]) => ({ add: [k, v] as const })),
      },
    );
    return fc.tuple(record, mutation).map(([rec, m]) => {
      let entries: Array<readonly [string, Value]> = Object.entries(rec as Record<string, Value>);
      if (m && 'drop' in m && entries.length) entries = entries.filter((_, i) => i !== m.drop % entries.length);
      if (m && 'add' in m) entries = [...entries, m.add];
      return new Obj(entries);
    });
  }
}
