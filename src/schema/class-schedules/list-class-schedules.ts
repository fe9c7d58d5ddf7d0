import type { Db } from '../../db/databases.js';

/** A company's active class schedules with their service and instructor, by local start time. */
export async function listActiveClassSchedules(db: Db, companyId: string) {
  return db.classSchedule.findMany({
    where: { companyId, status: 'active' },
    orderBy: [{ localStartTime: 'asc' }, { id: 'asc' }],
    include: { service: { select: { id: true, name: true } }, employee: { select: { id: true, name: true } } },
    take: 200,
  });
}
