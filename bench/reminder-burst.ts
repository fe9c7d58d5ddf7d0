// Reminder benchmark (issue 18): 50 000 sandbox e-mail reminders falling due in the same minute,
// sent by two `svc worker` processes on one Redis. Reports the time from the first due time to
// the last send, and the send lag (sent_at − due_at) p50/p99/max. Target: every reminder out
// within 2 minutes of its due time. Real PostgreSQL and Redis.
//   npx tsx bench/reminder-burst.ts
// Environment: BENCH_DATABASE_URL (dropped and recreated; default .../svc_bench_reminders),
// REDIS_URL (default redis://127.0.0.1:6379), BENCH_REMINDERS (50000), BENCH_WAIT_SECONDS (600).
//
// The bookings and their notification rows are written with SQL (generate_series), as a day of
// bookings would have left them: 75 staff, a booking every 30 minutes for up to 14 days ahead,
// each with one e-mail reminder whose offset puts its due time in the same minute. The jobs are
// enqueued as the relay's fast path does (delayed until due) before the minute starts; then two
// worker processes start, and the sweep backs up anything a job misses.
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { createJobQueue } from '../src/workers/queue.js';
import { enqueuePlannedReminders } from '../src/workers/reminder-sweep.js';
import { ALL_DAY, startInProcessApp } from './in-process-app.js';

const env = process.env;
const url = env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/svc_bench_reminders';
const REDIS_URL = env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const N = Number(env.BENCH_REMINDERS ?? 50_000);
const WAIT_MS = Number(env.BENCH_WAIT_SECONDS ?? 600) * 1000;
const STAFF = 75;
if (Math.ceil(N / STAFF) > 670) throw new Error('too many reminders for 75 staff within 14 days');
const kids: ChildProcess[] = [];

const { config, dbs, services, w, call, startWorkerProcesses, close } = await startInProcessApp({
  url,
  redisUrl: REDIS_URL,
  prefixTag: 'benchrem',
});
const staff: string[] = [];
for (let i = 0; i < STAFF; i++)
  staff.push((await call('POST', '/employees', { name: `S${i}`, workingHours: ALL_DAY }))._id);
const service = await call('POST', '/services', { name: 'Cut', durationMinutes: 30, price: 0, employeeIds: staff });
const customer = await call('POST', '/customers', { name: 'Ada Lovelace', email: 'ada@example.com' });

// Every reminder falls due in one minute, at D + (employee mod 60) seconds; its booking starts
// 60 + 30·k minutes after that (the employee's k-th slot), which is its reminder's offset.
const D = Math.ceil((Date.now() + 120_000) / 60_000) * 60_000;
const db = dbs.test.prisma;
process.stderr.write(`reminders: writing ${N} bookings and reminders\n`);
// A connection of its own for the bulk writes: the service's pool has a query timeout.
const raw = new pg.Client({ connectionString: url });
await raw.connect();
await raw.query(`SET search_path TO ${config.SANDBOX_SCHEMA}`);
const staffArray = `ARRAY[${staff.map((s) => `'${s}'`).join(',')}]`;
await raw.query(
  `INSERT INTO bookings (id, company_id, service_id, employee_id, customer_id, start_time, end_time, block_start, block_end, status, price, currency, updated_at)
   SELECT b.id, $1, $2, (${staffArray})[b.e + 1], $3, b.t, b.t + interval '30 minutes', b.t, b.t + interval '30 minutes', 'confirmed', 0, 'EUR', now()
   FROM (
     SELECT substr(md5('b' || g), 1, 24) AS id, g % ${STAFF} AS e,
            to_timestamp(($4::bigint + (g % ${STAFF}) % 60 * 1000 + (60 + 30 * (g / ${STAFF})) * 60000) / 1000.0) AS t
     FROM generate_series(0, $5::int - 1) AS g
   ) b`,
  [w.test.id, service._id, customer._id, D, N],
);
await raw.query(
  `INSERT INTO notifications (id, company_id, booking_id, channel, offset_minutes, due_at, status)
   SELECT substr(md5('n' || g), 1, 24), $1, substr(md5('b' || g), 1, 24), 'email', 60 + 30 * (g / ${STAFF}),
          to_timestamp(($2::bigint + (g % ${STAFF}) % 60 * 1000) / 1000.0), 'scheduled'
   FROM generate_series(0, $3::int - 1) AS g`,
  [w.test.id, D, N],
);
await raw.end();

