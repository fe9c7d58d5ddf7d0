// Integrations > Webhooks in a real headless Chromium, with the real workers and a real local
// receiver (issue 6 point 4): add an endpoint (secret and token shown once), a booking made
// through the API shows up as a delivery with its attempt, a test event, a failing receiver's
// attempts and the Retry button, reveal and rotate; and the booking's e-mail in the e-mail log.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkers, type Workers } from '../../src/workers/runtime.js';
import type { TestApp } from '../helpers/app.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { FAST_WORKERS, ok, startReceiver, waitFor, type Receiver } from '../helpers/receiver.js';
import { bookInSalon, expectLabelled, launchChromium, shot, signIn, startAdminApp, watch } from './admin-helpers.js';

let t: TestApp;
let origin: string;
let browser: Browser;
let page: Page;
let seen: ReturnType<typeof watch>;
let workers: Workers;
let rx: Receiver;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;

beforeAll(async () => {
  ({ t, origin } = await startAdminApp(FAST_WORKERS));
  w = await createAccountWithKeys(t.dbs);
  workers = await startWorkers(t.services);
  rx = await startReceiver();
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
  seen = watch(page, origin);
  await signIn(page, origin, w.email, w.password, `/admin/test/companies/${w.test.id}/webhooks`);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await workers?.stop();
  await rx?.close();
  await t?.close();
});

// Polling a page by reloading it: a pause between reloads, and a reload that Chromium refuses
// mid-navigation ("Not attached to an active page") counts as "not yet", not as a failure.
async function reloadPage(): Promise<void> {
  await new Promise((r) => setTimeout(r, 150));
  try {
    await page.reload({ waitUntil: 'load' });
  } catch {
    await page.waitForLoadState('load').catch(() => undefined);
  }
}

const deliveryRow = (type: string) => page.getByRole('row', { name: new RegExp(type.replace('.', '\\.')) });

