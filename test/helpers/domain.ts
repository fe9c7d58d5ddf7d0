// Helpers for the booking-domain tests: an app whose rate limit does not get in the way of
// hostile-input tables, a world of one account with keys, and envelope assertions.
import { expect } from 'vitest';
import type { Databases } from '../../src/db/databases.js';
import { newId } from '../../src/ids.js';
import { createTestApp, type TestApp } from './app.js';
import { bearer, createAccountWithKeys, scopedToken } from './factories.js';

export type World = Awaited<ReturnType<typeof createAccountWithKeys>>;

export async function createDomainApp(): Promise<TestApp> {
  return createTestApp({ env: { RATE_LIMIT_PER_SECOND: '1000000' } });
}

type Res = { statusCode: number; json(): any; headers: Record<string, unknown> };

export function expectError(res: Res, status: number, code: string) {
  if (res.statusCode !== status)
    throw new Error(`expected ${status} ${code}, got ${res.statusCode} ${JSON.stringify(res.json())}`);
  const body = res.json();
  expect(body.status).toBe(false);
  expect(body.error.code).toBe(code);
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(body.meta.requestId).toBe(res.headers['x-request-id']);
  return body;
}

export function ok(res: Res) {
  if (res.statusCode !== 200) throw new Error(`expected 200, got ${res.statusCode} ${JSON.stringify(res.json())}`);
  const body = res.json();
  expect(body.status).toBe(true);
  return body.data;
}

/** An OAuth access token row with exactly these scopes (the resolver accepts it like a key). */
export async function tokenWithScopes(dbs: Databases, w: World, scope: string, mode: 'live' | 'test' = 'test') {
  return bearer(
    await scopedToken(dbs, {
      accountId: w.account.id,
      companyId: mode === 'test' ? w.test.id : w.live.id,
      mode,
      scope,
    }),
  );
}

export const WEEK_9_TO_17 = {
  monday: [{ start: '09:00', end: '17:00' }],
  tuesday: [{ start: '09:00', end: '17:00' }],
  wednesday: [{ start: '09:00', end: '17:00' }],
  thursday: [{ start: '09:00', end: '17:00' }],
  friday: [{ start: '09:00', end: '17:00' }],
  saturday: [],
  sunday: [],
};

export const ALL_DAY = Object.fromEntries(
  ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [
    d,
    [{ start: '00:00', end: '24:00' }],
  ]),
);

/** A blank sandbox company of its own (no sample data) with a test key. */
export async function blankCompany(dbs: Databases, w: World, opts: { timezone?: string; currency?: string } = {}) {
  const { createCompany } = await import('../../src/schema/companies/create-company.js');
  const { createApiKey } = await import('../../src/schema/credentials/create-api-key.js');
  const company = await createCompany(dbs, {
    accountId: w.account.id,
    mode: 'test',
    name: `Blank ${newId().slice(-6)}`,
    timezone: opts.timezone ?? 'Europe/Berlin',
    currency: opts.currency ?? 'EUR',
  });
  const key = await createApiKey(dbs.test.prisma, { companyId: company.id, name: 'k' });
  return { company, key: key.key, auth: bearer(key.key) };
}

/** POSTs and returns data, failing loudly on anything but 200. */
export async function post(app: TestApp['app'], url: string, headers: Record<string, string>, payload: object) {
  return ok(await app.inject({ method: 'POST', url, headers, payload }));
}

/** An employee working all day every day, and a service they perform. */
/** Two sites in different zones: Berlin Mitte (Europe/Berlin) and Brooklyn (America/New_York). */
export async function berlinAndBrooklyn(app: TestApp['app'], headers: Record<string, string>) {
  const berlin = await post(app, '/api/v1/locations', headers, {
    name: 'Berlin Mitte',
    address: 'Friedrichstraße 12, 10117 Berlin',
    timeZone: 'Europe/Berlin',
  });
  const brooklyn = await post(app, '/api/v1/locations', headers, {
    name: 'Brooklyn',
    address: '1 Main St, Brooklyn, NY 11201',
    timeZone: 'America/New_York',
  });
  return { berlin, brooklyn };
}

export async function salon(
  app: TestApp['app'],
  auth: Record<string, string>,
  service: Record<string, unknown> = {},
  employees = 1,
) {
  const staff = [];
  for (let i = 0; i < employees; i++)
    staff.push(await post(app, '/api/v1/employees', auth, { name: `Stylist ${i}`, workingHours: ALL_DAY }));
  const svc = await post(app, '/api/v1/services', auth, {
    name: 'Cut',
    durationMinutes: 60,
    price: 4500,
    employeeIds: staff.map((s) => s._id),
    ...service,
  });
  return { staff, employee: staff[0], service: svc };
}

/** A whole hour at least a day ahead, so it is in the future whatever the clock says. */
export function futureHour(daysAhead = 2, hourUtc = 10): string {
  const d = new Date(Date.now() + daysAhead * 86_400_000);
  d.setUTCHours(hourUtc, 0, 0, 0);
  return d.toISOString();
}
