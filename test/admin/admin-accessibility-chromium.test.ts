// Every page of the admin area passes axe-core's WCAG 2.2 A/AA rules with no serious or
// critical finding, at desktop and phone widths, and never scrolls sideways as a whole (a wide
// table scrolls inside its own region). At 390 px every page also shows more than navigation on
// its first screen, nothing reaches past the viewport and no word in a table cell is split over
// two lines (issue 41 §1). A screenshot of each page at each width is kept in
// test-artifacts/screenshots/ (git-ignored) for a person to look at. "Every page" is found, not listed: the test
// signs in and follows every same-origin GET link under /admin from the overview, so a new
// page linked from anywhere is checked without touching this file.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { axeFindings } from '../helpers/axe.js';
import { ok, post } from '../helpers/domain.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';
import { bookInSalon, launchChromium, phoneFindings, shot, signIn, startAdminApp } from './admin-helpers.js';

let t: TestApp;
let origin: string;
let browser: Browser;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let week: string;
let classPage: string;
let bookingPage: string;
let newBooking: string;

beforeAll(async () => {
  ({ t, origin } = await startAdminApp());
  w = await createAccountWithKeys(t.dbs);
  // Something on every kind of page: bookings in two states, a payment, a webhook endpoint with a delivery.
  const auth = bearer(w.testKey.key);
  const [kept, cancelled] = await bookInSalon(t, w.testKey.key);
  ok(await t.app.inject({ method: 'POST', url: `/api/v1/bookings/${cancelled!._id}/cancel`, headers: auth }));
  await post(t.app, '/api/v1/webhook-endpoints', auth, { url: 'http://127.0.0.1:9/hook', events: ['*'] });
  await post(t.app, '/api/v1/payments', auth, {
    bookingId: kept!._id,
    card: { number: '4242424242424242', expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvc: '123' },
  });
  week = `/admin/test/companies/${w.test.id}/calendar?view=week&date=${kept!.startTime.slice(0, 10)}`;
  // A class session with a booking: the timetable, its roster and its cancel confirmation.
  const employeeId = kept!.employeeId;
  const yoga = await post(t.app, '/api/v1/services', auth, {
    name: 'Yoga',
    kind: 'class',
    durationMinutes: 60,
    employeeIds: [employeeId],
  });
  const session = await post(t.app, '/api/v1/classes', auth, {
    serviceId: yoga._id,
    employeeId,
    startTime: new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 13) + ':00:00Z',
    capacity: 5,
  });
  const customers = ok(await t.app.inject({ method: 'GET', url: '/api/v1/customers', headers: auth }));
  await post(t.app, '/api/v1/bookings', auth, {
    serviceId: yoga._id,
    classId: session._id,
    customerId: customers[0]._id,
  });
  classPage = `/admin/test/companies/${w.test.id}/classes/${session._id}`;
  // A booking's page early in the queue, so its action pages are reached within the limit.
  bookingPage = `/admin/test/companies/${w.test.id}/bookings/${kept!._id}`;
  // The new-booking page with its time picker and customer choices filled in, as the calendar links it.
  newBooking = `/admin/test/companies/${w.test.id}/bookings/new?serviceId=${kept!.serviceId}&employeeId=${kept!.employeeId}&date=${kept!.startTime.slice(0, 10)}&customerId=${kept!.customerId}`;
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const SHOTS = 'test-artifacts/screenshots';

/** What the page adds on top of axe: a sideways page overflow, and its screenshot. */
async function widthAndShot(page: Page, path: string, width: number): Promise<string[]> {
  const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  const name =
    path
      .replace(/[0-9a-f]{24}/g, 'id')
      .replace(/[^a-z0-9]+/gi, '-')
      .replace(/^-|-$/g, '') || 'root';
  await shot(page, `${name}-${width}`, SHOTS);
  // On a phone (issue 41 §1): content on the first screen, nothing past the edge, no word split.
  const phone = width < 500 ? await phoneFindings(page) : [];
  return [...(scrollWidth > width ? [`page is ${scrollWidth} px wide at ${width} px`] : []), ...phone];
}

/** Same-origin GET pages under /admin linked from this page (sign-out excluded). */
async function links(page: Page): Promise<string[]> {
  const hrefs = await page.$$eval('a[href]', (as) => as.map((a) => (a as HTMLAnchorElement).href));
  return hrefs
    .map((h) => new URL(h))
    .filter((u) => u.origin === origin && u.pathname.startsWith('/admin') && !/logout|sign-?out/.test(u.pathname))
    .map((u) => `${u.pathname}${u.search}`);
}

async function crawl(context: BrowserContext, limit: number): Promise<Map<string, string[]>> {
  const page = await context.newPage();
  const findings = new Map<string, string[]>();
  // Pages reached through a GET form rather than a link: a search with results.
  const search = `/admin/test/companies/${w.test.id}/search?q=a`;
  const queue = [
    '/admin',
    `/admin/test/companies/${w.test.id}`,
    `/admin/live/companies/${w.live.id}`,
    week,
    search,
    classPage,
    bookingPage,
    newBooking,
  ];
  const seen = new Set(queue);
  while (queue.length > 0 && findings.size < limit) {
    const path = queue.shift()!;
    const res = await page.goto(`${origin}${path}`);
    if (!res || res.status() >= 400) continue;
    const width = page.viewportSize()!.width;
    findings.set(path, [...(await axeFindings(page)), ...(await widthAndShot(page, path, width))]);
    for (const l of await links(page)) {
      // One page per shape: ids and query strings vary, the template does not.
      const shape = l.replace(/[0-9a-f]{24}/g, ':id').replace(/\?.*$/, '');
      if (seen.has(shape) || seen.has(l)) continue;
      seen.add(shape);
      seen.add(l);
      queue.push(l);
    }
  }
  await page.close();
  return findings;
}

describe('axe-core on every admin page', () => {
  for (const [label, viewport] of [
    ['1280 px', { width: 1280, height: 860 }],
    ['390 px (a phone)', { width: 390, height: 844 }],
  ] as const) {
    it(`no serious or critical finding at ${label}`, async () => {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      await page.goto(`${origin}/admin`);
      expect(
        [...(await axeFindings(page)), ...(await widthAndShot(page, '/admin/login', viewport.width))],
        'the sign-in page',
      ).toEqual([]);
      await signIn(page, origin, w.email, w.password);
      await page.close();
      const findings = await crawl(context, 110);
      await context.close();
      // The crawl reached the area's pages, not only the overview.
      expect(findings.size).toBeGreaterThan(8);
      // Among them the calendar and the customer pages (the sample company has customers): the list, one customer
      // and the erase confirmation; the payments list and the search page; the overview.
      const shapes = [...findings.keys()].map((p) => p.replace(/[0-9a-f]{24}/g, ':id').replace(/\?.*$/, ''));
      // And the booking pages: one booking, its actions' confirmation pages and a new booking.
      for (const shape of [
        '/calendar',
        '/customers',
        '/customers/:id',
        '/customers/:id/erase',
        '/payments',
        '/payments/:id',
        '/search',
        '/staff/:id',
        '/services',
        '/services/:id',
        '/classes',
        '/classes/:id',
        '/classes/:id/cancel',
        '/team',
        '/audit',
        '/bookings/:id',
        '/bookings/new',
        '/bookings/:id/cancel',
        '/bookings/:id/reschedule',
      ])
        expect(
          shapes.some((s) => s.endsWith(shape)),
          shape,
        ).toBe(true);
      const failing = Object.fromEntries([...findings].filter(([, f]) => f.length > 0));
      expect(failing).toEqual({});
    }, 300_000);
  }
});
