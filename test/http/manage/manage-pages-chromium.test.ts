// The customer's manage pages in a real headless Chromium (docs/manage-links.md), offline but
// for this app: cancel with the fee shown before confirming, reschedule by picking a slot,
// a tampered and a revoked link as the 404 page, every page state at 390 px wide without a
// horizontal scroll, keyboard-only use, the time in the browser's own zone, and axe-core with
// no serious or critical finding on any page state.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkers, type Workers } from '../../../src/workers/runtime.js';
import type { TestApp } from '../../helpers/app.js';
import { axeFindings } from '../../helpers/axe.js';
import { createAccountWithKeys } from '../../helpers/factories.js';
import { blankCompany, futureHour, ok, post, salon, type World } from '../../helpers/domain.js';
import { FAST_WORKERS, waitFor } from '../../helpers/receiver.js';
import { launchChromium, offlineButFor, startAdminApp, watch } from '../../admin/admin-helpers.js';

let t: TestApp;
let origin: string;
let workers: Workers;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let seen: ReturnType<typeof watch>;
let w: World;
let c: Awaited<ReturnType<typeof blankCompany>>;
let day = 2;
let elsewhere: string[];

beforeAll(async () => {
  ({ t, origin } = await startAdminApp({ ...FAST_WORKERS }));
  workers = await startWorkers(t.services);
  w = await createAccountWithKeys(t.dbs);
  c = await blankCompany(t.dbs, w, { timezone: 'Europe/Berlin' });
  browser = await launchChromium();
  // A phone: 390 px wide, in a zone other than the company's.
  context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    timezoneId: 'America/New_York',
    locale: 'en-US',
  });
  // The network to any other origin is down: such a request is recorded and aborted.
  elsewhere = await offlineButFor(context, origin);
  page = await context.newPage();
  seen = watch(page, origin);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await workers?.stop();
  await t?.close();
});

const card = { number: '4242424242424242', expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvc: '123' };

async function book(serviceId: string) {
  return post(t.app, '/api/v1/bookings', c.auth, {
    serviceId,
    startTime: futureHour(day++),
    customer: { name: 'Ann', email: 'ann@example.com' },
  });
}
const local = (b: { manageUrl: string }) => `${origin}${new URL(b.manageUrl).pathname}`;

/** The page at 390 px: no horizontal scroll, no serious axe finding, no script error, nothing elsewhere. */
async function checkPage(what: string) {
  const widths = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  expect(widths.scroll, `${what}: horizontal scroll at 390 px`).toBeLessThanOrEqual(widths.client);
  expect(await axeFindings(page), what).toEqual([]);
  expect(seen.errors, what).toEqual([]);
  expect(seen.foreign, what).toEqual([]);
  expect(elsewhere, what).toEqual([]);
}

