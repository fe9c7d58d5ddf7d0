// Class schedules' rolling horizon (docs/api.md, Class schedules): every active schedule keeps
// its sessions generated HORIZON_DAYS of domain time ahead, through the domain's own use case.
// Scheduled by the runtime once per hour bucket (job id), whichever worker runs it; it is
// idempotent and safe with several workers (each schedule is extended under its row lock, and a
// unique index refuses a second session for one occurrence).
import { extendClassSchedules } from '../schema/class-schedules/index.js';
import type { JobContext } from './job-types.js';

export async function extendClassSchedulesJob(ctx: JobContext): Promise<void> {
  for (const db of [ctx.services.dbs.live, ctx.services.dbs.test]) {
    if (ctx.signal.aborted) return;
    const r = await extendClassSchedules(db.prisma, { signal: ctx.signal });
    if (r.created || r.skipped) ctx.services.logger.info({ mode: db.mode, ...r }, 'class schedules extended');
  }
}
