// Markup stored through the ordinary ways in (the admin forms, the public API, the e-mail log
// as the sandbox worker writes it) is shown by every admin page as text, in a real headless
// Chromium: no element is made from it (no <img>, no <script>, no event-handler attribute, no
// attribute broken out of), no dialog opens, and Chromium reports no refused script. The CSP
// would stop an injected script from running anyway; these checks make sure nothing is
// injected in the first place, so escaping is not left to the CSP.
import { DateTime } from 'luxon';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { createApiKey } from '../../src/schema/credentials/create-api-key.js';
import type { TestApp } from '../helpers/app.js';
import { ok, post } from '../helpers/domain.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';
import { launchChromium, signIn, startAdminApp, watch } from './admin-helpers.js';

const MARK = `<img src=x onerror=alert(1)>"><script>alert(2)</script>`;

let t: TestApp;
let origin: string;
let browser: Browser;
let page: Page;
let seen: ReturnType<typeof watch>;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
const dialogs: string[] = [];

beforeAll(async () => {
  ({ t, origin } = await startAdminApp());
  w = await createAccountWithKeys(t.dbs);
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
  seen = watch(page, origin);
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await signIn(page, origin, w.email, w.password, `/admin/test/companies/${w.test.id}/edit`);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** The page shows MARK as text and made nothing of it. */
async function expectText(where: string, opts: { inTitle?: boolean } = {}): Promise<void> {
  const dom = await page.evaluate(() => ({
    imgs: document.querySelectorAll('img').length,
    scripts: [...document.scripts].map((s) => (s.src ? new URL(s.src).pathname : 'inline')),
    handlers: [...document.querySelectorAll('*')].filter((el) =>
      [...el.attributes].some((a) => a.name.startsWith('on')),
    ).length,
    text: document.body.innerText,
    title: document.title,
  }));
  expect(dom.imgs, where).toBe(0);
  expect(dom.handlers, where).toBe(0);
  expect(dom.scripts, where).toEqual([expect.stringMatching(/^\/admin\/assets\/[0-9a-f]+\/admin\.js$/)]);
  expect(dom.text, where).toContain(MARK);
  if (opts.inTitle) expect(dom.title, where).toContain(MARK);
  expect(dialogs, where).toEqual([]);
}

describe('stored markup in Chromium', () => {
  it('a company name saved through the profile form', async () => {
    await page.getByLabel('Name', { exact: true }).fill(MARK);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Profile saved.');
    expect((await t.dbs.test.prisma.company.findUnique({ where: { id: w.test.id } }))!.name).toBe(MARK);
    await expectText('profile', { inTitle: true });
    // The company picker shows it as an option's text.
    expect(
      await page.getByLabel('Company', { exact: true }).locator(`option[value="${w.test.id}"]`).textContent(),
    ).toBe(MARK);
    for (const path of ['/admin/test', '/admin/test/sandbox', '/admin/test/sandbox/wipe']) {
      await page.goto(`${origin}${path}`);
      await expectText(path);
    }
  });

  it('an API key name, also inside the links’ aria-labels', async () => {
    await page.goto(`${origin}/admin/test/companies/${w.test.id}/api-keys`);
    await page.getByLabel('Key name').fill(MARK);
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#new-key').waitFor();
    await page.goto(page.url());
    await expectText('api keys');
    expect(await page.getByRole('link', { name: `Revoke ${MARK} (…`, exact: false }).count()).toBe(1);
  });

  it('a customer name and booking notes sent through the API', async () => {
    const { key } = await createApiKey(t.dbs.test.prisma, { companyId: w.test.id, name: 'xss' });
    const auth = bearer(key);
    const customer = await post(t.app, '/api/v1/customers', auth, { name: MARK, email: `xss-${newId()}@example.com` });
    expect(customer.name).toBe(MARK);
    const services = ok(await t.app.inject({ method: 'GET', url: '/api/v1/services', headers: auth }));
    const cut = services.find(
      (s: { requiresPayment: boolean; kind: string }) => !s.requiresPayment && s.kind === 'appointment',
    );
    const from = DateTime.utc().plus({ days: 1 }).startOf('hour');
    const { slots } = ok(
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/availability?serviceId=${cut._id}&from=${encodeURIComponent(from.toISO())}&to=${encodeURIComponent(from.plus({ days: 7 }).toISO())}`,
        headers: auth,
      }),
    );
    const booking = await post(t.app, '/api/v1/bookings', auth, {
      serviceId: cut._id,
      startTime: slots[0].startTime,
      customerId: customer._id,
      notes: MARK,
    });
    await page.goto(`${origin}/admin/test/companies/${w.test.id}/bookings?week=${booking.startTime.slice(0, 10)}`);
    await expectText('week view');
    await page.goto(`${origin}/admin/test/companies/${w.test.id}/bookings/${booking._id}`);
    await expectText('booking detail');
    expect(await page.getByRole('main').textContent()).toContain(`${MARK} <xss-`);
  });

  it('a webhook endpoint description saved through the form', async () => {
    await page.goto(`${origin}/admin/test/companies/${w.test.id}/webhooks`);
    await page.getByLabel('Endpoint URL', { exact: true }).fill('http://127.0.0.1:9/hook');
    await page.getByLabel('Description').fill(MARK);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.locator('#webhook-secret').waitFor();
    await expectText('endpoint');
    await page.goto(`${origin}/admin/test/companies/${w.test.id}/webhooks`);
    await expectText('webhooks list');
  });

  it('an e-mail’s subject, recipient and headers in the e-mail log', async () => {
    const id = newId();
    await t.dbs.test.prisma.email.create({
      data: {
        id,
        companyId: w.test.id,
        to: 'lea@example.com',
        from: 'Salon <bookings@example.com>',
        subject: MARK,
        text: `Hello ${MARK}`,
        html: '<p>Hello</p>',
        headers: { Subject: MARK, 'X-Note': MARK },
        status: 'logged',
      },
    });
    await page.goto(`${origin}/admin/test/companies/${w.test.id}/emails`);
    await expectText('e-mail log');
    await page.getByRole('link', { name: MARK }).click();
    await page.waitForURL(`**/emails/${id}`);
    await expectText('e-mail', { inTitle: true });
    expect(await page.locator('#email-text').textContent()).toBe(`Hello ${MARK}`);
  });

  it('nothing ran: no dialog, no refused script, nothing loaded from outside', () => {
    expect(dialogs).toEqual([]);
    expect(seen.errors).toEqual([]);
    expect(seen.foreign).toEqual([]);
  });
});
