// Availability alone, in process (app.inject, no sockets, no load generator): the time one
// 31-day, 5-employee query takes, for before/after comparisons that the shared machine's noise
// would drown in `npm run bench`.   npx tsx bench/availability-micro.ts
// Environment: BENCH_DATABASE_URL (dropped and recreated; default .../svc_bench_micro), REDIS_URL, BENCH_ROUNDS (300),
// BENCH_EXTRAS=1 (closures and date overrides present in the month: a company-wide closure, one per
// employee, and four date overrides per employee).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabases } from '../src/db/databases.js';
import { createServices } from '../src/services.js';
import { setAvailabilityCache } from '../src/schema/availability/index.js';
import { createAccountWithKeys } from '../test/helpers/factories.js';

const env = process.env;
const url = env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/svc_bench_micro';
const ROUNDS = Number(env.BENCH_ROUNDS ?? 300);
const dbName = new URL(url).pathname.slice(1);
const admin = new pg.Client({ connectionString: url.replace(/\/[^/]*$/, '/postgres') });
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
await admin.query(`CREATE DATABASE ${dbName}`);
const config = loadConfig({
  DATABASE_URL: url,
  REDIS_URL: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  REDIS_PREFIX: `bench${randomBytes(3).toString('hex')}:`,
  LOG_LEVEL: 'warn',
  RATE_LIMIT_PER_SECOND: '100000',
  // What production runs: outside it every body is also checked against its schema (src/rest/serialize.ts).
  NODE_ENV: 'production',
  SECRET_KEY: randomBytes(32).toString('hex'),
  SEED_DEMO: 'false',
  RUN_WORKERS: 'false',
});
const dbs = await openDatabases(config);
await dbs.migrate();
const services = await createServices(config, { dbs });
const app = await buildApp(services);
const { testKey } = await createAccountWithKeys(dbs);
const headers = { authorization: `Bearer ${testKey.key}` };
const call = async (method: 'GET' | 'POST', path: string, payload?: object) => {
  const res = await app.inject({ method, url: `/api/v1${path}`, headers, payload });
  if (res.statusCode !== 200) throw new Error(`${method} ${path}: ${res.body}`);
  return res.json().data;
};
const week = Object.fromEntries(
  ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [
    d,
    d === 'sunday'
      ? []
      : [
          { start: '09:00', end: '12:00' },
          { start: '13:00', end: '18:00' },
        ],
  ]),
);
const staff = [];
for (let i = 0; i < 5; i++) staff.push(await call('POST', '/employees', { name: `E${i}`, workingHours: week }));
const service = await call('POST', '/services', {
  name: 'Cut',
  durationMinutes: 30,
  price: 0,
  employeeIds: staff.map((s) => s._id),
});
const from = new Date(Math.ceil(Date.now() / 86_400_000) * 86_400_000 + 86_400_000);
if (env.BENCH_EXTRAS === '1') {
  const at = (days: number, hours = 0) =>
    new Date(from.getTime() + days * 86_400_000 + hours * 3_600_000).toISOString();
  await call('POST', '/closures', { startTime: at(10), endTime: at(11), reason: 'Holiday' });
  for (const [i, e] of staff.entries()) {
    await call('POST', '/closures', {
      startTime: at(3 + i, 10),
      endTime: at(3 + i, 13),
      reason: 'Training',
      employeeIds: [e._id],
    });
    for (const d of [5, 12, 19, 26]) {
      const date = at(d + i).slice(0, 10);
      const res = await app.inject({
        method: 'PUT',
        url: `/api/v1/employees/${e._id}/date-overrides/${date}`,
        headers,
        payload: {
          intervals:
            d === 19
              ? []
              : [
                  { start: '08:00', end: '11:00' },
                  { start: '12:00', end: '17:00' },
                ],
        },
      });
      if (res.statusCode !== 200) throw new Error(`PUT date override: ${res.body}`);
    }
  }
}
const query = new URLSearchParams({
  serviceId: service._id,
  from: from.toISOString(),
  to: new Date(from.getTime() + 31 * 86_400_000).toISOString(),
});
let slots = 0;
for (let i = 0; i < 50; i++) slots = (await call('GET', `/availability?${query}`)).slots.length; // warm-up
// The cache on and off (setAvailabilityCache, as AVAILABILITY_CACHE=off does) in alternating
// blocks of 25 calls, so both halves see the same machine. The body is not parsed in the loop.
const BLOCK = 25;
const runs = { uncached: { times: [] as number[], cpu: 0 }, cached: { times: [] as number[], cpu: 0 } };
for (let i = 0; i < ROUNDS; i += BLOCK) {
  for (const [name, on] of [
    ['uncached', false],
    ['cached', true],
  ] as const) {
    setAvailabilityCache([services.dbs.test.prisma], on);
    await app.inject({ method: 'GET', url: `/api/v1/availability?${query}`, headers }); // fills the cache
    const cpu0 = process.cpuUsage();
    for (let j = 0; j < BLOCK; j++) {
      const t = performance.now();
      const res = await app.inject({ method: 'GET', url: `/api/v1/availability?${query}`, headers });
      if (res.statusCode !== 200) throw new Error(`GET /availability: ${res.body}`);
      runs[name].times.push(performance.now() - t);
    }
    const cpu = process.cpuUsage(cpu0);
    runs[name].cpu += cpu.user + cpu.system;
  }
}
for (const [name, r] of Object.entries(runs)) {
  const times = r.times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(2);
  console.log(
    `availability in process, ${name}: ${slots} slots, ${times.length} calls: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, CPU ${(r.cpu / 1000 / times.length).toFixed(2)} ms/request`,
  );
}
await app.close();
await services.close();
await dbs.close();
await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
await admin.end();
