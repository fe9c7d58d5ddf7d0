// REST runs on the live graph (issue 40 §3): no REST operation selects a field or passes an
// argument that schema.graphql deprecates, the answers are what the deprecated page and Money
// fields answered, byte for byte, and every deprecation left in schema.graphql has a removal
// date in docs/changelog.md.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  buildSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  NoDeprecatedCustomRule,
  parse,
  validate,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiledSources } from '../../src/rest/operation.js';
import { schema } from '../../src/schema/index.js';
import type { TestApp } from '../helpers/app.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import {
  blankCompany,
  createDomainApp,
  expectError,
  futureHour,
  ok,
  post,
  salon,
  type World,
} from '../helpers/domain.js';

const root = resolve(import.meta.dirname, '../..');

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
});
afterAll(async () => t?.close());

describe('REST operations', () => {
  it('use no deprecated field or argument (NoDeprecatedCustomRule over every one the app built)', () => {
    const sources = compiledSources(schema);
    // Every /api/v1 route compiles its operation when the app is built.
    expect(sources.length).toBeGreaterThan(80);
    const used = sources.flatMap((source) =>
      validate(schema, parse(source), [NoDeprecatedCustomRule]).map((e) => `${e.message}\n  in ${source}`),
    );
    expect(used).toEqual([]);
  });

  it('the rule catches what the deprecated REST selection used to be', () => {
    const old = 'query { services(limit: 1) { data { _id price } pagination { limit hasMore nextCursor } } }';
    expect(validate(schema, parse(old), [NoDeprecatedCustomRule]).map((e) => e.message)).toHaveLength(4);
  });
});

describe('REST answers are those of the deprecated fields', () => {
  const gql = async (auth: Record<string, string>, query: string, variables: object) => {
    const body = (
      await t.app.inject({ method: 'POST', url: '/graphql', headers: auth, payload: { query, variables } })
    ).json();
    expect(body.errors).toBeUndefined();
    return body.data;
  };

  it('pages, prices and amounts, down to the order of the keys', async () => {
    const c = await blankCompany(t.dbs, w);
    const { service } = await salon(t.app, c.auth);
    await salon(t.app, c.auth, { name: 'Colour', price: 7000 });
    const bookings = [];
    for (const hour of [9, 10, 11])
      bookings.push(
        await post(t.app, '/api/v1/bookings', c.auth, {
          serviceId: service._id,
          startTime: futureHour(3, hour),
          customer: { name: `C${hour}`, email: `c${hour}@example.com` },
        }),
      );
    await post(t.app, '/api/v1/payments', c.auth, {
      bookingId: bookings[0]._id,
      card: { number: '4242424242424242', expMonth: 12, expYear: 2040, cvc: '123' },
    });
    const cases: Array<[string, string, string]> = [
      ['/api/v1/services?limit=1', 'services', '_id name price'],
      ['/api/v1/bookings?limit=2', 'bookings', '_id price currency status'],
      ['/api/v1/payments', 'payments', '_id amount currency status'],
    ];
    for (const [url, field, fields] of cases) {
      const rest = await t.app.inject({ method: 'GET', url, headers: c.auth });
      const body = rest.json();
      const limit = Number(new URL(url, 'http://x').searchParams.get('limit') ?? 20);
      const old = await gql(
        c.auth,
        `query($limit: Int) { ${field}(limit: $limit) { data { ${fields} } pagination { limit hasMore nextCursor } } }`,
        { limit },
      );
      // The deprecated fields, selected by the keys REST answers, in REST's order.
      const keys = Object.keys(body.data[0] ?? {});
      const wanted = old[field].data.map((x: Record<string, unknown>) =>
        Object.fromEntries(keys.filter((k) => k in x).map((k) => [k, x[k]])),
      );
      const got = body.data.map((x: Record<string, unknown>) =>
        Object.fromEntries(keys.filter((k) => fields.split(' ').includes(k)).map((k) => [k, x[k]])),
      );
      expect(JSON.stringify(got)).toBe(JSON.stringify(wanted));
      expect(JSON.stringify(body.meta.pagination)).toBe(JSON.stringify(old[field].pagination));
    }
    // The next page through REST's cursor, which keeps its format.
    const first = ok(await t.app.inject({ method: 'GET', url: '/api/v1/bookings?limit=2', headers: c.auth }));
    const page1 = (await t.app.inject({ method: 'GET', url: '/api/v1/bookings?limit=2', headers: c.auth })).json();
    expect(page1.meta.pagination.hasMore).toBe(true);
    const next = page1.meta.pagination.nextCursor as string;
    expect(Buffer.from(next, 'base64url').toString()).toBe(`c1.${first[1]._id}`);
    const page2 = (
      await t.app.inject({ method: 'GET', url: `/api/v1/bookings?limit=2&cursor=${next}`, headers: c.auth })
    ).json();
    expect(page2.data.map((b: { _id: string }) => b._id)).toEqual([bookings[0]._id]);
    expect(page2.meta.pagination).toEqual({ limit: 2, hasMore: false, nextCursor: null });
  });

  it('a bad cursor or page size is still named as REST names it', async () => {
    const c = await blankCompany(t.dbs, w);
    const customer = await post(t.app, '/api/v1/customers', c.auth, { name: 'A', email: 'a@example.com' });
    const get = (url: string) => t.app.inject({ method: 'GET', url, headers: c.auth });
    const forged = Buffer.from('c1.zzz').toString('base64url');
    for (const url of [
      `/api/v1/customers?cursor=${forged}`,
      '/api/v1/events?cursor=nope',
      '/api/v1/bookings?cursor=nope',
    ]) {
      const body = expectError(await get(url), 400, 'VALIDATION_ERROR');
      expect(body.error.details).toEqual([{ path: 'cursor', message: 'is not a cursor this API returned' }]);
      expect(body.error.message).toBe('cursor: is not a cursor this API returned');
    }
    // GET /events has an `after` of its own (a position): its errors keep their name, a
    // cursor's beside it is still `cursor`.
    const cursor = Buffer.from(`c1.${customer._id}`).toString('base64url');
    const unknown = '0123456789abcdef01234567';
    const own = expectError(await get(`/api/v1/events?after=${unknown}&cursor=${cursor}`), 400, 'VALIDATION_ERROR');
    expect(own.error.details).toEqual([{ path: 'after', message: 'is not an event of this company' }]);
    const mixed = expectError(await get(`/api/v1/events?after=1&cursor=${cursor}`), 400, 'VALIDATION_ERROR');
    expect(mixed.error.details).toEqual([{ path: 'cursor', message: 'is not a cursor of a position page' }]);
  });
});

