// /api/v1/webhook-endpoints and /webhook-deliveries: whole bodies, secrets shown once and
// encrypted at rest, scopes, companies and modes isolated, hostile input refused with 4xx.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { bearer, createAccountWithKeys, scopedToken } from '../../helpers/factories.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let other: Awaited<ReturnType<typeof createAccountWithKeys>>;

beforeAll(async () => {
  t = await createTestApp();
  w = await createAccountWithKeys(t.dbs);
  other = await createAccountWithKeys(t.dbs);
});
afterAll(() => t?.close());

const ID = expect.stringMatching(/^[0-9a-f]{24}$/);
const TIME = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

const api = (method: string, url: string, key: string, payload?: unknown) =>
  t.app.inject({
    method: method as 'GET',
    url: `/api/v1${url}`,
    headers: bearer(key),
    ...(payload !== undefined ? { payload: payload as object } : {}),
  });

describe('create, read, update, delete', () => {
  it('creates an endpoint and shows its secret and token once; they are encrypted at rest', async () => {
    const res = await api('POST', '/webhook-endpoints', w.testKey.key, {
      url: 'http://127.0.0.1:4000/in',
      events: ['booking.created', 'booking.created', 'payment.failed'],
      description: 'CRM sync',
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      status: true,
      data: {
        _id: ID,
        url: 'http://127.0.0.1:4000/in',
        events: ['booking.created', 'payment.failed'],
        description: 'CRM sync',
        enabled: true,
        disabledReason: null,
        previousSecretExpiresAt: null,
        createdAt: TIME,
        updatedAt: TIME,
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
        token: expect.stringMatching(/^whtok_[A-Za-z0-9_-]{32}$/),
      },
      meta: { timestamp: expect.any(Number), version: 'v1', requestId: expect.any(String) },
    });
    expect(Buffer.from(body.data.secret.slice(6), 'base64')).toHaveLength(32);
    const row = await t.dbs.test.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: body.data._id } });
    expect(row.secretEnc).not.toContain(body.data.secret.slice(6, 20));
    expect(row.tokenEnc).not.toContain(body.data.token.slice(6, 20));
    expect(row.secretEnc).toMatch(/^v1\./);

    const got = await api('GET', `/webhook-endpoints/${body.data._id}`, w.testKey.key);
    const { secret: _s, token: _t, ...withoutSecrets } = body.data;
    expect(got.json().data).toEqual(withoutSecrets);
    expect(JSON.stringify(got.json())).not.toContain(body.data.secret);
  });

  it('lists newest first with cursor pagination', async () => {
    for (const n of [1, 2, 3])
      await api('POST', '/webhook-endpoints', w.testKey.key, { url: `http://127.0.0.1:4000/list-${n}`, events: ['*'] });
    const page1 = (await api('GET', '/webhook-endpoints?limit=2', w.testKey.key)).json();
    expect(page1.data.map((e: { url: string }) => e.url)).toEqual([
      'http://127.0.0.1:4000/list-3',
      'http://127.0.0.1:4000/list-2',
    ]);
    expect(page1.meta.pagination).toEqual({ limit: 2, hasMore: true, nextCursor: expect.any(String) });
    const page2 = (
      await api('GET', `/webhook-endpoints?limit=2&cursor=${page1.meta.pagination.nextCursor}`, w.testKey.key)
    ).json();
    expect(page2.data.map((e: { url: string }) => e.url)).toEqual([
      'http://127.0.0.1:4000/list-1',
      'http://127.0.0.1:4000/in',
    ]);
    expect(page2.meta.pagination).toEqual({ limit: 2, hasMore: false, nextCursor: null });
    expect(page1.data[0]).not.toHaveProperty('secret');
  });

  it('updates what is sent, clears with null, and re-enabling clears the disabled reason', async () => {
    const created = (
      await api('POST', '/webhook-endpoints', w.testKey.key, {
        url: 'http://127.0.0.1:4000/u',
        events: ['*'],
        description: 'x',
      })
    ).json().data;
    await t.dbs.test.prisma.webhookEndpoint.update({
      where: { id: created._id },
      data: { enabled: false, disabledReason: 'The receiver answered 410 Gone' },
    });
    const res = await api('PATCH', `/webhook-endpoints/${created._id}`, w.testKey.key, {
      events: ['customer.created'],
      description: null,
      enabled: true,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      url: 'http://127.0.0.1:4000/u',
      events: ['customer.created'],
      description: null,
      enabled: true,
      disabledReason: null,
    });
    const star = await api('PATCH', `/webhook-endpoints/${created._id}`, w.testKey.key, {
      events: ['booking.created', '*'],
    });
    expect(star.json().data.events).toEqual(['*']);
  });

  it('deletes, after which the endpoint is not found', async () => {
    const created = (
      await api('POST', '/webhook-endpoints', w.testKey.key, { url: 'http://127.0.0.1:4000/d', events: ['*'] })
    ).json().data;
    const del = await api('DELETE', `/webhook-endpoints/${created._id}`, w.testKey.key);
    expect(del.statusCode).toBe(200);
    expect(del.json().data._id).toBe(created._id);
    expect((await api('GET', `/webhook-endpoints/${created._id}`, w.testKey.key)).statusCode).toBe(404);
    expect((await api('DELETE', `/webhook-endpoints/${created._id}`, w.testKey.key)).statusCode).toBe(404);
  });

  it('rotating returns a new secret and keeps the old one signing for 24 h', async () => {
    const created = (
      await api('POST', '/webhook-endpoints', w.testKey.key, { url: 'http://127.0.0.1:4000/r', events: ['*'] })
    ).json().data;
    const res = await api('POST', `/webhook-endpoints/${created._id}/rotate-secret`, w.testKey.key);
    expect(res.json().data).toMatchObject({
      _id: created._id,
      token: created.token,
      secret: expect.stringMatching(/^whsec_/),
    });
    expect(res.json().data.secret).not.toBe(created.secret);
    const until = Date.parse(res.json().data.previousSecretExpiresAt) - Date.now();
    expect(until).toBeGreaterThan(24 * 3600_000 - 60_000);
    expect(until).toBeLessThanOrEqual(24 * 3600_000);
  });
});

