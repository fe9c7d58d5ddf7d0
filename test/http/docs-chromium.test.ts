// The API reference at /docs in a real headless Chromium with every request to another origin
// refused and counted (as on a machine without internet): it opens one small part of the
// document (Bookings), the whole document renders with its recorded examples once picked, "try
// it" with a sandbox key answers 200 from this server, the page's CSP refuses nothing it needs,
// and axe-core finds nothing serious or critical (docs/api.md, "OpenAPI"). On a phone (390 px)
// nothing reaches past the screen's edge and the first render fetched the small part only.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { axeFindings } from '../helpers/axe.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { launchChromium, offlineButFor, phoneFindings, shot, startAdminApp, watch } from '../admin/admin-helpers.js';

let t: TestApp;
let origin: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let seen: ReturnType<typeof watch>;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
/** Every request the browser tried to send elsewhere (aborted before it left). */
let elsewhere: string[];

beforeAll(async () => {
  ({ t, origin } = await startAdminApp());
  w = await createAccountWithKeys(t.dbs);
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  // The network to any other origin is down: such a request is recorded and aborted.
  elsewhere = await offlineButFor(context, origin);
  page = await context.newPage();
  seen = watch(page, origin);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('/docs, offline, in Chromium', () => {
  it('opens the Bookings part; picking "All operations" renders every operation', async () => {
    const documents: string[] = [];
    page.on('request', (r) => {
      if (/\/(openapi\.json|docs\/openapi\/|docs\/json)/.test(r.url())) documents.push(new URL(r.url()).pathname);
    });
    await page.goto(`${origin}/docs/`);
    await page.locator('.swagger-ui .opblock').first().waitFor({ state: 'visible', timeout: 30_000 });
    expect(documents).toEqual(['/docs/openapi/bookings.json']);
    const part = (await t.app.inject({ method: 'GET', url: '/docs/openapi/bookings.json' })).json();
    const partOps = Object.values(part.paths as Record<string, object>).flatMap((item) => Object.keys(item));
    expect(await page.locator('.swagger-ui .opblock').count()).toBe(partOps.length);

    await page.getByLabel('Select a definition').selectOption({ label: 'All operations (large)' });
    await expect.poll(() => documents).toContain('/openapi.json');
    await page.locator('#operations-Company-getMe').waitFor({ state: 'visible', timeout: 30_000 });
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operations = Object.values(doc.paths as Record<string, object>).flatMap((item) => Object.keys(item));
    await expect.poll(() => page.locator('.swagger-ui .opblock').count()).toBeGreaterThanOrEqual(operations.length);

    // createBooking, opened: the request body's example is the recorded one.
    const block = page.locator('#operations-Bookings-createBooking');
    await block.locator('.opblock-summary-control').click();
    await block.locator('.opblock-body').waitFor({ state: 'visible', timeout: 30_000 });
    const example = doc.paths['/api/v1/bookings'].post.requestBody.content['application/json'].example;
    await expect
      .poll(async () => block.locator('.body-param__example, .microlight').first().textContent())
      .toContain(example.notes);
    await shot(page, 'docs-create-booking');
  }, 90_000);

  it('"try it" with a sandbox key answers 200 from this server', async () => {
    await page
      .getByRole('button', { name: /^Authorize/ })
      .first()
      .click();
    const dialog = page.locator('.dialog-ux');
    await dialog.locator('input[type=text], input[type=password]').first().fill(w.testKey.key);
    await dialog.getByRole('button', { name: 'Apply credentials' }).first().click();
    await dialog.getByRole('button', { name: 'Close', exact: true }).first().click();

    const block = page.locator('#operations-Company-getMe');
    await block.locator('.opblock-summary-control').click();
    await block.locator('.opblock-body').waitFor({ state: 'visible', timeout: 30_000 });
    const answered = page.waitForResponse((r) => r.url() === `${origin}/api/v1/me`);
    await block.getByRole('button', { name: 'Try it out' }).click();
    await block.getByRole('button', { name: 'Execute' }).click();
    expect((await answered).status()).toBe(200);
    await expect
      .poll(async () => block.locator('.live-responses-table tbody .response-col_status').first().textContent())
      .toContain('200');
    expect(await block.locator('.live-responses-table').textContent()).toContain(w.test.name);
    await shot(page, 'docs-try-it');
  }, 90_000);

  it('has no serious or critical axe findings, and sent nothing elsewhere', async () => {
    expect(await axeFindings(page), '/docs').toEqual([]);
    expect(elsewhere).toEqual([]);
    expect(seen.foreign).toEqual([]);
    expect(seen.blocked).toEqual([]);
    expect(seen.errors).toEqual([]);
  }, 60_000);
});

describe('/docs on a phone (390 px)', () => {
  let phone: BrowserContext;
  let small: Page;
  let fetched: Array<{ path: string; bytes: number }>;
  beforeAll(async () => {
    phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await offlineButFor(phone, origin);
    small = await phone.newPage();
    fetched = [];
    small.on('response', async (r) => {
      if (!r.url().endsWith('.json')) return;
      fetched.push({ path: new URL(r.url()).pathname, bytes: (await r.body()).length });
    });
    await small.goto(`${origin}/docs/`);
    await small.locator('.swagger-ui .opblock').first().waitFor({ state: 'visible', timeout: 30_000 });
  }, 60_000);
  afterAll(async () => {
    await phone?.close();
  });

  it('first renders one small document, not the whole', async () => {
    await expect.poll(() => fetched.length).toBe(1);
    const whole = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).body.length;
    expect(fetched[0]!.path).toBe('/docs/openapi/bookings.json');
    // Bytes, not time: the first render reads under a fifth of the whole document.
    expect(fetched[0]!.bytes).toBeLessThan(whole / 5);
  });

  it('lays out at the width of the screen: nothing past its edge, no word cut in a table cell', async () => {
    expect(await small.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await phoneFindings(small)).toEqual([]);
    // An operation opened: its parameters and answers fit too.
    const block = small.locator('#operations-Bookings-createBooking');
    await block.locator('.opblock-summary-control').click();
    await block.locator('.opblock-body').waitFor({ state: 'visible', timeout: 30_000 });
    expect(await small.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await phoneFindings(small)).toEqual([]);
    await shot(small, 'docs-phone');
  }, 60_000);

  it('has no serious or critical axe findings at 390 px', async () => {
    expect(await axeFindings(small), '/docs at 390 px').toEqual([]);
  }, 60_000);
});
