// `npm run bench` (issue 2, "Benchmark"): in one run, against real PostgreSQL and Redis, the
// real server pinned to core 0 and autocannon pinned to core 1, every scenario of
// bench/scenarios.ts after a warm-up; prints requests/s, p50, p99 and the share of the ceiling,
// checks the targets, and writes bench/results/latest.md (the printed report) and latest.json.
//
// Environment: BENCH_DATABASE_URL (a database the bench may drop and recreate; default
// postgresql://postgres@127.0.0.1:5432/svc_bench), REDIS_URL (default redis://127.0.0.1:6379),
// BENCH_CONNECTIONS (50; a scenario may set its own), BENCH_WARMUP_SECONDS (10), BENCH_DURATION_SECONDS (15),
// BENCH_ONLY (comma-separated scenario names, or a group's name such as `request-logs`; `webhooks` for bench/webhook-latency.ts, `cli` for the start of `svc`, `reminders` for bench/reminder-burst.ts, `retention` for bench/retention.ts, `processes` for bench/processes.ts, `admin-pages` for bench/admin-pages.ts, `scale` for bench/scale.ts: the scenarios on the empty fixture and on the scale data set, side by side), BENCH_CPU_PROF=1 (server writes a .cpuprofile
// into bench/results/profiles), BENCH_LOG_LEVEL (warn).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { openDatabases } from '../src/db/databases.js';
import { createAccountWithKeys } from '../test/helpers/factories.js';
import { benchServerEnv, nodeArgs, recreateDatabase, runLoad as runLoadProcess } from './setup.js';
import type { LoadOptions, LoadResult } from './load.js';
import { plansMarkdown, type ScenarioPlans } from './scale-plans.js';
import { checkTargets, formatReport, type ScenarioResult, type Verdict } from './report.js';
import { SCENARIOS, type BenchContext, type Fixtures, type RequestSpec, type Scenario } from './scenarios.js';

const here = dirname(fileURLToPath(import.meta.url));
const env = process.env;
const DATABASE_URL = env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/svc_bench';
const REDIS_URL = env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 50);
const WARMUP = Number(env.BENCH_WARMUP_SECONDS ?? 10);
const DURATION = Number(env.BENCH_DURATION_SECONDS ?? 15);
const ONLY = env.BENCH_ONLY?.split(',').filter(Boolean);
// `npm run bench` runs the core (the HTTP scenarios, the webhooks' latency and the start of `svc`)
// within 10 minutes; `npm run bench:full` (BENCH_SUITE=full) adds the long ones: the reminders'
// burst, retention, many processes, the admin pages and the scenarios at scale (their seed alone
// takes minutes). BENCH_ONLY picks from either.
const FULL = env.BENCH_SUITE === 'full';
const CORE_BUDGET_SECONDS = 600;
const CEILING = 'bare';
/** A stand-alone part runs when BENCH_ONLY names it, else when its suite runs. */
const wants = (name: string, core: boolean) => (ONLY ? ONLY.includes(name) : core || FULL);

// Pinning needs taskset and two cores; without them the figures are still printed, flagged.
const pinned = availableParallelism() >= 2 && spawnSync('taskset', ['-c', '0', 'true']).status === 0;
const onCore = (core: number, args: string[]) =>
  pinned ? (['taskset', ['-c', String(core), ...args]] as const) : ([args[0]!, args.slice(1)] as const);

