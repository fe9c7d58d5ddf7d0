// Field rules of the booking domain (docs/api.md), shared by every use case so REST, GraphQL
// and the CLI refuse the same input with the same words.
import { z } from 'zod';
import { AppError } from '../errors.js';
import { isId } from '../ids.js';
import { parseIsoTimestamp } from './iso-timestamp.js';

export const id = z.string().regex(/^[0-9a-f]{24}$/, 'must be an id of 24 lowercase hex characters');

/** An instant: a Date (GraphQL's DateTime scalar already parsed it) or an RFC 3339 string. */
export const instant = z.union([
  z.date().refine((d) => !Number.isNaN(d.getTime()), 'is not a real date and time'),
  z.string().transform((s, ctx) => {
    const parsed = parseIsoTimestamp(s);
    if (parsed.error === undefined) return parsed.date;
    ctx.addIssue({ code: 'custom', message: parsed.error });
    return z.NEVER;
  }),
]);

// Years 2000–2100: anything else is a typo or an attack on the slot computation.
const EARLIEST = Date.UTC(2000, 0, 1);
const LATEST = Date.UTC(2100, 0, 1);
export const boundedInstant = instant.refine(
  (d) => d.getTime() >= EARLIEST && d.getTime() < LATEST,
  'must be between the years 2000 and 2099',
);

export const minutes = (max: number) =>
  z.number().int('must be an integer').min(0, 'must not be negative').max(max, `must be at most ${max}`);

/** A path id: anything that is not one of this company's records is simply NOT_FOUND. */
export function requireId(value: unknown, what: string): string {
  if (!isId(value)) throw AppError.notFound(what);
  return value;
}

/** End after start, and a window no longer than `maxDays`. */
export function checkRange(from: Date, to: Date, opts: { fromPath: string; toPath: string; maxDays?: number }): void {
  if (to.getTime() <= from.getTime())
    throw AppError.validation([{ path: opts.toPath, message: `must be after ${opts.fromPath}` }]);
  if (opts.maxDays && to.getTime() - from.getTime() > opts.maxDays * 86_400_000) {
    throw AppError.validation([
      { path: opts.toPath, message: `must be at most ${opts.maxDays} days after ${opts.fromPath}` },
    ]);
  }
}
