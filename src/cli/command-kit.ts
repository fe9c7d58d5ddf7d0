// What every command's code shares: its shape, and reading the options main.ts parsed.
import { AppError } from '../errors.js';
import type { Mode } from '../generated/prisma/enums.js';
import type { Company } from '../generated/prisma/client.js';
import type { Db } from '../db/databases.js';
import type { Services } from '../services.js';
import { findCompanyInEitherMode } from '../schema/companies/index.js';

export type Values = Record<string, string | string[] | boolean | undefined>;

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

export function required(values: Values, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new AppError('VALIDATION_ERROR', `--${name} is required`);
  return v;
}

export function optional(values: Values, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

export function list(values: Values, name: string): string[] {
  const v = values[name];
  return Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
}

/** A whole number option within [min, max], or its default. */
export function integer(values: Values, name: string, o: { min: number; max: number; default: number }): number {
  const v = optional(values, name);
  if (v === undefined) return o.default;
  const n = /^\d{1,9}$/.test(v) ? Number(v) : NaN;
  if (!(n >= o.min && n <= o.max))
    throw AppError.validation([{ path: name, message: `must be a whole number from ${o.min} to ${o.max}` }]);
  return n;
}

/** The company of `--company`, live or test, and the database of its mode. */
export async function companyOption(
  services: Services,
  values: Values,
): Promise<{ company: Company; mode: Mode; db: Db }> {
  const company = await findCompanyInEitherMode(services.dbs, required(values, 'company'));
  return { company, mode: company.mode, db: services.dbs.forMode(company.mode) };
}
