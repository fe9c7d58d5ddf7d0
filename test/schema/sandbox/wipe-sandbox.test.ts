// "Wipe test data" (docs/sandbox.md): the account's test companies and all
// under them go; live rows (of the same account too), and other accounts' sandboxes, stay
// byte for byte; the wiped companies' keys stop working at once despite the credential cache.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/databases.js';
import { AppError } from '../../../src/errors.js';
import { newId } from '../../../src/ids.js';
import { createCompany } from '../../../src/schema/companies/create-company.js';
import { wipeSandbox } from '../../../src/schema/sandbox/wipe-sandbox.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { bearer, createAccountWithKeys } from '../../helpers/factories.js';

let t: TestApp;
let a: Awaited<ReturnType<typeof createAccountWithKeys>>;
let b: Awaited<ReturnType<typeof createAccountWithKeys>>;

/** Every row of every table of one database, as text, in a stable order. */
async function snapshot(db: Database): Promise<Record<string, string[]>> {
  return db.withSession(async (s) => {
    const tables = await s.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables
        WHERE table_schema = $1 AND table_type = 'BASE TABLE' AND table_name <> '_prisma_migrations' ORDER BY 1`,
      [db.schema],
    );
    const out: Record<string, string[]> = {};
    for (const { name } of tables) {
      const rows = await s.query<{ r: string }>(`SELECT row_to_json(t)::text AS r FROM "${db.schema}"."${name}" t`);
      out[name] = rows.map((x) => x.r).sort();
    }
    return out;
  });
}

/** The rows of a set of companies in one database: every table with a company_id, and the employees' service links and blocks. */
async function rowsOf(db: Database, companyIds: string[]): Promise<Record<string, string[]>> {
  const all = await snapshot(db);
  const employees = new Set(
    all
      .employees!.map((r) => JSON.parse(r))
      .filter((e) => companyIds.includes(e.company_id))
      .map((e) => e.id),
  );
  const out: Record<string, string[]> = {};
  for (const [table, rows] of Object.entries(all)) {
    const parsed = rows.map((r) => JSON.parse(r));
    if (table === 'companies') out[table] = rows.filter((_, i) => companyIds.includes(parsed[i].id));
    else if (table === 'employee_services' || table === 'employee_blocks')
      out[table] = rows.filter((_, i) => employees.has(parsed[i].employee_id));
    else if (parsed[0] && 'company_id' in parsed[0])
      out[table] = rows.filter((_, i) => companyIds.includes(parsed[i].company_id));
  }
  return out;
}

/** One row of every kind under a company: staff, services, a class, time off, a customer, a
 * booking with its payment, an event with a webhook delivery and attempt, an e-mail and a request log. */
async function addRowsOfEveryKind(db: Database, companyId: string) {
  const p = db.prisma;
  const [employeeId, serviceId, classServiceId, customerId, bookingId, eventId, endpointId, deliveryId] = Array.from(
    { length: 8 },
    () => newId(),
  ) as [string, string, string, string, string, string, string, string];
  const start = new Date(Date.now() + 86_400_000);
  const end = new Date(start.getTime() + 3_600_000);
  await p.employee.create({
    data: {
      id: employeeId,
      companyId,
      name: 'Extra Stylist',
      workingHours: { monday: [], tuesday: [], wednesday: [], thursday: [], friday: [], saturday: [], sunday: [] },
    },
  });
  await p.service.createMany({
    data: [
      { id: serviceId, companyId, name: 'Extra Cut', durationMinutes: 60, price: 5000 },
      { id: classServiceId, companyId, name: 'Extra Yoga', kind: 'class', durationMinutes: 60, price: 1500 },
    ],
  });
  await p.employeeService.create({ data: { employeeId, serviceId } });
  // The class the next day: an employee is never in two places (employee_blocks_no_overlap).
  await p.classSession.create({
    data: {
      id: newId(),
      companyId,
      serviceId: classServiceId,
      employeeId,
      startTime: new Date(start.getTime() + 86_400_000),
      endTime: new Date(end.getTime() + 86_400_000),
      capacity: 10,
    },
  });
  await p.timeOff.create({
    data: { id: newId(), companyId, employeeId, startTime: end, endTime: new Date(end.getTime() + 3_600_000) },
  });
  await p.customer.create({
    data: { id: customerId, companyId, name: 'Extra Customer', email: `c-${newId()}@example.com` },
  });
  await p.booking.create({
    data: {
      id: bookingId,
      companyId,
      serviceId,
      employeeId,
      customerId,
      startTime: start,
      endTime: end,
      blockStart: start,
      blockEnd: end,
      status: 'confirmed',
      price: 5000,
      currency: 'EUR',
    },
  });
  await p.payment.create({
    data: {
      id: newId(),
      companyId,
      bookingId,
      amount: 5000,
      currency: 'EUR',
      status: 'succeeded',
      brand: 'visa',
      last4: '4242',
    },
  });
  await p.event.create({ data: { id: eventId, companyId, type: 'booking.confirmed', data: { bookingId } } });
  await p.webhookEndpoint.create({
    data: { id: endpointId, companyId, url: 'https://example.com/hook', events: ['*'], secretEnc: 'x', tokenEnc: 'y' },
  });
  await p.webhookDelivery.create({
    data: { id: deliveryId, companyId, endpointId, eventId, status: 'succeeded', attemptCount: 1 },
  });
  await p.webhookAttempt.create({ data: { id: newId(), companyId, deliveryId, statusCode: 200, durationMs: 12 } });
  await p.email.create({
    data: {
      id: newId(),
      companyId,
      to: 'c@example.com',
      from: 'shop@example.com',
      subject: 'Booked',
      text: 't',
      html: '<p>t</p>',
      headers: {},
      status: 'logged',
    },
  });
  // Request logs have no foreign key to companies: the wipe deletes them itself.
  await p.requestLog.create({
    data: {
      id: newId(),
      companyId,
      createdAt: new Date(),
      method: 'GET',
      path: '/api/v1/me',
      status: 200,
      durationMs: 1,
      requestId: 'req-1',
      credentialId: newId(),
      credentialName: 'Default key',
      credentialPrefix: 'svc_sk_test_…AbCd',
      ip: '127.0.0.1',
    },
  });
}

beforeAll(async () => {
  // A long cache TTL: only the wipe's invalidation can make a cached test key stop working.
  // No request logs of its own requests: the writer's timer could write them between a live
  // snapshot and the next, as if the wipe had touched live data (the wipe's deletion of request
  // logs is proven by the rows addRowsOfEveryKind writes).
  t = await createTestApp({ env: { CREDENTIAL_CACHE_TTL_SECONDS: '300', REQUEST_LOGS: 'off' } });
  a = await createAccountWithKeys(t.dbs);
  b = await createAccountWithKeys(t.dbs);
  for (const [db, companyId] of [
    [t.dbs.live, a.live.id],
    [t.dbs.live, b.live.id],
    [t.dbs.test, a.testCompanies[0]!.id],
    [t.dbs.test, b.testCompanies[0]!.id],
  ] as const)
    await addRowsOfEveryKind(db, companyId);
  // Never a valid state: a "test" company of the account in the live database. The wipe works
  // on the sandbox database alone, so even this row must survive it.
  await t.dbs.live.prisma.company.create({
    data: { id: newId(), accountId: a.account.id, mode: 'test', name: 'Stray test row in live' },
  });
});
afterAll(async () => {
  await t?.close();
});

const me = (key: string) => t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(key) });

describe('wipeSandbox', () => {
  it('deletes the account’s test companies and everything under them, and nothing else', async () => {
    const aIds = a.testCompanies.map((c) => c.id);
    const bIds = b.testCompanies.map((c) => c.id);
    // Some data of every kind under A's sandbox: a key on each sample, sessions, customers.
    expect((await me(a.testKey.key)).statusCode).toBe(200);
    expect((await me(a.liveKey.key)).statusCode).toBe(200);
    await t.services.credentials.flushLastUsed();

    const liveBefore = await snapshot(t.dbs.live);
    const aBefore = await rowsOf(t.dbs.test, aIds);
    const bBefore = await rowsOf(t.dbs.test, bIds);
    expect(aBefore.employees).toHaveLength(3 + 5 + 4 + 1);
    expect(aBefore.class_sessions!.length).toBeGreaterThan(50);
    expect(aBefore.api_keys).toHaveLength(1);
    // Rows of every table under A's sandbox, so the cascade is proven for each of them.
    const aEmployees = new Set(aBefore.employees!.map((r) => JSON.parse(r).id));
    const aDeliveries = await t.dbs.test.prisma.webhookDelivery.findMany({ where: { companyId: { in: aIds } } });
    for (const [table, rows] of Object.entries(aBefore))
      expect(rows.length, `${table} under A's sandbox`).toBeGreaterThan(0);
    expect(aDeliveries).toHaveLength(1);
    expect(liveBefore.bookings).toHaveLength(2);
    expect(liveBefore.webhook_attempts).toHaveLength(2);

    const result = await wipeSandbox(t.dbs, t.services.credentials, { accountId: a.account.id });
    expect(result).toEqual({ deletedCompanies: 3, companyIds: expect.arrayContaining(aIds) });
    expect(result.companyIds).toHaveLength(3);

    expect(await snapshot(t.dbs.live)).toEqual(liveBefore);
    expect(await rowsOf(t.dbs.test, bIds)).toEqual(bBefore);
    const aAfter = await rowsOf(t.dbs.test, aIds);
    for (const [table, rows] of Object.entries(aAfter)) expect(rows, `${table} of the wiped companies`).toEqual([]);
    expect(await t.dbs.test.prisma.employeeService.count({ where: { employeeId: { in: [...aEmployees] } } })).toBe(0);
    expect(await t.dbs.test.prisma.webhookAttempt.count({ where: { deliveryId: aDeliveries[0]!.id } })).toBe(0);
    expect(await t.dbs.test.prisma.company.count({ where: { accountId: a.account.id } })).toBe(0);
  });

  it('the wiped companies’ test key stops at once; the live key and the other account go on', async () => {
    const gone = await me(a.testKey.key);
    expect(gone.statusCode).toBe(401);
    expect(gone.json().error.code).toBe('UNAUTHORIZED');
    expect((await me(a.liveKey.key)).json().data._id).toBe(a.live.id);
    expect((await me(b.testKey.key)).json().data._id).toBe(b.test.id);
  });

  it('is idempotent, and an account without a sandbox has nothing to wipe', async () => {
    expect(await wipeSandbox(t.dbs, t.services.credentials, { accountId: a.account.id })).toEqual({
      deletedCompanies: 0,
      companyIds: [],
    });
    expect(await wipeSandbox(t.dbs, t.services.credentials, { accountId: newId() })).toEqual({
      deletedCompanies: 0,
      companyIds: [],
    });
  });

  it('with the ids a confirmation named, deletes exactly those that are still the account’s test companies', async () => {
    // The admin area's confirmation page named these; then, before the post, another company
    // was made (another tab, the API) and one named company was deleted already.
    const named = [
      await createCompany(t.dbs, { accountId: a.account.id, mode: 'test', name: 'Named 1' }),
      await createCompany(t.dbs, { accountId: a.account.id, mode: 'test', name: 'Named 2' }),
    ];
    const gone = await createCompany(t.dbs, { accountId: a.account.id, mode: 'test', name: 'Deleted meanwhile' });
    await t.dbs.test.prisma.company.delete({ where: { id: gone.id } });
    const meanwhile = await createCompany(t.dbs, { accountId: a.account.id, mode: 'test', name: 'Made meanwhile' });
    // The keys' last uses of the tests before are written now, not between the two snapshots.
    await t.services.credentials.flushLastUsed();
    const liveBefore = await snapshot(t.dbs.live);
    const bBefore = await rowsOf(
      t.dbs.test,
      b.testCompanies.map((c) => c.id),
    );
    // A form may name anything: another account's company, a live one, a malformed id.
    const result = await wipeSandbox(t.dbs, t.services.credentials, {
      accountId: a.account.id,
      companyIds: [...named.map((c) => c.id), gone.id, b.test.id, a.live.id, 'not-an-id'],
    });
    expect(result).toEqual({ deletedCompanies: 2, companyIds: expect.arrayContaining(named.map((c) => c.id)) });
    expect(
      await t.dbs.test.prisma.company.findMany({ where: { accountId: a.account.id }, select: { id: true } }),
    ).toEqual([{ id: meanwhile.id }]);
    expect(
      await rowsOf(
        t.dbs.test,
        b.testCompanies.map((c) => c.id),
      ),
    ).toEqual(bBefore);
    expect(await snapshot(t.dbs.live)).toEqual(liveBefore);
    // Naming nothing deletes nothing (it is not "everything").
    expect(await wipeSandbox(t.dbs, t.services.credentials, { accountId: a.account.id, companyIds: [] })).toEqual({
      deletedCompanies: 0,
      companyIds: [],
    });
    expect(await t.dbs.test.prisma.company.count({ where: { accountId: a.account.id } })).toBe(1);
    await wipeSandbox(t.dbs, t.services.credentials, { accountId: a.account.id });
  });

  it.each([['not-an-id'], [''], ["' OR 1=1 --"], ['A'.repeat(24)]])(
    'refuses the account id %j as NOT_FOUND, deleting nothing',
    async (accountId) => {
      const before = await t.dbs.test.prisma.company.count();
      const err = await wipeSandbox(t.dbs, t.services.credentials, { accountId }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('NOT_FOUND');
      expect(await t.dbs.test.prisma.company.count()).toBe(before);
    },
  );
});
