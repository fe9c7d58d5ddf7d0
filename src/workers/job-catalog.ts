// The typed job catalog (one declaration per job): each job has a name, the queue it runs on, a payload
// schema, an idempotent job id, its retry and timeout policy, and its handler. The same
// catalog runs on BullMQ (REDIS_URL) or in process (queue.ts).
//
// Jobs are a transport, not the record: every job's truth is a database row (a pending
// delivery, a processing payment, a queued e-mail), claimed by its handler, and the relay's
// sweeps re-enqueue any row whose job was lost (Redis restarted, a worker killed). So a
// handler must be idempotent, and a duplicate job is harmless.
//
// Payments and e-mails have one job id per row, ever, and their jobs are removed as soon as
// they finish: while a job exists (waiting, running, or backing off between its attempts) a
// sweep adding it again is a no-op, so an outage never piles up jobs; once it has finished
// with the row still undone, the next sweep adds it afresh. A webhook delivery's job id names
// the attempt (`due`): `sweep` marks a job re-made for an overdue attempt, whose job may be
// held by a worker that died (BullMQ hands such a job on only after its stall check); the
// delivery's lease keeps a second job from attempting it twice.
//
// The payload schemas, JobContext and Enqueue live in job-types.ts, which the handlers import;
// this file imports the handlers, so nothing here may be imported by them.
import type { z } from 'zod';
import type { Services } from '../services.js';
import { deliverWebhook } from './deliver-webhook.js';
import { expireBookings } from './expire-bookings.js';
import { extendClassSchedulesJob } from './extend-class-schedules.js';
import { fetchExternalCalendar } from './fetch-external-calendar.js';
import { JOB_PAYLOADS, type JobContext, type JobName } from './job-types.js';
import { purgeExpiredRecordsJob } from './purge-expired-records.js';
import { sendEmail } from './send-email.js';
import { sendReminder } from './send-reminder.js';
import { settlePayment } from './settle-payment.js';
import { topUpSampleClassesJob } from './top-up-sample-classes.js';

export interface JobDefinition<P> {
  queue: 'webhooks' | 'payments' | 'emails' | 'reminders' | 'maintenance' | 'calendars';
  payload: z.ZodType<P>;
  /** The same work always gets the same id, so enqueueing it twice runs it once. */
  jobId(payload: P): string;
  attempts: number;
  backoffMs: number;
  /**
   * Remove the job as soon as it completes or fails for good, freeing its id for the sweep.
   * Otherwise finished jobs are kept a while and their id keeps refusing the same work (a
   * maintenance bucket must not run twice).
   */
  releaseWhenFinished?: boolean;
  timeoutMs(services: Services): number;
  handler(ctx: JobContext, payload: P): Promise<void>;
}

const define = <P>(d: JobDefinition<P>) => d;

export const JOBS = {
  'deliver-webhook': define({
    queue: 'webhooks',
    payload: JOB_PAYLOADS['deliver-webhook'],
    jobId: (p) => `wh.${p.mode}.${p.deliveryId}.${p.due}${p.sweep === undefined ? '' : `.s${p.sweep}`}`,
    // Retries follow docs/webhooks.md's schedule, kept on the delivery row, not the queue's backoff.
    attempts: 1,
    backoffMs: 0,
    timeoutMs: (s) => s.config.WEBHOOK_TIMEOUT_MS + 5_000,
    handler: deliverWebhook,
  }),
  'settle-payment': define({
    queue: 'payments',
    payload: JOB_PAYLOADS['settle-payment'],
    jobId: (p) => `pay.${p.mode}.${p.paymentId}`,
    attempts: 6,
    backoffMs: 2_000,
    releaseWhenFinished: true,
    timeoutMs: () => 60_000,
    handler: settlePayment,
  }),
  'send-email': define({
    queue: 'emails',
    payload: JOB_PAYLOADS['send-email'],
    jobId: (p) => `mail.${p.mode}.${p.emailId}`,
    attempts: 6,
    backoffMs: 5_000,
    releaseWhenFinished: true,
    timeoutMs: () => 60_000,
    handler: sendEmail,
  }),
  // A reminder's job names the notification's version: a withdrawn or retried reminder is new
  // work, and a job for an old version finds nothing to claim. Delayed until dueAt when the
  // relay enqueues it; `sweep` marks a job re-made for an overdue reminder whose job may be held
  // by a worker that died. The claim is the guard, so a duplicate sends nothing.
  'send-reminder': define({
    queue: 'reminders',
    payload: JOB_PAYLOADS['send-reminder'],
    jobId: (p) => `rem.${p.mode}.${p.notificationId}.${p.version}${p.sweep === undefined ? '' : `.s${p.sweep}`}`,
    // A failed send is recorded on the row under a new version; the sweep makes its next job.
    attempts: 1,
    backoffMs: 0,
    releaseWhenFinished: true,
    timeoutMs: () => 30_000,
    handler: sendReminder,
  }),
  'expire-bookings': define({
    queue: 'maintenance',
    payload: JOB_PAYLOADS['expire-bookings'],
    jobId: (p) => `expire.${p.bucket}`,
    attempts: 3,
    backoffMs: 5_000,
    timeoutMs: () => 60_000,
    handler: expireBookings,
  }),
  'top-up-sample-classes': define({
    queue: 'maintenance',
    payload: JOB_PAYLOADS['top-up-sample-classes'],
    jobId: (p) => `samples.${p.bucket}`,
    attempts: 3,
    backoffMs: 60_000,
    timeoutMs: () => 10 * 60_000,
    handler: topUpSampleClassesJob,
  }),
  'extend-class-schedules': define({
    queue: 'maintenance',
    payload: JOB_PAYLOADS['extend-class-schedules'],
    jobId: (p) => `schedules.${p.bucket}`,
    attempts: 3,
    backoffMs: 60_000,
    timeoutMs: () => 10 * 60_000,
    handler: extendClassSchedulesJob,
  }),
  'purge-expired-records': define({
    queue: 'maintenance',
    payload: JOB_PAYLOADS['purge-expired-records'],
    jobId: (p) => `purge.${p.bucket}`,
    attempts: 3,
    backoffMs: 60_000,
    timeoutMs: () => 10 * 60_000,
    handler: purgeExpiredRecordsJob,
  }),
  // One fetch of an external calendar per due time (its row's nextFetchAt); the row's lease keeps
  // two jobs from fetching it at once, and a failed fetch is recorded on the row and polled again,
  // so the job itself is not retried. Its own queue: slow calendars never hold up the maintenance jobs.
  'fetch-external-calendar': define({
    queue: 'calendars',
    payload: JOB_PAYLOADS['fetch-external-calendar'],
    jobId: (p) => `cal.${p.mode}.${p.calendarId}.${p.due}`,
    attempts: 1,
    backoffMs: 0,
    releaseWhenFinished: true,
    timeoutMs: (s) => s.config.EXTERNAL_CALENDAR_TIMEOUT_MS + 15_000,
    handler: fetchExternalCalendar,
  }),
} satisfies Record<JobName, unknown>;

export const QUEUES = [...new Set(Object.values(JOBS).map((j) => j.queue))];
