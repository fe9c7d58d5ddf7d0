// The admin area's customer pages (src/admin/routes/customers.tsx; docs/admin.md, Customers):
// the list searched by prefix, one customer with their bookings, payments, notes and metadata,
// the edit form (updateCustomer, errors said next to their field), the export (the API's own
// JSON as a download) and the erase behind a confirmation that counts what goes and what stays,
// each over the same use case as the API; a form without the CSRF token does nothing, and a
// customer of another company or mode is a 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { createTestApp } from '../helpers/app.js';
import { blankCompany, ok, futureHour, post, salon } from '../helpers/domain.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';
import { injectSignIn } from './admin-helpers.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let other: Awaited<ReturnType<typeof createAccountWithKeys>>;
let auth: Record<string, string>;
let cookie: string;
let csrf: string;
let customerId: string;
let companyId: string;
let bookingId: string;
beforeAll(async () => {
  t = await createTestApp({
    env: { RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000', RATE_LIMIT_PER_SECOND: '100000' },
  });
  w = await createAccountWithKeys(t.dbs);
  other = await createAccountWithKeys(t.dbs);
  // A company of its own: the sample companies come with customers of their own.
  const blank = await blankCompany(t.dbs, w);
  auth = blank.auth;
  companyId = blank.company.id;
  const { service } = await salon(t.app, auth, {
    questions: [{ id: 'allergies', label: 'Allergies', type: 'long_text' }],
  });
  const kept = await post(t.app, '/api/v1/bookings', auth, {
    serviceId: service._id,
    startTime: futureHour(5),
    customer: { name: 'Ann Lindqvist', email: 'ann.lindqvist@example.com', phone: '+46701234567' },
    notes: 'Window seat',
    answers: { allergies: 'Lavender' },
  });
  customerId = kept.customerId;
  bookingId = kept._id;
  const gone = await post(t.app, '/api/v1/bookings', auth, {
    serviceId: service._id,
    startTime: futureHour(6),
    customerId,
  });
  await post(t.app, `/api/v1/bookings/${gone._id}/cancel`, auth, { reason: 'Travelling' });
  await post(t.app, '/api/v1/payments', auth, {
    bookingId,
    card: { number: '4242424242424242', expMonth: 12, expYear: 2040, cvc: '123' },
  });
  ok(
    await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/customers/${customerId}`,
      headers: auth,
      payload: { notes: 'Prefers mornings', metadata: { crm: 'C-17' } },
    }),
  );
  // More than a page (25) of others, so the list has a second page.
  for (let i = 0; i < 26; i++)
    await post(t.app, '/api/v1/customers', auth, { name: `Bertil ${i}`, email: `bertil${i}@example.com` });
  await post(t.app, '/api/v1/customers', auth, { name: 'Anneli Berg', email: 'anneli@example.com' });
  ({ cookie, csrf } = await signIn());
}, 60_000);
afterAll(async () => t?.close());

async function signIn(): Promise<{ cookie: string; csrf: string }> {
  const session = await injectSignIn(t.app, w);
  const page = await get(`/admin/test/companies/${companyId}/customers`, session);
  return { cookie: session, csrf: /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]! };
}

const base = () => `/admin/test/companies/${companyId}/customers`;
const get = (url: string, session = cookie) => t.app.inject({ method: 'GET', url, cookies: { svc_session: session } });
const postForm = (url: string, fields: Record<string, string>) =>
  t.app.inject({
    method: 'POST',
    url,
    cookies: { svc_session: cookie },
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });
const apiCustomer = async () =>
  ok(await t.app.inject({ method: 'GET', url: `/api/v1/customers/${customerId}`, headers: auth }));
const eventsOfType = async (type: string) =>
  ok(await t.app.inject({ method: 'GET', url: `/api/v1/events?type=${type}&limit=100`, headers: auth })).filter(
    (e: { data: { customerId?: string } }) => e.data.customerId === customerId,
  );
/** The names in the list's table, in order. */
const listed = (html: string) =>
  [...html.matchAll(/<td><a href="[^"]+\/customers\/[0-9a-f]{24}">([^<]+)<\/a>/g)].map((m) => m[1]);

describe('admin customers', () => {
  it('lists the customers newest first in pages, and searches by the start of a name, e-mail or phone', async () => {
    const first = await get(base());
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain(`<a href="${base()}" aria-current="page">Customers</a>`);
    expect(listed(first.body)).toHaveLength(25);
    expect(listed(first.body)[0]).toBe('Anneli Berg');
    const next = /href="([^"]+cursor=[^"]+)"/.exec(first.body)![1]!.replace(/&amp;/g, '&');
    const second = await get(next);
    expect(listed(second.body)).toEqual(['Bertil 1', 'Bertil 0', 'Ann Lindqvist']);
    expect(second.body).not.toContain('Next page');

    expect(listed((await get(`${base()}?q=ANN`)).body)).toEqual(['Anneli Berg', 'Ann Lindqvist']);
    expect(listed((await get(`${base()}?q=ann.l`)).body)).toEqual(['Ann Lindqvist']);
    expect(listed((await get(`${base()}?q=${encodeURIComponent('+46 70 123')}`)).body)).toEqual(['Ann Lindqvist']);
    const none = await get(`${base()}?q=lindqvist`);
    expect(listed(none.body)).toEqual([]);
    expect(none.body).toContain("No customer's name, e-mail or phone starts with “lindqvist”.");
    // A search the use case refuses is said next to the box.
    const long = await get(`${base()}?q=${'x'.repeat(201)}`);
    expect(long.statusCode).toBe(400);
    expect(long.body).toContain('<p class="field-error" id="f-q-error">The search must be at most 200 characters.</p>');
  });

  it('GET /api/v1/customers?q= and GraphQL customers(search:) run the same search', async () => {
    const list = async (query: string) =>
      ok(await t.app.inject({ method: 'GET', url: `/api/v1/customers?${query}`, headers: auth })).map(
        (c: { name: string }) => c.name,
      );
    expect(await list('q=ANN')).toEqual(['Anneli Berg', 'Ann Lindqvist']);
    expect(await list(`q=${encodeURIComponent('4670 12')}`)).toEqual(['Ann Lindqvist']);
    expect(await list('q=ann&email=anneli@example.com')).toEqual(['Anneli Berg']);
    expect(await list('q=bertil&limit=30')).toHaveLength(26);
    expect(await list('q=%25')).toEqual([]);
    const long = await t.app.inject({ method: 'GET', url: `/api/v1/customers?q=${'x'.repeat(201)}`, headers: auth });
    expect(long.statusCode).toBe(400);
    expect(JSON.stringify(long.json())).toContain('"q"');
    const gql = async (args: string) =>
      (
        await t.app.inject({
          method: 'POST',
          url: '/graphql',
          headers: auth,
          payload: { query: `{ customers(${args}) { totalCount nodes { name } pageInfo { hasNextPage endCursor } } }` },
        })
      ).json();
    const page = await gql('search: "bertil", first: 20');
    expect(page.data.customers.totalCount).toBe(26);
    expect(page.data.customers.nodes).toHaveLength(20);
    const rest = await gql(`search: "bertil", first: 20, after: "${page.data.customers.pageInfo.endCursor}"`);
    expect(rest.data.customers.nodes.map((n: { name: string }) => n.name)).toEqual(
      Array.from({ length: 6 }, (_, i) => `Bertil ${5 - i}`),
    );
    const refused = await gql('search: "ann", orderBy: NAME');
    expect(refused.errors[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('shows one customer: details, upcoming bookings, history, payments, notes and metadata; a booking links to them', async () => {
    const page = await get(`${base()}/${customerId}`);
    expect(page.statusCode).toBe(200);
    const html = page.body;
    const section = (from: string, to: string) => html.slice(html.indexOf(from), html.indexOf(to));
    expect(html).toContain('<h1>Ann Lindqvist</h1>');
    expect(html).toContain('<dt>Phone</dt><dd>+46701234567</dd>');
    expect(html).toContain('<dt>Notes</dt><dd>Prefers mornings</dd>');
    expect(section('<h2>Metadata</h2>', '<h2>Upcoming')).toContain('<dt><code>crm</code></dt><dd>C-17</dd>');
    const upcoming = section('<h2>Upcoming bookings</h2>', '<h2>History</h2>');
    expect(upcoming).toContain(`/bookings/${bookingId}`);
    expect(upcoming.match(/<tr><td/g)).toHaveLength(1);
    expect(section('<h2>History</h2>', '<h2>Payments</h2>')).toContain(
      '<span class="badge cancelled">Cancelled</span>',
    );
    expect(section('<h2>Payments</h2>', '<h2>Edit</h2>')).toContain('EUR');
    const booking = await get(`/admin/test/companies/${companyId}/bookings/${bookingId}`);
    expect(booking.body).toContain(`href="${base()}/${customerId}"`);
  });

  it('edits through updateCustomer: errors next to their field and nothing written; then saved, with its event', async () => {
    const url = `${base()}/${customerId}`;
    const form = { csrf_token: csrf, name: 'Ann Lindqvist', email: 'ann.lindqvist@example.com', phone: '', notes: '' };
    const before = await apiCustomer();
    const bad = await postForm(url, { ...form, phone: '0701 23', name: ' ' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toMatch(/<p class="field-error" id="f-phone-error">[^<]+<\/p>/);
    expect(bad.body).toMatch(/<p class="field-error" id="f-name-error">[^<]+<\/p>/);
    expect(bad.body).toContain('aria-invalid="true" aria-describedby="f-phone-hint f-phone-error"');
    const taken = await postForm(url, { ...form, email: 'ANNELI@example.com' });
    expect(taken.statusCode).toBe(409);
    expect(taken.body).toContain(
      '<p class="field-error" id="f-email-error">A customer with this e-mail already exists in this company</p>',
    );
    expect(await apiCustomer()).toEqual(before);

    const saved = await postForm(url, { ...form, name: 'Ann L. Lindqvist', phone: '+46 70 765 43 21', notes: 'VIP' });
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe(`${url}?done=updated`);
    expect(await apiCustomer()).toMatchObject({ name: 'Ann L. Lindqvist', phone: '+46707654321', notes: 'VIP' });
    expect((await get(saved.headers.location as string)).body).toContain('Customer saved.');
    expect((await eventsOfType('customer.updated'))[0].data).toMatchObject({ name: 'Ann L. Lindqvist' });
  });

  it('refuses a form without the session CSRF token, changing nothing', async () => {
    const before = await apiCustomer();
    const edit = await postForm(`${base()}/${customerId}`, { csrf_token: 'x'.repeat(43), name: 'Hijacked' });
    expect(edit.statusCode).toBe(403);
    const erase = await postForm(`${base()}/${customerId}/erase`, {});
    expect(erase.statusCode).toBe(403);
    expect(await apiCustomer()).toEqual(before);
  });

  it("is a 404 for another company's customer, the other mode's company, or another account's company", async () => {
    const theirs = await post(t.app, '/api/v1/customers', bearer(other.testKey.key), {
      name: 'Not Yours',
      email: 'not-yours@example.com',
    });
    for (const url of [
      `${base()}/${theirs._id}`,
      `${base()}/${theirs._id}/export`,
      `${base()}/${theirs._id}/erase`,
      `/admin/live/companies/${companyId}/customers/${customerId}`,
      `/admin/test/companies/${other.test.id}/customers`,
      `${base()}/not-an-id`,
    ])
      expect((await get(url)).statusCode, url).toBe(404);
    const erase = await postForm(`${base()}/${theirs._id}/erase`, { csrf_token: csrf });
    expect(erase.statusCode).toBe(404);
    const api = ok(
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/customers/${theirs._id}`,
        headers: bearer(other.testKey.key),
      }),
    );
    expect(api.erasedAt).toBeNull();
  });

  it("exports the API's own JSON as a download", async () => {
    const res = await get(`${base()}/${customerId}/export`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="customer-${customerId}.json"`);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const mine = JSON.parse(res.body);
    const api = JSON.parse(
      (await t.app.inject({ method: 'GET', url: `/api/v1/customers/${customerId}/export`, headers: auth })).body,
    );
    expect(Object.keys(mine)).toEqual(Object.keys(api));
    expect({ ...mine.data, exportedAt: null }).toEqual({ ...api.data, exportedAt: null });
    expect(mine.data.bookings).toHaveLength(2);
    expect(mine.data.payments).toHaveLength(1);
  });

  it('erases behind a confirmation that counts what goes and what stays; afterwards the customer is shown erased and cannot be edited', async () => {
    const url = `${base()}/${customerId}`;
    const confirm = await get(`${url}/erase`);
    expect(confirm.statusCode).toBe(200);
    const html = confirm.body;
    expect(html).toContain('<h1>Erase Ann L. Lindqvist?</h1>');
    expect(html).toContain('e-mail (<strong>ann.lindqvist@example.com</strong>)');
    // The counts are the domain's: both bookings have text to remove (notes and answers, a
    // cancel reason), one payment is kept, every e-mail sent about them is replaced.
    expect(html).toContain('Notes, answers, cancel reasons and time zones of 2 bookings');
    expect(html).toContain('2 bookings, anonymous');
    expect(html).toContain('1 payment: amounts');
    const exported = JSON.parse((await get(`${url}/export`)).body).data;
    expect(html).toContain(`${exported.emails.length} e-mail${exported.emails.length === 1 ? '' : 's'} to them`);
    expect(html).toContain(`${exported.events.length} events about them`);
    expect(html).toContain(`action="${url}/erase"`);

    const done = await postForm(`${url}/erase`, { csrf_token: csrf });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe(`${url}?done=erased`);
    const after = await get(done.headers.location as string);
    expect(after.body).toContain('<h1>Erased customer <span class="badge cancelled">Erased</span></h1>');
    expect(after.body).toContain('Customer erased');
    expect(after.body).toContain('An erased customer cannot be changed.');
    expect(after.body).not.toContain('Erase…');
    expect((await apiCustomer()).erasedAt).not.toBeNull();
    expect(await eventsOfType('customer.erased')).toHaveLength(1);
    // The bookings stay, anonymous.
    const booking = ok(await t.app.inject({ method: 'GET', url: `/api/v1/bookings/${bookingId}`, headers: auth }));
    expect(booking).toMatchObject({ customerId, notes: null, answers: [] });

    // The use case's refusals, in words: a change, and a second erase.
    const edit = await postForm(url, { csrf_token: csrf, name: 'Back again', email: 'back@example.com' });
    expect(edit.statusCode).toBe(409);
    expect(edit.body).toContain('This customer was erased; their record cannot change');
    const again = await postForm(`${url}/erase`, { csrf_token: csrf });
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('This customer was erased; their record cannot change.');
    expect(await eventsOfType('customer.erased')).toHaveLength(1);
    expect((await get(`${url}/erase`)).body).toContain('there is nothing left to');
  });
});
