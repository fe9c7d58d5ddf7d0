// Many processes on one PostgreSQL and one Redis (issue 22 §6; docs/scaling.md): the same load
// against 1 and then 2 API processes behind one port (bench/cluster.ts), while `svc worker`
// processes deliver the bookings' webhooks to a local receiver; then, against several processes
// at once, what must hold across them: one rate limit per credential, one answer per
// idempotency key, and a revocation that every process honours.
//   npx tsx bench/processes.ts
// Environment: BENCH_DATABASE_URL (dropped and recreated; default .../svc_bench_processes),
// REDIS_URL (default redis://127.0.0.1:6379), BENCH_API_PROCESSES (the process counts compared,
// default 1,2), BENCH_WORKERS (svc worker processes, default 1), BENCH_CONNECTIONS (50),
// BENCH_WARMUP_SECONDS (5), BENCH_DURATION_SECONDS (10).
// Not pinned: with several processes on two cores the OS places them, the load generator too,
// alike for every count compared. Server CPU is the sum over the primary and its workers.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { openDatabases } from '../src/db/databases.js';
import { createApiKey } from '../src/schema/credentials/index.js';
import { createAccountWithKeys } from '../test/helpers/factories.js';
import type { LoadResult } from './load.js';
import { SCENARIOS, type BenchContext, type RequestSpec } from './scenarios.js';
import { benchServerEnv, nodeArgs, recreateDatabase, runLoad } from './setup.js';

const env = process.env;
const url = env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/svc_bench_processes';
const REDIS_URL = env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SIZES = (env.BENCH_API_PROCESSES ?? '1,2').split(',').map(Number);
const WORKERS = Number(env.BENCH_WORKERS ?? 1);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 50);
const WARMUP = Number(env.BENCH_WARMUP_SECONDS ?? 5);
const DURATION = Number(env.BENCH_DURATION_SECONDS ?? 10);
const RATE_LIMIT = 20;
if (!SIZES.every((n) => Number.isInteger(n) && n >= 1) || !Number.isInteger(WORKERS) || WORKERS < 0)
  throw new Error('BENCH_API_PROCESSES is a list of whole numbers ≥ 1, BENCH_WORKERS a whole number ≥ 0');

await recreateDatabase(url);
const dbs = await openDatabases({
  DATABASE_URL: url,
  SANDBOX_SCHEMA: 'sandbox',
  DATABASE_POOL_SIZE: 2,
  DATA_DIR: '.data',
});
await dbs.migrate();
const fixtures = await createAccountWithKeys(dbs);
// Every process of the run shares the database, the Redis prefix and the key that encrypts
// webhook secrets, as the instances of one deployment do.
const serverEnv = benchServerEnv({
  databaseUrl: url,
  redisUrl: REDIS_URL,
  redisPrefix: `benchp${randomBytes(3).toString('hex')}:`,
  secretKey: randomBytes(32).toString('hex'),
});
const kids: ChildProcess[] = [];
// Whatever ends this process (a failed setup included) ends its servers and workers: a worker
// left running would claim the next run's jobs in the database of the same name.
process.on('exit', () => {
  for (const k of kids) if (k.exitCode === null && k.signalCode === null) k.kill('SIGKILL');
});
const fail = (why: string): never => {
  for (const k of kids) k.kill('SIGKILL');
  process.stderr.write(`processes benchmark failed: ${why}\n`);
  process.exit(1);
};

interface Cluster {
  origin: string;
  pids: number[];
  stop(): Promise<void>;
}

function startCluster(size: number, extra: Record<string, string> = {}): Promise<Cluster> {
  const [cmd, ...args] = nodeArgs('cluster.ts');
  const child = spawn(cmd!, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...serverEnv, BENCH_CLUSTER_SIZE: String(size), BENCH_PID_HEADER: '1', ...extra },
  });
  kids.push(child);
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the bench cluster exited with ${code} before listening`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!line.startsWith('{"benchCluster":')) return;
      const { port, pids } = (JSON.parse(line) as { benchCluster: { port: number; pids: number[] } }).benchCluster;
      resolve({
        origin: `http://127.0.0.1:${port}`,
        pids,
        stop: async () => {
          child.removeAllListeners('exit');
          const exited = new Promise((r) => child.once('exit', r));
          child.kill('SIGTERM');
          await exited;
        },
      });
    });
  });
}

/** A process's resident memory in MB (/proc/<pid>/status, VmRSS). */
function residentMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Math.round(Number(kb ?? 0) / 1024);
}

/** One request on a connection of its own, so that the cluster may hand it to any process. */
function once(
  origin: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; pid: string; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      origin + path,
      {
        method,
        agent: false,
        headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode!, pid: String(res.headers['x-bench-pid']), json: JSON.parse(text) }),
        );
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

async function api(origin: string, key: string, method: string, path: string, body?: unknown): Promise<any> {
  const r = await once(
    origin,
    method,
    path,
    { authorization: `Bearer ${key}` },
    body === undefined ? undefined : JSON.stringify(body),
  );
  if (r.status !== 200) fail(`setup: ${method} ${path} answered ${r.status}: ${JSON.stringify(r.json).slice(0, 300)}`);
  return r.json.data;
}

