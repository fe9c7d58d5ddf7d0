import type { Db } from '../../db/databases.js';
import { serviceInclude } from '../find-records.js';

/** All of a company's services, inactive ones included, by name, with their employees. */
export async function listServicesByName(db: Db, companyId: string) {
  return db.service.findMany({
    where: { companyId },
    orderBy: [{ name: 'asc' }, { id: 'asc' }],
    include: serviceInclude,
  });
}
