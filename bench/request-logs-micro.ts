// The request log's own cost per request, in process: the hooks of src/http/request-logs.ts
// (onSend, onResponse) called directly, as Fastify calls them, on a real request and reply
// (a `GET /api/v1/me`-like answer of a bare Fastify app, taken from app.inject), the writer
// flushing to PostgreSQL every 1 000 rows as the server's does. The figure is the process's CPU
// time per request (the flush's client side included; PostgreSQL's insert runs in its own
// process). Fastify's dispatch of the hooks is not counted.
//   npx tsx bench/request-logs-micro.ts
// Environment: BENCH_DATABASE_URL (dropped and recreated; default .../svc_bench_reqlog_micro),
// BENCH_ROUNDS (40), BENCH_REQUESTS (2000 a round), BENCH_BASELINE (the path of a module
// exporting another registerRequestLogs, measured in the same rounds: before/after comparisons).
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import pg from 'pg';
import { pathToFileURL } from 'node:url';
import type { Credential } from '../src/auth/credentials.js';
import { loadConfig } from '../src/config.js';
import { openDatabases } from '../src/db/databases.js';
import { registerRequestLogs } from '../src/http/request-logs.js';
import type { Services } from '../src/services.js';
import { createAccountWithKeys } from '../test/helpers/factories.js';

const env = process.env;
const url = env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/svc_bench_reqlog_micro';
const ROUNDS = Number(env.BENCH_ROUNDS ?? 40);
const REQUESTS = Number(env.BENCH_REQUESTS ?? 2000);
const dbName = new URL(url).pathname.slice(1);
const admin = new pg.Client({ connectionString: url.replace(/\/[^/]*$/, '/postgres') });
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
await admin.query(`CREATE DATABASE ${dbName}`);
await admin.end();
const config = loadConfig({
  DATABASE_URL: url,
  REDIS_URL: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  LOG_LEVEL: 'warn',
  NODE_ENV: 'production',
  SECRET_KEY: '0'.repeat(64),
  REQUEST_LOGS: 'on',
  REQUEST_LOG_FLUSH_MS: '60000',
  REQUEST_LOG_BATCH_ROWS: '1000',
  REQUEST_LOG_BUFFER_ROWS: String(REQUESTS * 4),
});
const dbs = await openDatabases(config);
await dbs.migrate();
const { live, liveKey } = await createAccountWithKeys(dbs);
const credential = {
  kind: 'api_key',
  id: liveKey.apiKey.id,
  name: liveKey.apiKey.name,
  mode: 'live',
  companyId: live.id,
} as unknown as Credential;

// One real request and reply, kept after their answer.
const app: FastifyInstance = Fastify({ logger: false, genReqId: () => `req_${'0'.repeat(24)}` });
app.decorateRequest('credential', null);
app.decorateRequest('loggedResponse', null);
let captured: { req: FastifyRequest; reply: FastifyReply; payload: string } | undefined;
const answer = JSON.stringify({ _id: live.id, name: live.name, mode: 'live', scopes: ['bookings:read'] });
app.get(
  '/api/v1/me',
  { onResponse: async (req, reply) => void (captured = { req, reply, payload: answer }) },
  (req, reply) => {
    req.credential = credential;
    reply.type('application/json; charset=utf-8').send(answer);
  },
);
await app.inject({ method: 'GET', url: '/api/v1/me', headers: { authorization: `Bearer ${liveKey.key}` } });
const { req, reply, payload } = captured!;

type Register = typeof registerRequestLogs;
type Hooks = { onSend: (...a: unknown[]) => void; onResponse: (...a: unknown[]) => void };

/** The hooks and writer a registerRequestLogs installs, taken from a stand-in app. */
function hooksOf(register: Register) {
  const hooks: Partial<Hooks> = {};
  let writer: { flush(): Promise<unknown>; close(): Promise<unknown> } | undefined;
  const fake = {
    decorate: (_name: string, w: typeof writer) => (writer = w),
    decorateRequest: () => {},
    addHook: (name: string, fn: (...a: unknown[]) => void) => {
      if (name === 'onSend' || name === 'onResponse') hooks[name] = fn;
    },
  };
  register(fake as unknown as FastifyInstance, { config, dbs, logger: console } as unknown as Services);
  return { hooks: hooks as Hooks, writer: writer! };
}

const variants = [{ name: 'new', ...hooksOf(registerRequestLogs), cpu: 0, requests: 0, perRound: [] as number[] }];
if (env.BENCH_BASELINE) {
  const mod = (await import(pathToFileURL(env.BENCH_BASELINE).href)) as { registerRequestLogs: Register };
  variants.push({ name: 'baseline', ...hooksOf(mod.registerRequestLogs), cpu: 0, requests: 0, perRound: [] });
}

const done = () => {};
async function round(v: (typeof variants)[number], measure: boolean): Promise<void> {
  const start = process.cpuUsage();
  for (let i = 1; i <= REQUESTS; i++) {
    req.loggedResponse = null;
    v.hooks.onSend(req, reply, payload, done);
    v.hooks.onResponse(req, reply, done);
    // As the server's writer does at REQUEST_LOG_BATCH_ROWS; its timer is not running here.
    if (i % 1000 === 0) await v.writer.flush();
  }
  await v.writer.flush();
  const used = process.cpuUsage(start);
  if (measure) {
    v.cpu += used.user + used.system;
    v.requests += REQUESTS;
    v.perRound.push((used.user + used.system) / REQUESTS);
  }
}

for (const v of variants) await round(v, false); // warm-up
for (let r = 0; r < ROUNDS; r++) {
  for (const v of r % 2 === 0 ? variants : [...variants].reverse()) await round(v, true);
}
// The median round beside the mean: on a shared machine a round now and then runs beside
// someone else's burst, and the median leaves it out.
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const v of variants)
  console.log(
    `${v.name.padEnd(8)} ${(v.cpu / v.requests).toFixed(2)} µs CPU a request (mean), ${median(v.perRound).toFixed(2)} µs (median round), ${v.requests} requests`,
  );
const rows = await dbs.live.prisma.$queryRawUnsafe<Array<{ n: bigint }>>('SELECT count(*) AS n FROM request_logs');
console.log(`rows written: ${rows[0]!.n}`);
for (const v of variants) await v.writer.close();
await app.close();
await dbs.close();
