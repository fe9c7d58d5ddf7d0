// The scenarios at scale (`BENCH_ONLY=scale npm run bench`; docs/performance.md, "Scenarios at
// scale"; issue 22 §2): each scenario twice in one invocation, first on an empty fixture and then
// on the scale data set of bench/seed.ts, and one table of both side by side with the ratio of
// the p99s (the goal: at scale, every p99 within 1.5x of its empty-database figure).
//
// Both fixtures are one live company shaped like the largest company of the seed: 200 staff
// working Monday to Saturday 09:00-20:00 in the company's zone. On the empty fixture it is made
// through the API in a fresh database; on the scale data set it is the seeded company with the
// most bookings (over 100 000 with the default 600 000), which gets an API key of its own here.
// Every scenario's setup then runs alike on both through the API: the same services made of the
// same employees, the same requests. What differs is the history in the tables.
//
// Environment: BENCH_DATABASE_URL (the empty fixture's database, dropped and recreated; run.ts
// gives this group its own), BENCH_SCALE_DATABASE_URL (the seeded one; run.ts passes the admin
// pages' database, so one seed serves both), BENCH_SCALE_BOOKINGS (600000) and
// BENCH_SCALE_COMPANIES (20) for the seed (the issue's full set: 2000000 and 2000), REDIS_URL,
// BENCH_WARMUP_SECONDS (5), BENCH_DURATION_SECONDS (10), BENCH_SCALE_ONLY (scenario names;
// `webhook-burst` for the burst), BENCH_SCALE_BURST_EVENTS (1000: the burst's events).
//
// The scale database keeps what a run books (a few thousand bookings, the race's services), so
// the seed's idempotence still holds: a run reuses it; the bookings it adds take later free slots.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { createInterface } from 'node:readline';
import { DateTime } from 'luxon';
import { openDatabases, type Databases } from '../src/db/databases.js';
import { newId } from '../src/ids.js';
import { encodeCursor } from '../src/schema/pagination.js';
import { createApiKey } from '../src/schema/credentials/create-api-key.js';
import { DASHBOARD } from '../test/helpers/dashboard.js';
import { createAccountWithKeys } from '../test/helpers/factories.js';
import type { LoadResult } from './load.js';
import { capturePlans, type ScenarioPlans } from './scale-plans.js';
import { burstProblems, webhookBurst, type BurstResult } from './scale-webhook-burst.js';
import type { RequestSpec } from './scenarios.js';
import { benchServerEnv, nodeArgs, recreateDatabase, runLoad } from './setup.js';

const env = process.env;
const EMPTY_URL = env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/svc_bench_scale';
const SCALE_URL = env.BENCH_SCALE_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/svc_bench_admin_pages';
const REDIS_URL = env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const BOOKINGS = env.BENCH_SCALE_BOOKINGS ?? env.BENCH_ADMIN_BOOKINGS ?? '600000';
const COMPANIES = env.BENCH_SCALE_COMPANIES ?? env.BENCH_ADMIN_COMPANIES ?? '20';
const WARMUP = Number(env.BENCH_WARMUP_SECONDS ?? 5);
const DURATION = Number(env.BENCH_DURATION_SECONDS ?? 10);
const ONLY = env.BENCH_SCALE_ONLY?.split(',').filter(Boolean);
const BURST = 'webhook-burst';
const BURST_EVENTS = Number(env.BENCH_SCALE_BURST_EVENTS ?? 1000);
/** The goal of issue 22: at scale, every p99 within this factor of the empty database's. */
const WITHIN = 1.5;
/** The staff of the fixtures' company (the seed's largest companies have 200). */
const STAFF = 200;
const DAY = 86_400_000;
/** Cursor steps to the deep page, and the page size (the default). */
const STEPS = 1000;
const PAGE = 20;

const pinned = availableParallelism() >= 2 && spawnSync('taskset', ['-c', '0', 'true']).status === 0;
const onCore = (core: number, args: string[]) =>
  pinned ? (['taskset', ['-c', String(core), ...args]] as const) : ([args[0]!, args.slice(1)] as const);

