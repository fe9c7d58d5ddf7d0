// What every command's code shares: its shape, and reading the options main.ts parsed.
import type { Mode } from '../generated/prisma/enums.js';
import type { Company } from '../generated/prisma/client.js';
import type { Db } from '../db/databases.js';
import type { Services } from '../services.js';
import { findCompanyInEitherMode } from '../schema/companies/index.js';
import { AppError } from '../errors.js';
import { optional, required, type Values } from './values.js';

export interface Implementation {
  /**
   * The command itself, run by `svc` in its own process or, while the server holds the
   * embedded DATA_DIR, by the server for it (bridge.ts). Returns a JSON value: what is
   * printed, and what the server sends back.
   */
  run(services: Services, values: Values): Promise<unknown>;
  /** Human output; `result` is what `run` returned for this command. */
  format?(result: never): string;
}

export { integer, list, optional, required, type Values } from './values.js';

/**
 * The company of `--company`, live or test, and the database of its mode; for a command with
 * `--api-key` (filled from SVC_API_KEY by run.ts), without `--company`, the key's company.
 */
export async function companyOption(
  services: Services,
  values: Values,
): Promise<{ company: Company; mode: Mode; db: Db }> {
  const id = optional(values, 'company');
  const key = optional(values, 'api-key');
  let companyId: string;
  if (id !== undefined || key === undefined) companyId = required(values, 'company');
  else {
    const credential = await services.credentials.resolve(key);
    if (!credential)
      throw AppError.validation([
        { path: 'api-key', message: 'is not a valid API key or access token (from --api-key or SVC_API_KEY)' },
      ]);
    companyId = credential.companyId;
  }
  const company = await findCompanyInEitherMode(services.dbs, companyId);
  return { company, mode: company.mode, db: services.dbs.forMode(company.mode) };
}
