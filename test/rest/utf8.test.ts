// A JSON body must be Unicode text: bytes that are not valid UTF-8, and strings with an unpaired
// surrogate (`"\ud800"`, which JSON allows and no database can store), are 400
// VALIDATION_ERROR naming the field (docs/api.md), wherever they sit (values, keys, arrays,
// nested objects), and nothing is stored. Before, both were stored as U+FFFD.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { bearer, createAccountWithKeys, unique } from '../helpers/factories.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let auth: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_PER_SECOND: '1000000' } });
  w = await createAccountWithKeys(t.dbs);
  auth = bearer(w.testKey.key);
});
afterAll(async () => {
  await t?.close();
});

type Res = { statusCode: number; json(): any; headers: Record<string, unknown> };

const send = (method: 'POST' | 'PATCH', url: string, body: Buffer | string) =>
  t.app.inject({
    method,
    url,
    headers: { ...auth, 'content-type': 'application/json' },
    payload: typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
  });

/** `{"name": <bytes>, "email": ...}` with the raw bytes spliced into the name's string. */
const customerWithNameBytes = (bytes: number[]) =>
  Buffer.concat([
    Buffer.from('{"name":"Ann '),
    Buffer.from(bytes),
    Buffer.from(`","email":"ann-${unique()}@example.com"}`),
  ]);

function expectRefused(res: Res, path: string) {
  const body = res.json();
  expect(res.statusCode, JSON.stringify(body)).toBe(400);
  expect(body).toEqual({
    status: false,
    error: {
      code: 'VALIDATION_ERROR',
      message: expect.any(String),
      details: [{ path, message: expect.stringMatching(/UTF-8|surrogate/) }],
    },
    meta: { timestamp: expect.any(Number), requestId: res.headers['x-request-id'] },
  });
}

const counts = () =>
  Promise.all([
    t.dbs.test.prisma.customer.count(),
    t.dbs.test.prisma.event.count(),
    t.dbs.test.prisma.idempotencyRecord.count(),
  ]);

describe('bytes that are not UTF-8', () => {
  const INVALID: Array<[string, number[]]> = [
    ['a lone 0xFF', [0xff]],
    ['a continuation byte without a lead', [0x80]],
    ['a truncated three-byte sequence', [0xe0, 0xa4]],
    ['an overlong "/"', [0xc0, 0xaf]],
    ['an encoded surrogate (CESU-8)', [0xed, 0xa0, 0x80]],
    ['a code point above U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ['a five-byte lead', [0xf8, 0x88, 0x80, 0x80, 0x80]],
  ];
  for (const [name, bytes] of INVALID) {
    it(`${name} in a value is 400 VALIDATION_ERROR naming it; nothing stored`, async () => {
      const before = await counts();
      expectRefused(await send('POST', '/api/v1/customers', customerWithNameBytes(bytes)), 'name');
      expect(await counts()).toEqual(before);
    });
  }

  it('in a key: the path is the key as far as it can be read', async () => {
    const body = Buffer.concat([
      Buffer.from('{"name":"Ann","email":"a@example.com","no'),
      Buffer.from([0xff]),
      Buffer.from('te":"x"}'),
    ]);
    expectRefused(await send('POST', '/api/v1/customers', body), 'no\uFFFDte');
  });

  it('in a nested object and in an array', async () => {
    const nested = Buffer.concat([
      Buffer.from('{"serviceId":"0123456789abcdef01234567","startTime":"2030-01-01T10:00:00Z","customer":{"name":"'),
      Buffer.from([0xc3]),
      Buffer.from('","email":"n@example.com"}}'),
    ]);
    expectRefused(await send('POST', '/api/v1/bookings', nested), 'customer.name');
    const array = Buffer.concat([
      Buffer.from('{"name":"S","durationMinutes":30,"employeeIds":["ok","'),
      Buffer.from([0xfe]),
      Buffer.from('"]}'),
    ]);
    expectRefused(await send('POST', '/api/v1/services', array), 'employeeIds.1');
  });

  it('outside any string it is not JSON: 400 BAD_REQUEST', async () => {
    const res = await send(
      'POST',
      '/api/v1/customers',
      Buffer.concat([Buffer.from('{"name":"A","email":"b@example.com"}'), Buffer.from([0xff])]),
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('BAD_REQUEST');
  });

  it('a PATCH changes nothing', async () => {
    const created = (
      await send('POST', '/api/v1/customers', JSON.stringify({ name: 'Before', email: `p-${unique()}@example.com` }))
    ).json().data;
    expectRefused(
      await send(
        'PATCH',
        `/api/v1/customers/${created._id}`,
        Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xe2, 0x82]), Buffer.from('"}')]),
      ),
      'name',
    );
    expect((await t.dbs.test.prisma.customer.findUniqueOrThrow({ where: { id: created._id } })).name).toBe('Before');
  });
});

