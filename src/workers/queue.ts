// Two runners for the job catalog: BullMQ over Redis when REDIS_URL is set (several worker
// processes share the queues), and an in-process runner otherwise (one process, embedded
// mode). Same job ids, same retry and timeout policy.
import { Queue, Worker, type Job } from 'bullmq';
import type { Services } from '../services.js';
import { connectRedis } from '../services.js';
import { JOBS, QUEUES } from './job-catalog.js';
import type { Enqueue, JobName } from './job-types.js';
import { setLongTimeout, type LongTimeout } from './long-timeout.js';

export interface JobQueue {
  enqueue: Enqueue;
  /** Starts consuming. A process that only produces never calls it. */
  start(): Promise<void>;
  /** Stops taking jobs and waits for those in flight (SIGTERM: nothing accepted is lost). */
  close(): Promise<void>;
}

async function runHandler(services: Services, enqueue: Enqueue, name: JobName, data: unknown): Promise<void> {
  const def = JOBS[name];
  const payload = def.payload.parse(data);
  const controller = new AbortController();
  const timeoutMs = def.timeoutMs(services);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`job ${name} timed out after ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    await Promise.race([
      (def.handler as (c: unknown, p: unknown) => Promise<void>)(
        { services, enqueue, signal: controller.signal },
        payload,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Enqueue must not hang while Redis is down or stopped: the row stays due and a later sweep
 * re-enqueues. (An add may take two commands, a script load and its call.)
 */
function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<T>((_, rej) => (t = setTimeout(() => rej(new Error('enqueue timed out')), ms))),
  ]).finally(() => clearTimeout(t));
}

const CONNECTION_ERRORS =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|Connection is closed|connect ETIMEDOUT/;
function isConnectionError(err: Error): boolean {
  return (
    CONNECTION_ERRORS.test(err.message) ||
    ('code' in err && typeof err.code === 'string' && CONNECTION_ERRORS.test(err.code))
  );
}

export function bullQueue(services: Services): JobQueue {
  const { config, logger } = services;
  const url = config.REDIS_URL!;
  const prefix = `${config.REDIS_PREFIX}bull`;
  const producer = connectRedis(url, { commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS });
  producer.on('error', () => undefined);
  const queues = new Map(
    QUEUES.map((q) => {
      const queue = new Queue(q, { connection: producer, prefix });
      // Redis going away is expected and survivable: the rows stay due and the sweeps re-enqueue.
      queue.on('error', (err) => logger.debug({ queue: q, err: { message: err.message } }, 'queue connection error'));
      return [q, queue] as const;
    }),
  );
  const workers: Array<{ worker: Worker; connection: ReturnType<typeof connectRedis> }> = [];
  const enqueue: Enqueue = async (name, payload, opts = {}) => {
    const def = JOBS[name];
    const data = def.payload.parse(payload);
    await withDeadline(
      queues.get(def.queue)!.add(name, data, {
        jobId: (def.jobId as (p: unknown) => string)(data),
        delay: opts.delayMs && opts.delayMs > 0 ? Math.round(opts.delayMs) : undefined,
        attempts: def.attempts,
        backoff: def.backoffMs ? { type: 'exponential', delay: def.backoffMs } : undefined,
        removeOnComplete: def.releaseWhenFinished ? true : { age: 3600, count: 10_000 },
        removeOnFail: def.releaseWhenFinished ? true : { age: 24 * 3600, count: 10_000 },
      }),
      2 * config.REDIS_COMMAND_TIMEOUT_MS,
    );
  };
  return {
    enqueue,
    async start() {
      for (const q of QUEUES) {
        const connection = connectRedis(url, { forWorker: true });
        connection.on('error', () => undefined);
        const worker = new Worker(q, (job: Job) => runHandler(services, enqueue, job.name as JobName, job.data), {
          connection,
          prefix,
          concurrency: config.WORKER_CONCURRENCY,
          // A killed worker's job is handed on after this; the delivery lease usually sooner.
          lockDuration: 30_000,
        });
        worker.on('failed', (job, err) =>
          logger.warn({ job: job?.name, jobId: job?.id, err: { message: err.message } }, 'job failed'),
        );
        // While Redis is away every retry of every worker errors: say so once per outage per
        // queue (and again when it is back), not several lines a second.
        let down = false;
        worker.on('error', (err) => {
          if (down && isConnectionError(err)) return;
          down = isConnectionError(err);
          logger.warn(
            { queue: q, err: { message: err.message } },
            down ? 'worker lost Redis; retrying until it is back' : 'worker error',
          );
        });
        connection.on('ready', () => {
          if (down) logger.info({ queue: q }, 'worker reconnected to Redis');
          down = false;
        });
        workers.push({ worker, connection });
      }
    },
    async close() {
      // Worker.close() waits for the jobs it is running.
      await Promise.all(
        workers.map(async ({ worker, connection }) => {
          await worker.close();
          connection.disconnect();
        }),
      );
      await Promise.all([...queues.values()].map((q) => q.close()));
      producer.disconnect();
    },
  };
}

interface LocalJob {
  id: string;
  name: JobName;
  data: unknown;
  attempt: number;
}

export function localQueue(services: Services): JobQueue {
  const known = new Set<string>();
  const timers = new Set<LongTimeout>();
  const waiting = new Map<string, LocalJob[]>(QUEUES.map((q) => [q, []]));
  const active = new Map<string, number>(QUEUES.map((q) => [q, 0]));
  const running = new Set<Promise<void>>();
  let consuming = false;
  let closed = false;

  const pump = (q: string) => {
    if (!consuming || closed) return;
    const list = waiting.get(q)!;
    while (list.length && active.get(q)! < services.config.WORKER_CONCURRENCY) {
      const job = list.shift()!;
      active.set(q, active.get(q)! + 1);
      const p = runHandler(services, enqueue, job.name, job.data)
        .then(() => void known.delete(job.id))
        .catch((err: Error) => {
          const def = JOBS[job.name];
          if (job.attempt < def.attempts && !closed) {
            schedule({ ...job, attempt: job.attempt + 1 }, def.backoffMs * 2 ** (job.attempt - 1));
          } else {
            known.delete(job.id);
            services.logger.warn({ job: job.name, jobId: job.id, err: { message: err.message } }, 'job failed');
          }
        })
        .finally(() => {
          active.set(q, active.get(q)! - 1);
          running.delete(p);
          pump(q);
        });
      running.add(p);
    }
  };
  const schedule = (job: LocalJob, delayMs: number) => {
    const q = JOBS[job.name].queue;
    if (delayMs <= 0) {
      waiting.get(q)!.push(job);
      pump(q);
      return;
    }
    // Any delay, a month's too (a plain setTimeout fires a delay over 24.8 days at once).
    const t = setLongTimeout(() => {
      timers.delete(t);
      waiting.get(q)!.push(job);
      pump(q);
    }, delayMs);
    timers.add(t);
  };
  const enqueue: Enqueue = async (name, payload, opts = {}) => {
    if (closed) return;
    const def = JOBS[name];
    const data = def.payload.parse(payload);
    const id = (def.jobId as (p: unknown) => string)(data);
    if (known.has(id)) return;
    known.add(id);
    schedule({ id, name, data, attempt: 1 }, opts.delayMs ?? 0);
  };
  return {
    enqueue,
    async start() {
      consuming = true;
      for (const q of QUEUES) pump(q);
    },
    async close() {
      closed = true;
      for (const t of timers) t.clear();
      while (running.size) await Promise.allSettled([...running]);
    },
  };
}

export function createJobQueue(services: Services): JobQueue {
  return services.config.REDIS_URL ? bullQueue(services) : localQueue(services);
}
