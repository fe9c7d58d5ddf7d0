// The admin area's calendar feeds (docs/calendars.md, docs/admin.md): Staff shows the company's
// feed, an employee's page theirs; the form creates or rotates it (through the use case the
// API runs), the URL is shown again, and a rotated URL stops at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmployee } from '../../src/schema/staff/create-employee.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { ALL_DAY } from '../helpers/domain.js';
import { createAccountWithKeys } from '../helpers/factories.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let cookie: string;

beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000' } });
  w = await createAccountWithKeys(t.dbs);
  const login = await t.app.inject({ method: 'GET', url: '/admin/login' });
  const res = await t.app.inject({
    method: 'POST',
    url: '/oauth/login',
    cookies: { svc_login_csrf: login.cookies.find((c) => c.name === 'svc_login_csrf')!.value },
    payload: new URLSearchParams({
      csrf_token: /name="csrf_token" value="([^"]+)"/.exec(login.body)![1]!,
      email: w.email,
      password: w.password,
      next: '/admin',
    }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  cookie = res.cookies.find((c) => c.name === 'svc_session')!.value;
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const base = () => `/admin/test/companies/${w.test.id}/staff`;
const get = (path: string) =>
  t.app.inject({ method: 'GET', url: `${base()}${path}`, cookies: { svc_session: cookie } });
const urlOn = (html: string) => /<code class="feed-url">([^<]+)<\/code>/.exec(html)?.[1]?.replace(/&amp;/g, '&');

async function submit(pagePath: string, action: string, fields: Record<string, string> = {}) {
  const page = await get(pagePath);
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
  return t.app.inject({
    method: 'POST',
    url: `${base()}${action}`,
    cookies: { svc_session: cookie },
    payload: new URLSearchParams({ csrf_token: csrf, ...fields }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

describe('calendar feeds in the admin area', () => {
  it("creates, shows again and rotates the company's and an employee's feed", async () => {
    expect((await get('')).body).toContain('No calendar feed yet.');
    const made = await submit('', '/calendar-feed');
    expect([made.statusCode, made.headers.location]).toEqual([303, `${base()}?done=feed`]);
    const list = await get('?done=feed');
    expect(list.body).toContain('Calendar feed ready');
    const companyUrl = urlOn(list.body)!;
    expect(companyUrl).toMatch(/\/calendar\/svc_cf_test_[A-Za-z0-9_-]{43}\.ics$/);
    expect((await t.app.inject({ method: 'GET', url: new URL(companyUrl).pathname })).statusCode).toBe(200);
    // Shown again, the same URL, on every visit.
    expect(urlOn((await get('')).body)).toBe(companyUrl);

    const ann = await createEmployee(t.dbs.test.prisma, {
      companyId: w.test.id,
      input: { name: 'Ann', workingHours: ALL_DAY },
    });
    const first = await submit(`/${ann.id}`, `/${ann.id}/calendar-feed`, { includeNotes: 'true' });
    expect(first.statusCode).toBe(303);
    const page = (await get(`/${ann.id}`)).body;
    const annUrl = urlOn(page)!;
    expect(page).toContain('Booking notes are shown');
    expect(annUrl).not.toBe(companyUrl);
    await submit(`/${ann.id}`, `/${ann.id}/calendar-feed`);
    const rotated = urlOn((await get(`/${ann.id}`)).body)!;
    expect(rotated).not.toBe(annUrl);
    expect((await t.app.inject({ method: 'GET', url: new URL(annUrl).pathname })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: new URL(rotated).pathname })).statusCode).toBe(200);
    expect(await t.dbs.test.prisma.calendarFeed.findFirstOrThrow({ where: { employeeId: ann.id } })).toMatchObject({
      includeNotes: false,
    });
    // Without the form's CSRF token nothing changes; another company's employee is not found.
    const forged = await t.app.inject({
      method: 'POST',
      url: `${base()}/${ann.id}/calendar-feed`,
      cookies: { svc_session: cookie },
      payload: 'includeNotes=true',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(forged.statusCode).toBe(403);
    expect(urlOn((await get(`/${ann.id}`)).body)).toBe(rotated);
    const other = await createAccountWithKeys(t.dbs);
    const theirs = await createEmployee(t.dbs.test.prisma, {
      companyId: other.test.id,
      input: { name: 'Not mine', workingHours: ALL_DAY },
    });
    expect((await submit('', `/${theirs.id}/calendar-feed`)).statusCode).toBe(404);
  });
});
