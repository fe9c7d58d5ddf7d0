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
import { ALL_DAY, startInProcessApp } from './in-process-app.js';

const env = process.env;
const ROUNDS = Number(env.BENCH_ROUNDS ?? 1000);
const { call, close } = await startInProcessApp({
  url: env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/svc_bench_booking_micro',
  redisUrl: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  prefixTag: 'benchbook',
  // What production runs: outside it every body is also checked against its schema (src/rest/serialize.ts).
  env: {
    NODE_ENV: 'production',
    SECRET_KEY: randomBytes(32).toString('hex'),
    SEED_DEMO: 'false',
    RUN_WORKERS: 'false',
  },
});
// The bench's `bookings` scenario: four employees working around the clock, one service, one
// customer, every booking the next free 30-minute slot for whichever employee is free.
const staff = [];
for (let i = 0; i < 4; i++) staff.push(await call('POST', '/employees', { name: `E${i}`, workingHours: ALL_DAY }));
const service = await call('POST', '/services', {
  name: 'Cut',
  durationMinutes: 30,
  price: 0,
  employeeIds: staff.map((s) => s._id),
});
const customer = await call('POST', '/customers', { name: 'Dana', email: 'dana@example.com' });
const first = Math.ceil(Date.now() / 86_400_000) * 86_400_000 + 2 * 86_400_000;
let slot = 0;
const book = () =>
  call('POST', '/bookings', {
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
await close();
