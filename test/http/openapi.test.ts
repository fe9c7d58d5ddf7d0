// The OpenAPI document (docs/api.md, "OpenAPI"): every /api/v1 operation named, described,
// tagged and secured, and what it says checked against what the routes do: the scope each
// operation lists is the one it enforces, and an action documented without a required body
// takes none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/auth/scopes.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createDomainApp, tokenWithScopes, type World } from '../helpers/domain.js';
import { createAccountWithKeys } from '../helpers/factories.js';

type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  requestBody?: { required?: boolean };
};
type Doc = {
  servers: Array<{ url: string }>;
  tags: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, any> };
};

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function operations(doc: Doc) {
  return Object.entries(doc.paths)
    .filter(([path]) => path.startsWith('/api/v1/'))
    .flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
    );
}

/** A concrete URL for a templated path: ids of no record, a valid date. */
const concrete = (path: string) =>
  path.replace('{date}', '2030-01-07').replace(/\{[A-Za-z]+\}/g, '0123456789abcdef01234567');

let t: TestApp;
let doc: Doc;
let w: World;
beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json', headers: { host: 'api.test:8443' } })).json();
}, 120_000);
afterAll(async () => t?.close());

describe('every /api/v1 operation', () => {
  it('has a unique camelCase verb-noun operationId', () => {
    const ops = operations(doc);
    expect(ops.length).toBeGreaterThan(60);
    const ids = ops.map((o) => o.op.operationId);
    const bad = ops.filter((o) => !/^[a-z]+(?:[A-Z][a-z0-9]*)+$/.test(o.op.operationId ?? ''));
    expect(bad.map((o) => `${o.method} ${o.path}: ${o.op.operationId}`)).toEqual([]);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    // A sample of the names an SDK is generated with.
    const byRoute = Object.fromEntries(ops.map((o) => [`${o.method} ${o.path}`, o.op.operationId]));
    expect(byRoute).toMatchObject({
      'GET /api/v1/bookings': 'listBookings',
      'GET /api/v1/bookings/{id}': 'getBooking',
      'POST /api/v1/bookings': 'createBooking',
      'POST /api/v1/bookings/{id}/cancel': 'cancelBooking',
      'POST /api/v1/bookings/{id}/reschedule': 'rescheduleBooking',
      'GET /api/v1/me': 'getMe',
      'PATCH /api/v1/me': 'updateMe',
    });
  });

  it('has a summary, a description and tags that the document describes', () => {
    const declared = doc.tags.map((tag) => tag.name);
    expect(doc.tags.every((tag) => (tag.description ?? '').length > 0)).toBe(true);
    const used = new Set<string>();
    for (const { method, path, op } of operations(doc)) {
      const where = `${method} ${path}`;
      expect(op.summary, where).toMatch(/\S/);
      expect(op.description, where).toMatch(/\S/);
      expect(op.tags?.length, where).toBeGreaterThan(0);
      for (const tag of op.tags ?? []) {
        expect(declared, where).toContain(tag);
        used.add(tag);
      }
    }
    for (const item of Object.values((doc as any).webhooks ?? {}))
      for (const tag of (item as any).post.tags as string[]) used.add(tag);
    expect([...used].sort()).toEqual([...declared].sort());
  });

  it('accepts the bearer scheme or an OAuth token with one named scope', () => {
    for (const { method, path, op } of operations(doc)) {
      const scope = op.security?.[1]?.oauth2?.[0];
      expect(op.security, `${method} ${path}`).toEqual([{ bearer: [] }, { oauth2: [scope] }]);
      expect(SCOPES, `${method} ${path}`).toContain(scope);
      expect(op.description, `${method} ${path}`).toContain(`\`${scope}\``);
    }
  });

  it('enforces the scope it lists: refused without it, not for want of it with it', async () => {
    const refused: string[] = [];
    const wronglyRefused: string[] = [];
    for (const { method, path, op } of operations(doc)) {
      const scope = op.security![1]!.oauth2![0]!;
      const others = SCOPES.filter((s) => s !== scope).join(' ');
      const url = concrete(path);
      const payload = method === 'GET' || method === 'DELETE' ? undefined : {};
      const without = await t.app.inject({
        method: method as 'GET',
        url,
        headers: await tokenWithScopes(t.dbs, w, others),
        ...(payload ? { payload } : {}),
      });
      if (without.statusCode !== 403 || without.json().error.code !== 'INSUFFICIENT_SCOPE')
        refused.push(`${method} ${path} without ${scope}: ${without.statusCode}`);
      const withIt = await t.app.inject({
        method: method as 'GET',
        url,
        headers: await tokenWithScopes(t.dbs, w, scope),
        ...(payload ? { payload } : {}),
      });
      if (withIt.statusCode === 403) wronglyRefused.push(`${method} ${path} with ${scope}: ${withIt.body}`);
    }
    expect(refused).toEqual([]);
    expect(wronglyRefused).toEqual([]);
  });

  it('marks a body required exactly where leaving it out is refused', async () => {
    const headers = { authorization: `Bearer ${w.testKey.key}` };
    const wrong: string[] = [];
    for (const { method, path, op } of operations(doc)) {
      if (!op.requestBody) continue;
      const res = await t.app.inject({ method: method as 'POST', url: concrete(path), headers });
      const refusedForNoBody = res.statusCode === 400 && res.json().error.code === 'VALIDATION_ERROR';
      if (op.requestBody.required !== refusedForNoBody)
        wrong.push(`${method} ${path}: required ${op.requestBody.required}, answered ${res.statusCode}`);
    }
    expect(wrong).toEqual([]);
    // The actions that take no fields at all are among the optional ones.
    expect(doc.paths['/api/v1/bookings/{id}/confirm']!.post!.requestBody!.required).toBe(false);
    expect(doc.paths['/api/v1/bookings/{id}/cancel']!.post!.requestBody!.required).toBe(false);
    expect(doc.paths['/api/v1/bookings']!.post!.requestBody!.required).toBe(true);
  });
});