describe('webhooks in Chromium', () => {
  let endpointUrl = '';
  let secret = '';
  let token = '';

  it('adds an endpoint: the secret and the token are shown once', async () => {
    await shot(page, '15-webhooks-empty');
    expect((await expectLabelled(page)).find((c) => c.control === 'input#f-url')).toEqual({
      control: 'input#f-url',
      name: 'Endpoint URL',
      description: 'https, or http for local testing',
    });
    // An error about the events (only a forged value can cause one) is tied to the group and
    // to each box.
    await page.getByLabel('Endpoint URL', { exact: true }).fill(rx.url);
    await page.locator('input[name=events][value="booking.created"]').evaluate((el: HTMLInputElement) => {
      el.value = 'booking.exploded';
      el.checked = true;
    });
    await page.getByRole('checkbox', { name: /All events/ }).uncheck();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await expect.poll(() => page.locator('#f-events-error').count()).toBe(1);
    const error = (await page.locator('#f-events-error').textContent())!.trim();
    expect(await page.getByRole('group', { name: 'Events' }).getAttribute('aria-describedby')).toBe('f-events-error');
    const boxes = (await expectLabelled(page)).filter((c) => c.control.startsWith('input[name=events'));
    expect(boxes.length).toBeGreaterThan(2);
    for (const b of boxes) expect(b.description, b.control).toBe(error);
    expect(await page.getByRole('checkbox', { name: /All events/ }).getAttribute('aria-invalid')).toBe('true');
    expect(await t.dbs.test.prisma.webhookEndpoint.count({ where: { companyId: w.test.id } })).toBe(0);
    await page.getByRole('checkbox', { name: /All events/ }).check();
    await page.getByLabel('Endpoint URL', { exact: true }).fill(rx.url);
    await page.getByLabel('Description').fill('Local receiver');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    secret = (await page.locator('#webhook-secret').textContent())!.trim();
    token = (await page.locator('#webhook-token').textContent())!.trim();
    expect(secret).toMatch(/^whsec_/);
    expect(token.length).toBeGreaterThan(20);
    const ep = await t.dbs.test.prisma.webhookEndpoint.findFirstOrThrow({ where: { companyId: w.test.id } });
    expect(ep).toMatchObject({ url: rx.url, events: ['*'], description: 'Local receiver', enabled: true });
    expect(ep.secretEnc).not.toContain(secret.slice(6));
    endpointUrl = `${origin}/admin/test/companies/${w.test.id}/webhooks/${ep.id}`;
  });

  it('a booking made through the API appears as a succeeded delivery with its attempt', async () => {
    const [booking] = await bookInSalon(t, w.testKey.key);
    const got = await waitFor(
      () =>
        rx.received.find((r) => r.headers['x-webhook-event'] === 'booking.created' && r.body.includes(booking!._id)),
      { what: 'booking.created at the receiver' },
    );
    expect(got.headers['x-webhook-token']).toBe(token);
    await page.goto(`${origin}/admin/test/companies/${w.test.id}/webhooks`);
    await page.getByRole('link', { name: rx.url }).click();
    await waitFor(
      async () => {
        await reloadPage();
        return (await deliveryRow('booking.created').first().textContent())?.includes('HTTP 200');
      },
      { what: 'the delivery on the page' },
    );
    const row = deliveryRow('booking.created').first();
    expect(await row.textContent()).toContain('succeeded');
    expect(await row.textContent()).toMatch(/HTTP 200 · \d+ ms/);
    await shot(page, '16-webhook-endpoint');
    await expectLabelled(page);
  });

  it('send test event: a ping is delivered', async () => {
    await page.getByRole('button', { name: 'Send test event' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Test event queued');
    await waitFor(() => rx.received.find((r) => r.headers['x-webhook-event'] === 'ping'), { what: 'the ping' });
    await waitFor(
      async () => {
        await reloadPage();
        return (await deliveryRow('ping').first().textContent())?.includes('succeeded');
      },
      { what: 'the ping delivery on the page' },
    );
  });

  it('a failing receiver: attempts with status and response excerpt, then Retry delivers it', async () => {
    rx.respond((_r, res) =>
      res.writeHead(500, { 'content-type': 'text/plain' }).end('receiver is down for maintenance'),
    );
    await page.getByRole('button', { name: 'Send test event' }).click();
    const first = deliveryRow('ping').first();
    // The workers' own retries (a fast schedule in tests) run out: the delivery is failed.
    await waitFor(
      async () => {
        await reloadPage();
        return (await first.textContent())?.includes('failed');
      },
      { what: 'the delivery to fail', timeoutMs: 20_000 },
    );
    const failed = (await first.textContent())!;
    expect(failed).toContain('HTTP 500');
    expect(failed).toContain('receiver is down for maintenance');
    expect(failed).not.toContain('HTTP 200');
    await shot(page, '17-webhook-failed');

    rx.respond(ok);
    await first.getByRole('button', { name: /^Retry delivery of ping/ }).click();
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toContain('Delivery queued for another attempt.');
    await waitFor(
      async () => {
        await reloadPage();
        return (await first.textContent())?.includes('succeeded');
      },
      { what: 'the retried delivery to succeed', timeoutMs: 15_000 },
    );
    expect(await first.textContent()).toMatch(/HTTP 500[\s\S]*HTTP 200/);
  }, 45_000);

  it('Retry while an attempt is running says so and queues nothing', async () => {
    const delivery = await t.dbs.test.prisma.webhookDelivery.findFirstOrThrow({
      where: { companyId: w.test.id },
      orderBy: { id: 'desc' },
    });
    // An attempt in flight holds the lease (as a worker's claim does).
    await t.dbs.test.prisma.webhookDelivery.update({
      where: { id: delivery.id },
      data: { leaseUntil: new Date(Date.now() + 60_000) },
    });
    const before = await t.dbs.test.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } });
    await page.goto(endpointUrl);
    await deliveryRow('ping')
      .first()
      .getByRole('button', { name: /^Retry delivery of ping/ })
      .click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('being attempted right now');
    expect(page.url()).toContain('done=retry-busy');
    expect(await t.dbs.test.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } })).toEqual(before);
    await t.dbs.test.prisma.webhookDelivery.update({ where: { id: delivery.id }, data: { leaseUntil: null } });
  });

  it('reveal shows the same secret and token; rotate gives a new secret', async () => {
    await page.goto(endpointUrl);
    expect(await page.content()).not.toContain(secret);
    await page.getByRole('button', { name: 'Reveal secret and token' }).click();
    expect((await page.locator('#webhook-secret').textContent())!.trim()).toBe(secret);
    expect((await page.locator('#webhook-token').textContent())!.trim()).toBe(token);
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = (await page.locator('#webhook-secret').textContent())!.trim();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    expect(await page.getByRole('alert').first().textContent()).toContain('24 hours');
  });

  it('the booking’s confirmation e-mail is in the e-mail log', async () => {
    await page.goto(`${origin}/admin/test/companies/${w.test.id}/emails`);
    const link = page.locator('table tbody tr td a').first();
    await waitFor(
      async () => {
        await reloadPage();
        return (await link.count()) > 0;
      },
      { what: 'a logged e-mail' },
    );
    await link.click();
    expect(await page.locator('#email-to').textContent()).toMatch(/@/);
    expect(
      await page.getByRole('table', { name: 'Headers' }).getByRole('rowheader', { name: 'Message-ID' }).count(),
    ).toBe(1);
    expect((await page.locator('#email-text').textContent())!.length).toBeGreaterThan(20);
    const frame = page.frameLocator('iframe[title="HTML body of the e-mail"]');
    expect(await frame.locator('p').first().textContent()).toMatch(/^Hello /);
    await page.locator('iframe').scrollIntoViewIfNeeded();
    await shot(page, '18-email-from-booking');
  });

  it('disables, enables and deletes the endpoint (after a confirmation)', async () => {
    await page.goto(`${origin}/admin/test/companies/${w.test.id}/webhooks`);
    const row = page.getByRole('row', { name: new RegExp(rx.url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')) });
    expect(await row.getByText('Local receiver').count()).toBe(1);
    expect(await row.getByText('Enabled').count()).toBe(1);
    await shot(page, '15b-webhooks-list');
    await expectLabelled(page);
    const endpoint = () => t.dbs.test.prisma.webhookEndpoint.findFirstOrThrow({ where: { companyId: w.test.id } });

    await page.getByRole('link', { name: rx.url }).click();
    await page.getByRole('button', { name: 'Disable' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Endpoint disabled');
    expect(await page.locator('.badge.disabled').textContent()).toBe('Disabled');
    expect((await endpoint()).enabled).toBe(false);

    await page.getByRole('button', { name: 'Enable' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Endpoint enabled.');
    expect(await page.locator('.badge.enabled').textContent()).toBe('Enabled');
    expect((await endpoint()).enabled).toBe(true);

    await page.getByRole('link', { name: 'Delete…' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Delete this endpoint?');
    expect(await page.getByRole('main').textContent()).toContain(rx.url);
    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Endpoint deleted.');
    expect(await page.getByText('No endpoints yet.').count()).toBe(1);
    expect(await t.dbs.test.prisma.webhookEndpoint.count({ where: { companyId: w.test.id } })).toBe(0);
  });

  it('loaded nothing from outside the app and raised no script or CSP errors', () => {
    expect(seen.foreign).toEqual([]);
    expect(seen.errors).toEqual([]);
  });
});
