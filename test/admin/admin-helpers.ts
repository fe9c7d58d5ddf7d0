// Shared set-up of the admin-area tests: the real app on a real 127.0.0.1 socket, one
// headless Debian Chromium per test file (playwright-core), signing in through the login form
// by its accessible names, screenshots under test-results/admin/ for people to look at, and
// bookings made through the public API with a test key.
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { DateTime } from 'luxon';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { newId } from '../../src/ids.js';
import type { Databases } from '../../src/db/databases.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { bearer } from '../helpers/factories.js';
import { ok, post } from '../helpers/domain.js';

export const SHOTS = 'test-results/admin';
/**
 * Whether pages are photographed for a person to look at: yes unless SCREENSHOTS=0 (.ci/run
 * sets it, as nobody looks at them there: the full-page captures were a third of the
 * accessibility crawl's time). The checks themselves run either way.
 */
const TAKE_SCREENSHOTS = process.env.SCREENSHOTS !== '0';

export async function startAdminApp(env: Record<string, string> = {}): Promise<{ t: TestApp; origin: string }> {
  const t = await createTestApp({
    env: { RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000', RATE_LIMIT_PER_SECOND: '100000', ...env },
  });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return { t, origin: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}` };
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/**
 * Takes the context offline for every origin but the app's, as on a machine without internet:
 * each request elsewhere is recorded in the returned list and aborted before it leaves.
 */
export async function offlineButFor(context: BrowserContext, origin: string): Promise<string[]> {
  const elsewhere: string[] = [];
  await context.route('**', (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin) return route.continue();
    elsewhere.push(url);
    return route.abort('internetdisconnected');
  });
  return elsewhere;
}

/**
 * Records every request that leaves the app's origin (there must be none) and page errors.
 * Newer Chromium builds report a request that the Content Security Policy refused as a
 * request that then failed with "csp"; such a request never left the browser, so it moves
 * from `foreign` to `blocked` (tests assert what was blocked, too).
 */
export function watch(page: Page, origin: string): { foreign: string[]; blocked: string[]; errors: string[] } {
  const seen = { foreign: [] as string[], blocked: [] as string[], errors: [] as string[] };
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(origin) && !u.startsWith('about:') && !u.startsWith('data:')) seen.foreign.push(u);
  });
  page.on('requestfailed', (r) => {
    const i = seen.foreign.indexOf(r.url());
    if (i >= 0 && /^(csp|net::ERR_BLOCKED_BY_CSP)$/.test(r.failure()?.errorText ?? ''))
      seen.blocked.push(...seen.foreign.splice(i, 1));
  });
  page.on('pageerror', (e) => seen.errors.push(e.message));
  page.on('console', (m) => {
    // HTTP error statuses of pages and fetches are expected (400 re-shown forms, 401 of a
    // revoked key); script errors and CSP violations are not.
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) seen.errors.push(m.text());
  });
  return seen;
}

export async function signIn(
  page: Page,
  origin: string,
  email: string,
  password: string,
  path = '/admin',
): Promise<void> {
  await page.goto(`${origin}${path}`);
  expect(await page.title()).toBe('Sign in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => u.pathname.startsWith('/admin') && !u.pathname.startsWith('/admin/login'));
}

/** WCAG 2.x relative luminance of a CSS `rgb()`/`rgba()` colour (its alpha ignored). */
export function luminance(colour: string): number {
  const [r, g, b] = colour
    .match(/[\d.]+/g)!
    .slice(0, 3)
    .map((v) => {
      const c = Number(v) / 255;
      return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio of two colours, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/**
 * The focused element's focus ring: its computed outline, and the colour of what lies under the
 * ring on each side that is on screen (the ring is drawn outline-offset outside the element's
 * box, so it sits on whatever is painted there: the first opaque background among the elements
 * at that point, semi-transparent ones composited over it).
 */
export async function focusRing(
  page: Page,
): Promise<{ tag: string; text: string; focusVisible: boolean; style: string; colour: string; backdrops: string[] }> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement;
    const cs = getComputedStyle(el);
    const r = el.getBoundingClientRect();
    const out = parseFloat(cs.outlineOffset) + parseFloat(cs.outlineWidth) / 2;
    const points = [
      [r.left + r.width / 2, r.bottom + out],
      [r.right + out, r.top + r.height / 2],
      [r.left - out, r.top + r.height / 2],
      [r.left + r.width / 2, r.top - out],
    ].filter(([x, y]) => x! >= 0 && y! >= 0 && x! < innerWidth && y! < innerHeight);
    const rgba = (c: string) =>
      (c.match(/[\d.]+/g) ?? ['0', '0', '0', '0']).map(Number).concat([1]).slice(0, 4) as [
        number,
        number,
        number,
        number,
      ];
    const backdrops = points.map(([x, y]) => {
      const layers: Array<[number, number, number, number]> = [];
      for (const n of document.elementsFromPoint(x!, y!)) {
        if (n === el || el.contains(n)) continue;
        const c = rgba(getComputedStyle(n).backgroundColor);
        if (c[3] === 0) continue;
        layers.push(c);
        if (c[3] === 1) break;
      }
      // Composite from the bottom (the page canvas is white) up.
      let [R, G, B] = [255, 255, 255];
      for (const [lr, lg, lb, a] of layers.reverse())
        [R, G, B] = [lr * a + R * (1 - a), lg * a + G * (1 - a), lb * a + B * (1 - a)];
      return `rgb(${Math.round(R)}, ${Math.round(G)}, ${Math.round(B)})`;
    });
    return {
      tag: el.tagName,
      text: (el.textContent ?? '').trim(),
      // A date or time field moves the focus through parts inside it, where :focus-visible
      // cannot reach the field: its ring is drawn on :focus-within (admin.css), which counts.
      focusVisible:
        el.matches(':focus-visible') ||
        (el.matches("input[type='date'], input[type='datetime-local'], input[type='time']") &&
          el.matches(':focus-within')),
      style: cs.outlineStyle,
      colour: cs.outlineColor,
      backdrops,
    };
  });
}

/** Asserts the focused element shows a solid focus ring with at least 3:1 against what it sits on (WCAG 1.4.11). */
export async function expectVisibleFocus(
  page: Page,
): Promise<{ tag: string; text: string; colour: string; backdrops: string[] }> {
  const ring = await focusRing(page);
  expect(ring.focusVisible, ring.text).toBe(true);
  expect(ring.style, ring.text).toBe('solid');
  expect(ring.backdrops.length, ring.text).toBeGreaterThan(0);
  for (const bg of ring.backdrops)
    expect(contrastRatio(ring.colour, bg), `${ring.text}: ${ring.colour} on ${bg}`).toBeGreaterThanOrEqual(3);
  return ring;
}

export interface ControlName {
  control: string;
  name: string;
  description: string;
}

/**
 * Every input, select and textarea of the page (not hidden inputs; not inside frames) has an
 * accessible name, as Chromium itself computes it (the accessibility tree over CDP); a hint or
 * an error tied with aria-describedby is its description, not part of its name; and every
 * aria-describedby resolves to some text. Returns each control's name and description.
 */
export async function expectLabelled(page: Page): Promise<ControlName[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { root } = await cdp.send('DOM.getDocument', { depth: 0 });
    const { nodeIds } = await cdp.send('DOM.querySelectorAll', {
      nodeId: root.nodeId,
      selector: 'input:not([type=hidden]), select, textarea',
    });
    const out: Array<ControlName & { describedBy: boolean }> = [];
    for (const nodeId of nodeIds) {
      const { node } = await cdp.send('DOM.describeNode', { nodeId });
      const attrs: Record<string, string> = {};
      for (let i = 0; i + 1 < (node.attributes ?? []).length; i += 2)
        attrs[node.attributes![i]!] = node.attributes![i + 1]!;
      const { nodes } = await cdp.send('Accessibility.getPartialAXTree', { nodeId, fetchRelatives: false });
      const ax = nodes.find((n) => n.backendDOMNodeId === node.backendNodeId) ?? nodes[0];
      const which = attrs.id
        ? `#${attrs.id}`
        : `[name=${attrs.name ?? '?'}${attrs.value ? ` value=${attrs.value}` : ''}]`;
      out.push({
        control: `${node.localName}${which}`,
        name: String(ax?.name?.value ?? '').trim(),
        description: String(ax?.description?.value ?? '').trim(),
        describedBy: Boolean(attrs['aria-describedby']),
      });
    }
    const where = new URL(page.url()).pathname;
    expect(
      out.filter((c) => !c.name).map((c) => c.control),
      `controls without an accessible name on ${where}`,
    ).toEqual([]);
    expect(
      out.filter((c) => c.description && c.name.includes(c.description)).map((c) => c.control),
      `hint or error inside the name on ${where}`,
    ).toEqual([]);
    expect(
      out.filter((c) => c.describedBy && !c.description).map((c) => c.control),
      `aria-describedby with no text on ${where}`,
    ).toEqual([]);
    return out.map(({ describedBy: _, ...c }) => c);
  } finally {
    await cdp.detach();
  }
}