describe('headers', () => {
  const responseHeaders = (op: any, status: string) => Object.keys(op.responses[status].headers ?? {});

  it('documents Idempotency-Key on every POST, API-Version and X-Request-Id on every operation', () => {
    for (const { method, path, op } of operations(doc)) {
      const names = ((op as any).parameters ?? []).filter((p: any) => p.in === 'header').map((p: any) => p.name);
      expect(names, `${method} ${path}`).toEqual(
        expect.arrayContaining(['API-Version', 'X-Request-Id', ...(method === 'POST' ? ['Idempotency-Key'] : [])]),
      );
      if (method !== 'POST') expect(names, `${method} ${path}`).not.toContain('Idempotency-Key');
      for (const status of Object.keys((op as any).responses))
        expect(responseHeaders(op, status), `${method} ${path} ${status}`).toEqual(
          expect.arrayContaining(['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
        );
      for (const status of ['429', '503'])
        expect(responseHeaders(op, status), `${method} ${path} ${status}`).toContain('Retry-After');
    }
  });

  it('documents the response headers the answers really carry', async () => {
    const headers = { authorization: `Bearer ${w.testKey.key}`, 'idempotency-key': `k-${Date.now()}` };
    const payload = { name: 'Header Check', email: `headers-${Date.now()}@example.com` };
    const first = await t.app.inject({ method: 'POST', url: '/api/v1/customers', headers, payload });
    const replay = await t.app.inject({ method: 'POST', url: '/api/v1/customers', headers, payload });
    expect([first.statusCode, replay.statusCode]).toEqual([200, 200]);
    const documented = responseHeaders(doc.paths['/api/v1/customers']!.post, '200');
    const missing = documented.filter(
      (h) => !['Deprecation', 'Sunset'].includes(h) && replay.headers[h.toLowerCase()] === undefined,
    );
    expect(missing).toEqual([]);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });
});

describe('servers and security schemes', () => {
  it('without BASE_URL, point at the origin the document was asked for, and at the real OAuth endpoints', async () => {
    expect(doc.servers).toEqual([{ url: 'http://api.test:8443', description: 'This server' }]);
    const meta = (
      await t.app.inject({
        method: 'GET',
        url: '/.well-known/oauth-authorization-server',
        headers: { host: 'api.test:8443' },
      })
    ).json();
    const flow = doc.components.securitySchemes.oauth2.flows.authorizationCode;
    expect(flow.authorizationUrl).toBe(meta.authorization_endpoint);
    expect(flow.tokenUrl).toBe(meta.token_endpoint);
    expect(Object.keys(flow.scopes).sort()).toEqual([...SCOPES].sort());
    expect(Object.values(flow.scopes).every((d) => typeof d === 'string' && d.length > 0)).toBe(true);
    expect(doc.components.securitySchemes.oauth2.description).toMatch(/PKCE/);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('with BASE_URL, point at BASE_URL whatever the Host', async () => {
    const other = await createTestApp({ env: { BASE_URL: 'https://api.example.org' } });
    try {
      const res = await other.app.inject({ method: 'GET', url: '/openapi.json', headers: { host: 'evil.test' } });
      const d = res.json<Doc>();
      expect(d.servers).toEqual([{ url: 'https://api.example.org', description: 'This server' }]);
      expect(d.components.securitySchemes.oauth2.flows.authorizationCode.tokenUrl).toBe(
        'https://api.example.org/oauth/token',
      );
      // The same document the reference page renders.
      const ui = (await other.app.inject({ method: 'GET', url: '/docs/json', headers: { host: 'evil.test' } })).json();
      expect(ui.servers).toEqual(d.servers);
    } finally {
      await other.close();
    }
  });
});