const HOURS = Object.fromEntries(
  ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [
    d,
    d === 'sunday' ? [] : [{ start: '09:00', end: '20:00' }],
  ]),
);

function seed(): Promise<void> {
  const [cmd, ...args] = nodeArgs('seed.ts', []);
  const child = spawn(cmd!, [...args, '--companies', COMPANIES, '--bookings', BOOKINGS, '--database', SCALE_URL], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`bench/seed.ts exited with ${code}`)))),
  );
}

function startServer(databaseUrl: string, secretKey: string): Promise<{ child: ChildProcess; origin: string }> {
  const [cmd, args] = onCore(0, nodeArgs('server.ts'));
  const child = spawn(cmd, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...benchServerEnv({ databaseUrl, redisUrl: REDIS_URL, logLevel: env.BENCH_LOG_LEVEL, secretKey }),
      // The burst's endpoint is a live company's, at a receiver on 127.0.0.1.
      WEBHOOK_LIVE_ALLOW_PRIVATE: 'true',
    },
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the bench server exited with ${code} before listening`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('{"benchPort":'))
        resolve({ child, origin: `http://127.0.0.1:${(JSON.parse(line) as { benchPort: number }).benchPort}` });
    });
  });
}

/** The company under test on one fixture, and how to call the API as it. */
interface World {
  fixture: 'empty' | 'scale';
  dbs: Databases;
  companyId: string;
  zone: string;
  key: string;
  staff: string[];
  customerId: string;
  bookingsOfCompany: number;
  api(method: RequestSpec['method'], path: string, body?: unknown): Promise<any>;
}

const apiOf =
  (origin: string, key: string) =>
  async (method: RequestSpec['method'], path: string, body?: unknown): Promise<any> => {
    const res = await fetch(origin + path, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await res.json()) as { data?: unknown };
    if (res.status !== 200)
      throw new Error(`setup: ${method} ${path} answered ${res.status}: ${JSON.stringify(json).slice(0, 300)}`);
    return json.data;
  };

/** The empty fixture: a fresh live company of 200 staff made through the API, and one customer. */
async function emptyWorld(dbs: Databases, origin: string): Promise<World> {
  const f = await createAccountWithKeys(dbs);
  const api = apiOf(origin, f.liveKey.key);
  const staff: string[] = [];
  for (let i = 0; i < STAFF; i++)
    staff.push((await api('POST', '/api/v1/employees', { name: `Staff ${i + 1}`, workingHours: HOURS }))._id);
  const customer = await api('POST', '/api/v1/customers', { name: 'Bench Customer', email: 'bench@example.com' });
  // A history of its own, so every list scenario answers a full page here too, deep pages
  // included (the ratio then measures the size of the tables, not a page of rows against an
  // empty one): the first employee's last 30 days, and enough completed visits of four others
  // over the last two years (eight a day each, half an hour apart) that the page after
  // STEPS cursor steps of every list exists.
  const serviceId = (
    await api('POST', '/api/v1/services', {
      name: 'Bench history',
      durationMinutes: 30,
      price: 2500,
      employeeIds: staff.slice(0, 5),
    })
  )._id as string;
  const today = DateTime.now().setZone(f.live.timezone).startOf('day').set({ hour: 10 });
  const older = STEPS * PAGE + PAGE;
  const history = Array.from({ length: 30 + older }, (_, i) => {
    const j = i - 30;
    const slot = Math.floor(j / 4);
    const start = (
      i < 30
        ? today.minus({ days: i + 1 })
        : today
            .minus({ days: 31 + Math.floor(slot / 8) })
            .set({ hour: 9, minute: 0 })
            .plus({ minutes: (slot % 8) * 30 })
    ).toJSDate();
    const end = new Date(start.getTime() + 30 * 60_000);
    return {
      id: newId(),
      companyId: f.live.id,
      serviceId,
      employeeId: staff[i < 30 ? 0 : 1 + (j % 4)]!,
      customerId: customer._id as string,
      startTime: start,
      endTime: end,
      blockStart: start,
      blockEnd: end,
      status: 'completed' as const,
      price: 2500,
      currency: 'EUR',
    };
  });
  for (let i = 0; i < history.length; i += 2_000)
    await dbs.live.prisma.booking.createMany({ data: history.slice(i, i + 2_000) });
  // Statistics, as autovacuum would have gathered on any table that grew this much: measured
  // right after the load, the planner thought the company had one booking, and a statement
  // planned with its values (the from/to pages) read a two-year window by start time, sorted.
  await dbs.live.prisma.$executeRawUnsafe('ANALYZE');
  return {
    fixture: 'empty',
    dbs,
    companyId: f.live.id,
    zone: f.live.timezone,
    key: f.liveKey.key,
    staff,
    customerId: customer._id,
    bookingsOfCompany: history.length,
    api,
  };
}

