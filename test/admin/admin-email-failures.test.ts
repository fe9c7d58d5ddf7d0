// A live e-mail that could not be sent shows why in the admin area (issue 14 point 10): with no
// SMTP_URL the real e-mail worker marks it failed with its reason, and the list and the e-mail's
// own page show that reason next to "failed", escaped like every other input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkers, type Workers } from '../../src/workers/runtime.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { bookThroughUseCase } from '../helpers/bookings.js';
import { FAST_WORKERS, waitFor } from '../helpers/receiver.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let workers: Workers;
let cookie: string;

beforeAll(async () => {
  t = await createTestApp({
    env: {
      ...FAST_WORKERS,
      SMTP_URL: undefined,
      RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000',
      RATE_LIMIT_PER_SECOND: '100000',
    },
  });
  w = await createAccountWithKeys(t.dbs);
  workers = await startWorkers(t.services);
  // Signed in through the login form, as a person would.
  const login = await t.app.inject({ method: 'GET', url: '/admin/login' });
  const loginCsrf = login.cookies.find((c) => c.name === 'svc_login_csrf')!.value;
  const token = /name="csrf_token" value="([^"]+)"/.exec(login.body)![1]!;
  const res = await t.app.inject({
    method: 'POST',
    url: '/oauth/login',
    cookies: { svc_login_csrf: loginCsrf },
    payload: new URLSearchParams({
      csrf_token: token,
      email: w.email,
      password: w.password,
      next: '/admin',
    }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(res.statusCode).toBe(303);
  cookie = res.cookies.find((c) => c.name === 'svc_session')!.value;
}, 60_000);
afterAll(async () => {
  await workers?.stop();
  await t?.close();
});

const page = (path: string) =>
  t.app.inject({ method: 'GET', url: `/admin/live/companies/${w.live.id}${path}`, cookies: { svc_session: cookie } });

describe('a live e-mail that failed', () => {
  it('shows its reason in the list and on its own page', async () => {
    // A booking confirmed at once: its booking.created sends the customer a confirmation.
    const { booking } = await bookThroughUseCase(t.dbs.live.prisma, w.live, { requiresPayment: false });
    const event = await t.dbs.live.prisma.event.findFirstOrThrow({
      where: { type: 'booking.created', data: { path: ['bookingId'], equals: booking.id } },
    });
    const email = await waitFor(
      async () => {
        const e = await t.dbs.live.prisma.email.findUnique({ where: { eventId: event.id } });
        return e?.status === 'failed' ? e : null;
      },
      { what: 'the e-mail marked failed' },
    );
    expect(email.lastError).toBe('SMTP_URL is not configured');

    const list = await page('/emails');
    expect(list.statusCode).toBe(200);
    const row = list.body.split('<tr>').find((r) => r.includes(`/emails/${email.id}`))!;
    expect(row).toContain(
      '<span class="badge failed">failed</span> <span class="muted email-error">SMTP_URL is not configured</span>',
    );

    const one = await page(`/emails/${email.id}`);
    expect(one.statusCode).toBe(200);
    expect(one.body).toMatch(
      /<dd id="email-status"><span class="badge failed">failed<\/span> <span class="muted email-error">SMTP_URL is not configured<\/span><\/dd>/,
    );
  });

  it('shows an SMTP server’s words escaped, and no reason once the e-mail is sent', async () => {
    const { booking } = await bookThroughUseCase(t.dbs.live.prisma, w.live, { requiresPayment: false });
    const base = {
      companyId: w.live.id,
      to: 'dana@example.com',
      from: 'shop@example.com',
      subject: `Booking ${booking.id}`,
      text: 't',
      html: '<p>t</p>',
      headers: {},
    };
    const hostile = await t.dbs.live.prisma.email.create({
      data: {
        ...base,
        id: '0'.repeat(23) + '1',
        status: 'failed',
        lastError: '550 <img src=x onerror="alert(1)"> & "quotes"',
      },
    });
    const sent = await t.dbs.live.prisma.email.create({
      data: {
        ...base,
        id: '0'.repeat(23) + '2',
        status: 'sent',
        lastError: 'an earlier attempt timed out',
        sentAt: new Date(),
      },
    });
    for (const body of [(await page('/emails')).body, (await page(`/emails/${hostile.id}`)).body]) {
      expect(body).toContain(
        '<span class="muted email-error">550 &lt;img src=x onerror=&quot;alert(1)&quot;> &amp; &quot;quotes&quot;</span>',
      );
      expect(body).not.toContain('<img src=x');
    }
    const ok = await page(`/emails/${sent.id}`);
    expect(ok.body).toMatch(/<dd id="email-status"><span class="badge sent">sent<\/span> sent /);
    expect(ok.body).not.toContain('an earlier attempt timed out');
  });
});
