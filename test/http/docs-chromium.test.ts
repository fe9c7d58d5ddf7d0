// The API reference at /docs in a real headless Chromium with every request to another origin
// refused and counted (as on a machine without internet): the whole document renders with its
// recorded examples, "try it" with a sandbox key answers 200 from this server, the page's CSP
// refuses nothing it needs, and axe-core finds nothing serious or critical (docs/api.md, "OpenAPI").
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { axeFindings } from '../helpers/axe.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { launchChromium, offlineButFor, shot, startAdminApp, watch } from '../admin/admin-helpers.js';

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
  it('renders every operation, and an operation with its recorded example', async () => {
    await page.goto(`${origin}/docs/`);
    await page.locator('.swagger-ui .opblock').first().waitFor({ state: 'visible', timeout: 30_000 });
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operations = Object.values(doc.paths as Record<string, object>).flatMap((item) => Object.keys(item));
    expect(await page.locator('.swagger-ui .opblock').count()).toBeGreaterThanOrEqual(operations.length);

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
