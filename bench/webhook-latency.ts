// Webhook benchmark (issue 5): latency from a booking's commit to its receipt at a local
// receiver, 500 bookings at a steady rate (p50, p99), then deliveries/s with two `svc worker`
// processes on one Redis. Real PostgreSQL, Redis, HTTP.
//   npx tsx bench/webhook-latency.ts
// Environment: BENCH_DATABASE_URL (dropped and recreated; default .../svc_bench_webhooks),
// REDIS_URL (default redis://127.0.0.1:6379), BENCH_BOOKINGS (500), BENCH_RATE (50 per s),
// BENCH_WAIT_SECONDS (60: the longest a phase waits for its last delivery before the run fails).
import type { ChildProcess } from 'node:child_process';
import { startWorkers } from '../src/workers/runtime.js';
import { ALL_DAY, startInProcessApp } from './in-process-app.js';
import { pct, startReceiver, waitUntil as waitFor } from './webhook-receiver.js';

const env = process.env;
const url = env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/svc_bench_webhooks';
const REDIS_URL = env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const N = Number(env.BENCH_BOOKINGS ?? 500);
const RATE = Number(env.BENCH_RATE ?? 50);
const WAIT_MS = Number(env.BENCH_WAIT_SECONDS ?? 60) * 1000;
const kids: ChildProcess[] = [];

/**
 * Polls until `done`, or fails the run with `what` once WAIT_MS has passed. The worker
 * processes are stopped first, so a failed run leaves none behind.
 */
async function waitUntil(done: () => boolean | Promise<boolean>, what: () => string, pollMs = 100): Promise<void> {
  await waitFor(done, what, { timeoutMs: WAIT_MS, pollMs }).catch((err: Error) => {
    for (const k of kids) k.kill('SIGKILL');
    process.stderr.write(`webhook benchmark failed: ${err.message}\n`);
    process.exit(1);
  });
}
const receiver = await startReceiver();
const { arrivals } = receiver;
const hook = receiver.url;

const { dbs, services, call, startWorkerProcesses, close } = await startInProcessApp({
  url,
  redisUrl: REDIS_URL,
  prefixTag: 'bench',
});
await call('POST', '/webhook-endpoints', { url: hook, events: ['booking.created'] });
const employee = await call('POST', '/employees', { name: 'Bench', workingHours: ALL_DAY });
const service = await call('POST', '/services', {
  name: 'Bench',
  durationMinutes: 15,
  price: 0,
  employeeIds: [employee._id],
});
let slot = Math.ceil(Date.now() / 900_000) * 900_000 + 86_400_000;
const book = async () => {
  slot += 900_000;
  const b = await call('POST', '/bookings', {
    serviceId: service._id,
    startTime: new Date(slot).toISOString(),
    customer: { name: 'B', email: `b${slot}@example.com` },
  });
  return b._id;
};
const eventCommits = async () =>
  new Map(
    (
      await dbs.test.prisma.event.findMany({
        where: { type: 'booking.created' },
        select: { id: true, createdAt: true },
      })
    ).map((e) => [e.id, e.createdAt.getTime()]),
  );

// 1. Latency, workers in process (as `npm start` runs them), bookings at a steady rate.
const workers = await startWorkers(services);
for (let i = 0; i < 50; i++) await book(); // warm-up
await new Promise((r) => setTimeout(r, 2000));
receiver.clear();
const warm = new Set((await eventCommits()).keys());
const started = Date.now();
for (let i = 0; i < N; i++) {
  const due = started + (i * 1000) / RATE;
  if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
  await book();
}
let missing: string[] = [];
await waitUntil(
  async () =>
    (missing = [...(await eventCommits()).keys()].filter((id) => !warm.has(id) && !arrivals.has(id))).length === 0,
  () =>
    `latency phase: ${missing.length} of ${N} booking.created events never reached the receiver (first: ${missing.slice(0, 3).join(', ')})`,
);
const commits = await eventCommits();
const latencies = [...commits].filter(([id]) => !warm.has(id)).map(([id, at]) => arrivals.get(id)! - at);
const latency = {
  bookings: latencies.length,
  rate: RATE,
  p50Ms: pct(latencies, 50),
  p99Ms: pct(latencies, 99),
  maxMs: pct(latencies, 100),
};
console.log(
  `latency, ${latency.bookings} bookings at ${RATE}/s (commit → receipt): p50 ${latency.p50Ms} ms, p99 ${latency.p99Ms} ms, max ${latency.maxMs} ms`,
);
await workers.stop();

// 2. Throughput: a backlog of bookings, then two `svc worker` processes drain it.
receiver.clear();
const backlog = 1000;
for (let i = 0; i < backlog; i++) await book();
const t0 = Date.now();
kids.push(...startWorkerProcesses(2));
await waitUntil(
  () => arrivals.size >= backlog,
  () => `throughput phase: ${arrivals.size} of ${backlog} deliveries arrived`,
  50,
);
const seconds = (Date.now() - t0) / 1000;
const times = [...arrivals.values()].sort((a, b) => a - b);
const drain = (times[times.length - 1]! - times[0]!) / 1000;
console.log(
  `throughput, two worker processes: ${backlog} deliveries in ${seconds.toFixed(1)} s with process start, ${drain.toFixed(1)} s first to last = ${Math.round(backlog / drain)}/s`,
);
// For bench/run.ts, which runs this after the HTTP scenarios and prints it with them.
console.log(
  JSON.stringify({ webhooks: { ...latency, deliveries: backlog, deliveriesPerSecond: Math.round(backlog / drain) } }),
);
for (const k of kids) k.kill('SIGTERM');
await Promise.all(kids.map((k) => new Promise((r) => k.once('exit', r))));
await receiver.close();
await close();
