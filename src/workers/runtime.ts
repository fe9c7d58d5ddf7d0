// The workers of one process: the job queue's consumers, the outbox relay and the sweeps for
// both databases (live and sandbox), woken by PostgreSQL NOTIFY right after an event commits
// (the migration's trigger) and by a poll as the backstop. `svc worker` runs only this;
// `npm start` runs it beside the HTTP server unless RUN_WORKERS=0.
import type { Database } from '../db/databases.js';
import { OUTBOX_CHANNEL, parseDueDelivery } from '../schema/events/index.js';
import type { Services } from '../services.js';
import { sweepExternalCalendars } from './fetch-external-calendar.js';
import { relayBatch, sweep } from './outbox-relay.js';
import { createJobQueue, type JobQueue } from './queue.js';

// runtime.ts is the workers' one way in (ARCHITECTURE.md): what the process entry points need
// of them besides starting them is passed on from here.
export { warnIfLiveEmailCannotBeSent } from './send-email.js';

export interface Workers {
  queue: JobQueue;
  /** Runs the relay and the sweeps now (coalesced with a run in progress). */
  kick(): void;
  /** Resolves once the relay has nothing left to claim (tests, benchmarks). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export async function startWorkers(services: Services, opts: { consume?: boolean } = {}): Promise<Workers> {
  const { config, logger, dbs } = services;
  const queue = createJobQueue(services);
  const enqueue = queue.enqueue;
  const databases: Database[] = [dbs.live, dbs.test];
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;
  let lastMaintenance = 0;
  let lastHourly = -1;

  const cycle = async () => {
    for (const db of databases) {
      if (stopped) return;
      try {
        while (!stopped && (await relayBatch(services, db, enqueue)) > 0) {
          // keep draining while batches come back full or partly full
        }
        await sweep(services, db, enqueue);
        // External calendars due for a fetch (a new one is due at once).
        await sweepExternalCalendars(db, enqueue);
      } catch (err) {
        logger.warn(
          { mode: db.mode, err: { message: (err as Error).message } },
          'outbox relay cycle failed; retrying at the next poll',
        );
      }
    }
    // Unpaid pending bookings expire after their hold (docs/api.md): checked every 30 s, run once
    // per minute bucket whichever worker gets there first.
    if (Date.now() - lastMaintenance > 30_000) {
      lastMaintenance = Date.now();
      await enqueue('expire-bookings', { bucket: Math.floor(Date.now() / 60_000) }).catch(() => undefined);
      // The sandbox's sample class timetables are topped up once an hour (docs/sandbox.md), and the
      // stale rows of both databases purged (README "Retention").
      const hour = Math.floor(Date.now() / 3_600_000);
      if (hour !== lastHourly) {
        lastHourly = hour;
        await enqueue('top-up-sample-classes', { bucket: hour }).catch(() => undefined);
        // Class schedules roll their horizon forward (docs/api.md, Class schedules).
        await enqueue('extend-class-schedules', { bucket: hour }).catch(() => undefined);
        await enqueue('purge-expired-records', { bucket: hour }).catch(() => undefined);
      }
    }
  };
  const kick = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = cycle().finally(() => {
      running = null;
      if (again) {
        again = false;
        kick();
      }
    });
  };

  if (opts.consume !== false) await queue.start();
  const onNotice = (db: Database, payload: string) => {
    const due = parseDueDelivery(payload);
    if (!due) return kick();
    // A delivery made due by hand (test ping, retry): enqueued now, as the relay does. Both
    // modes' listeners may share one PostgreSQL database; the schema says whose it is.
    if (due.schema !== db.schema || stopped) return;
    enqueue('deliver-webhook', { mode: db.mode, deliveryId: due.deliveryId, due: due.due }).catch((err: Error) =>
      logger.warn({ mode: db.mode, err: { message: err.message } }, 'enqueue failed; the sweep will retry'),
    );
  };
  const unlisten = await Promise.all(
    databases.map((db) =>
      db.listen(OUTBOX_CHANNEL, (payload) => onNotice(db, payload)).catch(() => async () => undefined),
    ),
  );
  const poll = setInterval(kick, config.WORKER_POLL_MS);
  kick();
  logger.info({ queue: config.REDIS_URL ? 'bullmq' : 'in-process' }, 'workers started');

  return {
    queue,
    kick,
    async idle() {
      while (running) await running;
    },
    async stop() {
      stopped = true;
      clearInterval(poll);
      await Promise.all(unlisten.map((u) => u()));
      if (running) await running;
      await queue.close();
      logger.info('workers stopped');
    },
  };
}
