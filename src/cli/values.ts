// Reading the options main.ts parsed: what every command's code shares, the database's or the
// API client's (api-run.ts). Nothing here loads the domain.
import { AppError } from '../errors.js';

export type Values = Record<string, string | string[] | boolean | undefined>;

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