describe('isolation and scopes', () => {
  it("another company's endpoint, and the other mode's, are NOT_FOUND everywhere", async () => {
    const theirs = (
      await api('POST', '/webhook-endpoints', other.testKey.key, { url: 'http://127.0.0.1:4000/theirs', events: ['*'] })
    ).json().data;
    const liveOwn = (
      await api('POST', '/webhook-endpoints', w.liveKey.key, { url: 'https://hooks.example.com/live', events: ['*'] })
    ).json().data;
    for (const id of [theirs._id, liveOwn._id]) {
      for (const [method, url, payload] of [
        ['GET', `/webhook-endpoints/${id}`],
        ['PATCH', `/webhook-endpoints/${id}`, { enabled: false }],
        ['DELETE', `/webhook-endpoints/${id}`],
        ['POST', `/webhook-endpoints/${id}/rotate-secret`],
        ['POST', `/webhook-endpoints/${id}/test`],
        ['GET', `/webhook-endpoints/${id}/deliveries`],
      ] as const) {
        const res = await api(method, url, w.testKey.key, payload);
        expect([method, url, res.statusCode, res.json().error?.code]).toEqual([method, url, 404, 'NOT_FOUND']);
      }
    }
    const list = (await api('GET', '/webhook-endpoints?limit=100', w.testKey.key))
      .json()
      .data.map((e: { _id: string }) => e._id);
    expect(list).not.toContain(theirs._id);
    expect(list).not.toContain(liveOwn._id);
    expect((await t.dbs.test.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: theirs._id } })).enabled).toBe(
      true,
    );
  });

  it('reading needs webhooks:read and changing needs webhooks:write', async () => {
    const readOnly = await scopedToken(t.dbs, {
      accountId: w.account.id,
      companyId: w.test.id,
      mode: 'test',
      scope: 'webhooks:read',
    });
    const none = await scopedToken(t.dbs, {
      accountId: w.account.id,
      companyId: w.test.id,
      mode: 'test',
      scope: 'bookings:read',
    });
    const existing = (await api('GET', '/webhook-endpoints', w.testKey.key)).json().data[0]._id;
    expect((await api('GET', '/webhook-endpoints', readOnly)).statusCode).toBe(200);
    expect((await api('GET', `/webhook-endpoints/${existing}/deliveries`, readOnly)).statusCode).toBe(200);
    for (const [method, url, payload, scope] of [
      ['GET', '/webhook-endpoints', undefined, 'webhooks:read', none],
      ['POST', '/webhook-endpoints', { url: 'http://127.0.0.1:1/x', events: ['*'] }, 'webhooks:write'],
      ['PATCH', `/webhook-endpoints/${existing}`, { enabled: false }, 'webhooks:write'],
      ['DELETE', `/webhook-endpoints/${existing}`, undefined, 'webhooks:write'],
      ['POST', `/webhook-endpoints/${existing}/rotate-secret`, undefined, 'webhooks:write'],
      ['POST', `/webhook-endpoints/${existing}/test`, undefined, 'webhooks:write'],
      ['POST', `/webhook-deliveries/${existing}/retry`, undefined, 'webhooks:write'],
    ] as const) {
      const res = await api(method, url, scope === 'webhooks:read' ? none : readOnly, payload);
      expect([url, res.statusCode, res.json().error?.code, res.json().error?.details]).toEqual([
        url,
        403,
        'INSUFFICIENT_SCOPE',
        { requiredScope: scope },
      ]);
    }
    expect((await t.dbs.test.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: existing } })).enabled).toBe(true);
  });

  it('without a credential: 401', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/webhook-endpoints' });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('UNAUTHORIZED');
  });
});