/** The scale data set: its company with the most bookings, and a new API key for it. */
async function scaleWorld(dbs: Databases, origin: string): Promise<World> {
  const db = dbs.live.prisma;
  const top = await db.$queryRawUnsafe<Array<{ company_id: string; n: bigint }>>(
    `SELECT company_id, count(*) AS n FROM bookings GROUP BY company_id ORDER BY count(*) DESC, company_id LIMIT 1`,
  );
  const companyId = top[0]!.company_id;
  const company = await db.company.findUniqueOrThrow({ where: { id: companyId } });
  const staff = (
    await db.employee.findMany({ where: { companyId }, orderBy: { id: 'asc' }, select: { id: true } })
  ).map((e) => e.id);
  const customer = await db.customer.findFirstOrThrow({ where: { companyId }, orderBy: { id: 'asc' } });
  const { key } = await createApiKey(db, { companyId, name: 'bench scale' });
  return {
    fixture: 'scale',
    dbs,
    companyId,
    zone: company.timezone,
    key,
    staff,
    customerId: customer.id,
    bookingsOfCompany: Number(top[0]!.n),
    api: apiOf(origin, key),
  };
}

/** A 30-minute service of these employees, found by name or made (the scale database keeps it). */
async function service(w: World, name: string, employeeIds: string[]): Promise<string> {
  const found = await w.dbs.live.prisma.service.findFirst({ where: { companyId: w.companyId, name } });
  if (found) return found.id;
  return (await w.api('POST', '/api/v1/services', { name, durationMinutes: 30, price: 2500, employeeIds }))._id;
}

/** Local working days (Mon-Sat) from `fromDays` ahead, as the company's midnight. */
function workingDays(w: World, fromDays: number, count: number): DateTime[] {
  const out: DateTime[] = [];
  for (let d = DateTime.now().setZone(w.zone).startOf('day').plus({ days: fromDays }); out.length < count;) {
    if (d.weekday !== 7) out.push(d);
    d = d.plus({ days: 1 });
  }
  return out;
}

/** The first working day from `fromDays` ahead on which `employeeId` has nothing from 10:00 to 15:00. */
async function freeDay(w: World, employeeId: string, fromDays: number): Promise<DateTime> {
  for (const d of workingDays(w, fromDays, 120)) {
    const from = d.set({ hour: 10 }).toJSDate();
    const to = d.set({ hour: 15 }).toJSDate();
    const n = await w.dbs.live.prisma.booking.count({
      where: { employeeId, status: { in: ['pending', 'confirmed'] }, startTime: { lt: to }, endTime: { gt: from } },
    });
    if (n === 0) return d;
  }
  throw new Error(`no free day for ${employeeId}`);
}

/** The cursor a client holds after `STEPS` pages of this list (the last row's, if the list is shorter). */
async function deepCursor(w: World, where: Record<string, unknown>): Promise<string> {
  const rows = await w.dbs.live.prisma.booking.findMany({
    where: { companyId: w.companyId, ...where },
    orderBy: { id: 'desc' },
    skip: STEPS * PAGE - 1,
    take: 1,
    select: { id: true },
  });
  const last =
    rows[0] ??
    (await w.dbs.live.prisma.booking.findFirst({
      where: { companyId: w.companyId, ...where },
      orderBy: { id: 'asc' },
      select: { id: true },
    }));
  return last ? encodeCursor(last.id) : encodeCursor('000000000000000000000000');
}

