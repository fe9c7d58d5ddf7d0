// /api/v1 bodies are written by JSON.stringify; outside production each is checked against the
// route's published response schema (src/rest/serialize.ts). The check must catch what the
// schema serializer would have hidden: an undocumented field, a null where a string is
// promised, a number sent as a string. Every route of the suite runs through it.
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { Envelope, errorResponses, Nullable, Timestamp } from '../../src/rest/schemas.js';
import { bodySerializer, UndocumentedResponseError } from '../../src/rest/serialize.js';

const schema = Envelope(
  Type.Object({
    name: Type.String(),
    note: Nullable(Type.String()),
    at: Timestamp,
    count: Type.Integer(),
    tags: Type.Array(Type.String()),
  }),
);
const meta = { timestamp: 1, version: 'v1', requestId: 'req_1' };
const good = {
  status: true,
  data: { name: 'Lea "L" Wagner\n', note: null, at: '2027-03-28T09:00:00.000Z', count: 3, tags: ['a', 'ü'] },
  meta,
};
const checked = bodySerializer(schema, { route: 'GET /x 200', check: true });

describe('bodySerializer', () => {
  it('writes exactly what JSON.stringify writes when the body matches its schema', () => {
    expect(checked(good)).toBe(JSON.stringify(good));
    expect(JSON.parse(checked(good))).toEqual(good);
  });

  it('refuses a field the schema does not document, naming the route', () => {
    const leak = { ...good, data: { ...good.data, secretHash: 'abc' } };
    expect(() => checked(leak)).toThrow(UndocumentedResponseError);
    expect(() => checked(leak)).toThrow(/GET \/x 200: the body differs from its documented schema[\s\S]*secretHash/);
  });

  it('refuses a null where the schema promises a string, and a number sent as a string', () => {
    expect(() => checked({ ...good, data: { ...good.data, name: null } })).toThrow(UndocumentedResponseError);
    expect(() => checked({ ...good, data: { ...good.data, count: '3' } })).toThrow(UndocumentedResponseError);
  });

  it('checks error envelopes against the shared ErrorEnvelope schema', () => {
    const errors = bodySerializer(errorResponses([404])[404] as never, { route: 'GET /x 404', check: true });
    const notFound = {
      status: false,
      error: { code: 'NOT_FOUND', message: 'No such booking' },
      meta: { timestamp: 1, requestId: 'req_1' },
    };
    expect(errors(notFound)).toBe(JSON.stringify(notFound));
    expect(() => errors({ ...notFound, stack: 'at x' })).toThrow(UndocumentedResponseError);
  });

  it('in production writes with JSON.stringify alone', () => {
    const fast = bodySerializer(schema, { route: 'GET /x 200', check: false });
    expect(fast).toBe(JSON.stringify);
  });
});
