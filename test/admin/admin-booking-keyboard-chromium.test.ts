// A booking made and cancelled in the admin area with the keyboard only (Tab, arrow keys, Space,
// Enter) in headless Chromium: every control the walk reaches shows a solid focus ring with 3:1
// against what it sits on, and each page of the flow (new booking, the booking, the cancel
// confirmation, the cancelled booking) passes axe-core with no serious or critical finding.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { axeFindings } from '../helpers/axe.js';
import { ALL_DAY, blankCompany, futureHour, post } from '../helpers/domain.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { expectVisibleFocus, launchChromium, shot, signIn, startAdminApp } from './admin-helpers.js';

let t: TestApp;
let origin: string;
let browser: Browser;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let co: Awaited<ReturnType<typeof blankCompany>>;
let service: { _id: string };

beforeAll(async () => {
  ({ t, origin } = await startAdminApp());
  w = await createAccountWithKeys(t.dbs);
  co = await blankCompany(t.dbs, w, { timezone: 'Europe/Berlin' });
  const anna = await post(t.app, '/api/v1/employees', co.auth, { name: 'Anna', workingHours: ALL_DAY });
  service = await post(t.app, '/api/v1/services', co.auth, {
    name: 'Cut',
    durationMinutes: 60,
    price: 4500,
    employeeIds: [anna._id],
  });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const focusedMatches = (page: Page, selector: string) =>
  page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector);

/** Tabs until `selector` has the focus, asserting a visible focus ring on every stop on the way. */
async function tabVisiblyTo(page: Page, selector: string, max = 80): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    await expectVisibleFocus(page);
    if (await focusedMatches(page, selector)) return;
  }
  throw new Error(`Tab never reached ${selector}`);
}

async function noAxeFindings(page: Page): Promise<void> {
  expect(await axeFindings(page), new URL(page.url()).pathname).toEqual([]);
}

describe('keyboard only', () => {
  it('makes a booking and cancels it with Tab, arrows, Space and Enter; focus always visible; axe clean', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, origin, w.email, w.password);
    const day = futureHour(3).slice(0, 10);
    const bookings = `${origin}/admin/test/companies/${co.company.id}/bookings`;
    // Where the calendar's free cell leads: the service and the day chosen.
    await page.goto(`${bookings}/new?serviceId=${service._id}&date=${day}`);
    await noAxeFindings(page);

    // The first free time, then the next one with the arrow key (a radio group is one Tab stop).
    await tabVisiblyTo(page, 'input[name=startTime]');
    const first = await page.evaluate(() => (document.activeElement as HTMLInputElement).value);
    await page.keyboard.press('ArrowRight');
    await expectVisibleFocus(page);
    const chosen = await page.evaluate(() => {
      const el = document.activeElement as HTMLInputElement;
      return el.checked ? el.value : null;
    });
    expect(chosen).not.toBeNull();
    expect(chosen).not.toBe(first);
    // A new customer (the only choice: nobody searched), then their name and e-mail.
    await tabVisiblyTo(page, 'input[name=customerId]');
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).value)).toBe('new');
    await tabVisiblyTo(page, '#f-name');
    await page.keyboard.type('Kim Keyboard');
    await tabVisiblyTo(page, '#f-email');
    await page.keyboard.type('kim@example.com');
    await tabVisiblyTo(page, '#f-notes');
    await page.keyboard.type('Booked without a mouse');
    await tabVisiblyTo(page, 'button.primary');
    await shot(page, 'booking-keyboard-1-new');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/bookings\/[0-9a-f]{24}\?done=created$/);
    expect(await page.getByRole('status').textContent()).toBe('Booking made.');
    await noAxeFindings(page);
    const id = /bookings\/([0-9a-f]{24})/.exec(page.url())![1]!;
    const made = await t.dbs.test.prisma.booking.findUniqueOrThrow({ where: { id } });
    expect(made).toMatchObject({ status: 'confirmed', notes: 'Booked without a mouse' });
    expect(made.startTime.toISOString()).toBe(chosen);

    // The booking's Cancel… link, then the confirmation page's form.
    await tabVisiblyTo(page, 'a.button.danger');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/cancel$/);
    await noAxeFindings(page);
    await tabVisiblyTo(page, '#f-reason');
    await page.keyboard.type('Customer called');
    // Who cancels: the business is checked; the arrow moves to the customer and back.
    await tabVisiblyTo(page, 'input[name=cancelledBy]');
    await page.keyboard.press('ArrowDown');
    await expectVisibleFocus(page);
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).value)).toBe('customer');
    await page.keyboard.press('ArrowUp');
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).value)).toBe('business');
    await tabVisiblyTo(page, 'input[name=waiveFee]');
    await page.keyboard.press('Space');
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).checked)).toBe(true);
    await tabVisiblyTo(page, 'button.danger');
    await shot(page, 'booking-keyboard-2-cancel');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\?done=cancelled$/);
    expect(await page.getByRole('status').textContent()).toBe('Booking cancelled.');
    await noAxeFindings(page);
    expect(await t.dbs.test.prisma.booking.findUniqueOrThrow({ where: { id } })).toMatchObject({
      status: 'cancelled',
      cancelledBy: 'business',
      cancelReason: 'Customer called',
    });
    await context.close();
  }, 120_000);
});