/** GET /availability of a 30-minute service of these employees, for `days` from the next working day. */
async function availabilityOf(w: World, name: string, staff: string[], days: number): Promise<RequestSpec> {
  const serviceId = await service(w, name, staff);
  const from = workingDays(w, 2, 1)[0]!;
  return get(
    w,
    `/api/v1/availability?${q({ serviceId, from: from.toUTC().toISO()!, to: from.plus({ days }).toUTC().toISO()! })}`,
  );
}

interface ScaleScenario {
  name: string;
  title: string;
  connections: number;
  setup(w: World): Promise<RequestSpec>;
  verify?(w: World, spec: RequestSpec): Promise<string | null>;
}

const get = (w: World, path: string): RequestSpec => ({
  method: 'GET',
  path,
  headers: { authorization: `Bearer ${w.key}` },
  expect: [200],
});
const q = (o: Record<string, string>) => new URLSearchParams(o).toString();
const twoYearsAgo = () => new Date(Date.now() - 730 * DAY);
const raceServices = new Map<World['fixture'], string>();

export const SCALE_SCENARIOS: ScaleScenario[] = [
  { name: 'me', title: 'GET /api/v1/me', connections: 50, setup: async (w) => get(w, '/api/v1/me') },
  {
    name: 'bookings-first',
    title: 'GET /api/v1/bookings, the first page (20, newest first)',
    connections: 8,
    setup: async (w) => get(w, '/api/v1/bookings'),
  },
  {
    name: 'bookings-deep',
    title: `GET /api/v1/bookings, the page after ${STEPS} cursor steps`,
    connections: 8,
    setup: async (w) => get(w, `/api/v1/bookings?${q({ cursor: await deepCursor(w, {}) })}`),
  },
  {
    name: 'bookings-status',
    title: 'GET /api/v1/bookings?status=completed, the first page',
    connections: 8,
    setup: async (w) => get(w, '/api/v1/bookings?status=completed'),
  },
  {
    name: 'bookings-status-deep',
    title: `GET /api/v1/bookings?status=completed, the page after ${STEPS} cursor steps`,
    connections: 8,
    setup: async (w) =>
      get(w, `/api/v1/bookings?${q({ status: 'completed', cursor: await deepCursor(w, { status: 'completed' }) })}`),
  },
  {
    name: 'bookings-employee-month',
    title: 'GET /api/v1/bookings?employeeId=&from=&to= (one employee, the last 31 days), the first page',
    connections: 8,
    setup: async (w) =>
      get(
        w,
        `/api/v1/bookings?${q({ employeeId: w.staff[0]!, from: new Date(Date.now() - 31 * DAY).toISOString(), to: new Date().toISOString() })}`,
      ),
  },
  {
    name: 'bookings-range-deep',
    title: `GET /api/v1/bookings?from=&to= (the last two years), the page after ${STEPS} cursor steps`,
    connections: 8,
    setup: async (w) => {
      const from = twoYearsAgo();
      const to = new Date();
      const cursor = await deepCursor(w, { startTime: { gte: from, lt: to } });
      return get(w, `/api/v1/bookings?${q({ from: from.toISOString(), to: to.toISOString(), cursor })}`);
    },
  },
  {
    name: 'events-tail',
    title: 'GET /api/v1/events?from= (the last day), the first page',
    connections: 8,
    setup: async (w) => get(w, `/api/v1/events?${q({ from: new Date(Date.now() - DAY).toISOString() })}`),
  },
  {
    name: 'events-2y',
    title: 'GET /api/v1/events?from= (two years back), the first page',
    connections: 8,
    setup: async (w) => get(w, `/api/v1/events?${q({ from: twoYearsAgo().toISOString() })}`),
  },
  {
    name: 'availability-5x31',
    title: 'GET /api/v1/availability: a 30-minute service of 5 employees, 31 days',
    connections: 4,
    setup: (w) => availabilityOf(w, 'Bench five', w.staff.slice(0, 5), 31),
  },
  {
    name: 'availability-50x7',
    title: 'GET /api/v1/availability: a 30-minute service of 50 employees, 7 days',
    connections: 4,
    setup: (w) => availabilityOf(w, 'Bench fifty', w.staff.slice(50, 100), 7),
  },
  {
    name: 'dashboard',
    title:
      'POST /graphql, the dashboard query: a day of the company (100 bookings on the empty fixture) and its 200 staff',
    connections: 8,
    async setup(w) {
      const day = workingDays(w, 3, 1)[0]!;
      if (w.fixture === 'empty') {
        // The seed's largest company has about 100 bookings a day; the empty one gets as many.
        const serviceId = await service(w, 'Bench day', w.staff.slice(0, 100));
        for (let i = 0; i < 100; i++)
          await w.api('POST', '/api/v1/bookings', {
            serviceId,
            employeeId: w.staff[i]!,
            customerId: w.customerId,
            startTime: day
              .set({ hour: 10 + (i % 8) })
              .toUTC()
              .toISO(),
          });
      }
      return {
        method: 'POST',
        path: '/graphql',
        headers: { authorization: `Bearer ${w.key}`, 'content-type': 'application/json' },
        bodies: [
          JSON.stringify({
            query: DASHBOARD,
            variables: { from: day.toUTC().toISO(), to: day.plus({ days: 1 }).toUTC().toISO(), first: 100 },
          }),
        ],
        expect: [200],
      };
    },
  },
  {
    name: 'bookings-post',
    title:
      'POST /api/v1/bookings uncontended: every request a free 30-minute slot of one of 50 employees, named (concurrent requests hold different employees)',
    connections: 50,
    async setup(w) {
      const staff = w.staff.slice(100, 150);
      const serviceId = await service(w, 'Bench book', staff);
      const days = workingDays(w, 2, 150);
      // The slots the history (and earlier runs) left free: a booking of a taken one is a 409.
      const taken = await w.dbs.live.prisma.booking.findMany({
        where: {
          employeeId: { in: staff },
          status: { in: ['pending', 'confirmed'] },
          startTime: { lt: days[days.length - 1]!.plus({ days: 1 }).toJSDate() },
          endTime: { gt: days[0]!.toJSDate() },
        },
        select: { employeeId: true, startTime: true, endTime: true },
      });
      const busy = new Map<string, Array<[number, number]>>();
      for (const b of taken)
        busy.set(b.employeeId, [...(busy.get(b.employeeId) ?? []), [b.startTime.getTime(), b.endTime.getTime()]]);
      const bodies: string[] = [];
      for (const d of days)
        for (let m = 9 * 60; m < 20 * 60; m += 30) {
          const start = d.plus({ minutes: m });
          const t = start.toMillis();
          for (const employeeId of staff) {
            if (busy.get(employeeId)?.some(([a, b]) => a < t + 30 * 60_000 && b > t)) continue;
            bodies.push(
              JSON.stringify({ serviceId, employeeId, customerId: w.customerId, startTime: start.toUTC().toISO() }),
            );
          }
        }
      return {
        method: 'POST',
        path: '/api/v1/bookings',
        headers: { authorization: `Bearer ${w.key}` },
        bodies,
        expect: [200],
      };
    },
  },
  {
    name: 'contention',
    title: 'POST /api/v1/bookings: 100 clients race for 10 slots of one employee (10 x 200, the rest 409)',
    connections: 100,
    async setup(w) {
      // New services of one employee each, on a day that employee has free: the race's and the
      // warm-up's, so the measured run starts with all 10 slots free.
      const stamp = Date.now().toString(36);
      const race = { e: w.staff[150]!, id: await service(w, `Bench race ${stamp}`, [w.staff[150]!]) };
      const warm = { e: w.staff[151]!, id: await service(w, `Bench warm ${stamp}`, [w.staff[151]!]) };
      raceServices.set(w.fixture, race.id);
      const bodies = async (s: typeof race) => {
        const day = await freeDay(w, s.e, 3);
        return Array.from({ length: 10 }, (_, i) =>
          JSON.stringify({
            serviceId: s.id,
            customerId: w.customerId,
            startTime: day
              .set({ hour: 10 })
              .plus({ minutes: 30 * i })
              .toUTC()
              .toISO(),
          }),
        );
      };
      return {
        method: 'POST',
        path: '/api/v1/bookings',
        headers: { authorization: `Bearer ${w.key}` },
        bodies: await bodies(race),
        warmupBodies: await bodies(warm),
        expect: [200, 409],
      };
    },
    async verify(w) {
      // The requests still queued on the employee's lock when the load stopped finish first.
      const count = () =>
        w.dbs.live.prisma.booking.count({
          where: { serviceId: raceServices.get(w.fixture)!, status: { in: ['pending', 'confirmed'] } },
        });
      let live = await count();
      for (let i = 0; i < 20 && live < 10; i++) {
        await new Promise((r) => setTimeout(r, 500));
        live = await count();
      }
      return live === 10 ? null : `${live} live bookings after the race, not 10`;
    },
  },
];