async function probe(origin: string, spec: RequestSpec): Promise<void> {
  const r = await once(origin, spec.method, spec.path, spec.headers ?? {}, (spec.warmupBodies ?? spec.bodies)?.[0]);
  if (!spec.expect.includes(r.status)) fail(`${spec.method} ${spec.path} answered ${r.status}`);
}

// Webhook deliveries, counted per event id: every booking's event must arrive.
const deliveries = new Map<string, number>();
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const id = String(req.headers['x-webhook-id']);
    deliveries.set(id, (deliveries.get(id) ?? 0) + 1);
    res.end('ok');
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const workers = Array.from({ length: WORKERS }, () => {
  const child = spawn(process.execPath, ['dist/cli.js', 'worker'], { env: serverEnv, stdio: 'ignore' });
  child.once('exit', (code) => code !== 0 && code !== null && fail(`a svc worker exited with ${code}`));
  kids.push(child);
  return child;
});

const measured = ['me', 'bookings'] as const;
const rows: Array<{ processes: number; scenario: string; title: string; result: LoadResult; rssMb: number }> = [];
// The events after this moment: the test company is a sample salon, already holding a booked
// visit whose events came before the endpoint existed.
let endpointSince: Date | undefined;
for (const size of SIZES) {
  const cluster = await startCluster(size);
  const ctx: BenchContext = {
    dbs,
    fixtures: async () => fixtures,
    api: (key, method, path, body) => api(cluster.origin, key, method, path, body),
  };
  if (!endpointSince) {
    endpointSince = new Date();
    await ctx.api(fixtures.testKey.key, 'POST', '/api/v1/webhook-endpoints', {
      url: hook,
      events: ['booking.created'],
    });
  }
  for (const name of measured) {
    const s = SCENARIOS.find((x) => x.name === name)!;
    // A salon of its own for every count: the bookings' slots are all free again.
    const spec = await s.setup(ctx);
    await probe(cluster.origin, spec);
    process.stderr.write(
      `bench: processes: ${name} on ${size} API process(es), ${WORKERS} worker(s): ${WARMUP} s warm-up, ${DURATION} s measured, ${CONNECTIONS} connections\n`,
    );
    const result = await runLoad({
      url: cluster.origin,
      spec,
      connections: CONNECTIONS,
      warmupSeconds: WARMUP,
      durationSeconds: DURATION,
      cpuPids: cluster.pids,
      sideCpu: ['postgres', 'redis-server', { name: 'svc worker', pids: workers.map((w) => w.pid!) }],
    });
    // Memory: each API process's resident set after the run (the largest), in MB.
    const rssMb = Math.max(...cluster.pids.slice(1).map(residentMb));
    const unexpected = Object.entries(result.statusCounts).filter(([st]) => !spec.expect.includes(Number(st)));
    if (unexpected.length) fail(`${name} on ${size} processes answered ${JSON.stringify(result.statusCounts)}`);
    rows.push({ processes: size, scenario: name, title: s.title, result, rssMb });
  }
  await cluster.stop();
}

// What must hold across processes, on as many as the run compares at most, with a low limit.
const most = Math.max(...SIZES);
const checks = await startCluster(most, { RATE_LIMIT_PER_SECOND: String(RATE_LIMIT) });
const newKey = async () =>
  (
    await createApiKey(dbs.test.prisma, {
      companyId: fixtures.test.id,
      name: `bench ${randomBytes(2).toString('hex')}`,
    })
  ).key;
const served = new Set<string>();

// 1. Rate limit: a burst of 3x the limit on fresh connections, one credential.
const limited = await newKey();
const burst = await Promise.all(
  Array.from({ length: RATE_LIMIT * 3 }, () =>
    once(checks.origin, 'GET', '/api/v1/me', { authorization: `Bearer ${limited}` }),
  ),
);
for (const r of burst) served.add(r.pid);
const burstOk = burst.filter((r) => r.status === 200).length;
const burst429 = burst.filter((r) => r.status === 429).length;

// 2. Idempotency: one key sent 20 times at once; one booking, and every answer agrees.
const salon = await SCENARIOS.find((x) => x.name === 'bookings')!.setup({
  dbs,
  fixtures: async () => fixtures,
  api: (key, method, path, body) => api(checks.origin, key, method, path, body),
});
const idemKey = await newKey();
const idem = await Promise.all(
  Array.from({ length: 20 }, () =>
    once(
      checks.origin,
      'POST',
      '/api/v1/bookings',
      { authorization: `Bearer ${idemKey}`, 'idempotency-key': 'bench-processes-1' },
      salon.bodies![0],
    ),
  ),
);
for (const r of idem) served.add(r.pid);
const bookingIds = new Set(idem.filter((r) => r.status === 200).map((r) => r.json.data._id as string));
const idemOther = idem.filter((r) => r.status !== 200 && r.json.error?.code !== 'IDEMPOTENCY_KEY_IN_USE').length;
const { serviceId, startTime } = JSON.parse(salon.bodies![0]!) as { serviceId: string; startTime: string };
const booked = await dbs.test.prisma.booking.count({ where: { serviceId, startTime: new Date(startTime) } });

