// The webhook burst of the scenarios at scale (bench/scale.ts; issue 22 §2: "a webhook burst
// (deliveries/s per worker)"): on one fixture, a backlog of real events written through the
// API, then one real `svc worker` process relays them through the outbox (fan-out, positions)
// and delivers them to a real receiver on 127.0.0.1; deliveries/s first to last, and the
// latency of each delivery from its fan-out to its receipt. Afterwards every event of the burst
// must have arrived exactly once, and the database hold one succeeded delivery of each.
//
// The scale data set is shared (the admin pages bench reads it too) and keeps its history: the
// worker's hourly maintenance jobs (the retention purge would delete the seeded deliveries older
// than 30 days; the class schedules' extension would add sessions) are parked first, as delayed
// jobs under the ids the worker would enqueue, so its enqueue of them is a no-op.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Db } from '../src/db/databases.js';
import { spawnWorkerProcess } from './setup.js';
import { pct, startReceiver, waitUntil } from './webhook-receiver.js';

export interface BurstOptions {
  db: Db;
  companyId: string;
  databaseUrl: string;
  redisUrl: string;
  /** The SECRET_KEY of the server that sealed the endpoint's signing secret. */
  secretKey: string;
  api(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<any>;
  events: number;
  timeoutMs: number;
  /** Runs the worker under this command (taskset). */
  prefix: string[];
}

export interface BurstResult {
  events: number;
  /** Deliveries a second of the one worker, first arrival to last. */
  deliveriesPerSecond: number;
  drainSeconds: number;
  /** From the relay's fan-out (the delivery row's creation) to the receipt. */
  p50Ms: number;
  p99Ms: number;
  /** Events of the burst delivered more than once, or never; deliveries of other events. */
  duplicates: number;
  missing: number;
  others: number;
  /** Delivery rows of the burst's endpoint, and of those the ones succeeded. */
  rows: number;
  succeeded: number;
}

const HOURLY = [
  ['purge-expired-records', 'purge'],
  ['extend-class-schedules', 'schedules'],
  ['top-up-sample-classes', 'samples'],
] as const;
const QUEUES = ['webhooks', 'payments', 'emails', 'reminders', 'maintenance', 'calendars'];

export async function webhookBurst(o: BurstOptions): Promise<BurstResult> {
  const redisPrefix = `svc_bench_h3_burst${randomBytes(3).toString('hex')}:`;
  const connection = { url: o.redisUrl };
  const maintenance = new Queue('maintenance', { connection, prefix: `${redisPrefix}bull` });
  const hour = Math.floor(Date.now() / 3_600_000);
  for (const bucket of [hour, hour + 1, hour + 2])
    for (const [name, id] of HOURLY)
      await maintenance.add(name, { bucket }, { jobId: `${id}.${bucket}`, delay: 7 * 86_400_000 });
  const start = () =>
    spawnWorkerProcess(
      {
        databaseUrl: o.databaseUrl,
        redisUrl: o.redisUrl,
        redisPrefix,
        env: { SECRET_KEY: o.secretKey, WEBHOOK_LIVE_ALLOW_PRIVATE: 'true' },
      },
      o.prefix,
    );
  const stop = async (k: ChildProcess) => {
    if (k.exitCode !== null) return;
    k.kill('SIGTERM');
    await new Promise((r) => k.once('exit', r));
  };
  const undispatched = async () =>
    Number(
      (
        await o.db.$queryRawUnsafe<Array<{ n: bigint }>>(`SELECT count(*) AS n FROM events WHERE dispatched_at IS NULL`)
      )[0]!.n,
    );
  const receiver = await startReceiver();
  let worker: ChildProcess | null = null;
  let endpointId: string | null = null;
  try {
    // Events written before (the fixture's own, an earlier run's bookings) are relayed first,
    // before the endpoint exists, so the burst is the only thing delivered to it.
    if ((await undispatched()) > 0) {
      worker = start();
      await waitUntil(
        async () => (await undispatched()) === 0,
        () => 'burst: the earlier events were not relayed',
        {
          timeoutMs: o.timeoutMs,
          pollMs: 500,
        },
      );
      await stop(worker);
    }
    endpointId = (await o.api('POST', '/api/v1/webhook-endpoints', { url: receiver.url, events: ['customer.created'] }))
      ._id as string;
    // The backlog: customers made through the API, each with its customer.created event in the
    // same transaction, eight requests at a time.
    const since = new Date(Date.now() - 1000);
    const stamp = Date.now().toString(36);
    for (let i = 0; i < o.events; i += 8)
      await Promise.all(
        Array.from({ length: Math.min(8, o.events - i) }, (_, j) =>
          o.api('POST', '/api/v1/customers', {
            name: `Burst ${stamp} ${i + j}`,
            email: `burst-${stamp}-${i + j}@example.com`,
          }),
        ),
      );
    const burst = new Set(
      (
        await o.db.event.findMany({
          where: { companyId: o.companyId, type: 'customer.created', createdAt: { gte: since } },
          select: { id: true },
        })
      ).map((e) => e.id),
    );
    if (burst.size !== o.events) throw new Error(`burst: ${burst.size} customer.created events, not ${o.events}`);
    worker = start();
    const arrived = () => [...burst].filter((id) => receiver.arrivals.has(id)).length;
    await waitUntil(
      () => arrived() === burst.size,
      () => `burst: ${arrived()} of ${burst.size} events delivered`,
      { timeoutMs: o.timeoutMs, pollMs: 50 },
    );
    // A second delivery of an event would come after its first: give one a moment to show.
    await new Promise((r) => setTimeout(r, 2000));
    await stop(worker);
    const times = [...burst].map((id) => receiver.arrivals.get(id)!).sort((a, b) => a - b);
    const drainSeconds = (times.at(-1)! - times[0]!) / 1000;
    const rows = await o.db.webhookDelivery.findMany({
      where: { endpointId },
      select: { eventId: true, status: true, createdAt: true },
    });
    const latencies = rows
      .filter((r) => receiver.arrivals.has(r.eventId))
      .map((r) => receiver.arrivals.get(r.eventId)! - r.createdAt.getTime());
    return {
      events: burst.size,
      deliveriesPerSecond: Math.round(burst.size / Math.max(drainSeconds, 0.001)),
      drainSeconds: Math.round(drainSeconds * 100) / 100,
      p50Ms: pct(latencies, 50),
      p99Ms: pct(latencies, 99),
      duplicates: [...burst].filter((id) => (receiver.counts.get(id) ?? 0) > 1).length,
      missing: [...burst].filter((id) => !receiver.counts.has(id)).length,
      others: [...receiver.counts.keys()].filter((id) => !burst.has(id)).length,
      rows: rows.length,
      succeeded: rows.filter((r) => r.status === 'succeeded').length,
    };
  } finally {
    if (worker) await stop(worker);
    // The endpoint goes (its deliveries with it): a later run's relay must not send to a
    // receiver that is gone.
    if (endpointId) await o.api('DELETE', `/api/v1/webhook-endpoints/${endpointId}`).catch(() => undefined);
    await receiver.close();
    for (const q of QUEUES) {
      const queue = q === 'maintenance' ? maintenance : new Queue(q, { connection, prefix: `${redisPrefix}bull` });
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
    }
  }
}

/** Problems of a burst: anything but exactly one delivery of each of its events. */
export function burstProblems(r: BurstResult): string[] {
  return [
    ...(r.missing ? [`${r.missing} events never delivered`] : []),
    ...(r.duplicates ? [`${r.duplicates} events delivered twice`] : []),
    ...(r.others ? [`${r.others} other events delivered`] : []),
    ...(r.rows !== r.events || r.succeeded !== r.events
      ? [`${r.rows} delivery rows, ${r.succeeded} succeeded, for ${r.events} events`]
      : []),
  ];
}
