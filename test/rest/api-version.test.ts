// API versions (docs/api.md, Versions): the API-Version header picks the version, the company's
// pin applies without it, every answer echoes the version used, an unknown one is a 400 naming
// the header (and changes nothing), an answer's shape follows the version, and a deprecated way
// of calling a route is answered with Deprecation and Sunset headers.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION_CHANGES } from '../../src/rest/api-version.js';
import { API_VERSIONS, LATEST_API_VERSION, updateCompany } from '../../src/schema/companies/index.js';
import { startWorkers } from '../../src/workers/runtime.js';
import { blankCompany, createDomainApp, expectError, ok, post, type World } from '../helpers/domain.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import type { TestApp } from '../helpers/app.js';

describe('API-Version', () => {
  let t: TestApp;
  let w: World;
  let c: Awaited<ReturnType<typeof blankCompany>>;
  const me = (headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { ...c.auth, ...headers } });

  beforeAll(async () => {
    t = await createDomainApp();
    w = await createAccountWithKeys(t.dbs);
    c = await blankCompany(t.dbs, w);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a new company is pinned to the latest version: its answers say so and have its shape', async () => {
    expect(API_VERSIONS.at(-1)).toBe(LATEST_API_VERSION);
    const res = await me();
    expect(res.headers['api-version']).toBe(LATEST_API_VERSION);
    expect(ok(res).apiVersion).toBe(LATEST_API_VERSION);
    // meta.version stays the spec's "v1".
    expect(res.json().meta.version).toBe('v1');
  });

  it('API-Version: 2026-11-23 gets the shape before 2026-11-24 (no apiVersion), and the header echoes it', async () => {
    const res = await me({ 'api-version': '2026-11-23' });
    expect(res.headers['api-version']).toBe('2026-11-23');
    const data = ok(res);
    expect(data).not.toHaveProperty('apiVersion');
    expect(data._id).toBe(c.company.id);
    const latest = ok(await me({ 'api-version': '2026-11-24' }));
    const { apiVersion, ...rest } = latest;
    expect(apiVersion).toBe(LATEST_API_VERSION);
    expect(rest).toEqual(data);
  });

  it('a company pinned to 2026-11-23 gets that shape without the header, and the latest with it', async () => {
    const other = await blankCompany(t.dbs, w);
    await updateCompany(t.dbs.test.prisma, { companyId: other.company.id, input: { apiVersion: '2026-11-23' } });
    await t.services.credentials.invalidateCompany(other.company.id);
    const pinned = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: other.auth });
    expect(pinned.headers['api-version']).toBe('2026-11-23');
    expect(ok(pinned)).not.toHaveProperty('apiVersion');
    const asked = await t.app.inject({
      method: 'GET',
      url: '/api/v1/me',
      headers: { ...other.auth, 'api-version': LATEST_API_VERSION },
    });
    expect(asked.headers['api-version']).toBe(LATEST_API_VERSION);
    expect(ok(asked).apiVersion).toBe('2026-11-23');
    // The same version on a PATCH's answer.
    const patched = await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/me',
      headers: other.auth,
      payload: { name: 'Pinned' },
    });
    expect(ok(patched)).not.toHaveProperty('apiVersion');
    expect(ok(patched).name).toBe('Pinned');
  });

  it.each(['2026-11-22', '2026-13-01', 'latest', '', '2026-11-23, 2026-11-24'])(
    'an unknown version %j is a 400 naming API-Version, before anything is written',
    async (version) => {
      const before = await t.dbs.test.prisma.customer.count({ where: { companyId: c.company.id } });
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/customers',
        headers: { ...c.auth, 'api-version': version },
        payload: { name: 'Ada', email: 'ada@example.com' },
      });
      const body = expectError(res, 400, 'VALIDATION_ERROR');
      expect(body.error.details).toEqual([{ path: 'API-Version', message: expect.stringContaining('2026-11-24') }]);
      expect(await t.dbs.test.prisma.customer.count({ where: { companyId: c.company.id } })).toBe(before);
    },
  );

  it('without a credential the answer is the 401, whatever the version', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { 'api-version': 'nope' } });
    expectError(res, 401, 'UNAUTHORIZED');
  });

  it('resuming events by an _id is deprecated: Deprecation and Sunset headers; by a position, none', async () => {
    await post(t.app, '/api/v1/customers', c.auth, { name: 'Bo', email: 'bo@example.com' });
    const workers = await startWorkers(t.services, { consume: false });
    try {
      await workers.idle();
    } finally {
      await workers.stop();
    }
    const [event] = ok(await t.app.inject({ method: 'GET', url: '/api/v1/events', headers: c.auth }));
    const byId = await t.app.inject({ method: 'GET', url: `/api/v1/events?after=${event._id}`, headers: c.auth });
    ok(byId);
    expect(byId.headers.deprecation).toBe(`@${Date.UTC(2026, 10, 24) / 1000}`);
    expect(byId.headers.sunset).toBe('Mon, 24 May 2027 00:00:00 GMT');
    const byPosition = await t.app.inject({
      method: 'GET',
      url: `/api/v1/events?after=${event.position}`,
      headers: c.auth,
    });
    ok(byPosition);
    expect(byPosition.headers.deprecation).toBeUndefined();
    expect(byPosition.headers.sunset).toBeUndefined();
  });

  it('the reference documents the header on every /api/v1 operation and the deprecation', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      if (!path.startsWith('/api/v1/')) continue;
      for (const op of Object.values(item) as Array<{ parameters?: Array<{ in: string; name: string }> }>) {
        expect(op.parameters ?? [], path).toEqual(
          expect.arrayContaining([expect.objectContaining({ in: 'header', name: 'API-Version' })]),
        );
      }
    }
    expect(doc.paths['/api/v1/events'].get.description).toMatch(/\*\*Deprecated\*\* since 2026-11-24, ends 2027-05-24/);
  });

  it('docs/changelog.md lists every version, newest first, and each change names its route', () => {
    const changelog = readFileSync('docs/changelog.md', 'utf8');
    const table = changelog.slice(
      changelog.indexOf('## API versions'),
      changelog.indexOf('\n## ', changelog.indexOf('## API versions') + 1),
    );
    const listed = [...table.matchAll(/^\| `(\d{4}-\d{2}-\d{2})` \|(.*)\|$/gm)].map((m) => ({
      version: m[1]!,
      text: m[2]!,
    }));
    expect(listed.map((l) => l.version)).toEqual([...API_VERSIONS].reverse());
    for (const { version, text } of listed) {
      for (const change of VERSION_CHANGES[version as keyof typeof VERSION_CHANGES])
        expect(text, `${version}: ${change.route}`).toContain(change.route.split(' ')[1]);
    }
  });
});
