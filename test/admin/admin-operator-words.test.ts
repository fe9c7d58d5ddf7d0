// Operator screens speak the operator's language (issue 41 §4): a recurrence rule in words, and a
// new live company's overview that says how to begin, shows revenue as money in the company's
// currency (never "None") and highlights the menu entry of the page shown.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recurrenceText } from '../../src/admin/words.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { injectSignIn } from './admin-helpers.js';

describe('recurrences in words', () => {
  it.each([
    ['FREQ=WEEKLY;BYDAY=MO,WE', '18:00', 'Mondays and Wednesdays at 18:00'],
    ['FREQ=WEEKLY;BYDAY=TU', '07:30', 'Tuesdays at 07:30'],
    ['FREQ=WEEKLY;BYDAY=MO,WE,FR;COUNT=10', '09:00', 'Mondays, Wednesdays and Fridays at 09:00, 10 times'],
    ['FREQ=WEEKLY;INTERVAL=2;BYDAY=FR', '12:00', 'Every 2 weeks on Fridays at 12:00'],
    ['FREQ=DAILY;UNTIL=20270131T000000Z', '06:00', 'Every day at 06:00, until 2027-01-31'],
    // A part outside the subset is shown as it is rather than said wrongly.
    ['FREQ=MONTHLY;BYMONTHDAY=1', '10:00', 'FREQ=MONTHLY;BYMONTHDAY=1'],
  ])('%s at %s', (rule, at, words) => expect(recurrenceText(rule, at)).toBe(words));
});

describe("a new live company's overview", () => {
  let t: TestApp;
  let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
  let cookie: string;
  beforeAll(async () => {
    t = await createTestApp();
    w = await createAccountWithKeys(t.dbs);
    cookie = await injectSignIn(t.app, w);
  }, 60_000);
  afterAll(async () => t?.close());
  const get = (url: string) => t.app.inject({ method: 'GET', url, cookies: { svc_session: cookie } });

  it('says how to begin, with links to each step, and shows revenue as money', async () => {
    const page = await get(`/admin/live/companies/${w.live.id}/overview`);
    expect(page.statusCode).toBe(200);
    const begin = page.body.slice(page.body.indexOf('How to begin'), page.body.indexOf('</section>'));
    for (const path of ['/services', '/staff', '/bookings/new'])
      expect(begin).toContain(`href="/admin/live/companies/${w.live.id}${path}"`);
    expect(page.body).not.toContain('>None<');
    expect(page.body).toMatch(/<strong class="figure">EUR\s0\.00<\/strong>/);
  });

  it('New booking is the highlighted menu entry on its page, and the calendar without staff leads on', async () => {
    const page = await get(`/admin/live/companies/${w.live.id}/bookings/new`);
    expect(page.body).toContain('aria-current="page">New booking</a>');
    expect(page.body).not.toContain('aria-current="page">Calendar</a>');
    const calendar = await get(`/admin/live/companies/${w.live.id}/calendar`);
    expect(calendar.body).toContain(`href="/admin/live/companies/${w.live.id}/staff">Add a staff member</a>`);
  });
});