export interface ScaleRow {
  scenario: string;
  title: string;
  connections: number;
  empty: LoadResult;
  scale: LoadResult;
  p99Ratio: number;
  /** Server CPU a request at scale over the empty fixture's: steadier than p99 on a shared machine. */
  cpuRatio: number;
  within: boolean;
  problems: string[];
}

/** One request before the load: a scenario whose answer is wrong is not worth measuring. */
async function probe(origin: string, spec: RequestSpec): Promise<void> {
  const res = await fetch(origin + spec.path, {
    method: spec.method,
    headers: { ...spec.headers, ...(spec.bodies ? { 'content-type': 'application/json' } : {}) },
    ...(spec.bodies ? { body: (spec.warmupBodies ?? spec.bodies)[0] } : {}),
  });
  const text = await res.text();
  // GraphQL answers its errors with a 200: one there makes the run as invalid as a 500.
  if (
    !spec.expect.includes(res.status) ||
    (spec.path === '/graphql' && (JSON.parse(text) as { errors?: unknown }).errors)
  )
    throw new Error(`${spec.method} ${spec.path} answered ${res.status}: ${text.slice(0, 300)}`);
}

/** Every scenario on one fixture: its own server, the world, each scenario's setup, then the load. */
async function measure(
  fixture: World['fixture'],
  url: string,
  scenarios: ScaleScenario[],
  burst: boolean,
): Promise<{
  world: World;
  results: Map<string, { r: LoadResult; problem: string | null }>;
  burst: BurstResult | null;
  plans: ScenarioPlans[];
}> {
  const dbs = await openDatabases({
    DATABASE_URL: url,
    SANDBOX_SCHEMA: 'sandbox',
    DATABASE_POOL_SIZE: 2,
    DATA_DIR: '.data',
  });
  // The scale database may predate a migration (an index): apply it, as a deploy would.
  await dbs.migrate();
  // Shared with the burst's worker, which reads the signing secret the server sealed.
  const secretKey = randomBytes(32).toString('hex');
  const { child, origin } = await startServer(url, secretKey);
  const results = new Map<string, { r: LoadResult; problem: string | null }>();
  try {
    const world = fixture === 'empty' ? await emptyWorld(dbs, origin) : await scaleWorld(dbs, origin);
    // First, before the other scenarios' setups and loads write events of their own.
    let burstResult: BurstResult | null = null;
    if (burst) {
      process.stderr.write(
        `bench: scale: ${BURST} on the ${fixture} fixture: ${BURST_EVENTS} events, one svc worker process\n`,
      );
      burstResult = await webhookBurst({
        db: dbs.live.prisma,
        companyId: world.companyId,
        databaseUrl: url,
        redisUrl: REDIS_URL,
        secretKey,
        api: (method, path, body) => world.api(method, path, body),
        events: BURST_EVENTS,
        timeoutMs: 300_000,
        prefix: pinned ? ['taskset', '-c', '1'] : [],
      });
    }
    const specs = new Map<string, RequestSpec>();
    for (const s of scenarios) specs.set(s.name, await s.setup(world));
    for (const s of scenarios) {
      const spec = specs.get(s.name)!;
      await probe(origin, spec);
      process.stderr.write(
        `bench: scale: ${s.name} on the ${fixture} fixture: ${WARMUP} s warm-up, ${DURATION} s measured, ${s.connections} connections\n`,
      );
      const r = await runLoad(
        { url: origin, spec, connections: s.connections, warmupSeconds: WARMUP, durationSeconds: DURATION },
        pinned ? ['taskset', '-c', '1'] : [],
      );
      const unexpected = Object.entries(r.statusCounts)
        .filter(([status]) => !spec.expect.includes(Number(status)))
        .map(([status, n]) => `${n} x ${status}`);
      const problem = [
        ...(r.requests === 0 ? [`no request answered within the ${DURATION} s`] : []),
        ...(unexpected.length ? [`unexpected ${unexpected.join(', ')}`] : []),
        ...(r.errors ? [`${r.errors} errors`] : []),
        ...((s.verify && [await s.verify(world, spec)].filter((x): x is string => !!x)) || []),
      ].join('; ');
      results.set(s.name, { r, problem: problem || null });
    }
    // The plans of what each scenario sent, on the scale data set only (the empty fixture's
    // tables are too small for a plan to say anything): after the loads, so they are undisturbed.
    const plans =
      fixture === 'scale' && env.BENCH_SCALE_PLANS !== '0'
        ? await capturePlans({
            url,
            redisUrl: REDIS_URL,
            specs: scenarios.map((s) => ({ name: s.name, spec: specs.get(s.name)! })),
          })
        : [];
    return { world, results, burst: burstResult, plans };
  } finally {
    child.kill('SIGTERM');
    await new Promise((done) => child.once('exit', done));
    await dbs.close();
  }
}

