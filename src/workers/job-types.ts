// The jobs' shared vocabulary: each job's name and payload schema, `Enqueue`, and the
// `JobContext` every handler is given. It has a file of its own so that the catalogue
// (job-catalog.ts) imports the handlers and the handlers import only this, never the
// catalogue: the two no longer import each other.
import { z } from 'zod';
import type { Services } from '../services.js';

const mode = z.enum(['live', 'test']);
const id = z.string().regex(/^[0-9a-f]{24}$/);

export const JOB_PAYLOADS = {
  // `due` is the delivery's nextAttemptAt: a new attempt (or a lease that ran out) is new work.
  'deliver-webhook': z.object({ mode, deliveryId: id, due: z.number().int(), sweep: z.number().int().optional() }),
  'settle-payment': z.object({ mode, paymentId: id }),
  'send-email': z.object({ mode, emailId: id }),
  // `version` is the notification's version the job was made for: the claim's guard.
  'send-reminder': z.object({
    mode,
    notificationId: id,
    version: z.number().int().min(0),
    sweep: z.number().int().optional(),
  }),
  // One run per minute bucket, however many workers schedule it.
  'expire-bookings': z.object({ bucket: z.number().int() }),
  // One run per hour bucket: the sample timetables stay scheduled SAMPLE_SCHEDULE_DAYS ahead.
  'top-up-sample-classes': z.object({ bucket: z.number().int() }),
  // One run per hour bucket: class schedules keep their sessions HORIZON_DAYS ahead.
  'extend-class-schedules': z.object({ bucket: z.number().int() }),
  // One run per hour bucket: the retention rules of README "Retention", both databases.
  'purge-expired-records': z.object({ bucket: z.number().int() }),
  // `due` is the calendar's nextFetchAt: each poll of a calendar is new work.
  'fetch-external-calendar': z.object({ mode, calendarId: id, due: z.number().int() }),
};

export type JobName = keyof typeof JOB_PAYLOADS;
export type JobPayload<N extends JobName> = z.input<(typeof JOB_PAYLOADS)[N]>;
export type Enqueue = <N extends JobName>(
  name: N,
  payload: JobPayload<N>,
  opts?: { delayMs?: number },
) => Promise<void>;

export interface JobContext {
  services: Services;
  enqueue: Enqueue;
  signal: AbortSignal;
}