// 3. Revocation: a key every process has used (and cached) is revoked by `svc key revoke`;
// how long until every process refuses it.
const doomed = await createApiKey(dbs.test.prisma, { companyId: fixtures.test.id, name: 'bench revoked' });
const before = await Promise.all(
  Array.from({ length: 10 }, () => once(checks.origin, 'GET', '/api/v1/me', { authorization: `Bearer ${doomed.key}` })),
);
const warmedOn = new Set(before.filter((r) => r.status === 200).map((r) => r.pid));
const revoke = spawnSync(process.execPath, ['dist/cli.js', 'key', 'revoke', '--key-id', doomed.apiKey.id], {
  env: serverEnv,
  encoding: 'utf8',
});
if (revoke.status !== 0) fail(`svc key revoke exited with ${revoke.status}: ${revoke.stderr}`);
const revokedAt = Date.now();
let refusedAfterMs = -1;
for (let round = 0; round < 50; round++) {
  const after = await Promise.all(
    Array.from({ length: 10 }, () =>
      once(checks.origin, 'GET', '/api/v1/me', { authorization: `Bearer ${doomed.key}` }),
    ),
  );
  if (after.every((r) => r.status === 401)) {
    refusedAfterMs = Date.now() - revokedAt;
    break;
  }
  await new Promise((r) => setTimeout(r, 100));
}
await checks.stop();

// 4. Every booking's webhook reached the receiver (at least once: the contract's promise): the
// company's events since its endpoint was made (the account's sample companies book too).
const events = await dbs.test.prisma.event.findMany({
  where: { type: 'booking.created', companyId: fixtures.test.id, createdAt: { gte: endpointSince } },
  select: { id: true },
});
const deadline = Date.now() + 120_000;
while (events.some((e) => !deliveries.has(e.id)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
const undelivered = events.filter((e) => !deliveries.has(e.id)).length;
const duplicates = [...deliveries.values()].reduce((n, c) => n + c - 1, 0);

for (const w of workers) w.removeAllListeners('exit');
await Promise.all(workers.map((w) => new Promise((r) => (w.once('exit', r), w.kill('SIGTERM')))));
receiver.close();
await dbs.close();

const by = (n: number, s: string) => rows.find((r) => r.processes === n && r.scenario === s)!.result;
for (const r of rows)
  console.log(
    `${r.scenario.padEnd(9)} ${r.processes} API process(es): ${r.result.requestsPerSecond} req/s, p50 ${r.result.p50Ms} ms, p99 ${r.result.p99Ms} ms; CPU µs/request: API ${r.result.serverCpuUsPerRequest}, ${Object.entries(
      r.result.sideCpuUsPerRequest ?? {},
    )
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}; API process RSS ${r.rssMb} MB`,
  );
const checkLines = [
  `rate limit ${RATE_LIMIT}/s per credential over ${most} processes: a burst of ${burst.length} → ${burstOk} × 200, ${burst429} × 429`,
  `idempotency: 20 concurrent POSTs with one key → ${bookingIds.size} booking id(s) in the 200s, ${booked} booking row(s), ${idemOther} answer(s) other than 200 or IDEMPOTENCY_KEY_IN_USE`,
  `revocation: a key used on ${warmedOn.size} process(es), revoked by svc key revoke → refused by every process ${refusedAfterMs >= 0 ? `${refusedAfterMs} ms later` : 'NOT within 5 s'}`,
  `answers came from ${served.size} of ${most} processes`,
  `webhooks: ${events.length} booking.created events, ${undelivered} undelivered, ${duplicates} delivered twice (${WORKERS} svc worker process(es))`,
];
for (const l of checkLines) console.log(l);
console.log(
  JSON.stringify({
    processes: {
      workers: WORKERS,
      rows: rows.map((r) => ({ processes: r.processes, scenario: r.scenario, rssMb: r.rssMb, ...r.result })),
      bookingsShare:
        SIZES.length > 1
          ? +(by(most, 'bookings').requestsPerSecond / by(Math.min(...SIZES), 'bookings').requestsPerSecond).toFixed(3)
          : null,
      meShare:
        SIZES.length > 1
          ? +(by(most, 'me').requestsPerSecond / by(Math.min(...SIZES), 'me').requestsPerSecond).toFixed(3)
          : null,
      rateLimit: { limit: RATE_LIMIT, sent: burst.length, ok: burstOk, limited: burst429 },
      idempotency: { ids: bookingIds.size, rows: booked, other: idemOther },
      revocation: { warmedOn: warmedOn.size, refusedAfterMs },
      servedBy: served.size,
      webhooks: { events: events.length, undelivered, duplicates },
    },
  }),
);