describe('unpaired surrogates in JSON escapes', () => {
  const LONE: Array<[string, string]> = [
    ['a high surrogate', '\\ud800'],
    ['a low surrogate', '\\udc00'],
    ['a high surrogate between letters', 'a\\uDBFFb'],
    ['two high surrogates', '\\ud800\\ud800'],
    ['a pair in the wrong order', '\\udc00\\ud800'],
    ['a high surrogate at the end', 'Ann\\ud83d'],
  ];
  for (const [name, escaped] of LONE) {
    it(`${name} is 400 VALIDATION_ERROR naming the field; nothing stored`, async () => {
      const before = await counts();
      expectRefused(
        await send('POST', '/api/v1/customers', `{"name":"${escaped}","email":"s-${unique()}@example.com"}`),
        'name',
      );
      expect(await counts()).toEqual(before);
    });
  }

  it('in a nested key and value, and in an array', async () => {
    expectRefused(
      await send(
        'POST',
        '/api/v1/bookings',
        '{"serviceId":"0123456789abcdef01234567","customer":{"name":"A","email":"x@example.com","\\ud800":1}}',
      ),
      'customer.\uFFFD',
    );
    expectRefused(
      await send(
        'POST',
        '/api/v1/bookings',
        '{"serviceId":"0123456789abcdef01234567","customer":{"name":"\\udfff","email":"x@example.com"}}',
      ),
      'customer.name',
    );
    expectRefused(
      await send('POST', '/api/v1/services', '{"name":"S","durationMinutes":30,"employeeIds":["\\ud800"]}'),
      'employeeIds.0',
    );
  });

  it('a proper pair (an emoji) is stored and answered as it was sent', async () => {
    const res = await send(
      'POST',
      '/api/v1/customers',
      `{"name":"Ann \\ud83d\\ude00","email":"e-${unique()}@example.com"}`,
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.name).toBe('Ann \u{1F600}');
    expect((await t.dbs.test.prisma.customer.findUniqueOrThrow({ where: { id: res.json().data._id } })).name).toBe(
      'Ann \u{1F600}',
    );
  });

  it('GraphQL variables and literals are refused the same way; nothing stored', async () => {
    const before = await counts();
    const variable = await send(
      'POST',
      '/graphql',
      '{"query":"mutation($i: CreateCustomerInput!) { createCustomer(input: $i) { _id } }","variables":{"i":{"name":"\\ud800","email":"g@example.com"}}}',
    );
    expect(variable.statusCode).toBe(400);
    expect(variable.json().error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'variables.i.name' }] });
    const literal = await send(
      'POST',
      '/graphql',
      '{"query":"mutation { createCustomer(input: { name: \\"\\ud800\\", email: \\"g@example.com\\" }) { _id } }"}',
    );
    expect(literal.statusCode).toBe(400);
    expect(literal.json().error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'query' }] });
    expect(await counts()).toEqual(before);
  });
});
