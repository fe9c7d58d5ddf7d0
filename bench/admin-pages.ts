// The admin pages at scale (`BENCH_ONLY=admin-pages npm run bench`; docs/performance.md, "Admin
// pages"): the operator's pages of the largest company of a scale data set (bench/seed.ts: by
// default 20 companies and 600 000 bookings, so the largest holds over 100 000), each loaded by a
// few signed-in people at once, the way a front desk uses them. Prints p50, p99, requests/s and
// the server's CPU per page, and the target: every page under 100 ms p99.
//
// Environment: BENCH_DATABASE_URL (the database the seed fills; run.ts gives this group its own),
// REDIS_URL, BENCH_ADMIN_BOOKINGS (600000), BENCH_ADMIN_COMPANIES (20), BENCH_ADMIN_CONNECTIONS
// (4), BENCH_ADMIN_SECONDS (10 a page, after 3 of warm-up), BENCH_ADMIN_PAGES (some pages only:
// names or their starts, comma-separated, such as `overview,calendar`), BENCH_ADMIN_WRITES (0:
// writes a second to one of the company's bookings while the pages are measured, as a busy front
// desk makes them; each raises the company's report versions, so the kept overview and calendar
// are drawn again after it), BENCH_CPU_PROF=1 (the server writes a .cpuprofile into
// bench/results/profiles). The seed is idempotent: a database already holding the same data set
// is reused, so a second run starts at once.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { DateTime } from 'luxon';
import pg from 'pg';
import type { LoadResult } from './load.js';
import type { RequestSpec } from './scenarios.js';
import { SCALE_PASSWORD } from './seed-options.js';
import { benchServerEnv, nodeArgs, runLoad } from './setup.js';

const env = process.env;
const DATABASE_URL = env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/svc_bench_admin_pages';
const REDIS_URL = env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const BOOKINGS = env.BENCH_ADMIN_BOOKINGS ?? '600000';
const COMPANIES = env.BENCH_ADMIN_COMPANIES ?? '20';
const CONNECTIONS = Number(env.BENCH_ADMIN_CONNECTIONS ?? 4);
const SECONDS = Number(env.BENCH_ADMIN_SECONDS ?? 10);
const WRITES_PER_SECOND = Number(env.BENCH_ADMIN_WRITES ?? 0);
const TARGET_P99_MS = 100;
// Comma-separated; a comma followed by a space is part of a name (`calendar, day`).
const ONLY = env.BENCH_ADMIN_PAGES?.split(/,(?! )/).filter(Boolean);

const pinned = availableParallelism() >= 2 && spawnSync('taskset', ['-c', '0', 'true']).status === 0;
const onCore = (core: number, args: string[]) =>
  pinned ? (['taskset', ['-c', String(core), ...args]] as const) : ([args[0]!, args.slice(1)] as const);

function seed(): Promise<void> {
  const [cmd, ...args] = nodeArgs('seed.ts', []);
  const child = spawn(cmd!, [...args, '--companies', COMPANIES, '--bookings', BOOKINGS, '--database', DATABASE_URL], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`bench/seed.ts exited with ${code}`)))),
  );
}

function startServer(): Promise<{ child: ChildProcess; origin: string }> {
  const profile =
    env.BENCH_CPU_PROF === '1'
      ? ['--cpu-prof', '--cpu-prof-dir', join(dirname(fileURLToPath(import.meta.url)), 'results', 'profiles')]
      : [];
  const [cmd, args] = onCore(0, nodeArgs('server.ts', profile));
  const child = spawn(cmd, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: benchServerEnv({ databaseUrl: DATABASE_URL, redisUrl: REDIS_URL, logLevel: env.BENCH_LOG_LEVEL }),
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the bench server exited with ${code} before listening`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('{"benchPort":'))
        resolve({ child, origin: `http://127.0.0.1:${(JSON.parse(line) as { benchPort: number }).benchPort}` });
    });
  });
}

const cookieOf = (res: Response, name: string) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .find((c) => c.startsWith(`${name}=`));