describe('hostile input', () => {
  const before = () => t.dbs.test.prisma.webhookEndpoint.count();
  it.each([
    [{}, 'url'],
    [{ url: 'http://127.0.0.1:1/x' }, 'events'],
    [{ url: 'http://127.0.0.1:1/x', events: [] }, 'events'],
    [{ url: 'http://127.0.0.1:1/x', events: ['booking.exploded'] }, 'events.0'],
    [{ url: 'http://127.0.0.1:1/x', events: ['ping'] }, 'events.0'],
    [{ url: 'http://127.0.0.1:1/x', events: 'booking.created' }, 'events'],
    [{ url: 'not a url', events: ['*'] }, 'url'],
    [{ url: 'javascript:alert(1)', events: ['*'] }, 'url'],
    [{ url: 'file:///etc/passwd', events: ['*'] }, 'url'],
    [{ url: `http://127.0.0.1:1/${'a'.repeat(2100)}`, events: ['*'] }, 'url'],
    [{ url: 'http://127.0.0.1:1/x', events: ['*'], secret: 'whsec_mine' }, 'secret'],
    [{ url: 'http://127.0.0.1:1/x', events: ['*'], enabled: 'yes' }, 'enabled'],
    [{ url: 'http://127.0.0.1:1/x', events: ['*'], description: 'a\u0007b' }, 'description'],
    [{ url: 'http://127.0.0.1:1/x', events: [{ $ne: null }] }, 'events.0'],
  ])('POST %j → 400 naming %s, nothing written', async (payload, path) => {
    const n = await before();
    const res = await api('POST', '/webhook-endpoints', w.testKey.key, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect(res.json().error.details.map((d: { path: string }) => d.path)).toContain(path);
    expect(await before()).toBe(n);
  });

  // A path id that cannot be an id is answered like a missing record (docs/api.md), whatever its bytes.
  it.each([
    ['GET', '/webhook-endpoints/nothex'],
    ['POST', '/webhook-deliveries/nothex/retry'],
  ])('%s %s → 404 NOT_FOUND', async (method, url) => {
    const res = await api(method, url, w.testKey.key);
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('NOT_FOUND');
  });

  it.each([
    ['GET', '/webhook-endpoints?limit=0'],
    ['GET', '/webhook-endpoints?limit=101'],
    ['GET', '/webhook-endpoints?cursor=bogus'],
    ['GET', '/webhook-endpoints?cursor=MDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAw%27'],
  ])('%s %s → 400', async (method, url) => {
    const res = await api(method, url, w.testKey.key);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
  });

  it('an unknown delivery is NOT_FOUND, and one of another company too', async () => {
    expect((await api('POST', '/webhook-deliveries/0123456789abcdef01234567/retry', w.testKey.key)).statusCode).toBe(
      404,
    );
  });

  it('a disabled endpoint cannot be pinged: 409 INVALID_STATE_TRANSITION', async () => {
    const created = (
      await api('POST', '/webhook-endpoints', w.testKey.key, {
        url: 'http://127.0.0.1:4000/off',
        events: ['*'],
        enabled: false,
      })
    ).json().data;
    const res = await api('POST', `/webhook-endpoints/${created._id}/test`, w.testKey.key);
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({
      code: 'INVALID_STATE_TRANSITION',
      details: { from: 'disabled', to: 'ping' },
    });
  });
});
