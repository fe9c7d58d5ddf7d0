// The load generator: autocannon in a process of its own (run.ts pins it to the core the
// server does not use). Reads one JSON document on stdin (the target and the request spec), runs a
// warm-up and then the measured run, and prints the measured figures as one JSON line.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { CPU_ROUTE, type RequestSpec } from './scenarios.js';

export interface LoadOptions {
  url: string;
  spec: RequestSpec;
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  /**
   * Processes whose CPU time is the server's (several behind one port, bench/cluster.ts): read
   * from /proc instead of asking the one process a request happens to reach.
   */
  cpuPids?: number[];
  /**
   * Also the CPU time of every process of these names (`postgres`, `redis-server`), or of these
   * pids under a name (`svc worker`), per request over the same measured run: what one request
   * costs the shared services and the workers, for sizing them.
   */
  sideCpu?: Array<string | { name: string; pids: number[] }>;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  requests: number;
  statusCounts: Record<string, number>;
  errors: number;
  timeouts: number;
  /** The server's CPU time (user + system) per completed request, in microseconds. */
  serverCpuUsPerRequest: number;
  /** Per name of `sideCpu`: those processes' CPU time per completed request, in microseconds. */
  sideCpuUsPerRequest?: Record<string, number>;
}

const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** One process's CPU time (user + system) in microseconds, from /proc/<pid>/stat; null once gone. */
function processCpu(pid: number): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // After the command name in parentheses: state is field 3, utime 14 and stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / ticksPerSecond) * 1e6;
}

function processesCpu(pids: number[]): number {
  return pids.reduce((sum, pid) => sum + (processCpu(pid) ?? 0), 0);
}

/** CPU time of every process named `name`, per pid (a process gone by the second reading is left out). */
function cpuByName(name: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let comm: string;
    try {
      comm = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    if (comm !== name) continue;
    const cpu = processCpu(Number(entry));
    if (cpu !== null) out.set(Number(entry), cpu);
  }
  return out;
}

async function serverCpu(url: string, pids?: number[]): Promise<number> {
  if (pids?.length) return processesCpu(pids);
  const res = await fetch(url + CPU_ROUTE);
  const { user, system } = (await res.json()) as { user: number; system: number };
  return user + system;
}

// Shared by the warm-up and the measured run: the measured run goes on where the warm-up
// stopped, so a body that books a slot is not sent twice.
// A spec with `warmupBodies` warms up on those instead, with a counter of their own.
const cursor = { warmup: 0, measured: 0 };

function requests(spec: RequestSpec, phase: 'warmup' | 'measured'): autocannon.Request[] {
  const headers = { ...spec.headers, ...(spec.bodies ? { 'content-type': 'application/json' } : {}) };
  if (!spec.bodies?.length) return [{ method: spec.method, path: spec.path, headers }];
  const own = phase === 'warmup' && spec.warmupBodies?.length;
  const bodies = own ? spec.warmupBodies! : spec.bodies;
  const counter = own ? 'warmup' : 'measured';
  return [
    {
      method: spec.method,
      path: spec.path,
      headers,
      setupRequest: (req) => ({ ...req, body: bodies[cursor[counter]++ % bodies.length] }),
    },
  ];
}

// autocannon's own histogram keeps whole milliseconds; a sub-millisecond p50 needs finer
// buckets, so latencies are also counted here in 10 µs steps (up to 10 s).
const STEP_MS = 0.01;
const BUCKETS = 1_000_000;

function percentile(counts: Uint32Array, total: number, p: number): number {
  const rank = Math.ceil(total * p);
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i]!;
    if (seen >= rank) return Math.round((i + 1) * STEP_MS * 100) / 100;
  }
  return Infinity;
}

/** Latencies in 10 µs buckets: what each run records, and its percentiles. */
function latencyHistogram() {
  const counts = new Uint32Array(BUCKETS);
  let total = 0;
  let max = 0;
  return {
    get total() {
      return total;
    },
    record(ms: number) {
      counts[Math.min(BUCKETS - 1, Math.floor(ms / STEP_MS))]!++;
      total++;
      if (ms > max) max = ms;
    },
    summary() {
      const at = (p: number) => percentile(counts, total, p);
      return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: Math.round(max * 100) / 100 };
    },
  };
}