const us = (n: number) => Math.round(n).toLocaleString('en');
const fig = (r: LoadResult) => `${r.p50Ms} / ${r.p99Ms} / ${r.requestsPerSecond} / ${us(r.serverCpuUsPerRequest)}`;

export interface BurstRow {
  empty: BurstResult;
  scale: BurstResult;
  p99Ratio: number;
  /** Deliveries/s at scale over the empty fixture's. */
  rateRatio: number;
  /** The worker delivers at least 1/WITHIN as fast at scale. */
  within: boolean;
  problems: string[];
}

function burstRowOf(empty: BurstResult, scale: BurstResult): BurstRow {
  const rateRatio = Math.round((scale.deliveriesPerSecond / empty.deliveriesPerSecond) * 100) / 100;
  return {
    empty,
    scale,
    p99Ratio: Math.round((scale.p99Ms / Math.max(empty.p99Ms, 1)) * 100) / 100,
    rateRatio,
    within: rateRatio >= 1 / WITHIN,
    problems: [...burstProblems(empty).map((p) => `empty: ${p}`), ...burstProblems(scale).map((p) => `scale: ${p}`)],
  };
}

const burstFig = (b: BurstResult) => `${b.p50Ms} / ${b.p99Ms} / ${b.deliveriesPerSecond} deliveries/s / -`;

