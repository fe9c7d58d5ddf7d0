// The sandbox pages in a real headless Chromium (issue 6 point 6): the test companies,
// creating one from a template, restoring the samples, the e-mail log (list, then one e-mail
// with recipient, headers, text and the HTML body in a sandboxed frame), and "Wipe test data"
// behind a confirmation that names what goes, leaving the live company and live key working.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import type { TestApp } from '../helpers/app.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';
import { launchChromium, shot, signIn, startAdminApp, watch } from './admin-helpers.js';

let t: TestApp;
let origin: string;
let browser: Browser;
let page: Page;
let seen: ReturnType<typeof watch>;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;

beforeAll(async () => {
  ({ t, origin } = await startAdminApp());
  w = await createAccountWithKeys(t.dbs);
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
  seen = watch(page, origin);
  await signIn(page, origin, w.email, w.password, '/admin/test/sandbox');
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const api = (key: string) => t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(key) });

describe('the sandbox in Chromium', () => {
  it('lists the sample companies and creates a test company from the clinic template', async () => {
    expect(page.url()).toBe(`${origin}/admin/test/sandbox`);
    const names = await page.locator('table tbody tr td:first-child').allTextContents();
    expect(names).toEqual(['Sample Hair Salon', 'Sample Medical Clinic', 'Sample Fitness Center']);
    await shot(page, '10-sandbox');
    await page.getByLabel('Start from').selectOption({ label: 'Medical clinic template (Sample Medical Clinic)' });
    await page.getByLabel(/^Name/).fill('Second Clinic');
    await page.getByRole('button', { name: 'Create company' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Company created.');
    const made = await t.dbs.test.prisma.company.findFirst({ where: { accountId: w.account.id, name: 'Second Clinic' }, include: { employees: true } });
    expect(made).toMatchObject({ mode: 'test', template: 'clinic', timezone: 'America/New_York' });
    expect(made!.employees).toHaveLength(5);
    expect(page.url()).toBe(`${origin}/admin/test/companies/${made!.id}?done=created`);
  });

  it('the e-mail log lists an e-mail; opening it shows recipient, every header, text and the HTML in a sandboxed frame', async () => {
    const id = newId();
    // One logged e-mail as the sandbox e-mail worker writes it. Its HTML tries a script, a
    // remote image and a form: none may run or load.
    await t.dbs.test.prisma.email.create({
      data: {
        id, companyId: w.test.id, to: 'lea@example.com', from: 'Sample Hair Salon <bookings@example.com>',
        subject: 'Your booking is confirmed',
        text: 'Hello Lea,\nyour haircut is booked for Tuesday 10:00.',
        html: '<h1 style="color:#1a7f37">Booking confirmed</h1><p>Hello Lea</p><script>parent.document.title="pwned"</script><img src="https://tracker.example.com/p.gif" alt=""><form action="https://evil.example"><button>Go</button></form>',
        headers: { From: 'Sample Hair Salon <bookings@example.com>', To: 'Lea Wagner <lea@example.com>', Subject: 'Your booking is confirmed', 'Message-ID': `<${id}@example.com>`, 'X-Booking-Id': 'abc' },
        status: 'logged',
      },
    });
    await page.goto(`${origin}/admin/test/companies/${w.test.id}`);
    await page.getByRole('link', { name: 'E-mail log' }).click();
    const row = page.getByRole('row', { name: /lea@example\.com/ });
    expect(await row.textContent()).toContain('Your booking is confirmed');
    await shot(page, '11-email-log');
    await row.getByRole('link', { name: 'Your booking is confirmed' }).click();
    await page.waitForURL(`**/emails/${id}`);
    expect(await page.locator('#email-to').textContent()).toBe('lea@example.com');
    const headers = page.getByRole('table', { name: 'Headers' });
    for (const h of ['From', 'To', 'Subject', 'Message-ID', 'X-Booking-Id']) expect(await headers.getByRole('rowheader', { name: h, exact: true }).count(), h).toBe(1);
    expect(await headers.textContent()).toContain('Lea Wagner <lea@example.com>');
    expect(await page.locator('#email-text').textContent()).toBe('Hello Lea,\nyour haircut is booked for Tuesday 10:00.');
    const frame = page.frameLocator('iframe[title="HTML body of the e-mail"]');
    expect(await frame.getByRole('heading', { name: 'Booking confirmed' }).textContent()).toBe('Booking confirmed');
    // Styled as written (inline styles allowed in the frame), scripts not run, remote image not loaded.
    expect(await frame.getByRole('heading').evaluate((el) => getComputedStyle(el).color)).toBe('rgb(26, 127, 55)');
    expect(await page.locator('iframe').getAttribute('sandbox')).toBe('');
    expect(await page.title()).not.toBe('pwned');
    await shot(page, '12-email');
    expect(seen.foreign).toEqual([]);
    // Chromium reports exactly what it refused in the frame; nothing else went wrong.
    expect(seen.errors.some((e) => e.includes("Blocked script execution in 'about:srcdoc'"))).toBe(true);
    expect(seen.errors.some((e) => e.includes("Loading the image 'https://tracker.example.com/p.gif' violates"))).toBe(true);
    expect(seen.errors.filter((e) => !e.includes('about:srcdoc') && !e.includes('tracker.example.com'))).toEqual([]);
    seen.errors.length = 0;
  });

  it('a forged form on another origin cannot wipe: the post carries the cookie but no token → 403', async () => {
    // Another port of 127.0.0.1 is the same *site*, so SameSite=Lax sends the session cookie:
    // only the CSRF token stops this.
    const evil = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(
        `<title>Win a prize</title><form id="f" method="post" action="${origin}/admin/test/sandbox/wipe"><input name="csrf_token" value="guess"></form><script>document.getElementById('f').submit()</script>`,
      );
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    const evilPage = await page.context().newPage();
    try {
      const answered = evilPage.waitForResponse((r) => r.url() === `${origin}/admin/test/sandbox/wipe`);
      await evilPage.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
      const res = await answered;
      expect(res.status()).toBe(403);
      expect(await res.request().headerValue('cookie')).toContain('svc_session=');
      expect(await t.dbs.test.prisma.company.count({ where: { accountId: w.account.id } })).toBe(4);
    } finally {
      await evilPage.close();
      await new Promise((resolve) => evil.close(resolve));
    }
  });

  it('Wipe test data: the confirmation names each company; after it the live company and key still work', async () => {
    const testKeyBefore = await api(w.testKey.key);
    expect(testKeyBefore.statusCode).toBe(200);
    await page.goto(`${origin}/admin/test/sandbox`);
    await page.getByRole('link', { name: 'Wipe test data…' }).click();
    const list = await page.locator('#wipe-list li').allTextContents();
    expect(list.map((l) => l.split(':')[0])).toEqual(['Sample Hair Salon', 'Sample Medical Clinic', 'Sample Fitness Center', 'Second Clinic']);
    expect(list[0]).toContain('0 bookings, 3 customers, 1 test key, 0 webhook endpoints, 1 logged e-mail,');
    expect(await page.getByRole('alert').textContent()).toContain('Live companies and live keys are not affected');
    await shot(page, '13-wipe-confirm');
    await page.getByRole('button', { name: 'Wipe all test data' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('4 test companies and everything in them deleted');
    await shot(page, '14-sandbox-wiped');
    expect(await t.dbs.test.prisma.company.count({ where: { accountId: w.account.id } })).toBe(0);
    expect((await api(w.testKey.key)).statusCode).toBe(401);
    const live = await api(w.liveKey.key);
    expect(live.statusCode).toBe(200);
    expect(live.json().data).toMatchObject({ _id: w.live.id, name: w.live.name, mode: 'live' });
    // And the live company's pages are as before.
    await page.getByRole('switch', { name: 'Test mode' }).click();
    await page.waitForURL(`${origin}/admin/live`);
    expect(await page.getByRole('link', { name: w.live.name }).count()).toBe(1);
  });

  it('restores the samples', async () => {
    await page.goto(`${origin}/admin/test/sandbox`);
    await page.getByRole('button', { name: 'Restore samples' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('3 sample companies created');
    expect(await page.locator('table tbody tr td:first-child').allTextContents()).toEqual(['Sample Hair Salon', 'Sample Medical Clinic', 'Sample Fitness Center']);
    expect(seen.errors).toEqual([]);
  });
});
