// GET /api/v1/reports/bookings (docs/api.md, "Reports"): GraphQL's bookingStats in the envelope;
// revenue only for a credential with payments:read (left out otherwise, never zero); every bad
// query a 400 naming the field; published in the OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { createAccountWithKeys } from '../../helpers/factories.js';
import { createDomainApp, expectError, ok, type World } from '../../helpers/domain.js';
import { EXPECTED, reportWorld, WINDOW } from '../../helpers/report-world.js';

let t: TestApp;
let w: World;
let r: Awaited<ReturnType<typeof reportWorld>>;
beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
  r = await reportWorld(t, w);
});
afterAll(async () => t?.close());

const get = (query: string, headers: Record<string, string> = r.auth) =>
  t.app.inject({ method: 'GET', url: `/api/v1/reports/bookings?${query}`, headers });
const window = `from=${encodeURIComponent(WINDOW.from)}&to=${encodeURIComponent(WINDOW.to)}`;

describe('GET /api/v1/reports/bookings', () => {
  it('answers the report by local day, with revenue, for an API key', async () => {
    const res = await get(`${window}&groupBy=day`);
    expect(ok(res)).toEqual({
      from: WINDOW.from,
      to: WINDOW.to,
      groupBy: 'day',
      timeZone: 'Europe/Berlin',
      groups: [EXPECTED.saturday, EXPECTED.sunday],
      totals: EXPECTED.totals,
    });
  });

  it('groups by employee and by service as GraphQL does', async () => {
    const byService = ok(await get(`${window}&groupBy=service`));
    expect(byService.groupBy).toBe('service');
    expect(byService.groups).toEqual([{ ...EXPECTED.totals, key: r.service._id, name: 'Cut' }]);
    const byEmployee = ok(await get(`${window}&groupBy=employee`));
    expect(byEmployee.groups.map((g: { name: string }) => g.name).sort()).toEqual(['Alex', 'Kim']);
  });

  it('leaves revenue out for a token without payments:read, and keeps it with both scopes', async () => {
    const narrow = ok(await get(`${window}&groupBy=day`, await r.token('bookings:read')));
    const { revenue: _s, ...sunday } = EXPECTED.sunday;
    const { revenue: _t, ...totals } = EXPECTED.totals;
    expect(narrow.groups[1]).toEqual(sunday);
    expect(narrow.totals).toEqual(totals);
    expect(JSON.stringify(narrow)).not.toContain('revenue');
    const both = ok(await get(`${window}&groupBy=day`, await r.token('bookings:read payments:read')));
    expect(both.totals).toEqual(EXPECTED.totals);
  });

  it('refuses a token without bookings:read with 403, whatever else it has', async () => {
    const body = expectError(
      await get(`${window}&groupBy=day`, await r.token('payments:read')),
      403,
      'INSUFFICIENT_SCOPE',
    );
    expect(body.error.details).toEqual({ requiredScope: 'bookings:read' });
  });

  const from = Date.parse(WINDOW.from);
  const at = (ms: number) => encodeURIComponent(new Date(ms).toISOString());
  const DAY = 86_400_000;
  it.each([
    ['no from', `to=${at(from)}&groupBy=day`, 'from'],
    ['no to', `from=${at(from)}&groupBy=day`, 'to'],
    ['no groupBy', window, 'groupBy'],
    ['an unknown groupBy', `${window}&groupBy=week`, 'groupBy'],
    ['the GraphQL spelling of groupBy', `${window}&groupBy=DAY`, 'groupBy'],
    ['two groupBy values', `${window}&groupBy=day&groupBy=service`, 'groupBy'],
    ['from that is not a time', `from=yesterday&to=${at(from)}&groupBy=day`, 'from'],
    ['an impossible date', `from=2027-02-30T00:00:00Z&to=${at(from)}&groupBy=day`, 'from'],
    ['to equal to from', `from=${at(from)}&to=${at(from)}&groupBy=day`, 'to'],
    ['to before from', `from=${at(from)}&to=${at(from - DAY)}&groupBy=day`, 'to'],
    ['a window over 366 days', `from=${at(from)}&to=${at(from + 367 * DAY)}&groupBy=day`, 'to'],
    ['a year before 2000', `from=1999-01-01T00:00:00Z&to=${at(from)}&groupBy=day`, 'from'],
    ['an unknown parameter', `${window}&groupBy=day&currency=EUR`, 'currency'],
  ])('refuses %s with 400 VALIDATION_ERROR naming the field', async (_name, query, path) => {
    const body = expectError(await get(query), 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(body.error.details ?? body.error.message)).toContain(path);
  });

  it('is in the OpenAPI document with its scope, its parameters and its response', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const op = doc.paths['/api/v1/reports/bookings'].get;
    expect(op.description).toContain('bookings:read');
    expect(op.parameters.map((p: { name: string }) => p.name).sort()).toEqual([
      'API-Version',
      'X-Request-Id',
      'from',
      'groupBy',
      'to',
    ]);
    const data = op.responses['200'].content['application/json'].schema.properties.data;
    expect(Object.keys(data.properties.totals.properties)).toContain('revenue');
    expect(data.properties.totals.required).not.toContain('revenue');
  });
});
