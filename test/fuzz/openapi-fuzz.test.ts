// Every operation of /openapi.json driven with generated hostile and valid-shaped requests
// over a real socket (test/fuzz/fuzzer.ts): no 5xx, every answer in the envelope with a code
// of the error table and of the operation's documented errors, nothing written on a 4xx, in the
// live and the sandbox database.
//
// And one company's requests never change or reveal another's answers: a canary company in
// each mode (test/fuzz/canary.ts), of the fuzzer's own account but with its own key, which the
// fuzzer never uses, has its availability for a fixed free window, its explain answer for a
// fixed free start and its booking list read before the run and after every 100 requests; any
// change fails, naming the request before the read, and so does any answer carrying one of its
// ids (the company, employee, service, customer, booking, API key).
//
// In the suite: a fixed seed and a short budget. `npm run fuzz` (FUZZ=full) runs the same with
// a random seed (or FUZZ_SEED) for FUZZ_REQUESTS requests (10 000) or FUZZ_SECONDS; FUZZ_PATH
// replays and shrinks one run of a seed.
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createCompany } from '../../src/schema/companies/create-company.js';
import { createApiKey } from '../../src/schema/credentials/create-api-key.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { futureHour, post, salon } from '../helpers/domain.js';
import { bearer, createAccountWithKeys } from '../helpers/factories.js';
import { Canary, type CanaryCompany } from './canary.js';
import { Fuzzer, type FuzzOptions } from './fuzzer.js';

const full = process.env.FUZZ === 'full';
const num = (name: string) => (process.env[name] ? Number(process.env[name]) : undefined);

// The suite runs twice in CI (Node 20 and 24): 40 s of fuzzing each time, the edge sweep
// (about 550 requests) included.
const opts: FuzzOptions = {
  seed: num('FUZZ_SEED') ?? (full ? randomInt(2 ** 31) : 20_260_329),
  requests: num('FUZZ_REQUESTS') ?? (full && !process.env.FUZZ_SECONDS ? 10_000 : 1_000_000),
  seconds: num('FUZZ_SECONDS') ?? (full ? 24 * 3600 : 40),
  shrinkSeconds: full ? 120 : 15,
  perOperation: full,
  ...(process.env.FUZZ_PATH ? { path: process.env.FUZZ_PATH } : {}),
  log: (line) => console.log(line),
};

let t: TestApp;
let fuzzer: Fuzzer;

/**
 * Records of every kind in a company, so that valid-shaped requests find real ids from the
 * first request on: bookings in each state a client can reach, a class with a place taken, a
 * payment, time off, a webhook endpoint with a delivery.
 */
async function seed(auth: Record<string, string>, mode: 'live' | 'test') {
  const { app } = t;
  const { employee, service } = await salon(app, auth);
  const paid = await post(app, '/api/v1/services', auth, {
    name: 'Paid',
    durationMinutes: 30,
    price: 2000,
    requiresPayment: true,
    employeeIds: [employee._id],
  });
  const yoga = await post(app, '/api/v1/services', auth, {
    name: 'Yoga',
    kind: 'class',
    durationMinutes: 60,
    employeeIds: [employee._id],
  });
  const session = await post(app, '/api/v1/classes', auth, {
    serviceId: yoga._id,
    employeeId: employee._id,
    startTime: futureHour(9),
    capacity: 5,
  });
  const customer = await post(app, '/api/v1/customers', auth, { name: 'Ann', email: `ann-${mode}@example.com` });
  for (let day = 2; day <= 4; day++)
    await post(app, '/api/v1/bookings', auth, {
      serviceId: service._id,
      startTime: futureHour(day),
      customerId: customer._id,
    });
  const pending = await post(app, '/api/v1/bookings', auth, {
    serviceId: paid._id,
    startTime: futureHour(6),
    customerId: customer._id,
  });
  await post(app, '/api/v1/bookings', auth, { serviceId: yoga._id, classId: session._id, customerId: customer._id });
  await post(app, `/api/v1/employees/${employee._id}/time-off`, auth, {
    startTime: futureHour(20),
    endTime: futureHour(21),
  });
  const endpoint = await post(app, '/api/v1/webhook-endpoints', auth, {
    url: mode === 'live' ? 'https://example.com/hooks' : 'http://127.0.0.1:9/hook',
    events: ['*'],
  });
  await post(app, `/api/v1/webhook-endpoints/${endpoint._id}/test`, auth, {});
  if (mode === 'test') {
    await post(app, '/api/v1/payments', auth, {
      bookingId: pending._id,
      card: { number: '4242424242424242', expMonth: 12, expYear: 2040, cvc: '123' },
    });
  }
}

