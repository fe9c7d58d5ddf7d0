// How reminders reach the send-reminder job (docs/api.md, Reminders). The notification row is
// the truth; jobs are only a transport:
// - the fast path: when the relay hands on a booking's created or rescheduled event, the
//   booking's scheduled reminders are enqueued as delayed jobs, due at dueAt (BullMQ keeps them
//   in Redis; the in-process queue keeps a timer);
// - the sweep: every cycle, scheduled reminders whose due time has passed (by more than a
//   moment, so the fast path's jobs are left alone) are enqueued again. A job id names the
//   notification's version, so while its job exists this adds nothing; a reminder overdue by
//   more than the grace gets a fresh job id once per bucket, in case its job is held by a
//   worker that died. After a restart, or with Redis emptied, the sweep finds everything due.
import type { Database } from '../db/databases.js';
import type { Mode } from '../generated/prisma/enums.js';
import { dueReminders, scheduledRemindersOf } from '../schema/notifications/index.js';
import type { Services } from '../services.js';
import type { Enqueue } from './job-types.js';

const STRAGGLER_MS = 2_000;
const SWEEP_BUCKET_MS = 10_000;
const SWEEP_LIMIT = 1_000;

/** The fast path: the booking's scheduled reminders as jobs delayed until they are due. */
export async function enqueuePlannedReminders(db: Database, enqueue: Enqueue, bookingIds: string[]): Promise<void> {
  if (!bookingIds.length) return;
  const mode: Mode = db.mode;
  const rows = await scheduledRemindersOf(db.prisma, bookingIds);
  const now = Date.now();
  await Promise.all(
    rows.map((r) =>
      enqueue(
        'send-reminder',
        { mode, notificationId: r.id, version: r.version },
        { delayMs: Math.max(0, r.dueAt.getTime() - now) },
      ),
    ),
  );
}

/** The sweep: scheduled reminders that are due and may have no job. */
export async function sweepDueReminders(services: Services, db: Database, enqueue: Enqueue): Promise<void> {
  const mode: Mode = db.mode;
  const now = Date.now();
  const grace = Math.max(SWEEP_BUCKET_MS, 2 * services.config.WORKER_POLL_MS);
  const bucket = Math.floor(now / SWEEP_BUCKET_MS);
  const rows = await dueReminders(db.prisma, { now: new Date(now), olderThanMs: STRAGGLER_MS, limit: SWEEP_LIMIT });
  await Promise.all(
    rows.map((r) =>
      enqueue('send-reminder', {
        mode,
        notificationId: r.id,
        version: r.version,
        sweep: now - r.dueAt.getTime() > grace ? bucket : undefined,
      }),
    ),
  );
}