async function fire(o: LoadOptions, seconds: number, phase: 'warmup' | 'measured') {
  const latencies = latencyHistogram();
  const instance = autocannon({
    url: o.url,
    connections: o.connections,
    duration: seconds,
    requests: requests(o.spec, phase),
  });
  instance.on('response', (_client, _status, _bytes, ms) => latencies.record(ms));
  const result = await instance;
  return { result, latency: latencies.summary() };
}

/**
 * A fan-out spec (scenarios.ts): `connections` clients, each repeating one operation (every
 * path of the set, `inFlight` at a time) until the time is up. Latency is the operation's, from
 * its first request to its last answer; statuses are counted per request.
 */
async function fireFanOut(o: LoadOptions, seconds: number) {
  const { paths, inFlight } = o.spec.fanOut!;
  const latencies = latencyHistogram();
  const statusCounts: Record<string, number> = {};
  let errors = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  const get = async (path: string) => {
    try {
      const res = await fetch(o.url + path, { headers: o.spec.headers });
      await res.arrayBuffer();
      statusCounts[res.status] = (statusCounts[res.status] ?? 0) + 1;
    } catch {
      errors++;
    }
  };
  const client = async () => {
    while (performance.now() < until) {
      const t0 = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          while (next < paths.length) await get(paths[next++]!);
        }),
      );
      latencies.record(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: o.connections }, client));
  const duration = (performance.now() - started) / 1000;
  return {
    result: { requests: { total: latencies.total }, duration, statusCodeStats: undefined, errors, timeouts: 0 },
    statusCounts,
    latency: latencies.summary(),
  };
}

let input = '';
for await (const chunk of process.stdin) input += String(chunk);
const options = JSON.parse(input) as LoadOptions;
const run = (seconds: number, phase: 'warmup' | 'measured') =>
  options.spec.fanOut ? fireFanOut(options, seconds) : fire(options, seconds, phase);
if (options.warmupSeconds > 0) await run(options.warmupSeconds, 'warmup');
const sideCpuNow = (side: string | { name: string; pids: number[] }) =>
  typeof side === 'string'
    ? cpuByName(side)
    : new Map(side.pids.flatMap((pid) => (processCpu(pid) === null ? [] : [[pid, processCpu(pid)!] as const])));
const sideBefore = (options.sideCpu ?? []).map(sideCpuNow);
const cpuBefore = await serverCpu(options.url, options.cpuPids);
const measured = await run(options.durationSeconds, 'measured');
const { result: r, latency } = measured;
const cpu = (await serverCpu(options.url, options.cpuPids)) - cpuBefore;
// A process started during the run (a new PostgreSQL backend) counts from zero.
const side = (options.sideCpu ?? []).map((what, i) => {
  let used = 0;
  for (const [pid, after] of sideCpuNow(what)) used += after - (sideBefore[i]!.get(pid) ?? 0);
  return [typeof what === 'string' ? what : what.name, Math.round((used / r.requests.total) * 10) / 10] as const;
});
const result: LoadResult = {
  // Completed requests over the run's wall time (autocannon's per-second mean says the same).
  requestsPerSecond: Math.round(r.requests.total / r.duration),
  p50Ms: latency.p50,
  p90Ms: latency.p90,
  p99Ms: latency.p99,
  maxMs: latency.max,
  requests: r.requests.total,
  statusCounts:
    'statusCounts' in measured
      ? measured.statusCounts
      : Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([s, v]) => [s, v.count])),
  errors: r.errors,
  timeouts: r.timeouts,
  serverCpuUsPerRequest: Math.round((cpu / r.requests.total) * 10) / 10,
  ...(side.length ? { sideCpuUsPerRequest: Object.fromEntries(side) } : {}),
};
process.stdout.write(`${JSON.stringify(result)}\n`);
