// Retention benchmark (issue 22 §5): does the hourly retention job keep up with the tables that
// grow fastest, without blocking the writes that feed them? Real PostgreSQL, the real purge
// (src/schema/maintenance/purge-expired-records.ts) over the sandbox schema.
//   npx tsx bench/retention.ts
// Environment: BENCH_DATABASE_URL (dropped and recreated; default .../svc_bench_retention),
// REDIS_URL (default redis://127.0.0.1:6379), BENCH_RETENTION_BACKLOG (200000 stale deliveries,
// each with an attempt and a request log), BENCH_RETENTION_RATE (1000 bookings/s),
// BENCH_RETENTION_SECONDS (15: the write-only phase, and the most the purge phase waits past the
// backlog).
//
// Shape: a backlog of stale rows, 40 days old (deliveries, their attempts, request logs) is written
// with SQL, as a month of traffic would have left them. Then a writer plays RATE bookings a second
// of event and delivery writes: every 100 ms one transaction with RATE/10 events, their webhook
// deliveries and attempts and the request logs of the calls that made them. Phase 1 runs the writer
// alone; phase 2 runs it while the purge works through the backlog, batch after batch, as the
// workers' job does. The report compares the writer's commit latency in both phases and gives the
// purge's rows per second: retention keeps up when it deletes faster than rows are written (each
// row written today is a row to delete 30 days from now), and does not block the writes when
// their p99 stays near the write-only figure.
import pg from 'pg';
import { purgeExpiredRecords } from '../src/schema/maintenance/index.js';
import { startInProcessApp } from './in-process-app.js';

const env = process.env;
const url = env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/svc_bench_retention';
const REDIS_URL = env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const BACKLOG = Number(env.BENCH_RETENTION_BACKLOG ?? 200_000);
const RATE = Number(env.BENCH_RETENTION_RATE ?? 1000);
const SECONDS = Number(env.BENCH_RETENTION_SECONDS ?? 15);
const TICK_MS = 100;
const PER_TICK = Math.max(1, Math.round((RATE * TICK_MS) / 1000));

const { config, dbs, w, call, close } = await startInProcessApp({ url, redisUrl: REDIS_URL, prefixTag: 'benchret' });
const endpoint = await call('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', events: ['*'] });
const company = w.test.id;

const connect = async () => {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(`SET search_path TO ${config.SANDBOX_SCHEMA}`);
  return c;
};

/**
 * Rows for `n` bookings numbered from `from`, created `ageSql` ago: an event each, its delivery
 * (succeeded) and one attempt, and the request log of the POST that made the booking.
 */
async function writeRows(c: pg.Client, tag: string, from: number, n: number, ageSql: string): Promise<void> {
  const p = [company, endpoint._id, from, n];
  const series = `FROM generate_series($3::int, $3::int + $4::int - 1) AS g`;
  await c.query(
    `INSERT INTO events (id, company_id, type, data, created_at, dispatched_at)
     SELECT '${tag}e' || g, $1, 'booking.created', jsonb_build_object('bookingId', '${tag}b' || g, 'status', 'confirmed'),
            now() - ${ageSql}, now() - ${ageSql} ${series} WHERE $2::text IS NOT NULL`,
    p,
  );
  await c.query(
    `INSERT INTO webhook_deliveries (id, company_id, endpoint_id, event_id, status, attempt_count, last_status_code, created_at, updated_at)
     SELECT '${tag}d' || g, $1, $2, '${tag}e' || g, 'succeeded', 1, 200, now() - ${ageSql}, now() - ${ageSql} ${series}`,
    p,
  );
  await c.query(
    `INSERT INTO webhook_attempts (id, company_id, delivery_id, status_code, duration_ms, response_excerpt, created_at)
     SELECT '${tag}a' || g, $1, '${tag}d' || g, 200, 12, 'ok', now() - ${ageSql} ${series} WHERE $2::text IS NOT NULL`,
    p,
  );
  await c.query(
    `INSERT INTO request_logs (id, company_id, created_at, method, route, path, status, duration_ms, request_id,
                               credential_id, credential_name, credential_prefix, ip, request_body, response_body)
     SELECT '${tag}r' || g, $1, now() - ${ageSql}, 'POST', '/api/v1/bookings', '/api/v1/bookings', 200, 4.2, 'req_' || g,
            'key', 'Sandbox key', 'svc_sk_test_…abcd', '127.0.0.1', '{"serviceId":"s"}', '{"data":{"_id":"b"}}'
     ${series} WHERE $2::text IS NOT NULL`,
    p,
  );
}