/** Signs in through the real login form, as a person does; the session cookie. */
async function signIn(origin: string, email: string): Promise<string> {
  const login = await fetch(`${origin}/admin/login`);
  const loginCsrf = cookieOf(login, 'svc_login_csrf');
  const token = /name="csrf_token" value="([^"]+)"/.exec(await login.text())?.[1];
  if (!loginCsrf || !token) throw new Error('the login page gave no CSRF token');
  const res = await fetch(`${origin}/oauth/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: loginCsrf },
    body: new URLSearchParams({ csrf_token: token, email, password: SCALE_PASSWORD, next: '/admin' }).toString(),
  });
  const session = cookieOf(res, 'svc_session');
  if (res.status !== 303 || !session) throw new Error(`signing in answered ${res.status}`);
  return session;
}

interface PageRow extends LoadResult {
  page: string;
  path: string;
}

async function main(): Promise<void> {
  await seed();
  const c = new pg.Client({ connectionString: DATABASE_URL });
  await c.connect();
  let pages: Array<[string, string]>;
  let email: string;
  let bookingsOfCompany: number;
  let writeTarget: string | undefined;
  try {
    // The company with the most bookings, and records of it for the pages that show one.
    const top = await c.query<{ company_id: string; n: string; timezone: string; account_id: string }>(
      `SELECT b.company_id, count(*) AS n, co.timezone, co.account_id FROM bookings b JOIN companies co ON co.id = b.company_id
       GROUP BY b.company_id, co.timezone, co.account_id ORDER BY count(*) DESC LIMIT 1`,
    );
    const { company_id: id, timezone: zone, account_id: accountId } = top.rows[0]!;
    bookingsOfCompany = Number(top.rows[0]!.n);
    email = (await c.query<{ email: string }>(`SELECT email FROM accounts WHERE id = $1`, [accountId])).rows[0]!.email;
    const one = async (sql: string) => (await c.query<{ id: string }>(sql, [id])).rows[0]?.id;
    // A customer with many bookings, a booking of this week, an employee.
    const customer = await one(
      `SELECT customer_id AS id FROM bookings WHERE company_id = $1 GROUP BY customer_id ORDER BY count(*) DESC LIMIT 1`,
    );
    const booking = await one(
      `SELECT id FROM bookings WHERE company_id = $1 AND start_time >= now() ORDER BY start_time LIMIT 1`,
    );
    const employee = await one(`SELECT id FROM employees WHERE company_id = $1 ORDER BY id LIMIT 1`);
    const service = await one(
      `SELECT id FROM services WHERE company_id = $1 AND kind = 'appointment' ORDER BY id LIMIT 1`,
    );
    const session = await one(
      `SELECT id FROM class_sessions WHERE company_id = $1 AND start_time >= now() ORDER BY start_time LIMIT 1`,
    );
    const endpoint = await one(`SELECT id FROM webhook_endpoints WHERE company_id = $1 ORDER BY id LIMIT 1`);
    writeTarget = booking;
    const name = (
      await c.query<{ name: string }>(`SELECT name FROM customers WHERE id = $1`, [customer])
    ).rows[0]!.name.slice(0, 3);
    const today = DateTime.now().setZone(zone).toISODate()!;
    // The calendar of the busiest local day of the coming week (bookings, and free cells still
    // ahead): the same load whichever weekday the bench runs on, and the heaviest one.
    const busiest =
      (
        await c.query<{ day: string }>(
          `SELECT to_char(start_time AT TIME ZONE $2, 'YYYY-MM-DD') AS day FROM bookings
           WHERE company_id = $1 AND start_time >= now() AND start_time < now() + interval '7 days'
           GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`,
          [id, zone],
        )
      ).rows[0]?.day ?? today;
    const base = `/admin/live/companies/${id}`;
    pages = [
      ['overview', `${base}/overview`],
      ['calendar, day', `${base}/calendar?view=day&date=${busiest}`],
      ['calendar, week of one employee', `${base}/calendar?view=week&date=${busiest}&employee=${employee}`],
      ['customers, first page', `${base}/customers`],
      ['customers, search', `${base}/customers?q=${encodeURIComponent(name)}`],
      ['one customer', `${base}/customers/${customer}`],
      ['one booking', `${base}/bookings/${booking}`],
      ['payments, first page', `${base}/payments`],
      ['search by id', `${base}/search?q=${booking}`],
      ['staff', `${base}/staff`],
      ['one staff member', `${base}/staff/${employee}`],
      ['services', `${base}/services`],
      ['one service', `${base}/services/${service}`],
      ['new booking, slots of all staff', `${base}/bookings/new?serviceId=${service}&date=${busiest}`],
      ['classes', `${base}/classes`],
      ...(session ? [['one class, roster', `${base}/classes/${session}`] as [string, string]] : []),
      ['webhooks', `${base}/webhooks`],
      ...(endpoint ? [['one webhook endpoint', `${base}/webhooks/${endpoint}`] as [string, string]] : []),
      ['e-mails', `${base}/emails`],
      ['request logs', `${base}/request-logs`],
      ['audit log', `${base}/audit`],
      ['team', `${base}/team`],
    ];
  } finally {
    await c.end();
  }

  const { child, origin } = await startServer();
  const rows: PageRow[] = [];
  // The writer: one booking's notes changed, committed, WRITES_PER_SECOND times a second.
  const writer = WRITES_PER_SECOND > 0 ? new pg.Client({ connectionString: DATABASE_URL }) : null;
  await writer?.connect();
  let writes = 0;
  const writing = writer
    ? setInterval(() => {
        writes++;
        writer
          .query(`UPDATE bookings SET notes = $2 WHERE id = $1`, [writeTarget, `bench write ${writes}`])
          .catch((e: Error) => process.stderr.write(`bench: a write failed: ${e.message}\n`));
      }, 1000 / WRITES_PER_SECOND)
    : null;
  try {
    const session = await signIn(origin, email);
    for (const [page, path] of pages.filter(([name]) => !ONLY || ONLY.some((o) => name.startsWith(o)))) {
      const spec: RequestSpec = { method: 'GET', path, headers: { cookie: session }, expect: [200, 303] };
      const probe = await fetch(origin + path, { headers: { cookie: session }, redirect: 'manual' });
      if (!spec.expect.includes(probe.status)) throw new Error(`${page}: ${path} answered ${probe.status}`);
      process.stderr.write(
        `bench: admin page ${page}: 3 s warm-up, ${SECONDS} s measured, ${CONNECTIONS} connections\n`,
      );
      const r = await runLoad(
        { url: origin, spec, connections: CONNECTIONS, warmupSeconds: 3, durationSeconds: SECONDS },
        pinned ? ['taskset', '-c', '1'] : [],
      );
      rows.push({ page, path: path.replace(/[0-9a-f]{24}/g, ':id'), ...r });
    }
  } finally {
    if (writing) clearInterval(writing);
    await writer?.end();
    child.kill('SIGTERM');
    await new Promise((done) => child.once('exit', done));
  }
  const worst = Math.max(...rows.map((r) => r.p99Ms));
  const lines = [
    `Admin pages of the largest company (${bookingsOfCompany.toLocaleString('en')} bookings; ${COMPANIES} companies, ${Number(BOOKINGS).toLocaleString('en')} bookings in all), ${CONNECTIONS} people at once, ${SECONDS} s each${
      WRITES_PER_SECOND > 0
        ? `, while ${WRITES_PER_SECOND} writes a second change the company's bookings (${writes} in all)`
        : ''
    }`,
    '',
    '| page | req/s | p50 ms | p99 ms | server CPU µs/page | non-2xx/3xx |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.page} | ${r.requestsPerSecond} | ${r.p50Ms} | ${r.p99Ms} | ${r.serverCpuUsPerRequest} | ${Object.entries(
          r.statusCounts,
        )
          .filter(([s]) => !['200', '303'].includes(s))
          .reduce((n, [, k]) => n + k, 0)} |`,
    ),
    '',
    `Target: every page under ${TARGET_P99_MS} ms p99 with 100 000 bookings in the company: ${
      worst < TARGET_P99_MS && bookingsOfCompany >= 100_000 ? 'met' : 'NOT met'
    } (worst p99 ${worst} ms).`,
  ];
  for (const l of lines) process.stdout.write(`${l}\n`);
  process.stdout.write(`${JSON.stringify({ admin_pages: { bookingsOfCompany, rows, worstP99Ms: worst } })}\n`);
}

await main();
