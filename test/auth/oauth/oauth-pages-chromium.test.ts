// The login and consent pages driven by a real headless Chromium, found by their accessible
// names (docs/oauth.md: labels Email, Password, Company; buttons Sign in, Approve, Deny). The
// browser follows the redirect to a real local HTTP server standing in for the client's
// loopback callback.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../../helpers/factories.js';
import { axeFindings } from '../../helpers/axe.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { createWorld, pkce, tokenRequest, type World } from './oauth-helpers.js';

let t: TestApp;
let w: World;
let browser: Browser;
let origin: string;
let callbackServer: Server;
let callbackPort: number;
const callbacks: URL[] = [];

beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000' } });
  w = await createWorld(t.dbs);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  callbackServer = createServer((req, res) => {
    const url = new URL(req.url!, `http://127.0.0.1:${callbackPort}`);
    if (url.pathname === '/callback') callbacks.push(url); // not /favicon.ico
    res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Back at the app</title><h1>Connected</h1>');
  });
  await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve));
  callbackPort = (callbackServer.address() as AddressInfo).port;
  browser = await chromium.launch({
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
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => callbackServer?.close(resolve));
  await t?.close();
});

function authorizeUrl(challenge: string, state: string) {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: w.publicClient.clientId,
    redirect_uri: `http://127.0.0.1:${callbackPort}/callback`,
    scope: 'company:read bookings:read',
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  return `${origin}/oauth/authorize?${q}`;
}

describe('login and consent in Chromium', () => {
  it('wrong password, then sign in, pick a company, Approve → code at the callback → a working token', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const foreign: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(origin) && !r.url().startsWith(`http://127.0.0.1:${callbackPort}/`))
        foreign.push(r.url());
    });
    const p = pkce();
    await page.goto(authorizeUrl(p.challenge, 'chromium-1'));
    expect(await page.title()).toBe('Sign in');

    await page.getByLabel('Email').fill(w.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('The e-mail or password is wrong.');
    expect(await axeFindings(page), 'the sign-in page with its error').toEqual([]);

    await page.getByLabel('Password').fill(w.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Approve' }).waitFor();
    const heading = await page.getByRole('heading', { level: 1 }).textContent();
    expect(heading).toContain('Acme Mobile');
    expect(await axeFindings(page), 'the consent page').toEqual([]);
    const scopes = await page.getByRole('listitem').allTextContents();
    expect(scopes).toEqual(['See the company profile (company:read)', 'See bookings (bookings:read)']);
    const company = page.getByLabel('Company');
    const options = await company.locator('option').allTextContents();
    expect(options).toEqual(
      expect.arrayContaining([
        `${w.live.name} (live)`,
        'Sample Hair Salon (test)',
        'Sample Medical Clinic (test)',
        'Sample Fitness Center (test)',
      ]),
    );
    // Nothing is preselected: the required select is invalid until a company is chosen, so the
    // browser does not send Approve without one (the server refuses it too: oauth-consent-opt-in).
    expect(await company.inputValue()).toBe('');
    expect(options[0]).toBe('Choose a company');
    expect(await company.evaluate((el) => (el as HTMLSelectElement).validity.valueMissing)).toBe(true);
    await company.selectOption({ label: 'Sample Medical Clinic (test)' });
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL(/\/callback\?/);
    expect(await page.getByRole('heading').textContent()).toBe('Connected');

    const cb = callbacks.at(-1)!;
    expect(cb.searchParams.get('state')).toBe('chromium-1');
    expect(cb.searchParams.get('iss')).toBe(origin);
    const tok = await tokenRequest(t.app, {
      grant_type: 'authorization_code',
      code: cb.searchParams.get('code')!,
      client_id: w.publicClient.clientId,
      redirect_uri: `http://127.0.0.1:${callbackPort}/callback`,
      code_verifier: p.verifier,
    });
    expect(tok.statusCode).toBe(200);
    const me = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(tok.json().access_token) });
    expect(me.json().data).toMatchObject({ name: 'Sample Medical Clinic', mode: 'test' });

    // The session cookie is HttpOnly and SameSite=Lax; the pages load nothing from elsewhere.
    const session = (await context.cookies()).find((c) => c.name === 'svc_session')!;
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    expect(foreign).toEqual([]);

    // Signed in already: the next authorization goes straight to consent, and Deny says so.
    const p2 = pkce();
    await page.goto(authorizeUrl(p2.challenge, 'chromium-2'));
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL(/\/callback\?/);
    const denied = callbacks.at(-1)!;
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect(denied.searchParams.get('state')).toBe('chromium-2');
    expect(denied.searchParams.get('iss')).toBe(origin);
    expect(denied.searchParams.has('code')).toBe(false);
    await context.close();
  });

  it('the sign-in and consent pages at 390 px: no sideways scroll, no serious axe finding', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const fits = () =>
      page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);
    await page.goto(authorizeUrl(pkce().challenge, 'phone-1'));
    expect(await fits(), 'the sign-in page fits 390 px').toBe(true);
    expect(await axeFindings(page), 'the sign-in page at 390 px').toEqual([]);
    await page.getByLabel('Email').fill(w.email);
    await page.getByLabel('Password').fill(w.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Approve' }).waitFor();
    expect(await fits(), 'the consent page fits 390 px').toBe(true);
    expect(await axeFindings(page), 'the consent page at 390 px').toEqual([]);
    await context.close();
  });

  it('an unknown client is an error page in the browser, not a redirect', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const before = callbacks.length;
    const res = await page.goto(
      `${origin}/oauth/authorize?response_type=code&client_id=client_unknown&redirect_uri=${encodeURIComponent(`http://127.0.0.1:${callbackPort}/callback`)}&scope=company:read`,
    );
    expect(res!.status()).toBe(400);
    expect(await page.getByRole('alert').textContent()).toContain('No application is registered');
    expect(await axeFindings(page), 'the error page').toEqual([]);
    expect(callbacks.length).toBe(before);
    await context.close();
  });
});
