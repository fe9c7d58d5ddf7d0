// Erasing and exporting a customer (docs/api.md, Customers: erase and export), through the real
// app, workers and a real local webhook receiver: the export holds everything about them; after
// the erase no text or JSON column of any table holds their name, e-mail, phone or what they
// typed, their bookings remain, and customer.erased is delivered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkers, type Workers } from '../../../src/workers/runtime.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { bearer, createAccountWithKeys } from '../../helpers/factories.js';
import {
  blankCompany,
  expectError,
  futureHour,
  ok,
  post,
  salon,
  tokenWithScopes,
  type World,
} from '../../helpers/domain.js';
import { FAST_WORKERS, startReceiver, waitFor, type Receiver } from '../../helpers/receiver.js';

let t: TestApp;
let w: World;
let workers: Workers;
let receiver: Receiver;

beforeAll(async () => {
  // The receiver echoes what it gets, so attempt excerpts hold the payloads.
  receiver = await startReceiver((req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(req.body),
  );
  t = await createTestApp({ env: { ...FAST_WORKERS, RATE_LIMIT_PER_SECOND: '1000000', REQUEST_LOG_FLUSH_MS: '100' } });
  w = await createAccountWithKeys(t.dbs);
  workers = await startWorkers(t.services);
}, 60_000);
afterAll(async () => {
  await workers?.stop();
  await t?.close();
  await receiver?.close();
});

const NAME = 'Philippa Quarrington';
const EMAIL = 'philippa.quarrington@example.org';
const PHONE = '+447911123456';
/** Everything that identifies her: none may be left in any column after the erase. */
const TRACES = ['Philippa', 'Quarrington', EMAIL, '447911123456', 'allergic to hazelnuts', 'feels unwell'];

const get = async (url: string, headers: Record<string, string>) =>
  ok(await t.app.inject({ method: 'GET', url, headers }));

/** Every row of every table whose text, JSON or array columns hold one of the strings. */
async function tracesIn(strings: string[], except: string[] = []): Promise<string[]> {
  const prisma = t.dbs.test.prisma;
  const columns = await prisma.$queryRaw<Array<{ table: string; column: string }>>`
    SELECT c.table_name AS "table", c.column_name AS "column"
    FROM information_schema.columns c JOIN information_schema.tables tb
      ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name AND tb.table_type = 'BASE TABLE'
    WHERE c.table_schema = current_schema()
      AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY', 'USER-DEFINED')`;
  expect(columns.length).toBeGreaterThan(50);
  const patterns = strings.map((s) => `%${s.replace(/[\\%_]/g, '\\$&')}%`);
  const found: string[] = [];
  for (const { table, column } of columns) {
    if (except.includes(table)) continue;
    const [row] = await prisma.$queryRawUnsafe<Array<{ n: bigint }>>(
      `SELECT count(*) AS n FROM "${table}" WHERE "${column}"::text ILIKE ANY($1::text[])`,
      patterns,
    );
    if (Number(row!.n) > 0) found.push(`${table}.${column}: ${row!.n}`);
  }
  return found;
}

describe('erase and export', () => {
  it('exports everything about a customer, then erases every copy and keeps the bookings', async () => {
    const { auth, company } = await blankCompany(t.dbs, w);
    await post(t.app, '/api/v1/webhook-endpoints', auth, { url: receiver.url, events: ['*'] });
    const { service } = await salon(t.app, auth, {
      questions: [
        { id: 'allergies', label: 'Any allergies?', type: 'long_text', required: true },
        { id: 'mobile', label: 'Mobile number', type: 'phone' },
        { id: 'length', label: 'Hair length', type: 'choice', options: ['short', 'long'] },
      ],
    });
    const first = await post(t.app, '/api/v1/bookings', auth, {
      serviceId: service._id,
      startTime: futureHour(3, 9),
      customer: { name: NAME, email: EMAIL, phone: PHONE, metadata: { crm: EMAIL } },
      customerTimeZone: 'Europe/London',
      notes: `Call ${NAME} before`,
      answers: { allergies: 'Philippa is allergic to hazelnuts', mobile: PHONE, length: 'long' },
      metadata: { contact: NAME, source: 'web' },
    });
    const customerId = first.customerId;
    // A second booking with an Idempotency-Key: its replayable answer holds her answers.
    const second = ok(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/bookings',
        headers: { ...auth, 'idempotency-key': 'erase-test-second' },
        payload: {
          serviceId: service._id,
          startTime: futureHour(4, 9),
          customerId,
          answers: { allergies: 'Still allergic to hazelnuts' },
        },
      }),
    );
    await post(t.app, `/api/v1/bookings/${second._id}/cancel`, auth, { reason: 'Philippa feels unwell' });
    await post(t.app, '/api/v1/payments', auth, {
      bookingId: first._id,
      card: { number: '4242424242424242', expMonth: 12, expYear: 2040, cvc: '123' },
      metadata: { payer: NAME },
    });
    ok(
      await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/customers/${customerId}`,
        headers: auth,
        payload: { notes: 'Philippa prefers mornings' },
      }),
    );
    // A refused request that carried her e-mail: its bodies are kept in the request log.
    expectError(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/customers',
        headers: auth,
        payload: { name: NAME, email: EMAIL },
      }),
      409,
      'CONFLICT',
    );

    const prisma = t.dbs.test.prisma;
    await waitFor(
      async () =>
        (await prisma.requestLog.count({ where: { companyId: company.id, status: 409 } })) === 1 &&
        (await prisma.payment.count({ where: { bookingId: first._id, status: 'succeeded' } })) === 1 &&
        (await prisma.email.count({ where: { companyId: company.id, to: EMAIL } })) >= 3 &&
        (await prisma.webhookAttempt.count({
          where: { delivery: { companyId: company.id }, responseExcerpt: { contains: 'Philippa' } },
        })) >= 5,
      { what: 'the logs, e-mails, payment and deliveries of her bookings', timeoutMs: 20_000 },
    );
    expect(await tracesIn(TRACES)).not.toEqual([]);

    const exported = await get(`/api/v1/customers/${customerId}/export`, auth);
    expect(exported.customer).toMatchObject({
      _id: customerId,
      name: NAME,
      email: EMAIL,
      phone: PHONE,
      erasedAt: null,
    });
    expect(exported.bookings.map((b: { _id: string }) => b._id).sort()).toEqual([first._id, second._id].sort());
    const firstExported = exported.bookings.find((b: { _id: string }) => b._id === first._id);
    expect(firstExported).toMatchObject({ notes: `Call ${NAME} before`, customerTimeZone: 'Europe/London' });
    expect(firstExported.answers[0]).toMatchObject({
      questionId: 'allergies',
      value: 'Philippa is allergic to hazelnuts',
    });
    expect(firstExported.manageUrl).toBeUndefined();
    expect(exported.payments).toHaveLength(1);
    expect(exported.payments[0]).toMatchObject({
      bookingId: first._id,
      status: 'succeeded',
      metadata: { payer: NAME },
    });
    expect(exported.emails.length).toBeGreaterThanOrEqual(3);
    expect(exported.emails.every((e: { to: string }) => e.to === EMAIL)).toBe(true);
    expect(exported.notifications.length).toBeGreaterThan(0);
    const types = exported.events.map((e: { type: string }) => e.type);
    for (const type of [
      'customer.created',
      'customer.updated',
      'booking.created',
      'booking.cancelled',
      'payment.succeeded',
    ])
      expect(types).toContain(type);
    expect(exported.truncated).toBe(false);

    const erased = ok(
      await t.app.inject({ method: 'POST', url: `/api/v1/customers/${customerId}/erase`, headers: auth }),
    );
    expect(erased).toMatchObject({
      _id: customerId,
      name: 'Erased customer',
      email: `erased+${customerId}@erased.invalid`,
      phone: null,
      notes: null,
      metadata: {},
    });
    expect(Date.parse(erased.erasedAt)).toBeGreaterThan(0);
    expect(await get(`/api/v1/customers/${customerId}`, auth)).toEqual(erased);

    // customer.erased, with ids and the time only.
    const delivery = await waitFor(
      () =>
        receiver.received.find(
          (r) => r.headers['x-webhook-event'] === 'customer.erased' && r.body.includes(customerId),
        ),
      { what: 'customer.erased' },
    );
    expect(JSON.parse(delivery.body).data).toEqual({ customerId, erasedAt: erased.erasedAt });

    // No copy anywhere: every text, JSON and array column of every table.
    expect(await tracesIn(TRACES)).toEqual([]);

    // The bookings and the payment remain, anonymous.
    const kept = await get(`/api/v1/bookings/${first._id}`, auth);
    expect(kept).toMatchObject({
      customerId,
      status: 'confirmed',
      notes: null,
      answers: [],
      customerTimeZone: null,
      metadata: { contact: '[erased]', source: 'web' },
    });
    expect(await get(`/api/v1/bookings/${second._id}`, auth)).toMatchObject({
      status: 'cancelled',
      cancelReason: null,
    });
    expect((await prisma.payment.findFirstOrThrow({ where: { bookingId: first._id } })).amount).toBe(4500);
    // Her old manage link opens nothing.
    const page = await t.app.inject({ method: 'GET', url: new URL(first.manageUrl).pathname });
    expect(page.statusCode).toBe(404);
    // Her planned e-mail reminders are withdrawn.
    expect(
      await prisma.notification.count({ where: { bookingId: first._id, channel: 'email', status: 'scheduled' } }),
    ).toBe(0);

    // Erased once and for all: a second erase, a change and a new booking for her are refused.
    const again = expectError(
      await t.app.inject({ method: 'POST', url: `/api/v1/customers/${customerId}/erase`, headers: auth }),
      409,
      'CONFLICT',
    );
    expect(again.error.details).toEqual({ erasedAt: erased.erasedAt });
    expectError(
      await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/customers/${customerId}`,
        headers: auth,
        payload: { name: 'Back again' },
      }),
      409,
      'CONFLICT',
    );
    expectError(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/bookings',
        headers: auth,
        payload: { serviceId: service._id, startTime: futureHour(5, 9), customerId, answers: { allergies: 'no' } },
      }),
      409,
      'CONFLICT',
    );
    // Her address is free again: booking with it makes a new customer.
    const anew = await post(t.app, '/api/v1/bookings', auth, {
      serviceId: service._id,
      startTime: futureHour(5, 9),
      customer: { name: 'P. Q.', email: EMAIL },
      answers: { allergies: 'none' },
    });
    expect(anew.customerId).not.toBe(customerId);
  }, 60_000);

  it('answers 404 for an unknown id and for another company’s customer, and changes nothing', async () => {
    const a = await blankCompany(t.dbs, w);
    const b = await blankCompany(t.dbs, w);
    const theirs = await post(t.app, '/api/v1/customers', b.auth, {
      name: 'Other Company Person',
      email: 'o@example.com',
    });
    for (const id of [theirs._id, '0123456789abcdef01234567']) {
      expectError(
        await t.app.inject({ method: 'POST', url: `/api/v1/customers/${id}/erase`, headers: a.auth }),
        404,
        'NOT_FOUND',
      );
      expectError(
        await t.app.inject({ method: 'GET', url: `/api/v1/customers/${id}/export`, headers: a.auth }),
        404,
        'NOT_FOUND',
      );
    }
    expect(await get(`/api/v1/customers/${theirs._id}`, b.auth)).toMatchObject({
      name: 'Other Company Person',
      erasedAt: null,
    });
  });

  it('needs customers:write to erase and customers:read to export, in REST and GraphQL', async () => {
    const c = await post(t.app, '/api/v1/customers', bearer(w.testKey.key), {
      name: 'Scoped Person',
      email: 's@example.com',
    });
    const reader = await tokenWithScopes(t.dbs, w, 'customers:read');
    const writer = await tokenWithScopes(t.dbs, w, 'customers:write');
    expectError(
      await t.app.inject({ method: 'POST', url: `/api/v1/customers/${c._id}/erase`, headers: reader }),
      403,
      'INSUFFICIENT_SCOPE',
    );
    expectError(
      await t.app.inject({ method: 'GET', url: `/api/v1/customers/${c._id}/export`, headers: writer }),
      403,
      'INSUFFICIENT_SCOPE',
    );
    const gql = async (headers: Record<string, string>, query: string) =>
      (
        await t.app.inject({ method: 'POST', url: '/graphql', headers, payload: { query, variables: { id: c._id } } })
      ).json();
    const erase = 'mutation($id: ID!) { eraseCustomer(id: $id) { _id name erasedAt } }';
    const exp = 'query($id: ID!) { customerExport(id: $id) { customer { name } bookings { _id } truncated } }';
    expect((await gql(reader, erase)).errors[0].extensions.code).toBe('INSUFFICIENT_SCOPE');
    expect((await gql(writer, exp)).errors[0].extensions.code).toBe('INSUFFICIENT_SCOPE');
    expect((await gql(reader, exp)).data.customerExport).toEqual({
      customer: { name: 'Scoped Person' },
      bookings: [],
      truncated: false,
    });
    const done = (await gql(writer, erase)).data.eraseCustomer;
    expect(done).toMatchObject({ _id: c._id, name: 'Erased customer' });
    expect(done.erasedAt).toEqual(expect.any(String));
  });

  it('an erase racing a change of the customer never leaves their data behind', async () => {
    const { auth } = await blankCompany(t.dbs, w);
    for (let i = 0; i < 6; i++) {
      const c = await post(t.app, '/api/v1/customers', auth, {
        name: `Racer Person ${i}`,
        email: `racer${i}@example.com`,
      });
      const [erase, patch] = await Promise.all([
        t.app.inject({ method: 'POST', url: `/api/v1/customers/${c._id}/erase`, headers: auth }),
        t.app.inject({
          method: 'PATCH',
          url: `/api/v1/customers/${c._id}`,
          headers: auth,
          payload: { name: `Renamed Racer ${i}`, phone: '+14155550199' },
        }),
      ]);
      expect(erase.statusCode).toBe(200);
      // The change came first (and was then erased) or after (and was refused).
      expect([200, 409]).toContain(patch.statusCode);
      expect(await get(`/api/v1/customers/${c._id}`, auth)).toMatchObject({ name: 'Erased customer', phone: null });
    }
    // Except the request log: a change refused because the customer was already erased is a
    // 409, whose bodies (what the client sent after the erase) the log keeps like any other.
    expect(
      await tracesIn(['Racer Person', 'Renamed Racer', '4155550199', 'racer0@', 'racer5@'], ['request_logs']),
    ).toEqual([]);
  }, 60_000);
});
