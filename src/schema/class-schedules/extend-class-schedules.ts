// Rolling the horizon of class schedules forward (docs/api.md, Class schedules): every active
// schedule gets its sessions up to HORIZON_DAYS of its company's domain time ahead. The workers
// run it periodically (job `extend-class-schedules`), and a test-clock advance runs it for its
// company inside the advance (test-clocks/advance-test-clock.ts). It is idempotent and safe with
// several workers: each schedule is extended in its own transaction under its row lock, the
// second comer finds the horizon reached, and the unique (schedule_id, start_time) index makes a
// duplicate session impossible whatever happens.
import type { Db, Tx } from '../../db/databases.js';
import { domainNow } from '../domain-time.js';
import { generateSessions, horizonOf, lockSchedule } from './generate-sessions.js';
import { scheduleZone } from './schedule-place.js';

/** Schedules looked at per run; the next run takes the rest. */
const BATCH = 500;

export interface ExtendResult {
  schedules: number;
  created: number;
  skipped: number;
}

async function extendOne(tx: Tx, scheduleId: string, companyZone: string, now: Date) {
  const schedule = await lockSchedule(tx, scheduleId);
  const until = horizonOf(now);
  if (!schedule || schedule.status !== 'active' || schedule.generatedUntil >= until) return null;
  // A schedule at a location keeps its wall-clock time in the location's zone.
  const zone = await scheduleZone(tx, schedule, companyZone);
  return generateSessions(tx, schedule, { zone, now, from: schedule.generatedUntil, until, advance: true });
}

/** Extends every active schedule in `db` whose horizon is behind, each at its company's domain time. */
export async function extendClassSchedules(db: Db, opts: { signal?: AbortSignal } = {}): Promise<ExtendResult> {
  const result: ExtendResult = { schedules: 0, created: 0, skipped: 0 };
  // The cheap filter uses the real time; a company on a test clock is judged by its clock below.
  const due = await db.classSchedule.findMany({
    where: { status: 'active' },
    select: { id: true, generatedUntil: true, company: { select: { id: true, mode: true, timezone: true } } },
    orderBy: { generatedUntil: 'asc' },
    take: BATCH,
  });
  for (const s of due) {
    if (opts.signal?.aborted) break;
    const now = await domainNow(db, s.company);
    if (s.generatedUntil >= horizonOf(now)) continue;
    const r = await db.$transaction((tx) => extendOne(tx, s.id, s.company.timezone, now), {
      maxWait: 5_000,
      timeout: 30_000,
    });
    if (!r) continue;
    result.schedules++;
    result.created += r.created;
    result.skipped += r.skipped.length;
  }
  return result;
}

/**
 * Extends one company's active schedules to the horizon of `now`, inside the caller's
 * transaction (a test-clock advance, which moves the company's domain time to `now`).
 */
export async function extendCompanyClassSchedules(tx: Tx, opts: { companyId: string; now: Date }): Promise<number> {
  const company = await tx.company.findUniqueOrThrow({ where: { id: opts.companyId }, select: { timezone: true } });
  const schedules = await tx.classSchedule.findMany({
    where: { companyId: opts.companyId, status: 'active', generatedUntil: { lt: horizonOf(opts.now) } },
    select: { id: true },
    orderBy: { id: 'asc' },
  });
  let created = 0;
  for (const s of schedules) created += (await extendOne(tx, s.id, company.timezone, opts.now))?.created ?? 0;
  return created;
}