/** Presses Tab until the focused element matches `selector` (at most `max` times). */
export async function tabTo(page: Page, selector: string, max = 40): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
  }
  throw new Error(`Tab never reached ${selector}`);
}

/** A full-page screenshot as `<dir>/<name>.png` (none with SCREENSHOTS=0). */
export async function shot(page: Page, name: string, dir = SHOTS): Promise<void> {
  if (!TAKE_SCREENSHOTS) return;
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: `${dir}/${name}.png`, fullPage: true });
}

/** Two bookings in the sample hair salon this week or next, made through /api/v1 with a test key. */
export async function bookInSalon(
  t: TestApp,
  testKey: string,
): Promise<
  Array<{ _id: string; startTime: string; status: string; employeeId: string; serviceId: string; customerId: string }>
> {
  const auth = bearer(testKey);
  const get = async (url: string) => ok(await t.app.inject({ method: 'GET', url: `/api/v1${url}`, headers: auth }));
  const services = await get('/services');
  const customers = await get('/customers');
  const cut = services.find(
    (s: { requiresPayment: boolean; kind: string }) => !s.requiresPayment && s.kind === 'appointment',
  );
  const from = DateTime.utc().plus({ days: 1 }).startOf('hour');
  const { slots } = await get(
    `/availability?serviceId=${cut._id}&from=${encodeURIComponent(from.toISO())}&to=${encodeURIComponent(from.plus({ days: 7 }).toISO())}`,
  );
  const out = [];
  for (const [i, slot] of [slots[0], slots.at(-1)].entries()) {
    out.push(
      await post(t.app, '/api/v1/bookings', auth, {
        serviceId: cut._id,
        startTime: slot.startTime,
        customerId: customers[i]._id,
      }),
    );
  }
  return out;
}