describe('manage pages in Chromium at 390 px', () => {
  it('cancel: the fee and refund are shown before confirming, and the cancel keeps that fee', async () => {
    const { service } = await salon(t.app, c.auth, {
      requiresPayment: true,
      price: 4500,
      // Always past the free period: the late fee (50 %) applies.
      cancellationPolicy: { freeUntilMinutesBefore: 525_600, lateFee: { percent: 50 } },
    });
    const b = await book(service._id);
    const payment = await post(t.app, '/api/v1/payments', c.auth, { bookingId: b._id, card });
    await waitFor(
      async () =>
        (await t.dbs.test.prisma.booking.findUniqueOrThrow({ where: { id: b._id } })).status === 'confirmed'
          ? true
          : null,
      { what: 'the payment to confirm the booking' },
    );
    await page.goto(local(b));
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Your booking');
    // The browser's own zone, written by the page's script with Intl.
    await expect.poll(() => page.locator('[data-local]').isVisible()).toBe(true);
    expect(await page.locator('[data-out]').textContent()).toContain('America/New_York');
    await checkPage('booking page');

    // Keyboard only: Tab to the cancel link and follow it.
    await page.locator('body').focus();
    for (let i = 0; i < 10; i++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate(() => document.activeElement?.textContent)) === 'Cancel booking') break;
    }
    await page.keyboard.press('Enter');
    await page.waitForURL(`${local(b)}/cancel`);
    const fee = page.getByRole('row', { name: /Cancellation fee/ });
    expect(await fee.textContent()).toContain('€22.50');
    expect(await page.getByRole('row', { name: /Refund/ }).textContent()).toContain('€22.50');
    await page.getByLabel('Reason (optional)').fill('Moving away');
    await checkPage('cancel confirmation');
    await page.getByRole('button', { name: 'Cancel booking and pay €22.50' }).click();
    await page.waitForURL(`${local(b)}?done=cancelled`);
    expect(await page.getByRole('status').textContent()).toBe('Your booking is cancelled.');
    // The message has the focus, so a screen reader reads it first.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('status');
    await checkPage('cancelled booking');
    const after = await t.dbs.test.prisma.booking.findUniqueOrThrow({ where: { id: b._id } });
    expect(after).toMatchObject({
      status: 'cancelled',
      cancelledBy: 'customer',
      cancellationFee: 2250,
      cancelReason: 'Moving away',
    });
    await waitFor(
      async () => {
        const p = await t.dbs.test.prisma.payment.findUniqueOrThrow({ where: { id: payment._id } });
        return p.amountRefunded === 2250 ? p : null;
      },
      { what: 'the partial refund' },
    );
  }, 90_000);

  it('reschedule: pick a slot on a later page of days, move, and see the new time', async () => {
    const { service } = await salon(t.app, c.auth);
    const b = await book(service._id);
    await page.goto(local(b));
    await page.getByRole('link', { name: 'Reschedule' }).click();
    await page.waitForURL(`${local(b)}/reschedule`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Choose a new time');
    await checkPage('reschedule picker');
    await page.getByRole('link', { name: 'Later days →' }).click();
    await page.waitForURL(/\/reschedule\?from=\d{4}-\d{2}-\d{2}$/);
    await checkPage('reschedule picker, later days');
    const group = page.getByRole('group').first();
    const legend = await group.locator('legend').textContent();
    // Keyboard: the radio is reached and chosen by its label.
    await group.getByLabel('14:00').check();
    const chosen = await group.getByLabel('14:00').getAttribute('value');
    await page.getByRole('button', { name: 'Move my booking' }).click();
    await page.waitForURL(`${local(b)}?done=rescheduled`);
    expect(await page.getByRole('status').textContent()).toBe('Your booking has moved to the new time.');
    expect(await page.locator('dd').nth(2).textContent()).toContain(`${legend}`.split(' ').slice(1).join(' '));
    expect(await page.locator('dd').nth(2).textContent()).toContain('14:00–15:00');
    await checkPage('rescheduled booking');
    const after = await t.dbs.test.prisma.booking.findUniqueOrThrow({ where: { id: b._id } });
    expect(after.startTime.toISOString()).toBe(chosen);
  }, 90_000);

  it('a taken slot: the picker again with the message focused', async () => {
    const { service } = await salon(t.app, c.auth);
    const b = await book(service._id);
    await page.goto(`${local(b)}/reschedule`);
    const radio = page.getByRole('group').nth(1).getByLabel('10:00');
    const value = (await radio.getAttribute('value'))!;
    // Someone else books that time while the page is open.
    await post(t.app, '/api/v1/bookings', c.auth, {
      serviceId: service._id,
      startTime: value,
      customer: { name: 'Bo', email: 'bo@example.com' },
    });
    await radio.check();
    await page.getByRole('button', { name: 'Move my booking' }).click();
    await page.waitForLoadState();
    expect(await page.getByRole('alert').textContent()).toBe(
      'That time is no longer free. Please choose another time.',
    );
    expect(await page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('alert');
    await checkPage('reschedule refused');
  }, 60_000);

  it('a tampered link and a link revoked by rotate are the 404 page', async () => {
    const { service } = await salon(t.app, c.auth);
    const b = await book(service._id);
    const url = local(b);
    const tampered = url.slice(0, -3) + (url.endsWith('AAA') ? 'BBB' : 'AAA');
    const res = await page.goto(tampered);
    expect(res!.status()).toBe(404);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Link not found');
    const notFound = await page.content();
    await checkPage('404 page');
    ok(await t.app.inject({ method: 'POST', url: `/api/v1/bookings/${b._id}/manage-link/rotate`, headers: c.auth }));
    const revoked = await page.goto(url);
    expect(revoked!.status()).toBe(404);
    expect(await page.content()).toBe(notFound);
  });

  it('a started booking: read-only, and says so', async () => {
    const { service } = await salon(t.app, c.auth);
    const b = await book(service._id);
    const start = Date.now() - 5 * 60_000;
    await t.dbs.test.prisma.booking.update({
      where: { id: b._id },
      data: {
        startTime: new Date(start),
        endTime: new Date(start + 3600_000),
        blockStart: new Date(start),
        blockEnd: new Date(start + 3600_000),
      },
    });
    await page.goto(local(b));
    expect(await page.getByText('This booking has started, so it can no longer be changed online.').count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Cancel booking' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Reschedule' }).count()).toBe(0);
    await checkPage('started booking');
  });
});
