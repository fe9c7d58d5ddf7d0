// Retention (README "Retention"): the stale rows of both databases go through the domain's own
// use case. Scheduled by the runtime once per hour bucket (job id), whichever worker runs it;
// a run cut short by its timeout leaves the rest to the next one.
import { purgeExpiredRecords } from '../schema/maintenance/index.js';
import type { JobContext } from './job-types.js';

export async function purgeExpiredRecordsJob(ctx: JobContext): Promise<void> {
  for (const db of [ctx.services.dbs.live, ctx.services.dbs.test]) {
    if (ctx.signal.aborted) return;
    const deleted = await purgeExpiredRecords(db.prisma, { signal: ctx.signal });
    const some = Object.fromEntries(Object.entries(deleted).filter(([, n]) => n > 0));
    if (Object.keys(some).length) ctx.services.logger.info({ mode: db.mode, deleted: some }, 'expired records purged');
  }
}
