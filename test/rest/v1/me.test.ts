// GET/PATCH /api/v1/me: the envelope field by field, every 401 case, modes isolated,
// and hostile input that must get a 4xx envelope and change nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../../src/schema/credentials/revoke-api-key.js';
import { bearer, createAccountWithKeys, scopedToken, unique } from '../../helpers/factories.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;

beforeAll(async () => {
  t = await createTestApp();
  w = await createAccountWithKeys(t.dbs);
});
afterAll(async () => {
  await t?.close();
});

const REQUEST_ID = /^req_[0-9a-f]{24}$/;

function expectErrorEnvelope(
  res: { statusCode: number; json(): any; headers: Record<string, unknown> },
  status: number,
  code: string,
) {
  expect(res.statusCode).toBe(status);
  const body = res.json();
  expect(Object.keys(body).sort()).toEqual(['error', 'meta', 'status']);
  expect(body.status).toBe(false);
  expect(typeof body.error.code).toBe('string');
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(Number.isInteger(body.meta.timestamp)).toBe(true);
  expect(Math.abs(body.meta.timestamp - Date.now())).toBeLessThan(60_000);
  expect(body.meta.requestId).toBe(res.headers['x-request-id']);
  expect(body.data).toBeUndefined();
  return body;
}

describe('GET /api/v1/me', () => {
  it('returns the company profile in the envelope, field by field', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(w.liveKey.key) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json();
    expect(body).toEqual({
      status: true,
      data: {
        _id: w.live.id,
        name: w.live.name,
        email: w.live.email,
        phone: '+493012345678',
        address: 'Alexanderplatz 1, Berlin',
        timezone: 'Europe/Berlin',
        currency: 'EUR',
        mode: 'live',
        bookingRules: {
          cancellationCutoffMinutes: 0,
          rescheduleCutoffMinutes: 0,
          minNoticeMinutes: 0,
          maxAdvanceDays: 365,
          slotIntervalMinutes: null,
          dailyLimitPerEmployee: null,
        },
        reminders: [{ offsetMinutes: 1440, channel: 'email' }],
        metadata: {},
        apiVersion: '2026-11-24',
        testClockId: null,
        createdAt: w.live.createdAt.toISOString(),
      },
      meta: { timestamp: expect.any(Number), version: 'v1', requestId: expect.stringMatching(REQUEST_ID) },
    });
    expect(body.data._id).toMatch(/^[0-9a-f]{24}$/);
    expect(body.data.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(res.headers['x-request-id']).toBe(body.meta.requestId);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['ratelimit-limit']).toBe('100');
    expect(res.headers['ratelimit-remaining']).toBeDefined();
    expect(res.headers['ratelimit-reset']).toBeDefined();
  });

  it('keeps a sane caller X-Request-Id', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/me',
      headers: { ...bearer(w.liveKey.key), 'x-request-id': 'trace-abc-12345' },
    });
    expect(res.json().meta.requestId).toBe('trace-abc-12345');
    const bad = await t.app.inject({
      method: 'GET',
      url: '/api/v1/me',
      headers: { ...bearer(w.liveKey.key), 'x-request-id': 'x\n{"evil":1}' },
    });
    expect(bad.json().meta.requestId).toMatch(REQUEST_ID);
  });

  it('a test key selects the sandbox company', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(w.testKey.key) });
    expect(res.json().data).toMatchObject({ _id: w.test.id, name: 'Sample Hair Salon', mode: 'test' });
  });

  it('accepts the Bearer scheme case-insensitively', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/me',
      headers: { authorization: `bearer ${w.liveKey.key}` },
    });
    expect(res.statusCode).toBe(200);
  });

  const cases: Array<[string, (k: string) => Record<string, string>]> = [
    ['missing header', () => ({})],
    ['empty header', () => ({ authorization: '' })],
    ['wrong scheme', (k) => ({ authorization: `Basic ${k}` })],
    ['token without scheme', (k) => ({ authorization: k })],
    ['unknown key', () => ({ authorization: 'Bearer svc_sk_live_000000000000000000000000000000000000000000' })],
    ['malformed key', () => ({ authorization: 'Bearer svc_sk_live_!!!!' })],
    ['prefix-less key', (k) => ({ authorization: `Bearer ${k.replace('svc_sk_live_', '')}` })],
    ['truncated key', (k) => ({ authorization: `Bearer ${k.slice(0, -3)}` })],
    [
      'key with a changed character',
      (k) => ({ authorization: `Bearer ${k.slice(0, 20)}${k[20] === 'a' ? 'b' : 'a'}${k.slice(21)}` }),
    ],
    ['two credentials', (k) => ({ authorization: `Bearer ${k} ${k}` })],
    ['live prefix on a test key', () => ({ authorization: `Bearer ${w.testKey.key.replace('_test_', '_live_')}` })],
  ];
  for (const [name, headers] of cases) {
    it(`401 UNAUTHORIZED with WWW-Authenticate: ${name}`, async () => {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: headers(w.liveKey.key) });
      expectErrorEnvelope(res, 401, 'UNAUTHORIZED');
      expect(String(res.headers['www-authenticate'])).toMatch(/^Bearer /);
      if (name !== 'missing header' && name !== 'empty header')
        expect(String(res.headers['www-authenticate'])).toContain('error="invalid_token"');
    });
  }

  it('401 UNAUTHORIZED with WWW-Authenticate: a revoked key, at once', async () => {
    const k = await createAccountWithKeys(t.dbs);
    // Cached first, so the revocation has to reach the cache, not just the row.
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(k.liveKey.key) })).statusCode).toBe(
      200,
    );
    await revokeApiKey(t.dbs, t.services.credentials, { keyId: k.liveKey.apiKey.id });
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(k.liveKey.key) });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe(
      'Bearer realm="api", error="invalid_token", error_description="The credential is unknown, malformed, revoked or expired"',
    );
    expect(res.json()).toEqual({
      status: false,
      error: { code: 'UNAUTHORIZED', message: 'The credential is unknown, malformed, revoked or expired' },
      meta: { timestamp: expect.any(Number), requestId: res.headers['x-request-id'] },
    });
    expect(Math.abs(res.json().meta.timestamp - Date.now())).toBeLessThan(60_000);
  });

  it('403 INSUFFICIENT_SCOPE for an OAuth token without company:read (GET /me needs it)', async () => {
    const token = await scopedToken(t.dbs, {
      accountId: w.account.id,
      companyId: w.live.id,
      mode: 'live',
      scope: 'bookings:read bookings:write',
    });
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(token) });
    expect(res.statusCode).toBe(403);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['www-authenticate']).toBe(
      'Bearer error="insufficient_scope", scope="company:read", error_description="The company:read scope is required"',
    );
    const body = res.json();
    expect(body).toEqual({
      status: false,
      error: {
        code: 'INSUFFICIENT_SCOPE',
        message: 'This credential lacks the company:read scope',
        details: { requiredScope: 'company:read' },
      },
      meta: { timestamp: expect.any(Number), requestId: res.headers['x-request-id'] },
    });
    expect(body.meta.requestId).toMatch(REQUEST_ID);
    expect(Math.abs(body.meta.timestamp - Date.now())).toBeLessThan(60_000);
    expect(JSON.stringify(body)).not.toContain(w.live.name);
    // The same token with the scope reads the profile.
    const allowed = await scopedToken(t.dbs, {
      accountId: w.account.id,
      companyId: w.live.id,
      mode: 'live',
      scope: 'company:read',
    });
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(allowed) })).json().data._id).toBe(
      w.live.id,
    );
  });

  it('ignores a key in the query string', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/me?access_token=${w.liveKey.key}` });
    expectErrorEnvelope(res, 401, 'UNAUTHORIZED');
  });

  it('404 envelope for unknown paths and other versions', async () => {
    for (const url of ['/api/v1/nope', '/api/v2/me', '/api/v1/me/extra', '/nothing-here']) {
      const res = await t.app.inject({ method: 'GET', url, headers: bearer(w.liveKey.key) });
      expectErrorEnvelope(res, 404, 'NOT_FOUND');
    }
  });
});

describe('PATCH /api/v1/me', () => {
  it('updates the profile and GET sees it at once', async () => {
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/me',
      headers: bearer(w.testKey.key),
      payload: { name: 'Renamed Salon', phone: '+49 30 1234567', currency: 'USD', address: null },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      name: 'Renamed Salon',
      phone: '+49301234567',
      currency: 'USD',
      address: null,
    });
    const again = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(w.testKey.key) });
    expect(again.json().data).toMatchObject({ name: 'Renamed Salon', currency: 'USD', address: null });
    // The live company is another database's row and did not change.
    const live = await t.dbs.live.prisma.company.findUniqueOrThrow({ where: { id: w.live.id } });
    expect(live.name).toBe(w.live.name);
  });

  const hostile: Array<
    [string, { payload?: unknown; body?: string; headers?: Record<string, string> }, number, string]
  > = [
    ['a number for name', { payload: { name: 42 } }, 400, 'VALIDATION_ERROR'],
    ['an empty name', { payload: { name: '   ' } }, 400, 'VALIDATION_ERROR'],
    ['null name', { payload: { name: null } }, 400, 'VALIDATION_ERROR'],
    ['an unknown field', { payload: { name: 'A', isAdmin: true } }, 400, 'VALIDATION_ERROR'],
    ['an id field', { payload: { _id: 'ffffffffffffffffffffffff' } }, 400, 'VALIDATION_ERROR'],
    ['mode', { payload: { mode: 'live' } }, 400, 'VALIDATION_ERROR'],
    ['an array body', { payload: [{ name: 'A' }] }, 400, 'VALIDATION_ERROR'],
    ['a string body', { body: '"hello"', headers: { 'content-type': 'application/json' } }, 400, 'VALIDATION_ERROR'],
    ['malformed JSON', { body: '{"name": "A",', headers: { 'content-type': 'application/json' } }, 400, 'BAD_REQUEST'],
    ['an empty JSON body', { body: '', headers: { 'content-type': 'application/json' } }, 400, 'BAD_REQUEST'],
    [
      'a form-encoded body',
      { body: 'name=A', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      400,
      'BAD_REQUEST',
    ],
    ['a form body', { body: 'name=A', headers: { 'content-type': 'text/plain' } }, 400, 'BAD_REQUEST'],
    [
      '__proto__ key',
      { body: '{"__proto__": {"name": "pwned"}}', headers: { 'content-type': 'application/json' } },
      400,
      'BAD_REQUEST',
    ],
    [
      'constructor.prototype key',
      { body: '{"constructor": {"prototype": {"x": 1}}}', headers: { 'content-type': 'application/json' } },
      400,
      'BAD_REQUEST',
    ],
    [
      'deep nesting',
      { body: `{"name":${'['.repeat(5000)}${']'.repeat(5000)}}`, headers: { 'content-type': 'application/json' } },
      400,
      'BAD_REQUEST',
    ],
    ['a null byte', { payload: { name: 'A\u0000B' } }, 400, 'BAD_REQUEST'],
    ['a control character', { payload: { address: 'line\u0007bell' } }, 400, 'VALIDATION_ERROR'],
    ['an invalid time zone', { payload: { timezone: 'Mars/Olympus_Mons' } }, 400, 'VALIDATION_ERROR'],
    ['a UTC offset as time zone', { payload: { timezone: '+02:00' } }, 400, 'VALIDATION_ERROR'],
    ['lower-case currency', { payload: { currency: 'eur' } }, 400, 'VALIDATION_ERROR'],
    ['an unknown currency', { payload: { currency: 'ZZZ' } }, 400, 'VALIDATION_ERROR'],
    ['a phone without +', { payload: { phone: '0301234567' } }, 400, 'VALIDATION_ERROR'],
    ['a phone with letters', { payload: { phone: '+1 555 CALL NOW' } }, 400, 'VALIDATION_ERROR'],
    ['an impossible phone', { payload: { phone: '+999999999999' } }, 400, 'VALIDATION_ERROR'],
    ['a bad e-mail', { payload: { email: 'not-an-email' } }, 400, 'VALIDATION_ERROR'],
    ['a 10 kB name', { payload: { name: 'x'.repeat(10_000) } }, 400, 'VALIDATION_ERROR'],
    ['a 2 MiB body', { payload: { name: 'x'.repeat(2 * 1024 * 1024) } }, 413, 'PAYLOAD_TOO_LARGE'],
  ];
  for (const [name, req, status, code] of hostile) {
    it(`refuses ${name} with ${status} ${code} and changes nothing`, async () => {
      const before = await t.dbs.test.prisma.company.findUniqueOrThrow({ where: { id: w.test.id } });
      const res = await t.app.inject({
        method: 'PATCH',
        url: '/api/v1/me',
        headers: { ...bearer(w.testKey.key), ...(req.headers ?? {}) },
        ...(req.body !== undefined ? { body: req.body } : { payload: req.payload as object }),
      });
      const body = expectErrorEnvelope(res, status, code);
      if (code === 'VALIDATION_ERROR') {
        expect(Array.isArray(body.error.details)).toBe(true);
        expect(body.error.details[0]).toEqual({ path: expect.any(String), message: expect.any(String) });
      }
      const after = await t.dbs.test.prisma.company.findUniqueOrThrow({ where: { id: w.test.id } });
      expect(after).toEqual(before);
      expect(({} as Record<string, unknown>).name).toBeUndefined();
    });
  }

  it('names the unknown field', async () => {
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/me',
      headers: bearer(w.testKey.key),
      payload: { nmae: 'typo' },
    });
    expect(res.json().error.details).toEqual([{ path: 'nmae', message: 'is not a known field' }]);
  });

  it('answers 401 before judging the body', async () => {
    const res = await t.app.inject({ method: 'PATCH', url: '/api/v1/me', payload: { name: 42 } });
    expectErrorEnvelope(res, 401, 'UNAUTHORIZED');
  });
});

describe('isolation between modes and companies', () => {
  it('a live key never sees the sandbox company nor another account, and vice versa', async () => {
    const other = await createAccountWithKeys(t.dbs);
    const a = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(w.liveKey.key) });
    const b = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(other.liveKey.key) });
    const c = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(other.testKey.key) });
    expect(a.json().data._id).toBe(w.live.id);
    expect(b.json().data._id).toBe(other.live.id);
    expect(c.json().data._id).toBe(other.test.id);
    // The sandbox company's row is not in the live database at all, and the reverse.
    expect(await t.dbs.live.prisma.company.findUnique({ where: { id: w.test.id } })).toBeNull();
    expect(await t.dbs.test.prisma.company.findUnique({ where: { id: w.live.id } })).toBeNull();
    expect(await t.dbs.test.prisma.apiKey.findUnique({ where: { id: w.liveKey.apiKey.id } })).toBeNull();
  });

  it("a record's id from the other mode is 404 NOT_FOUND, both ways", async () => {
    const create = async (key: string) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/customers',
        headers: bearer(key),
        payload: { name: 'Ada', email: `ada-${unique()}@example.com` },
      });
      expect(res.statusCode).toBe(200);
      return res.json().data._id as string;
    };
    const sandboxCustomer = await create(w.testKey.key);
    const liveCustomer = await create(w.liveKey.key);
    for (const [key, id] of [
      [w.liveKey.key, sandboxCustomer],
      [w.testKey.key, liveCustomer],
    ] as const) {
      const res = await t.app.inject({ method: 'GET', url: `/api/v1/customers/${id}`, headers: bearer(key) });
      expectErrorEnvelope(res, 404, 'NOT_FOUND');
      expect(res.body).not.toContain('Ada');
    }
    // Each mode reads its own.
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/v1/customers/${sandboxCustomer}`,
          headers: bearer(w.testKey.key),
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (await t.app.inject({ method: 'GET', url: `/api/v1/customers/${liveCustomer}`, headers: bearer(w.liveKey.key) }))
        .statusCode,
    ).toBe(200);
  });
});
