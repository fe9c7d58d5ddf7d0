// Keeps the sandbox's sample class timetables running for the coming weeks (docs/sandbox.md), through
// the booking domain's own use case. Scheduled by the runtime once per hour bucket (job id),
// whichever worker runs it; it is idempotent, so a repeated run adds nothing.
import { topUpSampleClasses } from '../schema/sandbox/index.js';
import type { JobContext } from './job-types.js';

export async function topUpSampleClassesJob(ctx: JobContext): Promise<void> {
  const { companies, created } = await topUpSampleClasses(ctx.services.dbs.test.prisma);
  if (created) ctx.services.logger.info({ companies, created }, 'sample class sessions topped up');
}
