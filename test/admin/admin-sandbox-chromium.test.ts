// The sandbox pages in a real headless Chromium (issue 6 point 6): the test companies,
// creating one from each template and a blank one, the e-mail log (list, then one e-mail with
// recipient, headers, text and the HTML body in a sandboxed frame), "Wipe test data" behind a
// confirmation that names what goes and deletes exactly that (the live company and key keep
// working, a company made meanwhile stays), restoring the samples, and resetting them behind a
// confirmation of its own.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { createApiKey } from '../../src/schema/credentials/create-api-key.js';
import { createCompany } from '../../src/schema/companies/create-company.js';
import type { TestApp } from '../helpers/app.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';
import { expectLabelled, launchChromium, shot, signIn, startAdminApp, watch } from './admin-helpers.js';

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
  it('lists the sample companies and creates test companies from each template and blank', async () => {
    expect(page.url()).toBe(`${origin}/admin/test/sandbox`);
    const names = await page.locator('table tbody tr td:first-child').allTextContents();
    expect(names).toEqual(['Sample Hair Salon', 'Sample Medical Clinic', 'Sample Fitness Center']);
    await shot(page, '10-sandbox');
    const controls = await expectLabelled(page);
    expect(controls.find((c) => c.control === 'input#f-name')).toEqual({
      control: 'input#f-name',
      name: 'Name',
      description: 'Optional with a template',
    });
    expect(controls.find((c) => c.control.startsWith('input[name=reset'))).toMatchObject({
      name: 'Also reset the existing samples to their starting data',
      description: expect.stringContaining('You confirm on the next page'),
    });
    const create = async (template: string, name: string) => {
      await page.goto(`${origin}/admin/test/sandbox`);
      await page.getByLabel('Start from').selectOption({ label: template });
      await page.getByLabel('Name', { exact: true }).fill(name);
      await page.getByRole('button', { name: 'Create company' }).click();
      await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Company created.');
      const made = await t.dbs.test.prisma.company.findFirstOrThrow({
        where: { accountId: w.account.id, name },
        include: { _count: { select: { employees: true, services: true, classSessions: true, customers: true } } },
      });
      expect(page.url()).toBe(`${origin}/admin/test/companies/${made.id}?done=created`);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain(name);
      return made;
    };
    const clinic = await create('Medical clinic template (Sample Medical Clinic)', 'Second Clinic');
    expect(clinic).toMatchObject({ mode: 'test', template: 'clinic', timezone: 'America/New_York' });
    expect(clinic._count.employees).toBe(5);
    const salon = await create('Hair salon template (Sample Hair Salon)', 'Second Salon');
    expect(salon).toMatchObject({ mode: 'test', template: 'hair_salon', timezone: 'Europe/Berlin', currency: 'EUR' });
    expect(salon._count.employees).toBe(3);
    expect(salon._count.services).toBeGreaterThan(0);
    const gym = await create('Fitness center template (Sample Fitness Center)', 'Second Gym');
    expect(gym).toMatchObject({ mode: 'test', template: 'fitness', timezone: 'Europe/London', currency: 'GBP' });
    expect(gym._count.classSessions).toBeGreaterThan(0);
    const blank = await create('Blank company', 'Blank Test Co');
    expect(blank).toMatchObject({ mode: 'test', template: null, timezone: 'UTC', currency: 'USD' });
    expect(blank._count).toEqual({ employees: 0, services: 0, classSessions: 0, customers: 0 });
  });

  it('the e-mail log lists an e-mail; opening it shows recipient, every header, text and the HTML in a sandboxed frame', async () => {
    const id = newId();
    // One logged e-mail as the sandbox e-mail worker writes it. Its HTML tries a script, a
    // remote image and a form: none may run or load.
    await t.dbs.test.prisma.email.create({
      data: {
        id,
        companyId: w.test.id,
        to: 'lea@example.com',
        from: 'Sample Hair Salon <bookings@example.com>',
        subject: 'Your booking is confirmed',
        text: 'Hello Lea,\nyour haircut is booked for Tuesday 10:00.',
        html: '<h1 style="color:#1a7f37">Booking confirmed</h1><p>Hello Lea</p><script>parent.document.title="pwned"</script><img src="https://tracker.example.com/p.gif" alt=""><form action="https://evil.example"><button>Go</button></form>',
        headers: {
          From: 'Sample Hair Salon <bookings@example.com>',
          To: 'Lea Wagner <lea@example.com>',
          Subject: 'Your booking is confirmed',
          'Message-ID': `<${id}@example.com>`,
          'X-Booking-Id': 'abc',
        },
        status: 'logged',
      },
    });
    await page.goto(`${origin}/admin/test/companies/${w.test.id}`);
    await page.getByRole('link', { name: 'E-mail log' }).click();
    const row = page.getByRole('row', { name: /lea@example\.com/ });
    expect(await row.textContent()).toContain('Your booking is confirmed');
    await shot(page, '11-email-log');
    await expectLabelled(page);
    await row.getByRole('link', { name: 'Your booking is confirmed' }).click();
    await page.waitForURL(`**/emails/${id}`);
    expect(await page.locator('#email-to').textContent()).toBe('lea@example.com');
    const headers = page.getByRole('table', { name: 'Headers' });
    for (const h of ['From', 'To', 'Subject', 'Message-ID', 'X-Booking-Id'])
      expect(await headers.getByRole('rowheader', { name: h, exact: true }).count(), h).toBe(1);
    expect(await headers.textContent()).toContain('Lea Wagner <lea@example.com>');
    expect(await page.locator('#email-text').textContent()).toBe(
      'Hello Lea,\nyour haircut is booked for Tuesday 10:00.',
    );
    const frame = page.frameLocator('iframe[title="HTML body of the e-mail"]');
    expect(await frame.getByRole('heading', { name: 'Booking confirmed' }).textContent()).toBe('Booking confirmed');
    // Styled as written (inline styles allowed in the frame), scripts not run, remote image not loaded.
    expect(await frame.getByRole('heading').evaluate((el) => getComputedStyle(el).color)).toBe('rgb(26, 127, 55)');
    expect(await page.locator('iframe').getAttribute('sandbox')).toBe('');
    expect(await page.title()).not.toBe('pwned');
    await shot(page, '12-email');
    await expectLabelled(page);
    // The remote image was refused by the frame's CSP inside the browser; Chromium may or may
    // not surface that refusal as a failed request, but no request left for the tracker.
    expect(seen.foreign).toEqual([]);
    expect(seen.blocked.every((u) => u === 'https://tracker.example.com/p.gif')).toBe(true);
    // Chromium reports exactly what it refused in the frame; nothing else went wrong.
    expect(seen.errors.some((e) => e.includes("Blocked script execution in 'about:srcdoc'"))).toBe(true);
    expect(seen.errors.some((e) => e.includes("Loading the image 'https://tracker.example.com/p.gif' violates"))).toBe(
      true,
    );
    expect(seen.errors.filter((e) => !e.includes('about:srcdoc') && !e.includes('tracker.example.com'))).toEqual([]);
    seen.errors.length = 0;
  });

  it('a forged form on another origin cannot wipe: the post carries the cookie but no token → 403', async () => {
    // Another port of 127.0.0.1 is the same *site*, so SameSite=Lax sends the session cookie:
    // only the CSRF token stops this.
    const evil = createServer((_req, res) => {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
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
      expect(await t.dbs.test.prisma.company.count({ where: { accountId: w.account.id } })).toBe(7);
    } finally {
      await evilPage.close();
      await new Promise((resolve) => evil.close(resolve));
    }
  });

  it('Wipe test data: the confirmation names each company and exactly those go; the live company, its key and a company made meanwhile stay', async () => {
    const testKeyBefore = await api(w.testKey.key);
    expect(testKeyBefore.statusCode).toBe(200);
    await page.goto(`${origin}/admin/test/sandbox`);
    await page.getByRole('link', { name: 'Wipe test data…' }).click();
    const list = await page.locator('#wipe-list li').allTextContents();
    expect(list.map((l) => l.split(':')[0])).toEqual([
      'Sample Hair Salon',
      'Sample Medical Clinic',
      'Sample Fitness Center',
      'Second Clinic',
      'Second Salon',
      'Second Gym',
      'Blank Test Co',
    ]);
    // The salon's sample visit is two bookings (docs/sandbox.md), and they go with it.
    expect(list[0]).toContain('2 bookings, 3 customers, 1 test key, 0 webhook endpoints, 1 logged e-mail,');
    expect(await page.getByRole('alert').textContent()).toContain('Live companies and live keys are not affected');
    await shot(page, '13-wipe-confirm');
    await expectLabelled(page);
    // While the confirmation is open, another test company is made (another tab, the API).
    const meanwhile = await createCompany(t.dbs, { accountId: w.account.id, mode: 'test', name: 'Made Meanwhile' });
    await page.getByRole('button', { name: 'Wipe all test data' }).click();
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toContain(
        '7 test companies and everything in them deleted. 1 test company created after the confirmation was left alone.',
      );
    await shot(page, '14-sandbox-wiped');
    expect(
      await t.dbs.test.prisma.company.findMany({ where: { accountId: w.account.id }, select: { id: true } }),
    ).toEqual([{ id: meanwhile.id }]);
    expect(await page.locator('table tbody tr td:first-child').allTextContents()).toEqual(['Made Meanwhile']);
    expect((await api(w.testKey.key)).statusCode).toBe(401);
    const live = await api(w.liveKey.key);
    expect(live.statusCode).toBe(200);
    expect(live.json().data).toMatchObject({ _id: w.live.id, name: w.live.name, mode: 'live' });
    // And the live company's pages are as before.
    await page.getByRole('switch', { name: 'Test mode' }).click();
    await page.waitForURL(`${origin}/admin/live`);
    expect(await page.getByRole('link', { name: w.live.name }).count()).toBe(1);
  });

  it('restores the missing samples; a blank company is left as it is', async () => {
    await page.goto(`${origin}/admin/test/sandbox`);
    await page.getByRole('button', { name: 'Restore samples' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('3 sample companies created');
    expect(await page.locator('table tbody tr td:first-child').allTextContents()).toEqual([
      'Made Meanwhile',
      'Sample Hair Salon',
      'Sample Medical Clinic',
      'Sample Fitness Center',
    ]);
  });

  it('restore with reset asks first, naming the samples and what goes with them; then resets exactly those', async () => {
    const samples = await t.dbs.test.prisma.company.findMany({
      where: { accountId: w.account.id, template: { not: null } },
      orderBy: { createdAt: 'asc' },
    });
    const { key } = await createApiKey(t.dbs.test.prisma, { companyId: samples[0]!.id, name: 'salon key' });
    expect((await api(key)).statusCode).toBe(200);
    await page.goto(`${origin}/admin/test/sandbox`);
    await page.getByLabel('Also reset the existing samples to their starting data').check();
    await page.getByRole('button', { name: 'Restore samples' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Reset the sample companies?');
    const list = await page.locator('#reset-list li').allTextContents();
    expect(list.map((l) => l.split(':')[0])).toEqual([
      'Sample Hair Salon',
      'Sample Medical Clinic',
      'Sample Fitness Center',
    ]);
    // Restored with its week (docs/sandbox.md): the template's 3 customers and 17 regulars.
    expect(list[0]).toContain('20 customers, 1 test key,');
    expect(await page.getByRole('alert').textContent()).toContain(
      'Blank test companies and live data are not affected',
    );
    await shot(page, '14b-reset-confirm');
    // Nothing is deleted until it is confirmed.
    expect((await api(key)).statusCode).toBe(200);
    expect(await t.dbs.test.prisma.company.count({ where: { id: { in: samples.map((c) => c.id) } } })).toBe(3);
    await page.getByRole('button', { name: 'Reset the samples' }).click();
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toContain('Samples reset: 3 sample companies deleted, 3 sample companies created with their starting data.');
    expect((await api(key)).statusCode).toBe(401);
    expect(await t.dbs.test.prisma.company.count({ where: { id: { in: samples.map((c) => c.id) } } })).toBe(0);
    expect(await page.locator('table tbody tr td:first-child').allTextContents()).toEqual([
      'Made Meanwhile',
      'Sample Hair Salon',
      'Sample Medical Clinic',
      'Sample Fitness Center',
    ]);
    expect(seen.errors).toEqual([]);
    expect(seen.foreign).toEqual([]);
  });
});
