// Shared set-up of the admin-area tests: the real app on a real 127.0.0.1 socket, one
// headless Debian Chromium per test file (playwright-core), signing in through the login form
// by its accessible names, screenshots under test-results/admin/ for people to look at, and
// bookings made through the public API with a test key.
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { DateTime } from 'luxon';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { bearer } from '../helpers/factories.js';
import { ok, post } from '../helpers/domain.js';

export const SHOTS = 'test-results/admin';

export async function startAdminApp(env: Record<string, string> = {}): Promise<{ t: TestApp; origin: string }> {
  const t = await createTestApp({ env: { RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000', RATE_LIMIT_PER_SECOND: '100000', ...env } });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return { t, origin: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}` };
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** Records every request that leaves the app's origin (there must be none) and page errors. */
export function watch(page: Page, origin: string): { foreign: string[]; errors: string[] } {
  const seen = { foreign: [] as string[], errors: [] as string[] };
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(origin) && !u.startsWith('about:') && !u.startsWith('data:')) seen.foreign.push(u);
  });
  page.on('pageerror', (e) => seen.errors.push(e.message));
  page.on('console', (m) => {
    // HTTP error statuses of pages and fetches are expected (400 re-shown forms, 401 of a
    // revoked key); script errors and CSP violations are not.
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) seen.errors.push(m.text());
  });
  return seen;
}

export async function signIn(page: Page, origin: string, email: string, password: string, path = '/admin'): Promise<void> {
  await page.goto(`${origin}${path}`);
  expect(await page.title()).toBe('Sign in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => u.pathname.startsWith('/admin') && !u.pathname.startsWith('/admin/login'));
}

export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
}

/** Two bookings in the sample hair salon this week or next, made through /api/v1 with a test key. */
export async function bookInSalon(t: TestApp, testKey: string): Promise<Array<{ _id: string; startTime: string; status: string; employeeId: string }>> {
  const auth = bearer(testKey);
  const get = async (url: string) => ok(await t.app.inject({ method: 'GET', url: `/api/v1${url}`, headers: auth }));
  const services = await get('/services');
  const customers = await get('/customers');
  const cut = services.find((s: { requiresPayment: boolean; kind: string }) => !s.requiresPayment && s.kind === 'appointment');
  const from = DateTime.utc().plus({ days: 1 }).startOf('hour');
  const { slots } = await get(`/availability?serviceId=${cut._id}&from=${encodeURIComponent(from.toISO()!)}&to=${encodeURIComponent(from.plus({ days: 7 }).toISO()!)}`);
  const out = [];
  for (const [i, slot] of [slots[0], slots.at(-1)].entries()) {
    out.push(await post(t.app, '/api/v1/bookings', auth, { serviceId: cut._id, startTime: slot.startTime, customerId: customers[i]._id }));
  }
  return out;
}
