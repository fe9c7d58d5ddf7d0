// GraphiQL and the site root in a real headless Chromium with every request to another origin
// refused (as on a machine without internet): the root page links GraphiQL, the editor renders
// from this app's own assets, a query typed into it runs, and the page's CSP refuses nothing
// it needs.
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
  ({ t, origin } = await startAdminApp({ NODE_ENV: 'development' }));
  w = await createAccountWithKeys(t.dbs);
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  // The network to any other origin is down: such a request is recorded and aborted.
  elsewhere = await offlineButFor(context, origin);
  page = await context.newPage();
  seen = watch(page, origin);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('offline, in Chromium', () => {
  it('the site root links the admin area, the API reference and GraphiQL', async () => {
    await page.goto(`${origin}/`);
    expect(await page.title()).toBe('Booking API');
    expect(await axeFindings(page), 'the site root').toEqual([]);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Booking API');
    for (const [name, href] of [
      ['Admin area', '/admin'],
      ['API reference', '/docs'],
      ['GraphiQL', '/graphql'],
    ]) {
      expect(await page.getByRole('link', { name, exact: true }).getAttribute('href')).toBe(href);
    }
    await page.getByRole('link', { name: 'GraphiQL', exact: true }).click();
    await page.waitForURL(`${origin}/graphql`);
  });

  it('GraphiQL renders from this app alone and runs a query with a key in its headers', async () => {
    const query = page.locator('.graphiql-query-editor .monaco-editor').first();
    // 9 MB of script on a busy machine: the editor may take a while to appear.
    await query.waitFor({ state: 'visible', timeout: 60_000 });
    // Text is inserted, not typed, so Monaco's closing of braces and quotes stays out of it.
    await replaceText(query, '{ me { name } }');
    await page.getByRole('button', { name: 'Headers', exact: true }).click();
    await replaceText(
      page.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden) .monaco-editor').first(),
      JSON.stringify({ Authorization: `Bearer ${w.testKey.key}` }),
    );
    await page.getByRole('button', { name: /^Execute query/ }).click();
    // Monaco lays the answer out with no-break spaces.
    const answer = async () => (await page.locator('.graphiql-response').textContent())?.replace(/\s+/g, ' ');
    await expect.poll(answer, { timeout: 30_000 }).toContain('"me": { "name": "Sample Hair Salon" }');
    await shot(page, 'graphiql');
    // GraphiQL's tab strip is its own markup (role=tab items holding their close buttons,
    // axe's nested-interactive); everything else on the page is checked.
    expect(await axeFindings(page, ['.graphiql-tab']), 'GraphiQL').toEqual([]);

    const scripts = await page.evaluate(() =>
      [...document.scripts].map((s) => (s.src ? new URL(s.src).pathname : 'inline')),
    );
    expect(scripts).toEqual([
      expect.stringMatching(/^\/graphiql\/assets\/[0-9a-f]{12}\/graphiql\.js$/),
      expect.stringMatching(/^\/graphiql\/assets\/[0-9a-f]{12}\/graphiql-start\.js$/),
    ]);
    expect(elsewhere).toEqual([]);
    expect(seen.foreign).toEqual([]);
    expect(seen.errors).toEqual([]);
  }, 120_000);
});

async function replaceText(editor: ReturnType<Page['locator']>, text: string): Promise<void> {
  await editor.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}
