// What every command's code shares: its shape, and reading the options main.ts parsed.
import type { Mode } from '../generated/prisma/enums.js';
import type { Company } from '../generated/prisma/client.js';
import type { Db } from '../db/databases.js';
import type { Services } from '../services.js';
import { findCompanyInEitherMode } from '../schema/companies/index.js';
import { required, type Values } from './values.js';

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

/** The company of `--company`, live or test, and the database of its mode. */
export async function companyOption(
  services: Services,
  values: Values,
): Promise<{ company: Company; mode: Mode; db: Db }> {
  const company = await findCompanyInEitherMode(services.dbs, required(values, 'company'));
  return { company, mode: company.mode, db: services.dbs.forMode(company.mode) };
}