function startServer(extraEnv: Record<string, string> = {}): Promise<{ child: ChildProcess; port: number }> {
  const profile = env.BENCH_CPU_PROF === '1' ? ['--cpu-prof', '--cpu-prof-dir', join(here, 'results', 'profiles')] : [];
  const [cmd, args] = onCore(0, nodeArgs('server.ts', profile));
  const child = spawn(cmd, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
    // A scenario that compares a setting (request logs off) runs on a server of its own.
    env: {
      ...benchServerEnv({ databaseUrl: DATABASE_URL, redisUrl: REDIS_URL, logLevel: env.BENCH_LOG_LEVEL }),
      ...extraEnv,
    },
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the bench server exited with ${code} before listening`)));
    // stdout also carries the server's JSON logs (read and dropped here, as a log shipper would).
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      if (line.startsWith('{"benchPort":'))
        resolve({ child, port: (JSON.parse(line) as { benchPort: number }).benchPort });
    });
  });
}

/** The load generator, pinned to core 1 (the server's is 0). */
const runLoad = (options: LoadOptions): Promise<LoadResult> =>
  runLoadProcess(options, pinned ? ['taskset', '-c', '1'] : []);

type Started = Awaited<ReturnType<typeof startServer>>;

/**
 * One scenario's rounds as one result: requests and statuses summed, requests/s over the whole
 * measured time, CPU per request weighted by requests, and the worst round's latencies (a round
 * is short; its percentiles are not merged, the largest is kept).
 */
function mergeRounds(parts: LoadResult[]): LoadResult {
  if (parts.length === 1) return parts[0]!;
  const requests = parts.reduce((n, p) => n + p.requests, 0);
  const seconds = parts.reduce((n, p) => n + (p.requestsPerSecond > 0 ? p.requests / p.requestsPerSecond : 0), 0);
  const statusCounts: Record<string, number> = {};
  for (const p of parts)
    for (const [status, count] of Object.entries(p.statusCounts))
      statusCounts[status] = (statusCounts[status] ?? 0) + count;
  const worst = (k: 'p50Ms' | 'p90Ms' | 'p99Ms' | 'maxMs') => Math.max(...parts.map((p) => p[k]));
  return {
    requestsPerSecond: seconds > 0 ? Math.round(requests / seconds) : 0,
    p50Ms: worst('p50Ms'),
    p90Ms: worst('p90Ms'),
    p99Ms: worst('p99Ms'),
    maxMs: worst('maxMs'),
    requests,
    statusCounts,
    errors: parts.reduce((n, p) => n + p.errors, 0),
    timeouts: parts.reduce((n, p) => n + p.timeouts, 0),
    serverCpuUsPerRequest:
      requests > 0
        ? Math.round((parts.reduce((n, p) => n + p.serverCpuUsPerRequest * p.requests, 0) / requests) * 10) / 10
        : 0,
  };
}

interface WebhookFigures {
  bookings: number;
  rate: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  deliveries: number;
  deliveriesPerSecond: number;
}

/** One request before the load: a scenario whose answer is wrong is not worth measuring. */
async function probe(origin: string, spec: RequestSpec): Promise<void> {
  const res = await fetch(origin + spec.path, {
    method: spec.method,
    headers: { ...spec.headers, ...(spec.bodies ? { 'content-type': 'application/json' } : {}) },
    ...(spec.bodies ? { body: (spec.warmupBodies ?? spec.bodies)[0] } : {}),
  });
  const text = await res.text();
  if (!spec.expect.includes(res.status))
    throw new Error(`${spec.method} ${spec.path} answered ${res.status}: ${text.slice(0, 300)}`);
}

/** Seeding through the public API (its validation included); anything but 200 stops the run. */
async function api(origin: string, key: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(origin + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as { data?: unknown };
  if (res.status !== 200)
    throw new Error(`setup: ${method} ${path} answered ${res.status}: ${JSON.stringify(json).slice(0, 300)}`);
  return json.data;
}

interface ReminderFigures {
  reminders: number;
  sent: number;
  lastSentAfterFirstDueSeconds: number;
  lagP50Ms: number;
  lagP99Ms: number;
  lagMaxMs: number;
  laterThan2Minutes: number;
  emails: number;
}

interface RetentionFigures {
  backlog: number;
  rate: number;
  writesAlone: { perSecond: number; p50: number; p99: number; max: number };
  writesWithPurge: { perSecond: number; p50: number; p99: number; max: number };
  deliveriesPerSecond: number;
  rowsPerSecond: number;
  purgeSeconds: number;
  staleLeft: number;
}

interface ProcessesFigures {
  workers: number;
  rows: Array<LoadResult & { processes: number; scenario: string; rssMb: number }>;
  bookingsShare: number | null;
  meShare: number | null;
  rateLimit: { limit: number; sent: number; ok: number; limited: number };
  idempotency: { ids: number; rows: number; other: number };
  revocation: { warmedOn: number; refusedAfterMs: number };
  servedBy: number;
  webhooks: { events: number; undelivered: number; duplicates: number };
}

interface AdminPagesFigures {
  bookingsOfCompany: number;
  rows: Array<LoadResult & { page: string; path: string }>;
  worstP99Ms: number;
}

interface ScaleFigures {
  companies: number;
  bookings: number;
  bookingsOfCompany: number;
  rows: Array<{
    scenario: string;
    empty: LoadResult;
    scale: LoadResult;
    p99Ratio: number;
    within: boolean;
    problems: string[];
  }>;
  /** The webhook burst on both fixtures (bench/scale-webhook-burst.ts), when it ran. */
  burst: {
    empty: { deliveriesPerSecond: number; p99Ms: number };
    scale: { deliveriesPerSecond: number; p99Ms: number };
    rateRatio: number;
    within: boolean;
    problems: string[];
  } | null;
  /** Each scenario's statements on the scale data set, explained (bench/scale-plans.ts). */
  plans: ScenarioPlans[];
}

interface Standalone<T> {
  lines: string[];
  figures: T;
}

/** The database of a stand-alone benchmark: the bench database's name with `_<key>`. */
function databaseOf(key: string): string {
  const u = new URL(DATABASE_URL);
  u.pathname = `${u.pathname}_${key}`;
  return u.toString();
}

/**
 * A stand-alone benchmark in a process and database of its own, run after the HTTP scenarios so
 * one `npm run bench` gives every figure: bench/webhook-latency.ts (issue 5: an app, a receiver
 * and two worker processes), bench/reminder-burst.ts (issue 18: 50 000 e-mail reminders due in
 * one minute, two workers), bench/retention.ts (issue 22 §5: the purge against 1 000 bookings/s of
 * writes). Not pinned. Its text lines are printed with the table; its figures are the one line
 * of JSON under `key` (the app's own JSON log lines are dropped).
 */
function runStandalone<T>(file: string, key: string, extraEnv: Record<string, string> = {}): Promise<Standalone<T>> {
  const child = spawn(process.execPath, nodeArgs(file).slice(1), {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...env, BENCH_DATABASE_URL: databaseOf(key), REDIS_URL, ...extraEnv },
  });
  const lines: string[] = [];
  let figures: T | undefined;
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line.startsWith(`{"${key}":`)) figures = (JSON.parse(line) as Record<string, T>)[key];
    else if (!line.startsWith('{')) lines.push(line);
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) =>
      code === 0 && figures ? resolve({ lines, figures }) : reject(new Error(`bench/${file} exited with ${code}`)),
    );
  });
}

interface CliStartFigures {
  runs: number;
  rows: Array<{ what: string; medianMs: number; p90Ms: number }>;
}

/**
 * How long `svc --help` takes from exec to exit (issue 20 §7: under 500 ms), next to a bare
 * `node` and to the same help through the TypeScript sources under tsx, on core 0, in this run.
 */
function runCliStart(runs = 15): CliStartFigures {
  const root = join(here, '..');
  const time = (args: string[]) => {
    const ms: number[] = [];
    for (let i = 0; i < runs + 2; i++) {
      const [cmd, rest] = onCore(0, [process.execPath, ...args]);
      const t0 = process.hrtime.bigint();
      const r = spawnSync(cmd, rest, { cwd: root, stdio: 'ignore', env: { PATH: env.PATH, HOME: env.HOME } });
      if (r.status !== 0) throw new Error(`${args.join(' ')} exited with ${r.status}`);
      if (i >= 2) ms.push(Number(process.hrtime.bigint() - t0) / 1e6); // two warm-up runs fill the page cache
    }
    ms.sort((a, b) => a - b);
    return {
      medianMs: +ms[Math.floor(ms.length / 2)]!.toFixed(1),
      p90Ms: +ms[Math.floor(ms.length * 0.9)]!.toFixed(1),
    };
  };
  return {
    runs,
    rows: [
      { what: 'node -e 0 (Node itself)', ...time(['-e', '0']) },
      { what: 'svc --help (bin/svc.mjs, compiled)', ...time(['bin/svc.mjs', '--help']) },
      { what: 'svc --help through tsx (the sources)', ...time(['--import', 'tsx', 'src/cli/main.ts', '--help']) },
    ],
  };
}

const fmtLoad = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
const fmtDuration = (seconds: number) => `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;

async function main(): Promise<void> {
  const loadAtStart = loadavg();
  const startedAt = Date.now();
  const picked = SCENARIOS.filter((s) => !ONLY || ONLY.includes(s.name) || (s.group && ONLY.includes(s.group)));
  // A target measured against another scenario (a share of bare's requests/s, a multiple of its
  // CPU) needs that scenario in the same run: it is added, so a ratio is never left unchecked.
  const baselines = new Set(
    picked.flatMap((s) => [s.targets?.minShareOf?.scenario, s.targets?.maxCpuOf?.scenario].filter(Boolean)),
  );
  const scenarios = SCENARIOS.filter((s) => picked.includes(s) || baselines.has(s.name));
  const results: ScenarioResult[] = [];
  const checks: Verdict[] = [];
  const extra: string[] = [];
  const figures: Record<string, unknown> = {};
  let plans = '';
  // Everything measured so far, printed as a table and written to bench/results/ after each
  // scenario, so a run cut short keeps what it measured (latest.md says how far it got).
  const write = (final: boolean) => {
    const verdicts = [...checkTargets(scenarios, results), ...checks];
    // The load average says how much the figures were shared with other work on the machine.
    const machine = `${cpus()[0]?.model ?? 'cpu'} x${availableParallelism()}, Node ${process.version}, load average (1/5/15 min) ${fmtLoad(loadAtStart)} at the start, ${fmtLoad(loadavg())} ${final ? 'at the end' : 'now'}`;
    const seconds = Math.round((Date.now() - startedAt) / 1000);
    const suite = ONLY ? `BENCH_ONLY=${ONLY.join(',')}` : FULL ? 'npm run bench:full' : 'npm run bench';
    const took = final
      ? `${suite} took ${fmtDuration(seconds)}${!ONLY && !FULL ? ` (the core's budget: ${fmtDuration(CORE_BUDGET_SECONDS)}; ${seconds <= CORE_BUDGET_SECONDS ? 'within it' : 'OVER it'})` : ''}`
      : `${suite}: INTERRUPTED or still running, ${fmtDuration(seconds)} so far; the rows measured until then follow`;
    const header = `Benchmark: ${CONNECTIONS} connections unless the table says otherwise, ${WARMUP} s warm-up, ${DURATION} s measured; server on core 0, autocannon on core 1${pinned ? '' : ' (NOT pinned: taskset or a second core missing)'}; ${machine}\n${took}`;
    const report = formatReport(results, verdicts, CEILING, header, extra);
    mkdirSync(join(here, 'results'), { recursive: true });
    const at = new Date(startedAt).toISOString();
    // The same report as Markdown, to paste into docs/performance.md or a pull request.
    // The plans at scale in sections of their own after the report, so its tables stay readable.
    writeFileSync(join(here, 'results', 'latest.md'), `# npm run bench, ${at}\n\n${report}${plans}`);
    const json = {
      at,
      complete: final,
      seconds,
      suite,
      connections: CONNECTIONS,
      warmupSeconds: WARMUP,
      durationSeconds: DURATION,
      pinned,
      machine,
      results,
      ...figures,
      verdicts,
    };
    writeFileSync(join(here, 'results', 'latest.json'), `${JSON.stringify(json, null, 2)}\n`);
    return report;
  };
  /** A stand-alone part's lines under its title, its figures under `key`, and the files rewritten. */
  const keep = <T>(key: string, title: string, part: Standalone<T>) => {
    extra.push('', title, ...part.lines.map((l) => `  ${l}`));
    figures[key] = part.figures;
    write(false);
  };
  process.stderr.write(
    `bench: ${scenarios.length} HTTP scenarios${FULL ? ' and the long runs (bench:full)' : ''}; each row is printed as it is measured and bench/results/latest.md is rewritten after it\n`,
  );
  // The HTTP scenarios need the database and the server; BENCH_ONLY=cli or webhooks alone do not.
  if (scenarios.length) {
    await recreateDatabase(DATABASE_URL);
    const dbs = await openDatabases({
      DATABASE_URL,
      SANDBOX_SCHEMA: 'sandbox',
      DATABASE_POOL_SIZE: 2,
      DATA_DIR: '.data',
    });
    await dbs.migrate();
    const { child, port } = await startServer();
    const origin = `http://127.0.0.1:${port}`;
    let fixtures: Promise<Fixtures> | undefined;
    const ctx: BenchContext = {
      dbs,
      fixtures: () => (fixtures ??= createAccountWithKeys(dbs)),
      api: (key, method, path, body) => api(origin, key, method, path, body),
    };
    const specs = new Map<string, RequestSpec>();
    try {
      for (const s of scenarios) specs.set(s.name, await s.setup(ctx));
      for (let i = 0; i < scenarios.length;) {
        // Scenarios of one group that ask for rounds are measured together, alternating: each
        // runs DURATION / rounds seconds a round, so a machine whose load drifts during the run
        // weighs on all of them alike (a share of one another's requests/s is then a fair figure).
        const first = scenarios[i]!;
        let n = 1;
        while (first.rounds && first.group && scenarios[i + n]?.group === first.group && scenarios[i + n]?.rounds) n++;
        const batch = scenarios.slice(i, i + n);
        i += n;
        const rounds = first.rounds && n > 1 ? first.rounds : 1;
        // A scenario with its own settings gets a server of its own, started and stopped around it.
        const runs: Array<{
          s: Scenario;
          spec: RequestSpec;
          url: string;
          connections: number;
          own: Started | null;
          parts: LoadResult[];
        }> = [];
        try {
          for (const s of batch) {
            const spec = specs.get(s.name)!;
            const own = s.serverEnv ? await startServer(s.serverEnv) : null;
            const url = own ? `http://127.0.0.1:${own.port}` : origin;
            runs.push({ s, spec, url, connections: s.connections ?? CONNECTIONS, own, parts: [] });
            await probe(url, spec);
          }
          for (const { s, own, connections } of runs)
            process.stderr.write(
              `bench: ${s.name}: ${WARMUP} s warm-up, ${DURATION} s measured${
                rounds > 1
                  ? ` in ${rounds} rounds alternating with ${batch
                      .filter((x) => x !== s)
                      .map((x) => x.name)
                      .join(', ')}`
                  : ''
              }, ${connections} connections${
                own
                  ? `, own server (${Object.entries(s.serverEnv!)
                      .map(([k, v]) => `${k}=${v}`)
                      .join(' ')})`
                  : ''
              }\n`,
            );
          for (let round = 0; round < rounds; round++)
            for (const run of runs)
              run.parts.push(
                await runLoad({
                  url: run.url,
                  spec: run.spec,
                  connections: run.connections,
                  warmupSeconds: round === 0 ? WARMUP : 0,
                  durationSeconds: DURATION / rounds,
                }),
              );
        } finally {
          for (const { own } of runs) {
            if (!own) continue;
            own.child.kill('SIGTERM');
            await new Promise((done) => own.child.once('exit', done));
          }
        }
        for (const { s, spec, connections, parts } of runs) {
          const r = mergeRounds(parts);
          const unexpected = Object.entries(r.statusCounts).reduce(
            (sum, [status, count]) => sum + (spec.expect.includes(Number(status)) ? 0 : count),
            0,
          );
          results.push({ name: s.name, title: s.title, connections, expect: spec.expect, ...r, unexpected });
          if (s.verify) checks.push({ scenario: s.name, ...(await s.verify(ctx)) });
          const base = results.find((x) => x.name === CEILING);
          const times = base?.serverCpuUsPerRequest
            ? ` (${(r.serverCpuUsPerRequest / base.serverCpuUsPerRequest).toFixed(1)}x ${CEILING})`
            : '';
          process.stdout.write(
            `bench: ${s.name}: ${r.requestsPerSecond} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, CPU ${r.serverCpuUsPerRequest} µs/req${times}, ${r.requests} requests, ${unexpected + r.errors} unexpected\n`,
          );
        }
        write(false);
      }
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      await dbs.close();
    }
  }

  let webhooks: Standalone<WebhookFigures> | undefined;
  if (wants('webhooks', true)) {
    process.stderr.write(
      'bench: webhooks: bench/webhook-latency.ts (500 bookings at 50/s, then 1000 deliveries by two workers)\n',
    );
    webhooks = await runStandalone<WebhookFigures>('webhook-latency.ts', 'webhooks');
    // Issue 5: p99 under 1 s with Redis, commit to receipt.
    checks.push({
      scenario: 'webhooks',
      target: 'p99 < 1000 ms (commit → receipt)',
      measured: `${webhooks.figures.p99Ms} ms`,
      met: webhooks.figures.p99Ms < 1000,
    });
  }
  if (webhooks) keep('webhooks', 'Webhooks (bench/webhook-latency.ts, not pinned):', webhooks);
  let reminders: Standalone<ReminderFigures> | undefined;
  if (wants('reminders', false)) {
    process.stderr.write(
      'bench: reminders: bench/reminder-burst.ts (50 000 e-mail reminders due in one minute, two workers)\n',
    );
    reminders = await runStandalone<ReminderFigures>('reminder-burst.ts', 'reminders');
    // Issue 18: every reminder out within 2 minutes of its due time.
    checks.push({
      scenario: 'reminders',
      target: 'every reminder sent within 120 s of its due time',
      measured: `max lag ${(reminders.figures.lagMaxMs / 1000).toFixed(1)} s`,
      met: reminders.figures.laterThan2Minutes === 0 && reminders.figures.sent === reminders.figures.reminders,
    });
  }
  if (reminders) keep('reminders', 'Reminders (bench/reminder-burst.ts, not pinned):', reminders);
  let retention: Standalone<RetentionFigures> | undefined;
  if (wants('retention', false)) {
    process.stderr.write(
      'bench: retention: bench/retention.ts (the purge of a stale backlog under 1 000 bookings/s of writes)\n',
    );
    retention = await runStandalone<RetentionFigures>('retention.ts', 'retention');
    const r = retention.figures;
    // Issue 22 §5: retention keeps up with the writes (deletes faster than they arrive) without
    // blocking them (their commit p99 while purging within 1.5x of the writes alone).
    checks.push({
      scenario: 'retention',
      target: `purge >= ${r.rate} deliveries/s; write p99 while purging <= 1.5x alone`,
      measured: `${r.deliveriesPerSecond} deliveries/s; p99 ${r.writesWithPurge.p99} ms vs ${r.writesAlone.p99} ms`,
      met: r.deliveriesPerSecond >= r.rate && r.staleLeft === 0 && r.writesWithPurge.p99 <= 1.5 * r.writesAlone.p99,
    });
  }
  if (retention) keep('retention', 'Retention (bench/retention.ts, not pinned):', retention);
  let processes: Standalone<ProcessesFigures> | undefined;
  if (wants('processes', false)) {
    process.stderr.write(
      'bench: processes: bench/processes.ts (1 and then 2 API processes behind one port, svc workers, checks across them)\n',
    );
    processes = await runStandalone<ProcessesFigures>('processes.ts', 'processes');
    const p = processes.figures;
    // Issue 22 §6: a second process loses no throughput (within the 5% a run varies), and what
    // must hold across processes holds: one limit, one answer per key, revocation everywhere.
    checks.push({
      scenario: 'processes',
      target: 'POST /bookings req/s on 2 processes >= 0.95x on 1; limits, idempotency, revocation, webhooks hold',
      measured: `${p.bookingsShare}x; ${p.rateLimit.ok}/${p.rateLimit.sent} past a ${p.rateLimit.limit}/s limit; ${p.idempotency.rows} booking for one key; revoked everywhere in ${p.revocation.refusedAfterMs} ms; ${p.webhooks.undelivered} undelivered`,
      met:
        (p.bookingsShare ?? 0) >= 0.95 &&
        p.rateLimit.ok <= 2 * p.rateLimit.limit &&
        p.idempotency.rows === 1 &&
        p.idempotency.other === 0 &&
        p.revocation.refusedAfterMs >= 0 &&
        p.webhooks.undelivered === 0,
    });
  }
  if (processes) keep('processes', 'Many processes (bench/processes.ts, not pinned):', processes);
  let adminPages: Standalone<AdminPagesFigures> | undefined;
  if (wants('admin-pages', false)) {
    process.stderr.write(
      'bench: admin-pages: bench/admin-pages.ts (the scale seed, then each admin page of its largest company)\n',
    );
    adminPages = await runStandalone<AdminPagesFigures>('admin-pages.ts', 'admin_pages');
    const a = adminPages.figures;
    // Issue 21: every page under 100 ms p99 with 100 000 bookings in the company.
    checks.push({
      scenario: 'admin-pages',
      target: 'every admin page p99 < 100 ms with >= 100 000 bookings in the company',
      measured: `worst p99 ${a.worstP99Ms} ms (${a.rows.find((r) => r.p99Ms === a.worstP99Ms)?.page}), ${a.bookingsOfCompany} bookings`,
      met: a.worstP99Ms < 100 && a.bookingsOfCompany >= 100_000,
    });
  }
  if (adminPages) keep('adminPages', 'Admin pages at scale (bench/admin-pages.ts, server on core 0):', adminPages);
  let scale: Standalone<ScaleFigures> | undefined;
  if (wants('scale', false)) {
    process.stderr.write(
      'bench: scale: bench/scale.ts (the scenarios on the empty fixture, then on the scale data set)\n',
    );
    // The admin pages' data set, so one seed serves both (the same defaults: 20 companies, 600 000 bookings).
    scale = await runStandalone<ScaleFigures>('scale.ts', 'scale', {
      BENCH_SCALE_DATABASE_URL: env.BENCH_SCALE_DATABASE_URL ?? databaseOf('admin_pages'),
    });
    const over = scale.figures.rows.filter((r) => !r.within || r.problems.length);
    // Issue 22 §2: at scale, every p99 within 1.5x of its empty-database figure.
    if (scale.figures.rows.length)
      checks.push({
        scenario: 'scale',
        target: "every p99 at scale <= 1.5x the empty fixture's",
        measured: over.length
          ? over
              .map((r) => `${r.scenario} ${r.p99Ratio}x${r.problems.length ? ` (${r.problems.join('; ')})` : ''}`)
              .join(', ')
          : `worst ${Math.max(...scale.figures.rows.map((r) => r.p99Ratio))}x`,
        met: over.length === 0,
      });
    // The burst: a worker delivers as fast at scale (within the same factor), each event once.
    const b = scale.figures.burst;
    if (b)
      checks.push({
        scenario: 'scale webhook-burst',
        target: "deliveries/s at scale >= 1/1.5 of the empty fixture's; each event delivered once",
        measured: `${b.scale.deliveriesPerSecond} vs ${b.empty.deliveriesPerSecond}/s (${b.rateRatio}x)${b.problems.length ? `; ${b.problems.join('; ')}` : ''}`,
        met: b.within && b.problems.length === 0,
      });
  }
  if (scale) {
    plans = scale.figures.plans.length ? `\n${plansMarkdown(scale.figures.plans).join('\n')}\n` : '';
    keep('scale', 'Scenarios at scale (bench/scale.ts, server on core 0):', scale);
  }
  let cliStart: CliStartFigures | undefined;
  if (wants('cli', true)) {
    process.stderr.write('bench: cli: svc --help from exec to exit\n');
    cliStart = runCliStart();
    const help = cliStart.rows[1]!;
    checks.push({
      scenario: 'cli',
      target: 'svc --help median < 500 ms',
      measured: `${help.medianMs} ms`,
      met: help.medianMs < 500,
    });
  }
  if (cliStart) {
    extra.push(
      '',
      `Start of svc (${cliStart.runs} runs each, core 0, exec to exit):`,
      ...cliStart.rows.map((r) => `  ${r.what.padEnd(40)} median ${r.medianMs} ms, p90 ${r.p90Ms} ms`),
    );
    figures.cliStart = cliStart;
  }
  process.stdout.write(`\n${write(true)}`);
}

await main();