// The fast path, as the relay takes it when bookings are created: jobs delayed until due.
process.stderr.write('reminders: enqueueing the delayed jobs\n');
const queue = createJobQueue(services);
const ids = (await db.booking.findMany({ where: { companyId: w.test.id }, select: { id: true } })).map((b) => b.id);
for (let i = 0; i < ids.length; i += 1000)
  await enqueuePlannedReminders(dbs.test, queue.enqueue, ids.slice(i, i + 1000));
await queue.close();

kids.push(...startWorkerProcesses(2));
process.stderr.write(
  `reminders: two workers started ${((D - Date.now()) / 1000).toFixed(0)} s before the first is due (${new Date(D).toISOString()})\n`,
);

const sentCount = async () =>
  Number(
    (
      await db.$queryRawUnsafe<Array<{ n: bigint }>>(
        `SELECT count(*) AS n FROM notifications WHERE status <> 'scheduled'`,
      )
    )[0]!.n,
  );
const deadline = Date.now() + WAIT_MS;
for (;;) {
  const done = await sentCount();
  if (done >= N) break;
  if (Date.now() > deadline) {
    for (const k of kids) k.kill('SIGKILL');
    process.stderr.write(`reminder benchmark failed: ${done} of ${N} handled after ${WAIT_MS / 1000} s\n`);
    process.exit(1);
  }
  await new Promise((r) => setTimeout(r, 500));
}
const [s] = await db.$queryRawUnsafe<
  Array<{
    p50: number;
    p99: number;
    max: number;
    first_due: Date;
    last_sent: Date;
    sent: bigint;
    emails: bigint;
    late: bigint;
  }>
>(
  `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY lag) AS p50, percentile_cont(0.99) WITHIN GROUP (ORDER BY lag) AS p99,
          max(lag) AS max, min(due_at) AS first_due, max(sent_at) AS last_sent,
          count(*) FILTER (WHERE status = 'sent') AS sent, count(*) FILTER (WHERE lag > 120000) AS late,
          (SELECT count(*) FROM emails WHERE notification_id IS NOT NULL) AS emails
   FROM (SELECT status, due_at, sent_at, extract(epoch FROM sent_at - due_at) * 1000 AS lag FROM notifications) x`,
);
const drainS = (s!.last_sent.getTime() - s!.first_due.getTime()) / 1000;
console.log(
  `${N} e-mail reminders due within one minute, two worker processes: ${s!.sent} sent, the last ${drainS.toFixed(1)} s after the first due time; ` +
    `send lag p50 ${(s!.p50 / 1000).toFixed(1)} s, p99 ${(s!.p99 / 1000).toFixed(1)} s, max ${(s!.max / 1000).toFixed(1)} s; ` +
    `${s!.late} later than 2 minutes; ${s!.emails} e-mails in the sandbox log`,
);
console.log(
  JSON.stringify({
    reminders: {
      reminders: N,
      sent: Number(s!.sent),
      lastSentAfterFirstDueSeconds: +drainS.toFixed(1),
      lagP50Ms: Math.round(s!.p50),
      lagP99Ms: Math.round(s!.p99),
      lagMaxMs: Math.round(s!.max),
      laterThan2Minutes: Number(s!.late),
      emails: Number(s!.emails),
    },
  }),
);
for (const k of kids) k.kill('SIGTERM');
await Promise.all(kids.map((k) => new Promise((r) => k.once('exit', r))));
await close();
