// The admin area driven by a real headless Chromium over a real socket (issue 6): sign in
// with the OAuth login form, the live/test switch and company picker, the profile edit, and
// Integrations > API Keys: a test key created and shown once, used with fetch against
// /api/v1/me, revoked → 401, rolled with a grace period; OAuth apps; the bookings week view.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { post } from '../helpers/domain.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';
import {
  bookInSalon,
  expectLabelled,
  expectVisibleFocus,
  launchChromium,
  shot,
  startAdminApp,
  tabTo,
  watch,
} from './admin-helpers.js';

let t: TestApp;
let origin: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let seen: ReturnType<typeof watch>;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;

beforeAll(async () => {
  ({ t, origin } = await startAdminApp());
  w = await createAccountWithKeys(t.dbs);
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  page = await context.newPage();
  seen = watch(page, origin);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const meWith = (key: string) =>
  page.evaluate(async (k) => {
    const r = await fetch('/api/v1/me', { headers: { authorization: `Bearer ${k}` } });
    return { status: r.status, body: await r.json() };
  }, key);

describe('the admin area in Chromium', () => {
  it('signs in with the OAuth login form; a newcomer lands on the sample salon, the live company a click away', async () => {
    await page.goto(`${origin}/admin/test/sandbox`);
    await shot(page, '01-login');
    await expectLabelled(page);
    await page.getByLabel('Email').fill(w.email);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('The e-mail or password is wrong.');
    await page.getByLabel('Password').fill(w.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // `next` brings the person back to the page they asked for.
    await page.waitForURL(`${origin}/admin/test/sandbox`);
    // A newcomer whose one live company has not begun (no service, no staff) lands on the sample
    // salon in test mode; the live company is the switch away.
    await page.goto(`${origin}/admin`);
    await page.waitForURL(`${origin}/admin/test/companies/*/overview`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('Overview');
    await page.goto(`${origin}/admin/live/companies/${w.live.id}`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain(w.live.name);
    const session = (await context.cookies()).find((c) => c.name === 'svc_session')!;
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    await shot(page, '02-company-profile');
    await expectLabelled(page);
    // Keyboard: the first Tab reaches the skip link, which is visible when focused, with a focus ring.
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to content' });
    expect(await skip.evaluate((el) => el === document.activeElement)).toBe(true);
    const box = (await skip.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    // Each focus ring has at least 3:1 against what it is drawn on: the skip link's lies on the
    // dark top bar, the brand link is in it, and the first control of the content is on a white panel.
    const dark = 'rgb(17, 22, 29)';
    expect((await expectVisibleFocus(page)).backdrops).toContain(dark);
    await page.keyboard.press('Tab');
    const brand = await expectVisibleFocus(page);
    expect(brand).toMatchObject({ text: 'Booking Service', backdrops: expect.arrayContaining([dark]) });
    await tabTo(page, 'main *');
    const content = await expectVisibleFocus(page);
    expect(content).toMatchObject({ text: 'Edit profile', backdrops: expect.arrayContaining(['rgb(255, 255, 255)']) });
    expect(content.colour).not.toBe(brand.colour);
  });

  it('edits the company profile; a bad phone is shown on its field and nothing is saved', async () => {
    await page.getByRole('link', { name: 'Edit profile' }).click();
    await page.waitForURL(`**/companies/${w.live.id}/edit`);
    await shot(page, '02b-profile-edit');
    // The hint is the field's description, not part of its name.
    const phone = (await expectLabelled(page)).find((c) => c.control === 'input#f-phone');
    expect(phone).toEqual({
      control: 'input#f-phone',
      name: 'Phone',
      description: 'International format, e.g. +4930123456',
    });
    await page.getByLabel('Name', { exact: true }).fill('Acme Barbers');
    await page.getByLabel('Phone', { exact: true }).fill('not a phone');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.locator('#f-phone-error').textContent()).toBeTruthy();
    expect(await page.getByLabel('Phone', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    const invalid = (await expectLabelled(page)).find((c) => c.control === 'input#f-phone')!;
    expect(invalid.name).toBe('Phone');
    expect(invalid.description).toBe(
      `International format, e.g. +4930123456 ${(await page.locator('#f-phone-error').textContent())!.trim()}`,
    );
    expect((await t.dbs.live.prisma.company.findUnique({ where: { id: w.live.id } }))!.name).toBe(w.live.name);
    await page.getByLabel('Phone', { exact: true }).fill('+4930555000');
    await page.getByLabel('Time zone').selectOption('Europe/Paris');
    // The API version its requests get without API-Version (docs/api.md, Versions).
    expect(await page.getByLabel('API version').inputValue()).toBe('2026-11-24');
    await page.getByLabel('API version').selectOption('2026-11-23');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Profile saved.');
    expect(await t.dbs.live.prisma.company.findUnique({ where: { id: w.live.id } })).toMatchObject({
      name: 'Acme Barbers',
      phone: '+4930555000',
      timezone: 'Europe/Paris',
      apiVersion: '2026-11-23',
    });
    // The key's next request gets the pinned version: the edit dropped the cached credential.
    const me = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(w.liveKey.key) });
    expect(me.headers['api-version']).toBe('2026-11-23');
  });

  it('the live/test switch shows the sandbox companies, and the picker opens one', async () => {
    // Keyboard: focus the switch and press Space.
    await page.getByRole('switch', { name: 'Test mode' }).focus();
    await page.keyboard.press(' ');
    await page.waitForURL(`${origin}/admin/test`);
    expect(await page.getByRole('switch', { name: 'Test mode' }).getAttribute('aria-checked')).toBe('true');
    expect(await page.getByText('Test mode: you are viewing sandbox data').count()).toBe(1);
    const options = await page.getByLabel('Company', { exact: true }).locator('option').allTextContents();
    expect(options).toEqual(['Choose…', 'Sample Hair Salon', 'Sample Medical Clinic', 'Sample Fitness Center']);
    await shot(page, '03-test-companies');
    await expectLabelled(page);
    // Keyboard only: Tab to the picker, arrow down to a company, Tab to Open, Enter.
    const picker = page.getByLabel('Company', { exact: true });
    await tabTo(page, '#company-picker', 3); // skip link, brand, picker
    await expectVisibleFocus(page);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await picker.evaluate((el: HTMLSelectElement) => el.selectedOptions[0]!.textContent)).toBe(
      'Sample Medical Clinic',
    );
    await page.keyboard.press('ArrowUp');
    expect(await picker.inputValue()).toBe(w.test.id);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Open');
    await expectVisibleFocus(page);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${origin}/admin/test/companies/${w.test.id}`);
    // The banner names the sandbox company the page shows.
    expect(await page.locator('.test-banner').textContent()).toBe(
      `Test mode: you are viewing sandbox data of ${w.test.name}`,
    );
  });

  let testKey = '';
  it('Integrations > API Keys: a test key is shown once with a copy button, and it works', async () => {
    await page.getByRole('link', { name: 'API Keys' }).click();
    expect(await page.getByRole('heading', { name: 'Test Keys' }).count()).toBe(1);
    expect((await expectLabelled(page)).find((c) => c.control === 'input#f-name')).toEqual({
      control: 'input#f-name',
      name: 'Key name',
      description: 'What uses it, e.g. "Website booking widget"',
    });
    await page.getByLabel('Key name').fill('Website widget');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.locator('#new-key');
    testKey = (await shown.textContent())!.trim();
    expect(testKey).toMatch(/^svc_sk_test_/);
    expect(await page.getByRole('alert').textContent()).toContain('It will not be shown again');
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Copied' }).count()).toBe(1);
    // Said politely to screen readers too, without moving focus.
    const live = page.locator('[aria-live="polite"][data-copy-status="new-key"]');
    expect(await live.textContent()).toBe('Copied to the clipboard');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(testKey);
    await shot(page, '04-api-key-created');

    const row = page.getByRole('row', { name: /Website widget/ });
    expect(await row.textContent()).toContain(`svc_sk_test_…${testKey.slice(-4)}`);
    expect(await row.getByText('Active').count()).toBe(1);
    const lastUsed = row.getByRole('cell').nth(3);
    expect(await lastUsed.textContent()).toBe('—');
    const me = await meWith(testKey);
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ _id: w.test.id, name: 'Sample Hair Salon', mode: 'test' });
    // Reloading the list never shows the key again; once the batched last-used times are
    // written (every 15 s, here at once), "Last used" shows when the key was used.
    await t.services.credentials.flushLastUsed();
    await page.goto(page.url());
    expect(await page.content()).not.toContain(testKey);
    const used = await lastUsed.locator('time').getAttribute('datetime');
    expect(Date.now() - Date.parse(used!)).toBeLessThan(60_000);
  });

  it('revokes the key after a confirmation: /api/v1/me answers 401 at once', async () => {
    await page.getByRole('link', { name: 'Revoke Website widget' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('Revoke the key “Website widget”?');
    await shot(page, '05-revoke-confirm');
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('The key was revoked');
    expect(
      await page
        .getByRole('row', { name: /Website widget/ })
        .getByText('Revoked')
        .count(),
    ).toBe(1);
    const me = await meWith(testKey);
    expect(me.status).toBe(401);
    expect(me.body.error.code).toBe('UNAUTHORIZED');
  });

  it('rolls a key: the new one is shown once, the old one works until the chosen time or until revoked', async () => {
    const old = w.testKey.key;
    const oldLabel = `test key (…${old.slice(-4)})`;
    expect((await meWith(old)).status).toBe(200);
    await page.getByRole('link', { name: `Roll ${oldLabel}` }).click();
    await page.getByLabel('24 hours').check();
    await shot(page, '06-roll-key');
    await expectLabelled(page);
    const before = Date.now();
    await page.getByRole('button', { name: 'Roll key' }).click();
    const fresh = (await page.locator('#new-key').textContent())!.trim();
    expect(fresh).toMatch(/^svc_sk_test_/);
    expect(await page.getByRole('alert').textContent()).toContain('The old key keeps working until');
    expect((await meWith(fresh)).status).toBe(200);
    expect((await meWith(old)).status).toBe(200);
    const row = await t.dbs.test.prisma.apiKey.findUnique({ where: { id: w.testKey.apiKey.id } });
    expect(row!.expiresAt!.getTime()).toBeGreaterThanOrEqual(before + 24 * 3600_000 - 1000);
    expect(row!.expiresAt!.getTime()).toBeLessThanOrEqual(Date.now() + 24 * 3600_000 + 1000);

    // In its grace period the old key is not offered Roll again (its successor is in the
    // list), only Revoke (stop it now) and Delete; its roll URL is refused.
    const oldRow = page.getByRole('row', { name: new RegExp(`…${old.slice(-4)}`) });
    expect(await oldRow.getByText('Expires').count()).toBe(1);
    expect(await oldRow.getByRole('link').allTextContents()).toEqual(['Revoke', 'Delete']);
    expect(
      await page
        .getByRole('row', { name: new RegExp(`…${fresh.slice(-4)}`) })
        .getByRole('link')
        .allTextContents(),
    ).toEqual(['Roll', 'Revoke', 'Delete']);
    const again = await page.goto(`${origin}/admin/test/companies/${w.test.id}/api-keys/${w.testKey.apiKey.id}/roll`);
    expect(again!.status()).toBe(409);
    expect(await page.getByRole('alert').textContent()).toContain('rolled already');
    await page.getByRole('link', { name: 'Back to the keys' }).click();

    // Revoking it stops it at once, before its grace period ends.
    await page.getByRole('link', { name: `Revoke ${oldLabel}` }).click();
    expect(await page.getByRole('main').textContent()).toContain('revoking it stops it now');
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('The key was revoked');
    expect((await meWith(old)).status).toBe(401);
    expect((await meWith(fresh)).status).toBe(200);
  });

  it('a rolled key whose grace period has ended shows "Expired" and offers only Delete', async () => {
    const fresh = await t.dbs.test.prisma.apiKey.findFirstOrThrow({
      where: { companyId: w.test.id, name: 'test key', revokedAt: null },
    });
    await page.getByRole('link', { name: `Roll test key (…${fresh.last4})` }).click();
    await page.getByLabel('1 hour').check();
    await page.getByRole('button', { name: 'Roll key' }).click();
    const newest = (await page.locator('#new-key').textContent())!.trim();
    // The hour passes: the grace period ended a minute ago.
    await t.dbs.test.prisma.apiKey.update({
      where: { id: fresh.id },
      data: { expiresAt: new Date(Date.now() - 60_000) },
    });
    await page.goto(`${origin}/admin/test/companies/${w.test.id}/api-keys`);
    const row = page.getByRole('row', { name: new RegExp(`…${fresh.last4}`) });
    expect(await row.getByText('Expired').count()).toBe(1);
    expect(await row.getByRole('link').allTextContents()).toEqual(['Delete']);
    expect(
      await page
        .getByRole('row', { name: new RegExp(`…${newest.slice(-4)}`) })
        .getByText('Active')
        .count(),
    ).toBe(1);
    expect((await meWith(newest)).status).toBe(200);
  });

  it('deletes a key after a confirmation; it disappears from the list', async () => {
    const rows = await page.getByRole('row', { name: /Website widget/ }).count();
    await page.getByRole('link', { name: 'Delete Website widget' }).click();
    await page.getByRole('button', { name: 'Delete key' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('The key was deleted.');
    expect(await page.getByRole('row', { name: /Website widget/ }).count()).toBe(rows - 1);
  });

  it('OAuth apps: register a confidential app (secret shown once) and a public one (no secret), list, delete', async () => {
    // Opened from a test company: the page stays in test mode (switch, banner, side navigation).
    await page.getByRole('link', { name: 'OAuth apps' }).click();
    await page.waitForURL(`${origin}/admin/oauth-apps?mode=test`);
    const inTestMode = async () => {
      expect(await page.getByRole('switch', { name: 'Test mode' }).getAttribute('aria-checked')).toBe('true');
      expect(await page.getByText('Test mode: you are viewing sandbox data').count()).toBe(1);
      expect(
        await page.getByRole('navigation', { name: 'Admin sections' }).getByRole('link', { name: 'Sandbox' }).count(),
      ).toBe(1);
    };
    await inTestMode();
    await page.getByLabel('App name').fill('Partner CRM');
    await page.getByLabel('Redirect URIs').fill('https://crm.example.com/callback\nhttp://127.0.0.1:8123/cb');
    // A new app starts with no scope ticked: the developer ticks what the app needs.
    const boxes = page.getByRole('checkbox', { name: /^[a-z]+:(read|write)\b/ });
    expect(await boxes.count()).toBeGreaterThan(10);
    for (const box of await boxes.all()) expect(await box.isChecked()).toBe(false);
    await page.getByRole('checkbox', { name: /bookings:read/ }).check();
    await page.getByRole('checkbox', { name: /bookings:write/ }).check();
    await shot(page, '07-oauth-apps');
    await page.getByRole('button', { name: 'Register app' }).click();
    const secret = (await page.locator('#client-secret').textContent())!.trim();
    const clientId = (await page.locator('#client-id').textContent())!.trim();
    expect(secret).toMatch(/^svc_cs_/);
    await inTestMode();
    const client = await t.dbs.live.prisma.oAuthClient.findUnique({ where: { clientId } });
    expect(client).toMatchObject({
      accountId: w.account.id,
      name: 'Partner CRM',
      type: 'confidential',
      redirectUris: ['https://crm.example.com/callback', 'http://127.0.0.1:8123/cb'],
    });
    expect(client!.scopes).toEqual(['bookings:read', 'bookings:write']);
    expect(await page.getByRole('row', { name: /Partner CRM/ }).count()).toBe(1);

    // A public app (PKCE, no secret): its client id is shown, and no secret exists to show.
    await page.getByLabel('App name').fill('Phone App');
    await page.getByLabel('Redirect URIs').fill('http://127.0.0.1:9000/callback');
    await page.getByRole('radio', { name: /^Public/ }).check();
    await page.getByRole('checkbox', { name: /company:read/ }).check();
    await page.getByRole('button', { name: 'Register app' }).click();
    const publicId = (await page.locator('#client-id').textContent())!.trim();
    expect(await page.locator('#client-secret').count()).toBe(0);
    expect(await page.getByText('It will not be shown again').count()).toBe(0);
    expect(await t.dbs.live.prisma.oAuthClient.findUnique({ where: { clientId: publicId } })).toMatchObject({
      name: 'Phone App',
      type: 'public',
      secretHash: null,
    });
    expect(
      await page
        .getByRole('row', { name: /Phone App/ })
        .getByRole('cell', { name: 'public', exact: true })
        .count(),
    ).toBe(1);

    // A bad redirect URI is named next to its field and nothing is registered.
    await page.getByLabel('App name').fill('Broken');
    await page.getByLabel('Redirect URIs').fill('http://evil.example.com/cb');
    await page.getByRole('button', { name: 'Register app' }).click();
    await expect.poll(() => page.locator('#f-redirect-error').textContent()).toBeTruthy();
    const redirect = (await expectLabelled(page)).find((c) => c.control === 'textarea#f-redirect')!;
    expect(redirect.name).toBe('Redirect URIs');
    expect(redirect.description).toMatch(/^One per line; matched exactly\. .+ \S+/);
    expect(await t.dbs.live.prisma.oAuthClient.count({ where: { accountId: w.account.id } })).toBe(2);
    await inTestMode();

    await page.goto(`${origin}/admin/oauth-apps?mode=test`);
    for (const name of ['Partner CRM', 'Phone App']) {
      await page.getByRole('link', { name: `Delete ${name}` }).click();
      await inTestMode();
      await page.getByRole('button', { name: 'Delete app' }).click();
      await expect.poll(() => page.getByRole('status').first().textContent()).toContain('The app was deleted');
      expect(page.url()).toBe(`${origin}/admin/oauth-apps?done=deleted&mode=test`);
    }
    expect(await t.dbs.live.prisma.oAuthClient.count({ where: { accountId: w.account.id } })).toBe(0);

    // A page that does not exist keeps the mode too, and the switch on OAuth apps stays there.
    const missing = await page.goto(`${origin}/admin/oauth-apps/${w.live.id}/delete?mode=test`);
    expect(missing!.status()).toBe(404);
    await inTestMode();
    expect((await page.goto(`${origin}/admin/test/nowhere`))!.status()).toBe(404);
    await inTestMode();
    expect(await page.getByRole('link', { name: 'Back to the admin area' }).getAttribute('href')).toBe('/admin/test');
    await page.goto(`${origin}/admin/oauth-apps?mode=test`);
    await page.getByRole('switch', { name: 'Test mode' }).click();
    await page.waitForURL(`${origin}/admin/oauth-apps`);
    expect(await page.getByRole('switch', { name: 'Test mode' }).getAttribute('aria-checked')).toBe('false');
    expect(await page.getByText('Test mode: you are viewing sandbox data').count()).toBe(0);
  });

  it('bookings: the calendar week of an employee with status colours, and a booking with its events', async () => {
    const fresh = await t.dbs.test.prisma.apiKey.findFirst({
      where: { companyId: w.test.id, revokedAt: null, expiresAt: null },
    });
    expect(fresh).toBeTruthy();
    const { createApiKey } = await import('../../src/schema/credentials/create-api-key.js');
    const { key } = await createApiKey(t.dbs.test.prisma, { companyId: w.test.id, name: 'booking maker' });
    const made = await bookInSalon(t, key);
    const [first, second] = [made[0]!, made[1]!];
    // The second is cancelled through the API: it is shown red and struck through.
    expect(
      (
        await post(t.app, `/api/v1/bookings/${second._id}/cancel`, bearer(key), {
          reason: 'Customer called',
          cancelledBy: 'customer',
        })
      ).status,
    ).toBe('cancelled');
    // Its page says who cancelled and what it cost (no policy on this service: nothing).
    await page.goto(`${origin}/admin/test/companies/${w.test.id}/bookings/${second._id}`);
    const fields = await page.locator('dl.fields').innerText();
    expect(fields).toMatch(/Cancelled by\s+The customer/);
    expect(fields).toMatch(/Cancellation fee\s+EUR\s0\.00/);
    expect(fields).toMatch(/Cancel reason\s+Customer called/);
    // The calendar's week of the booking's employee (the phone's agenda, hidden here, repeats it).
    const weekOf = (b: { startTime: string; employeeId: string }) =>
      `${origin}/admin/test/companies/${w.test.id}/calendar?view=week&date=${b.startTime.slice(0, 10)}&employee=${b.employeeId}`;
    await page.goto(weekOf(second));
    const cancelled = page.locator(`.cal-grid a.booking[href$="/bookings/${second._id}"]`);
    expect(await cancelled.getAttribute('class')).toBe('booking cancelled');
    expect(
      await cancelled.evaluate((el) => [getComputedStyle(el).borderLeftColor, getComputedStyle(el).textDecorationLine]),
    ).toEqual(['rgb(180, 35, 24)', 'line-through']);
    expect(await cancelled.textContent()).toContain('Cancelled');
    await page.goto(weekOf(first));
    const link = page.locator(`.cal-grid a.booking[href$="/bookings/${first._id}"]`);
    expect(await link.count()).toBe(1);
    expect(await link.getAttribute('class')).toBe(`booking ${first.status}`);
    const colour = await link.evaluate((el) => getComputedStyle(el).borderLeftColor);
    expect(colour).toBe('rgb(22, 108, 48)'); // confirmed: green
    await shot(page, '08-bookings-week');
    await expectLabelled(page);
    await link.click();
    await page.waitForURL(`**/bookings/${first._id}`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('Confirmed');
    expect(await page.getByRole('row', { name: /booking\.created/ }).count()).toBe(1);
    await shot(page, '09-booking-detail');
  });

  it('signs out: admin pages show the login form again and the old session cookie opens nothing', async () => {
    const old = (await context.cookies()).find((c) => c.name === 'svc_session')!;
    await page.goto(`${origin}/admin/test/companies/${w.test.id}`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${origin}/admin/login`);
    expect(await page.getByRole('button', { name: 'Sign in' }).count()).toBe(1);
    expect((await context.cookies()).some((c) => c.name === 'svc_session' && c.value === old.value)).toBe(false);
    const keys = `/admin/test/companies/${w.test.id}/api-keys`;
    await page.goto(`${origin}${keys}`);
    expect(page.url()).toBe(`${origin}/admin/login?next=${encodeURIComponent(keys)}`);
    expect(await page.getByLabel('Email').count()).toBe(1);
    expect(await page.getByLabel('Password').count()).toBe(1);
    // The old cookie, put back (kept by someone), is refused: the session is gone on the server.
    await context.addCookies([
      { name: old.name, value: old.value, domain: old.domain, path: old.path, httpOnly: true, sameSite: 'Lax' },
    ]);
    await page.goto(`${origin}${keys}`);
    expect(page.url()).toBe(`${origin}/admin/login?next=${encodeURIComponent(keys)}`);
    expect(await page.content()).not.toContain('Website widget');
    const direct = await t.app.inject({ method: 'GET', url: keys, cookies: { svc_session: old.value } });
    expect(direct.statusCode).toBe(303);
    expect(direct.headers.location).toBe(`/admin/login?next=${encodeURIComponent(keys)}`);
  });

  it('loaded nothing from outside the app and raised no script or CSP errors', () => {
    expect(seen.foreign).toEqual([]);
    expect(seen.errors).toEqual([]);
  });
});