async function main(): Promise<void> {
  const scenarios = SCALE_SCENARIOS.filter((s) => !ONLY || ONLY.includes(s.name));
  process.stderr.write(
    `bench: scale: seeding ${SCALE_URL} (${COMPANIES} companies, ${BOOKINGS} bookings) unless it holds them\n`,
  );
  await seed();
  await recreateDatabase(EMPTY_URL);
  const burst = !ONLY || ONLY.includes(BURST);
  const empty = await measure('empty', EMPTY_URL, scenarios, burst);
  const scale = await measure('scale', SCALE_URL, scenarios, burst);
  const burstRow = burst ? burstRowOf(empty.burst!, scale.burst!) : null;
  const rows: ScaleRow[] = scenarios.map((s) => {
    const e = empty.results.get(s.name)!;
    const x = scale.results.get(s.name)!;
    const p99Ratio = Math.round((x.r.p99Ms / e.r.p99Ms) * 100) / 100;
    const cpuRatio = Math.round((x.r.serverCpuUsPerRequest / e.r.serverCpuUsPerRequest) * 100) / 100;
    return {
      scenario: s.name,
      title: s.title,
      connections: s.connections,
      empty: e.r,
      scale: x.r,
      p99Ratio,
      cpuRatio,
      within: p99Ratio <= WITHIN,
      problems: [e.problem && `empty: ${e.problem}`, x.problem && `scale: ${x.problem}`].filter(
        (p): p is string => !!p,
      ),
    };
  });
  const lines = [
    `Scenarios on the empty fixture and on the scale data set (${Number(COMPANIES).toLocaleString('en')} companies, ${Number(BOOKINGS).toLocaleString('en')} bookings; the company under test holds ${scale.world.bookingsOfCompany.toLocaleString('en')}), ${WARMUP} s warm-up, ${DURATION} s measured each; p50 ms / p99 ms / req/s / server CPU µs a request`,
    '',
    `| scenario | conns | empty p50 / p99 / req/s / CPU µs | scale p50 / p99 / req/s / CPU µs | p99 ratio | within ${WITHIN}x? | CPU ratio |`,
    '|---|---:|---:|---:|---:|:---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.scenario} | ${r.connections} | ${fig(r.empty)} | ${fig(r.scale)} | ${r.p99Ratio} | ${r.within ? 'yes' : 'NO'}${r.problems.length ? ` (${r.problems.join('; ')})` : ''} | ${r.cpuRatio} |`,
    ),
    ...(burstRow
      ? [
          `| ${BURST} | 1 worker | ${burstFig(burstRow.empty)} | ${burstFig(burstRow.scale)} | ${burstRow.p99Ratio} | ${burstRow.within ? 'yes' : 'NO'}${burstRow.problems.length ? ` (${burstRow.problems.join('; ')})` : ''} | ${burstRow.rateRatio} (deliveries/s) |`,
        ]
      : []),
    '',
    ...rows.map((r) => `  ${r.scenario}: ${r.title}`),
    ...(burstRow
      ? [
          `  ${BURST}: ${BURST_EVENTS} customer.created events written through the API, then relayed and delivered by one svc worker process to a receiver on 127.0.0.1; p50 / p99 from fan-out to receipt, deliveries/s of the worker first to last; checked: each event delivered exactly once`,
        ]
      : []),
    '',
    ...(scale.plans.length
      ? [
          `Plans at scale (EXPLAIN (ANALYZE, BUFFERS) of each distinct read a scenario's request sent; in full in latest.md and latest.json): ${scale.plans
            .map((p) => {
              const flagged = p.plans.filter((x) => x.seqScans.length).length;
              return `${p.scenario} ${p.plans.length}${flagged ? ` (SEQ SCAN in ${flagged})` : ''}`;
            })
            .join(', ')}`,
          '',
        ]
      : []),
    `Goal: at scale, every p99 within ${WITHIN}x of the empty fixture's${burstRow ? `, and the burst's deliveries/s at least 1/${WITHIN} of it` : ''}: ${
      rows.every((r) => r.within && !r.problems.length) && (!burstRow || (burstRow.within && !burstRow.problems.length))
        ? 'met'
        : 'NOT met'
    } (${rows.filter((r) => !r.within).length + (burstRow && !burstRow.within ? 1 : 0)} of ${rows.length + (burstRow ? 1 : 0)} over).`,
  ];
  for (const l of lines) process.stdout.write(`${l}\n`);
  process.stdout.write(
    `${JSON.stringify({ scale: { companies: Number(COMPANIES), bookings: Number(BOOKINGS), bookingsOfCompany: scale.world.bookingsOfCompany, rows, burst: burstRow, plans: scale.plans } })}\n`,
  );
}

await main();
