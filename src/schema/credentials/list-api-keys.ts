import type { Db } from '../../db/databases.js';
import type { ApiKey } from '../../generated/prisma/client.js';

/** A company's API keys, newest first, revoked and expired ones included (only hashes are kept). */
export async function listApiKeys(db: Db, companyId: string): Promise<ApiKey[]> {
  return db.apiKey.findMany({ where: { companyId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
}
