// Request logs in the admin area, in a real headless Chromium over a real socket (docs/admin.md,
// Request logs): requests made with the company's keys are listed; the filters (status class,
// path, key, request id) narrow the list; one request shows in full with its redacted bodies;
// another company's request is not found; no serious or critical axe-core findings.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/schema/credentials/index.js';
import type { TestApp } from '../helpers/app.js';
import { axeFindings } from '../helpers/axe.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';
import { expectLabelled, launchChromium, shot, signIn, startAdminApp, watch } from './admin-helpers.js';

let t: TestApp;
let origin: string;
let browser: Browser;
let page: Page;
let seen: ReturnType<typeof watch>;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let other: Awaited<ReturnType<typeof createAccountWithKeys>>;
let second: Awaited<ReturnType<typeof createApiKey>>;
let failedRequestId = '';

const api = (key: string, method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) =>
  t.app.inject({ method, url, headers: bearer(key), ...(payload !== undefined ? { payload } : {}) });

beforeAll(async () => {
  // Written when the test says so (flush), not on a timer.
  ({ t, origin } = await startAdminApp({ REQUEST_LOG_FLUSH_MS: '60000' }));
  w = await createAccountWithKeys(t.dbs);
  other = await createAccountWithKeys(t.dbs);
  second = await createApiKey(t.dbs.test.prisma, { companyId: w.test.id, name: 'Reporting key' });
  await api(w.testKey.key, 'GET', '/api/v1/me');
  await api(w.testKey.key, 'GET', '/api/v1/services');
  await api(second.key, 'GET', '/api/v1/customers');
  const failed = await api(w.testKey.key, 'POST', '/api/v1/customers', {
    name: 'Dana',
    email: 'not an e-mail',
    cardNumber: '4242 4242 4242 4242',
    cvc: '737',
  });
  expect(failed.statusCode).toBe(400);
  failedRequestId = String(failed.headers['x-request-id']);
  await api(other.testKey.key, 'GET', '/api/v1/me');
  await t.app.requestLogs!.flush();
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
  seen = watch(page, origin);
  await signIn(page, origin, w.email, w.password, `/admin/test/companies/${w.test.id}/request-logs`);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const rows = () => page.getByRole('table', { name: 'Requests' }).locator('tbody tr');
const paths = async () => (await rows().locator('td:nth-child(3) a').allTextContents()).map((s) => s.trim());

describe('request logs in Chromium', () => {
  it("lists the company's requests, newest first, with no serious or critical axe findings", async () => {
    expect(await page.title()).toBe('Request logs · Admin');
    expect(await page.getByRole('link', { name: 'Request logs' }).getAttribute('aria-current')).toBe('page');
    expect(await paths()).toEqual(['/api/v1/customers', '/api/v1/customers', '/api/v1/services', '/api/v1/me']);
    await expectLabelled(page);
    await shot(page, '40-request-logs');
    expect(await axeFindings(page), 'the request-log list').toEqual([]);
  });

  it('filters by status class, path, key and request id', async () => {
    await page.getByLabel('Status').selectOption('4xx');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/status=4xx/);
    expect(await paths()).toEqual(['/api/v1/customers']);
    expect(await rows().first().textContent()).toContain('400');

    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Path').fill('/api/v1/services');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/path=/);
    expect(await paths()).toEqual(['/api/v1/services']);

    await page.getByLabel('Path').fill('');
    await page.getByLabel('API key').selectOption({ label: `Reporting key (svc_sk_test_…${second.key.slice(-4)})` });
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/credentialId=/);
    expect(await paths()).toEqual(['/api/v1/customers']);
    expect(await rows().first().textContent()).toContain('Reporting key');

    await page.getByLabel('API key').selectOption('');
    await page.getByLabel('Request id').fill(failedRequestId);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/requestId=/);
    expect(await rows().count()).toBe(1);
    await page.getByLabel('Request id').fill('req_nothing_like_it');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/req_nothing_like_it/);
    expect(await page.getByText('No requests match.').isVisible()).toBe(true);
    expect(await axeFindings(page), 'the empty filtered list').toEqual([]);
  });

  it('shows one request in full, bodies redacted', async () => {
    await page.getByLabel('Request id').fill(failedRequestId);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(new RegExp(failedRequestId));
    await rows().first().getByRole('link').click();
    await page.waitForURL(/\/request-logs\/[0-9a-f]{24}$/);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('POST /api/v1/customers');
    const requestBody = (await page.locator('#request-body').textContent())!;
    expect(requestBody).toContain('"name": "Dana"');
    expect(requestBody).toContain('[REDACTED]');
    for (const secret of ['4242', '737']) expect(requestBody).not.toContain(secret);
    expect(await page.locator('#response-body').textContent()).toContain('VALIDATION_ERROR');
    expect(await page.getByText(failedRequestId).count()).toBeGreaterThan(0);
    await shot(page, '41-request-log');
    expect(await axeFindings(page), 'one request').toEqual([]);
  });

  it("does not show another company's request", async () => {
    const theirs = await t.dbs.test.prisma.requestLog.findFirstOrThrow({ where: { companyId: other.test.id } });
    const res = await page.goto(`${origin}/admin/test/companies/${w.test.id}/request-logs/${theirs.id}`);
    expect(res?.status()).toBe(404);
    const live = await page.goto(`${origin}/admin/live/companies/${w.live.id}/request-logs`);
    expect(live?.status()).toBe(200);
    expect(await page.getByText('No requests match.').isVisible()).toBe(true);
    expect(seen.foreign).toEqual([]);
    expect(seen.errors).toEqual([]);
  });
});
