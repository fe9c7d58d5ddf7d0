// The admin area's payments pages and search box (src/admin/routes/payments.tsx, search.tsx;
// docs/admin.md, Payments and Search): the list filtered by status and day, one payment with its
// events, a refund (partial, then the rest) behind a confirmation over the API's own refund use
// case (the same payment.refunded events), amounts refused in words with nothing changed, and
// the top bar's box finding a booking, a payment or a customer. The payments worker is run by
// hand (settlePayment), so a payment is processing exactly as long as the test wants.
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobContext } from '../../src/workers/job-types.js';
import { settlePayment } from '../../src/workers/settle-payment.js';
import type { TestApp } from '../helpers/app.js';
import { createTestApp } from '../helpers/app.js';
import { blankCompany, futureHour, ok, post, salon } from '../helpers/domain.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { injectSignIn } from './admin-helpers.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let auth: Record<string, string>;
let companyId: string;
let cookie: string;
let csrf: string;
let paid: { paymentId: string; bookingId: string; customerId: string };
let pendingPaymentId: string;
const card = { number: '4242424242424242', expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvc: '123' };

beforeAll(async () => {
  t = await createTestApp({
    env: { RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000', RATE_LIMIT_PER_SECOND: '100000' },
  });
  w = await createAccountWithKeys(t.dbs);
  const blank = await blankCompany(t.dbs, w);
  auth = blank.auth;
  companyId = blank.company.id;
  const { service } = await salon(t.app, auth, { price: 4500 });
  const book = (day: number, name: string) =>
    post(t.app, '/api/v1/bookings', auth, {
      serviceId: service._id,
      startTime: futureHour(day),
      customer: { name, email: `${name.toLowerCase().replace(' ', '.')}@example.com`, phone: '+4915112345678' },
    });
  const b1 = await book(3, 'Greta Holm');
  const p1 = await post(t.app, '/api/v1/payments', auth, { bookingId: b1._id, card });
  const ctx: JobContext = { services: t.services, enqueue: async () => {}, signal: new AbortController().signal };
  await settlePayment(ctx, { mode: 'test', paymentId: p1._id });
  paid = { paymentId: p1._id, bookingId: b1._id, customerId: b1.customerId };
  const b2 = await book(4, 'Olle Sund');
  pendingPaymentId = (await post(t.app, '/api/v1/payments', auth, { bookingId: b2._id, card }))._id;
  const session = await injectSignIn(t.app, w);
  const page = await get(`/admin/test/companies/${companyId}/payments`, session);
  cookie = session;
  csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
}, 60_000);
afterAll(async () => t?.close());

const base = () => `/admin/test/companies/${companyId}`;
const get = (url: string, session = cookie) => t.app.inject({ method: 'GET', url, cookies: { svc_session: session } });
const postForm = (url: string, fields: Record<string, string>) =>
  t.app.inject({
    method: 'POST',
    url,
    cookies: { svc_session: cookie },
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });
const apiPayment = async (id: string) =>
  ok(await t.app.inject({ method: 'GET', url: `/api/v1/payments/${id}`, headers: auth }));
const refundEvents = async () =>
  ok(await t.app.inject({ method: 'GET', url: '/api/v1/events?type=payment.refunded&limit=100', headers: auth }));
/** The payment ids the list links to, in order. */
const listed = (html: string) => [...html.matchAll(/href="[^"]+\/payments\/([0-9a-f]{24})"/g)].map((m) => m[1]);

describe('admin payments', () => {
  it('lists the payments newest first, filtered by status and by day in the company zone', async () => {
    const all = await get(`${base()}/payments`);
    expect(all.statusCode).toBe(200);
    expect(all.body).toContain(`aria-current="page">Payments</a>`);
    expect(listed(all.body)).toEqual([pendingPaymentId, paid.paymentId]);
    expect(all.body).toContain('Greta Holm');
    expect(listed((await get(`${base()}/payments?status=succeeded`)).body)).toEqual([paid.paymentId]);
    expect(listed((await get(`${base()}/payments?status=processing`)).body)).toEqual([pendingPaymentId]);
    // Days are the company's (Berlin): the payments were made around now, between yesterday and tomorrow there.
    const now = DateTime.now().setZone('Europe/Berlin');
    const [yesterday, tomorrow] = [now.minus({ days: 1 }).toISODate()!, now.plus({ days: 1 }).toISODate()!];
    expect(listed((await get(`${base()}/payments?from=${yesterday}&to=${tomorrow}`)).body)).toHaveLength(2);
    const old = await get(`${base()}/payments?from=2020-01-01&to=2020-01-31`);
    expect(listed(old.body)).toEqual([]);
    expect(old.body).toContain('No payment matches these filters.');
  });

  it('refuses bad filters in words, naming the field', async () => {
    const bad = await get(`${base()}/payments?status=paid&from=yesterday`);
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('Status is not a payment status.');
    expect(bad.body).toContain('The first day must be a date.');
    const backwards = await get(`${base()}/payments?from=2026-03-10&to=2026-03-01`);
    expect(backwards.statusCode).toBe(400);
    expect(backwards.body).toContain('The last day must be on or after the first day.');
    expect((await get(`${base()}/payments?before=nope`)).statusCode).toBe(400);
  });

  it('shows one payment with what it paid for, and refunds part, then the rest, through the API use case', async () => {
    const page = await get(`${base()}/payments/${paid.paymentId}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`href="${base()}/bookings/${paid.bookingId}"`);
    expect(page.body).toContain(`href="${base()}/customers/${paid.customerId}"`);
    expect(page.body).toContain('payment.succeeded');
    expect(page.body).toContain('Leave empty to refund all that is left (EUR');

    // The confirmation says what goes back and what is left, and changes nothing.
    const confirm = await get(`${base()}/payments/${paid.paymentId}/refund?amount=10,50`);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toMatch(/Refund EUR\s10\.50\?/);
    expect(confirm.body).toMatch(/leaving EUR\s34\.50 that could still be refunded/);
    expect((await apiPayment(paid.paymentId)).amountRefunded).toBe(0);

    // Without the form's CSRF token: refused, nothing refunded.
    const forged = await postForm(`${base()}/payments/${paid.paymentId}/refund`, { amount: '10.50' });
    expect(forged.statusCode).toBe(403);
    expect((await apiPayment(paid.paymentId)).amountRefunded).toBe(0);

    const part = await postForm(`${base()}/payments/${paid.paymentId}/refund`, { csrf_token: csrf, amount: '10.50' });
    expect(part.statusCode).toBe(303);
    expect(part.headers.location).toBe(`${base()}/payments/${paid.paymentId}?done=refunded`);
    expect(await apiPayment(paid.paymentId)).toMatchObject({ amountRefunded: 1050, status: 'partially_refunded' });

    // More than is left, or not an amount: said next to the field, nothing refunded.
    for (const [amount, words] of [
      ['40', 'must be at most what is left to refund'],
      ['12.345', 'with at most 2 decimals'],
      ['-3', 'must be an amount such as 12.50'],
      ['0', 'must be more than zero'],
    ]) {
      const res = await postForm(`${base()}/payments/${paid.paymentId}/refund`, { csrf_token: csrf, amount: amount! });
      expect(res.statusCode, amount).toBe(400);
      expect(res.body).toContain(words);
      expect(res.body).toContain('aria-invalid="true"');
    }
    expect((await apiPayment(paid.paymentId)).amountRefunded).toBe(1050);

    // Empty is all that is left.
    const rest = await postForm(`${base()}/payments/${paid.paymentId}/refund`, { csrf_token: csrf, amount: '' });
    expect(rest.statusCode).toBe(303);
    expect(await apiPayment(paid.paymentId)).toMatchObject({ amountRefunded: 4500, status: 'refunded' });
    const events = (await refundEvents()).filter(
      (e: { data: { paymentId: string } }) => e.data.paymentId === paid.paymentId,
    );
    expect(events.map((e: { data: { amountRefunded: number } }) => e.data.amountRefunded).sort()).toEqual([1050, 4500]);
    const after = await get(`${base()}/payments/${paid.paymentId}?done=refunded`);
    expect(after.body).toContain('Refunded in full.');
    expect(after.body).toContain('Refund made.');

    // A second refund posted from a stale page: the use case refuses it, in words.
    const again = await postForm(`${base()}/payments/${paid.paymentId}/refund`, { csrf_token: csrf, amount: '' });
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('The refund was refused');
    expect((await apiPayment(paid.paymentId)).amountRefunded).toBe(4500);
  });

  it('offers no refund of a payment still processing, and refuses one posted anyway', async () => {
    const page = await get(`${base()}/payments/${pendingPaymentId}`);
    expect(page.body).toContain('Not settled yet');
    expect(page.body).not.toContain('Review the refund');
    const res = await postForm(`${base()}/payments/${pendingPaymentId}/refund`, { csrf_token: csrf, amount: '' });
    expect(res.statusCode).toBe(409);
    expect((await apiPayment(pendingPaymentId)).amountRefunded).toBe(0);
  });

  it("another company's payment, a malformed id and the other mode are all 404", async () => {
    const other = await createAccountWithKeys(t.dbs);
    const otherCompany = await blankCompany(t.dbs, other);
    const { service } = await salon(t.app, otherCompany.auth);
    const b = await post(t.app, '/api/v1/bookings', otherCompany.auth, {
      serviceId: service._id,
      startTime: futureHour(5),
      customer: { name: 'Someone Else', email: 'else@example.com' },
    });
    const theirs = await post(t.app, '/api/v1/payments', otherCompany.auth, { bookingId: b._id, card });
    expect((await get(`${base()}/payments/${theirs._id}`)).statusCode).toBe(404);
    expect((await get(`${base()}/payments/nope`)).statusCode).toBe(404);
    expect((await get(`/admin/live/companies/${companyId}/payments/${paid.paymentId}`)).statusCode).toBe(404);
    const res = await postForm(`${base()}/payments/${theirs._id}/refund`, { csrf_token: csrf, amount: '' });
    expect(res.statusCode).toBe(404);
    // Search does not find another company's records either.
    const found = await get(`${base()}/search?q=${theirs._id}`);
    expect(found.statusCode).toBe(200);
    expect(found.body).toContain('Nothing of this company has the id');
  });
});

describe('admin search', () => {
  it('is on every page of a company, in the top bar', async () => {
    for (const path of ['/payments', '/customers', '/calendar']) {
      const page = await get(`${base()}${path}`);
      expect(page.body, path).toContain(`<form method="get" action="${base()}/search" role="search"`);
    }
  });

  it('opens a booking, a payment or a customer by its id at once', async () => {
    for (const [id, where] of [
      [paid.bookingId, `/bookings/${paid.bookingId}`],
      [paid.paymentId, `/payments/${paid.paymentId}`],
      [paid.customerId, `/customers/${paid.customerId}`],
      [` ${paid.paymentId.toUpperCase()} `, `/payments/${paid.paymentId}`],
    ]) {
      const res = await get(`${base()}/search?q=${encodeURIComponent(id!)}`);
      expect(res.statusCode, id).toBe(303);
      expect(res.headers.location).toBe(`${base()}${where}`);
    }
  });

  it('finds customers by the start of a name, an e-mail or a phone number', async () => {
    const byName = await get(`${base()}/search?q=gre`);
    expect(byName.statusCode).toBe(200);
    expect(byName.body).toContain(`href="${base()}/customers/${paid.customerId}">Greta Holm</a>`);
    expect(byName.body).not.toContain('Olle Sund');
    expect((await get(`${base()}/search?q=olle.s`)).body).toContain('Olle Sund');
    const byPhone = await get(`${base()}/search?q=${encodeURIComponent('+49 151')}`);
    expect(byPhone.body).toContain('Greta Holm');
    expect(byPhone.body).toContain('Olle Sund');
    const none = await get(`${base()}/search?q=zz`);
    expect(none.body).toContain("No customer's name, e-mail or phone starts with “zz”.");
    // The box keeps what was typed.
    expect(none.body).toContain('id="top-search" name="q" type="search" value="zz"');
    const long = await get(`${base()}/search?q=${'x'.repeat(201)}`);
    expect(long.statusCode).toBe(400);
  });
});
