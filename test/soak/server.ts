// One server process for the soak: the real app (test/helpers/app.ts) on a database of its own,
// listening on a socket, with two canary companies that no command changes. A server built after a
// failure is built in a fresh module graph (vi.resetModules), so it carries no module state of
// the one before: every candidate fast-check shrinks to is then judged as a fresh process would.
import { randomBytes } from 'node:crypto';
import { vi } from 'vitest';
import { Checker, type Stats } from './checker.js';
import { WEEKDAYS } from './reference/rows.js';
import { Api, okData, openPools, Registry, type Co, type Mode } from './world.js';

export interface Server {
  origin: string;
  api: Api;
  checker: Checker;
  registry: Registry;
  /** Companies that no command changes: compared as untouched ones, and used as "another company". */
  canaries: Co[];
  /** A blank company of its own with an API key. */
  company(mode: Mode, label: string, zone: string): Promise<Co>;
  close(): Promise<void>;
}

export const ZONES = ['Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'UTC'] as const;

export async function startServer(stats: Stats, opts: { fresh: boolean }): Promise<Server> {
  if (opts.fresh) vi.resetModules();
  const { createTestApp, listen } = await import('../helpers/app.js');
  const { newId } = await import('../../src/ids.js');
  const { createCompany } = await import('../../src/schema/companies/create-company.js');
  const { createApiKey } = await import('../../src/schema/credentials/create-api-key.js');
  const t = await createTestApp({ env: { RATE_LIMIT_PER_SECOND: '1000000' } });

  if (!t.db.url) throw new Error('the soak test needs PostgreSQL (DATABASE_URL)');
  const origin = await listen(t.app);
  const pools = openPools(t.db.url, t.dbs.test.schema);
  const registry = new Registry();
  const api = new Api(origin, registry);
  const checker = new Checker(api, pools, registry, stats);
  // The companies' account: a row of its own (no sample companies: nothing the model does not know).
  const account = await t.dbs.live.prisma.account.create({
    data: { id: newId(), email: `soak-${randomBytes(4).toString('hex')}@example.com`, passwordHash: 'none' },
  });

  const company = async (mode: Mode, label: string, zone: string): Promise<Co> => {
    const row = await createCompany(t.dbs, {
      accountId: account.id,
      mode,
      name: `Soak ${label} ${randomBytes(3).toString('hex')}`,
      timezone: zone,
      currency: 'EUR',
    });
    const key = await createApiKey(t.dbs[mode].prisma, { companyId: row.id, name: 'soak' });
    const co = { label, id: row.id, mode, zone, key: key.key };
    registry.company(co);
    return co;
  };

  const canaries = [
    await company('live', 'canary-live', 'America/New_York'),
    await company('test', 'canary-test', 'Europe/Berlin'),
  ];
  for (const co of canaries) await seedCanary(api, co);
  for (const co of canaries) await checker.world(co);

  return {
    origin,
    api,
    checker,
    registry,
    canaries,
    company,
    async close() {
      await pools.live.end();
      await pools.test.end();
      await t.close();
    },
  };
}

/**
 * A canary's world, made through the API: two employees, two services (one under booking rules),
 * a booking and a closure; the test canary is on a test clock the day before Europe's 2027
 * spring-forward, so its windows cross the change.
 */
async function seedCanary(api: Api, co: Co) {
  const post = async (path: string, body: unknown) => okData(await api.call(co, 'POST', path, body), `canary ${path}`);
  if (co.mode === 'test') {
    const clock = await post('/api/v1/test-clocks', { frozenTime: '2027-03-27T08:00:00Z' });
    okData(await api.call(co, 'PATCH', '/api/v1/me', { testClockId: clock._id }), 'canary clock');
  }
  const weekdays = Object.fromEntries(
    WEEKDAYS.map((d, i) => [d, i < 5 ? [{ start: '09:00', end: '17:00' }] : [{ start: '10:00', end: '14:00' }]]),
  );
  const allDay = Object.fromEntries(WEEKDAYS.map((d) => [d, [{ start: '00:00', end: '24:00' }]]));
  const ann = await post('/api/v1/employees', { name: 'Canary Ann', workingHours: weekdays });
  const bob = await post('/api/v1/employees', { name: 'Canary Bob', workingHours: allDay });
  const cut = await post('/api/v1/services', {
    name: 'Cut',
    durationMinutes: 45,
    price: 0,
    bufferAfterMinutes: 10,
    employeeIds: [ann._id, bob._id],
  });
  await post('/api/v1/services', {
    name: 'Color',
    durationMinutes: 90,
    price: 0,
    employeeIds: [ann._id],
    bookingRules: { slotIntervalMinutes: 30, minNoticeMinutes: 120, dailyLimitPerEmployee: 2 },
  });
  const now = co.mode === 'test' ? Date.parse('2027-03-27T08:00:00Z') : Date.now();
  const from = new Date(now + 86_400_000).toISOString();
  const to = new Date(now + 3 * 86_400_000).toISOString();
  const { slots } = okData(
    await api.call(co, 'GET', `/api/v1/availability?serviceId=${cut._id}&from=${from}&to=${to}`),
    'canary slots',
  );
  await post('/api/v1/bookings', {
    serviceId: cut._id,
    startTime: slots[3].startTime,
    customer: { name: 'Canary Customer', email: 'canary@example.com' },
  });
  await post('/api/v1/closures', {
    startTime: new Date(now + 2 * 86_400_000).toISOString(),
    endTime: new Date(now + 2 * 86_400_000 + 3 * 3_600_000).toISOString(),
    reason: 'Canary closure',
    employeeIds: [bob._id],
    cancelBookings: true,
  });
}