/** Every deprecation of schema.graphql as a schema coordinate: `Type.field`, `Type.field(arg:)`, `Enum.VALUE`. */
function deprecationsOf(sdl: string): string[] {
  const s = buildSchema(sdl);
  const out: string[] = [];
  for (const type of Object.values(s.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
      for (const f of Object.values(type.getFields())) {
        if (f.deprecationReason != null) out.push(`${type.name}.${f.name}`);
        for (const a of 'args' in f ? f.args : [])
          if (a.deprecationReason != null) out.push(`${type.name}.${f.name}(${a.name}:)`);
      }
    }
    if (isEnumType(type))
      for (const v of type.getValues()) if (v.deprecationReason != null) out.push(`${type.name}.${v.name}`);
  }
  return out;
}

describe('docs/changelog.md, "GraphQL deprecations and their removal"', () => {
  const changelog = readFileSync(join(root, 'docs/changelog.md'), 'utf8');
  const section = /^## GraphQL deprecations and their removal\n([\s\S]*?)(?=^## )/m.exec(changelog)?.[1] ?? '';
  // | `A.b`, `C.d(e:)` | what to use instead | 2027-06-30 |; `*` in a type name stands for any.
  const rows = [...section.matchAll(/^\|([^|\n]*`[^|\n]*)\|[^|\n]*\|\s*(\d{4}-\d{2}-\d{2})\s*\|\s*$/gm)].map((m) => ({
    patterns: [...m[1]!.matchAll(/`([^`]+)`/g)].map((p) => p[1]!),
    removal: m[2]!,
  }));
  const matches = (pattern: string, coordinate: string) =>
    new RegExp(`^${pattern.replace(/[.()]/g, '\\$&').replace(/\*/g, '\\w*')}$`).test(coordinate);

  it('gives every deprecation in schema.graphql a removal date after this wave', () => {
    const deprecated = deprecationsOf(readFileSync(join(root, 'schema.graphql'), 'utf8'));
    expect(deprecated.length).toBeGreaterThan(0);
    // The newest dated section of the changelog is this wave; a removal falls after it.
    const wave = [...changelog.matchAll(/^## (\d{4}-\d{2}-\d{2})$/gm)]
      .map((m) => m[1]!)
      .sort()
      .at(-1)!;
    const missing = deprecated.filter((d) => !rows.some((r) => r.patterns.some((p) => matches(p, d))));
    expect(missing, 'add a row (coordinate, what instead, removal date) to the table').toEqual([]);
    for (const r of rows) {
      expect(Number.isNaN(Date.parse(r.removal)), r.removal).toBe(false);
      expect(r.removal > wave, `${r.patterns.join(', ')}: removal ${r.removal} must fall after ${wave}`).toBe(true);
    }
  });

  it('names no deprecation the schema does not have', () => {
    const deprecated = deprecationsOf(readFileSync(join(root, 'schema.graphql'), 'utf8'));
    const stale = rows.flatMap((r) => r.patterns).filter((p) => !deprecated.some((d) => matches(p, d)));
    expect(stale).toEqual([]);
  });

  it('the check reads coordinates the way the table writes them', () => {
    const sdl =
      'type Query { a(limit: Int @deprecated(reason: "x")): T }\ntype T { price: Int @deprecated(reason: "y") }';
    expect(deprecationsOf(sdl)).toEqual(['Query.a(limit:)', 'T.price']);
    expect(matches('Query.*(limit:)', 'Query.a(limit:)')).toBe(true);
    expect(matches('*Connection.data', 'BookingConnection.data')).toBe(true);
    expect(matches('*Connection.data', 'Email.kind')).toBe(false);
  });
});