/**
 * Signs in through the login form over `inject` (its CSRF cookie and token, the account's e-mail
 * and password) and returns the admin session cookie's value: the browserless tests' sign-in.
 */
export async function injectSignIn(
  app: FastifyInstance,
  account: { email: string; password: string },
): Promise<string> {
  const login = await app.inject({ method: 'GET', url: '/admin/login' });
  const loginCsrf = login.cookies.find((c) => c.name === 'svc_login_csrf')!.value;
  const token = /name="csrf_token" value="([^"]+)"/.exec(login.body)![1]!;
  const res = await app.inject({
    method: 'POST',
    url: '/oauth/login',
    cookies: { svc_login_csrf: loginCsrf },
    payload: new URLSearchParams({
      csrf_token: token,
      email: account.email,
      password: account.password,
      next: '/admin',
    }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(res.statusCode).toBe(303);
  return res.cookies.find((c) => c.name === 'svc_session')!.value;
}

/**
 * Makes an account a member of another's team, written straight to the table (invitations have
 * tests of their own): `staff` linked to a test-mode employee.
 */
export async function addMember(
  dbs: Databases,
  o: { team: string; member: string; role: 'admin' | 'staff' | 'viewer'; testEmployeeId?: string | null },
): Promise<void> {
  await dbs.live.prisma.membership.create({
    data: {
      id: newId(),
      teamAccountId: o.team,
      memberAccountId: o.member,
      role: o.role,
      testEmployeeId: o.testEmployeeId ?? null,
    },
  });
}

/**
 * What a phone shows wrongly on the current page (issue 41 §1), as sentences; none is right:
 * the first screen holds more than navigation (the page's heading is in it), no element reaches
 * past the viewport's right edge (a table scrolling inside its own region may), and no word of
 * letters in a table cell is broken over two lines (a word's range has one box).
 */
export async function phoneFindings(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const width = document.documentElement.clientWidth;
    const heading = document.querySelector('main h1');
    if (heading && heading.getBoundingClientRect().top + 20 > window.innerHeight)
      out.push(
        `the first screen is only navigation: the heading starts at ${Math.round(heading.getBoundingClientRect().top)} px`,
      );
    const inScroller = (el: Element) => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        const o = getComputedStyle(p).overflowX;
        if (o === 'auto' || o === 'scroll' || o === 'hidden') return true;
      }
      return false;
    };
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.right <= width + 1 || inScroller(el)) continue;
      if (getComputedStyle(el).visibility === 'hidden') continue;
      const name = `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ')[0]}` : ''}`;
      out.push(`${name} reaches ${Math.round(r.right)} px, past ${width} px`);
    }
    const walker = document.createTreeWalker(document.querySelector('main') ?? document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const cell = n.parentElement?.closest('td, th');
      if (!cell || cell.closest('table.calendar')) continue;
      const text = n.textContent ?? '';
      for (const m of text.matchAll(/\p{L}{3,}/gu)) {
        const range = document.createRange();
        range.setStart(n, m.index);
        range.setEnd(n, m.index + m[0].length);
        const boxes = [...range.getClientRects()].filter((b) => b.width > 0);
        if (boxes.length > 1 && new Set(boxes.map((b) => Math.round(b.top))).size > 1)
          out.push(`the word "${m[0]}" wraps inside a table cell`);
      }
    }
    return [...new Set(out)].slice(0, 10);
  });
}
