// An owner's month in Chromium (docs/admin.md, Overview and Payments): signed in through the
// login form, the owner opens the overview from the navigation and reads the figures a person
// sees, which equal a SQL count over the same bookings; downloads the month's bookings as CSV
// through the browser's own download and parses them back; then refunds part of a payment with
// the keyboard only, through the confirmation, and sees it done. axe-core on every page, and a
// screenshot of each at 1280 and 390 px.
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { axeFindings } from '../helpers/axe.js';
import { ok } from '../helpers/domain.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { expectVisibleFocus, launchChromium, shot, signIn, startAdminApp, tabTo } from './admin-helpers.js';
import { marchBySql, ownersMonth, pct } from './owners-month.js';

let t: TestApp;
let origin: string;
let browser: Browser;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let month: Awaited<ReturnType<typeof ownersMonth>>;

beforeAll(async () => {
  ({ t, origin } = await startAdminApp());
  w = await createAccountWithKeys(t.dbs);
  month = await ownersMonth(t, w);
  browser = await launchChromium();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** axe on the page, and its screenshot at the viewport's width. */
async function check(page: Page, name: string): Promise<void> {
  expect(await axeFindings(page), name).toEqual([]);
  await shot(page, `${name}-${page.viewportSize()!.width}`);
}

describe("an owner's month in Chromium", () => {
  it('reads the overview, which equals SQL; downloads the CSV and parses it; refunds by keyboard', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    const page = await context.newPage();
    await signIn(page, origin, w.email, w.password, `/admin/test/companies/${month.companyId}`);
    await page.getByRole('navigation', { name: 'Admin sections' }).getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await check(page, 'owner-overview');

    // The figures as a person reads them, against SQL over the same rows.
    const n = await marchBySql(t, month.companyId);
    expect(n).toEqual({ total: 5, cancelled: 1, completed: 1, no_show: 1, net: 3000 });
    const figure = async (label: string) =>
      (await page.locator('ul.figures li', { hasText: label }).locator('strong').textContent())?.trim();
    expect(await figure('No-show rate')).toBe(pct(n.no_show, n.completed + n.no_show));
    expect(await figure('Cancellation rate')).toBe(pct(n.cancelled, n.total));
    expect(await figure('Revenue this month')).toMatch(/^EUR\s30\.00$/);
    // Today, per staff member.
    expect(await page.getByRole('region', { name: 'Today: Anna' }).getByRole('link').allTextContents()).toEqual([
      '09:00 Cut · Cleo Served',
      '11:00 Cut · Dag Missed',
    ]);

    // The month's bookings through the browser's download.
    await page.getByLabel('What').selectOption('bookings');
    await page.getByLabel('First day').fill('2027-03-01');
    await page.getByLabel('Last day').fill('2027-03-31');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('bookings-2027-03-01-to-2027-03-31.csv');
    const rows = parse<Record<string, string>>(readFileSync(await download.path(), 'utf8'), { columns: true });
    expect(rows).toHaveLength(n.total);
    expect(rows.filter((r) => r.status === 'cancelled')).toHaveLength(n.cancelled);
    expect(rows.filter((r) => r.status === 'no_show')).toHaveLength(n.no_show);

    // A refund with the keyboard only: Payments, the payment, the amount, the confirmation.
    await page.getByRole('navigation', { name: 'Admin sections' }).getByRole('link', { name: 'Payments' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Payments' }).waitFor();
    await check(page, 'owner-payments');
    await tabTo(page, `a[href$="/payments/${month.paymentId}"]`);
    await expectVisibleFocus(page);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: /Payment of EUR\s40\.00/ }).waitFor();
    await check(page, 'owner-payment');
    await tabTo(page, '#f-amount');
    await expectVisibleFocus(page);
    await page.keyboard.type('5');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: /Refund EUR\s5\.00\?/ }).waitFor();
    await check(page, 'owner-refund-confirm');
    await tabTo(page, 'button.danger');
    await expectVisibleFocus(page);
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Refund made.' }).waitFor();
    const api = ok(
      await t.app.inject({ method: 'GET', url: `/api/v1/payments/${month.paymentId}`, headers: month.auth }),
    );
    expect(api).toMatchObject({ amountRefunded: 1500, status: 'partially_refunded' });
    await context.close();
  }, 120_000);

  it('the overview and payment pages at 390 px: no sideways scroll, no serious axe finding', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await signIn(page, origin, w.email, w.password, `/admin/test/companies/${month.companyId}/overview`);
    for (const path of ['/overview', '/payments', `/payments/${month.paymentId}`]) {
      await page.goto(`${origin}/admin/test/companies/${month.companyId}${path}`);
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth),
        path,
      ).toBe(true);
      await check(page, `owner${path.replace(/\/[0-9a-f]{24}/, '-id').replace(/\//g, '-')}`);
    }
    await context.close();
  }, 60_000);
});
