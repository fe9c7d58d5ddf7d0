// POST /bookings alone, in process (app.inject, no sockets, no load generator): the CPU one
// booking costs, one after another, for before/after comparisons that the shared machine's
// noise would drown in `npm run bench`.   npx tsx bench/booking-micro.ts
// Environment: BENCH_DATABASE_URL (dropped and recreated; default .../svc_bench_booking_micro),
// REDIS_URL, BENCH_ROUNDS (1000 measured, after 300 to warm up), BENCH_CPU_PROF=1 (writes
// bench/results/profiles/booking-micro.cpuprofile of the measured calls).
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabases } from '../src/db/databases.js';
import { createServices } from '../src/services.js';
import { createAccountWithKeys } from '../test/helpers/factories.js';

const env = process.env;
const url = env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/svc_bench_booking_micro';
const ROUNDS = Number(env.BENCH_ROUNDS ?? 1000);
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
const call = async (path: string, payload: object) => {
  const res = await app.inject({ method: 'POST', url: `/api/v1${path}`, headers, payload });
  if (res.statusCode !== 200) throw new Error(`POST ${path}: ${res.body}`);
  return res.json<{ data: { _id: string } }>().data;
};
// The bench's `bookings` scenario: four employees working around the clock, one service, one
// customer, every booking the next free 30-minute slot for whichever employee is free.
const allDay = Object.fromEntries(
  ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [
    d,
    [{ start: '00:00', end: '24:00' }],
  ]),
);
const staff = [];
for (let i = 0; i < 4; i++) staff.push(await call('/employees', { name: `E${i}`, workingHours: allDay }));
const service = await call('/services', {
  name: 'Cut',
  durationMinutes: 30,
  price: 0,
  employeeIds: staff.map((s) => s._id),
});
const customer = await call('/customers', { name: 'Dana', email: 'dana@example.com' });
const first = Math.ceil(Date.now() / 86_400_000) * 86_400_000 + 2 * 86_400_000;
let slot = 0;
const book = () =>
  call('/bookings', {
    serviceId: service._id,
    customerId: customer._id,
    startTime: new Date(first + slot++ * 30 * 60_000).toISOString(),
  });
for (let i = 0; i < 300; i++) await book(); // warm-up

let session: Session | undefined;
if (env.BENCH_CPU_PROF === '1') {
  session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
}
const cpu0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < ROUNDS; i++) await book();
const cpu = process.cpuUsage(cpu0);
const wall = performance.now() - t0;
console.log(
  `POST /bookings in process, ${ROUNDS} calls: ${(wall / ROUNDS).toFixed(2)} ms each, CPU ${((cpu.user + cpu.system) / 1000 / ROUNDS).toFixed(3)} ms a call (user ${(cpu.user / 1000 / ROUNDS).toFixed(3)}, system ${(cpu.system / 1000 / ROUNDS).toFixed(3)})`,
);
if (session) {
  const { profile } = await session.post('Profiler.stop');
  const dir = join(dirname(fileURLToPath(import.meta.url)), 'results', 'profiles');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'booking-micro.cpuprofile'), JSON.stringify(profile));
}
await app.close();
await services.close();
await dbs.close();
await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
await admin.end();
