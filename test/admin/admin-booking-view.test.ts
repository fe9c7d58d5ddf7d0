// The admin area's booking page (src/admin/routes/bookings.ts) shows what the integration and
// the customer added to a booking: its metadata and the answers to the service's questions, with
// each question's label as it was asked, every value escaped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectSignIn } from './admin-helpers.js';
import type { TestApp } from '../helpers/app.js';
import { createTestApp } from '../helpers/app.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';
import { futureHour, post, salon } from '../helpers/domain.js';

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

describe('admin booking page', () => {
  it('shows the answers (label as asked, value) and the metadata, escaped', async () => {
    const auth = bearer(w.testKey.key);
    const { service } = await salon(t.app, auth, {
      questions: [
        { id: 'allergies', label: 'Allergies <b>?</b>', type: 'long_text', required: true },
        { id: 'extras', label: 'Extras', type: 'multi_choice', options: ['wash', 'dry'] },
        { id: 'firstVisit', label: 'First visit?', type: 'boolean', required: true },
      ],
    });
    const booking = await post(t.app, '/api/v1/bookings', auth, {
      serviceId: service._id,
      startTime: futureHour(6),
      customer: { name: 'Ann', email: 'ann-admin@example.com' },
      answers: { allergies: '<script>alert(1)</script>', extras: ['wash', 'dry'], firstVisit: true },
      metadata: { orderRef: 'A-17', '<i>key</i>': '"quoted" & <tag>' },
    });
    const cookie = await signIn();
    const page = await t.app.inject({
      method: 'GET',
      url: `/admin/test/companies/${w.test.id}/bookings/${booking._id}`,
      cookies: { svc_session: cookie },
    });
    expect(page.statusCode).toBe(200);
    const html = page.body;
    expect(html).toContain('<h2>Answers</h2>');
    expect(html).toContain('<dt>Allergies &lt;b>?&lt;/b></dt><dd>&lt;script>alert(1)&lt;/script></dd>');
    expect(html).toContain('<dt>Extras</dt><dd>wash, dry</dd>');
    expect(html).toContain('<dt>First visit?</dt><dd>Yes</dd>');
    expect(html).toContain('<h2>Metadata</h2>');
    expect(html).toContain('<dt><code>orderRef</code></dt><dd>A-17</dd>');
    expect(html).toContain('<dt><code>&lt;i>key&lt;/i></code></dt><dd>&quot;quoted&quot; &amp; &lt;tag></dd>');
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).not.toContain('<i>key</i>');
  });

  it("shows the booking's reminders: due time, channel, status and the reason of a withdrawn one", async () => {
    const auth = bearer(w.testKey.key);
    const { service } = await salon(t.app, auth);
    const booking = await post(t.app, '/api/v1/bookings', auth, {
      serviceId: service._id,
      startTime: futureHour(7),
      customer: { name: 'Bo', email: 'bo-admin@example.com' },
    });
    await post(t.app, `/api/v1/bookings/${booking._id}/reschedule`, auth, { startTime: futureHour(8) });
    const page = await t.app.inject({
      method: 'GET',
      url: `/admin/test/companies/${w.test.id}/bookings/${booking._id}`,
      cookies: { svc_session: await signIn() },
    });
    expect(page.statusCode).toBe(200);
    const section = page.body.slice(page.body.indexOf('<h2>Reminders</h2>'), page.body.indexOf('<h2>Events</h2>'));
    const rows = [...section.matchAll(/<tr><td.*?<\/tr>/g)].map((m) => m[0].replace(/ data-label="[^"]*"/g, ''));
    expect(rows).toHaveLength(2);
    // In the operator's words (issue 41 §4), not the API's codes.
    expect(rows[0]).toContain('<td>24 h</td><td>E-mail</td><td><span class="badge cancelled">Withdrawn</span>');
    expect(rows[0]).toContain('<td>the booking was moved</td>');
    expect(rows[1]).toContain('<td>24 h</td><td>E-mail</td><td><span class="badge scheduled">Planned</span>');
    expect(section).not.toContain('booking_rescheduled');
  });
});