/**
 * A company of the account with its own key (never the fuzzer's), an employee free all day and
 * a service, a customer and one booking; the reads the canary compares (test/fuzz/canary.ts).
 * The window and the start are fixed absolute times 12 days ahead, free in any run's lifetime.
 */
async function canaryCompany(accountId: string, mode: 'live' | 'test'): Promise<CanaryCompany> {
  const { app, dbs } = t;
  const company = await createCompany(dbs, {
    accountId,
    mode,
    name: `Canary ${mode}`,
    timezone: 'Europe/Berlin',
    currency: 'EUR',
  });
  const key = await createApiKey(dbs[mode].prisma, { companyId: company.id, name: 'canary' });
  const auth = bearer(key.key);
  const { employee, service } = await salon(app, auth);
  const customer = await post(app, '/api/v1/customers', auth, {
    name: 'Cara Canary',
    email: `canary-${mode}@example.com`,
  });
  const booking = await post(app, '/api/v1/bookings', auth, {
    serviceId: service._id,
    startTime: futureHour(11),
    customerId: customer._id,
  });
  const [from, to, free] = [futureHour(12, 0), futureHour(13, 0), futureHour(12, 10)];
  return {
    mode,
    key: key.key,
    ids: {
      [company.id]: `${mode} company`,
      [employee._id]: `${mode} employee`,
      [service._id]: `${mode} service`,
      [customer._id]: `${mode} customer`,
      [booking._id]: `${mode} booking`,
      [key.apiKey.id]: `${mode} API key`,
    },
    reads: {
      availability: `/api/v1/availability?serviceId=${service._id}&from=${from}&to=${to}`,
      explain: `/api/v1/availability/explain?serviceId=${service._id}&startTime=${free}`,
      bookings: '/api/v1/bookings?limit=100',
    },
  };
}

beforeAll(async () => {
  t = await createTestApp({
    env: {
      RATE_LIMIT_PER_SECOND: '1000000',
      // Live payments need a processor configured (or they are a 503 by design); nothing is
      // sent to it here: no worker runs, and the address is a closed local port.
      STRIPE_SECRET_KEY: 'sk_test_fuzz',
      STRIPE_API_URL: 'http://127.0.0.1:9',
    },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  if (!address || typeof address === 'string') throw new Error('the app is not listening on a port');
  const w = await createAccountWithKeys(t.dbs);
  await seed(bearer(w.testKey.key), 'test');
  await seed(bearer(w.liveKey.key), 'live');
  const canary = new Canary(address.port, [
    await canaryCompany(w.account.id, 'test'),
    await canaryCompany(w.account.id, 'live'),
  ]);
  const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  fuzzer = new Fuzzer(
    { port: address.port, dbs: t.dbs, keys: { test: w.testKey.key, live: w.liveKey.key }, doc, canary },
    opts,
  );
});
afterAll(async () => t?.close());

it(
  "no 5xx, every answer in the envelope, nothing written on a 4xx, the canary's answers unmoved and unseen",
  async () => {
    const report = await fuzzer.run();
    if (opts.path === undefined) {
      expect(fuzzer.ops.length).toBeGreaterThan(40);
      // Enough requests get past validation to reach the domain.
      expect(report.statuses[200] ?? 0).toBeGreaterThan(report.requests / 10);
    }
    expect(
      report.counts,
      `seed ${report.seed}: ${report.failures.map((f) => `${f.kind} on ${f.op}: ${f.detail}`).join('; ')}`,
    ).toEqual({
      '5xx': 0,
      'non-envelope': 0,
      'write-on-4xx': 0,
      'no-answer': 0,
      undocumented: 0,
      'canary-changed': 0,
      'canary-leak': 0,
    });
  },
  (opts.seconds + opts.shrinkSeconds * 5 + 120) * 1000,
);