process.stderr.write(`retention: writing a backlog of ${BACKLOG} stale deliveries, attempts and request logs\n`);
const bulk = await connect();
for (let i = 0; i < BACKLOG; i += 50_000)
  await writeRows(bulk, 'old', i, Math.min(50_000, BACKLOG - i), "interval '40 days'");
await bulk.query('ANALYZE');
await bulk.end();

/** The writer: one transaction of PER_TICK bookings' rows every tick until `stop()`; commit latencies. */
function startWriter(tag: string) {
  const latencies: number[] = [];
  let stopped = false;
  let n = 0;
  const started = Date.now();
  const done = (async () => {
    const c = await connect();
    let next = Date.now();
    while (!stopped) {
      const t0 = process.hrtime.bigint();
      await c.query('BEGIN');
      await writeRows(c, tag, n, PER_TICK, "interval '0'");
      await c.query('COMMIT');
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      n += PER_TICK;
      next += TICK_MS;
      const wait = next - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    await c.end();
  })();
  return {
    stop: async () => {
      stopped = true;
      await done;
      const s = [...latencies].sort((a, b) => a - b);
      const q = (f: number) => +s[Math.min(s.length - 1, Math.floor(s.length * f))]!.toFixed(1);
      return {
        bookings: n,
        perSecond: Math.round(n / ((Date.now() - started) / 1000)),
        p50: q(0.5),
        p99: q(0.99),
        max: q(1),
      };
    },
  };
}

process.stderr.write(`retention: phase 1, ${RATE} bookings/s of writes alone for ${SECONDS} s\n`);
const alone = startWriter('w1');
await new Promise((r) => setTimeout(r, SECONDS * 1000));
const writesAlone = await alone.stop();

process.stderr.write('retention: phase 2, the same writes while the purge clears the backlog\n');
const withPurge = startWriter('w2');
const t0 = Date.now();
const deleted = await purgeExpiredRecords(dbs.test.prisma);
const purgeSeconds = (Date.now() - t0) / 1000;
// The writer keeps going a little past the purge, so both phases measure comparable stretches.
await new Promise((r) => setTimeout(r, Math.max(0, SECONDS * 1000 - (Date.now() - t0))));
const writesWithPurge = await withPurge.stop();

const [left = { d: 0n, a: 0n, r: 0n }] = await dbs.test.prisma.$queryRawUnsafe<
  Array<{ d: bigint; a: bigint; r: bigint }>
>(
  `SELECT (SELECT count(*) FROM webhook_deliveries WHERE created_at < now() - interval '30 days') AS d,
            (SELECT count(*) FROM webhook_attempts WHERE created_at < now() - interval '30 days') AS a,
            (SELECT count(*) FROM request_logs WHERE created_at < now() - interval '30 days') AS r`,
);
const purged = {
  deliveries: deleted.webhook_deliveries ?? 0,
  attempts: deleted.webhook_attempts ?? 0,
  requestLogs: deleted.request_logs ?? 0,
};
const deliveriesPerSecond = Math.round(purged.deliveries / purgeSeconds);
const rowsPerSecond = Math.round((purged.deliveries + purged.attempts + purged.requestLogs) / purgeSeconds);
console.log(
  `writes of ${RATE} bookings/s (event, delivery, attempt and request log each; ${PER_TICK} per transaction every ${TICK_MS} ms): ` +
    `alone ${writesAlone.perSecond}/s, commit p50 ${writesAlone.p50} ms, p99 ${writesAlone.p99} ms, max ${writesAlone.max} ms; ` +
    `while purging ${writesWithPurge.perSecond}/s, commit p50 ${writesWithPurge.p50} ms, p99 ${writesWithPurge.p99} ms, max ${writesWithPurge.max} ms`,
);
console.log(
  `purge of a ${BACKLOG}-booking backlog: ${purged.deliveries} deliveries, ${purged.attempts} attempts, ${purged.requestLogs} request logs ` +
    `in ${purgeSeconds.toFixed(1)} s (${deliveriesPerSecond} deliveries/s, ${rowsPerSecond} rows/s); stale rows left: ${left.d + left.a + left.r}`,
);
console.log(
  JSON.stringify({
    retention: {
      backlog: BACKLOG,
      rate: RATE,
      writesAlone,
      writesWithPurge,
      purged,
      purgeSeconds: +purgeSeconds.toFixed(1),
      deliveriesPerSecond,
      rowsPerSecond,
      staleLeft: Number(left.d + left.a + left.r),
    },
  }),
);
await close();
