// The admin area's staff pages (src/admin/routes/staff.ts): each employee's external calendars
// with name, redacted URL, last success and last error (escaped); adding one through the form
// (the employee update the API runs: same URL rules, a refused URL is a 400 page naming it, and
// nothing written) and removing one. The URL is never on a page after it is saved.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectSignIn } from './admin-helpers.js';
import type { TestApp } from '../helpers/app.js';
import { createTestApp } from '../helpers/app.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';
import { ok, salon } from '../helpers/domain.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
beforeAll(async () => {
  t = await createTestApp({
    env: { RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000', RATE_LIMIT_PER_SECOND: '100000' },
  });
  w = await createAccountWithKeys(t.dbs);
});
afterAll(async () => t?.close());

const signIn = () => injectSignIn(t.app, w);

describe('admin staff page', () => {
  it('shows external calendars redacted with their last success and error; adds and removes one', async () => {
    const auth = bearer(w.testKey.key);
    const { employee } = await salon(t.app, auth);
    const secret = 'https://calendar.example.com/calendar/ical/private-abc123SECRET/basic.ics';
    const set = ok(
      await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/employees/${employee._id}`,
        headers: auth,
        payload: { externalCalendars: [{ url: secret, name: 'Private <cal>' }] },
      }),
    );
    const calendarId = set.externalCalendars[0]._id as string;
    await t.dbs.test.prisma.externalCalendar.update({
      where: { id: calendarId },
      data: {
        lastSuccessAt: new Date('2026-11-20T10:00:00Z'),
        lastError: 'HTTP 500 <oops>',
        lastErrorAt: new Date('2026-11-21T10:00:00Z'),
      },
    });

    const cookie = await signIn();
    const base = `/admin/test/companies/${w.test.id}/staff`;
    const list = await t.app.inject({ method: 'GET', url: base, cookies: { svc_session: cookie } });
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain(`href="${base}/${employee._id}"`);

    const page = await t.app.inject({
      method: 'GET',
      url: `${base}/${employee._id}`,
      cookies: { svc_session: cookie },
    });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Private &lt;cal>');
    expect(page.body).toContain('<code>https://calendar.example.com/…</code>');
    expect(page.body).toContain('HTTP 500 &lt;oops>');
    expect(page.body).toContain('2026-11-20');
    expect(page.body).not.toContain('SECRET');
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
    const form = (fields: Record<string, string>) => ({
      cookies: { svc_session: cookie },
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ csrf_token: csrf, ...fields }).toString(),
    });

    // A refused URL: 400, the page names the URL field, nothing written.
    const refused = await t.app.inject({
      method: 'POST',
      url: `${base}/${employee._id}/external-calendars`,
      ...form({ name: 'Work', url: 'ftp://example.com/x.ics' }),
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('id="f-url-error"');
    expect(await t.dbs.test.prisma.externalCalendar.count({ where: { employeeId: employee._id } })).toBe(1);

    // Added beside the kept one (which keeps its id and history).
    const added = await t.app.inject({
      method: 'POST',
      url: `${base}/${employee._id}/external-calendars`,
      ...form({ name: 'Work', url: 'https://outlook.example.com/owa/calendar/OTHERSECRET/reachcalendar.ics' }),
    });
    expect(added.statusCode).toBe(303);
    const after = await t.dbs.test.prisma.externalCalendar.findMany({
      where: { employeeId: employee._id },
      orderBy: { slot: 'asc' },
    });
    expect(after.map((c) => [c.name, c.urlRedacted])).toEqual([
      ['Private <cal>', 'https://calendar.example.com/…'],
      ['Work', 'https://outlook.example.com/…'],
    ]);
    expect(after[0]!.id).toBe(calendarId);
    expect(after[0]!.lastError).toBe('HTTP 500 <oops>');
    const shown = await t.app.inject({
      method: 'GET',
      url: added.headers.location as string,
      cookies: { svc_session: cookie },
    });
    expect(shown.body).toContain('https://outlook.example.com/…');
    expect(shown.body).not.toContain('OTHERSECRET');

    // Removed: gone, the other kept.
    const removed = await t.app.inject({
      method: 'POST',
      url: `${base}/${employee._id}/external-calendars/${calendarId}/remove`,
      ...form({}),
    });
    expect(removed.statusCode).toBe(303);
    expect(
      (await t.dbs.test.prisma.externalCalendar.findMany({ where: { employeeId: employee._id } })).map((c) => c.name),
    ).toEqual(['Work']);
    // Another employee's calendar, or none: 404.
    const missing = await t.app.inject({
      method: 'POST',
      url: `${base}/${employee._id}/external-calendars/${calendarId}/remove`,
      ...form({}),
    });
    expect(missing.statusCode).toBe(404);
  });

  it('adds and a remove sent at once: every added calendar is kept (the list is extended under the lock)', async () => {
    const auth = bearer(w.testKey.key);
    const { employee } = await salon(t.app, auth);
    const set = ok(
      await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/employees/${employee._id}`,
        headers: auth,
        payload: { externalCalendars: [{ url: 'https://calendar.example.com/gone.ics', name: 'Gone' }] },
      }),
    );
    const goneId = set.externalCalendars[0]._id as string;
    const cookie = await signIn();
    const base = `/admin/test/companies/${w.test.id}/staff/${employee._id}`;
    const page = await t.app.inject({ method: 'GET', url: base, cookies: { svc_session: cookie } });
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
    const post = (url: string, fields: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url,
        cookies: { svc_session: cookie },
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ csrf_token: csrf, ...fields }).toString(),
      });
    const answers = await Promise.all([
      ...[1, 2, 3, 4].map((i) =>
        post(`${base}/external-calendars`, { name: `Cal ${i}`, url: `https://calendar.example.com/c${i}.ics` }),
      ),
      post(`${base}/external-calendars/${goneId}/remove`, {}),
    ]);
    expect(answers.map((a) => a.statusCode)).toEqual([303, 303, 303, 303, 303]);
    const after = await t.dbs.test.prisma.externalCalendar.findMany({ where: { employeeId: employee._id } });
    expect(after.map((c) => c.name).sort()).toEqual(['Cal 1', 'Cal 2', 'Cal 3', 'Cal 4']);
    // A sixth would pass the limit: a 400 naming the list, nothing written.
    ok(
      await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/employees/${employee._id}`,
        headers: auth,
        payload: {
          externalCalendars: [
            ...after.map((c) => ({ id: c.id })),
            { url: 'https://calendar.example.com/c5.ics', name: 'Cal 5' },
          ],
        },
      }),
    );
    const full = await post(`${base}/external-calendars`, {
      name: 'Cal 6',
      url: 'https://calendar.example.com/c6.ics',
    });
    expect(full.statusCode).toBe(400);
    expect(await t.dbs.test.prisma.externalCalendar.count({ where: { employeeId: employee._id } })).toBe(5);
  });
});
