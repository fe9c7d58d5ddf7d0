// Booking rules (docs/api.md, Booking rules): company defaults (PATCH /me { bookingRules }) and
// per-service overrides (bookingRules on services, where a null field inherits). One JSON
// object per company and per service, validated by the one schema below: a new rule is a new
// key here (with its bounds and default), not a new column, a new migration or a new input.
import { z } from 'zod';
import { AppError } from '../errors.js';

const MINUTES_IN_A_YEAR = 525_600;

const ruleFields = {
  /** How late before the start a customer may still cancel (a business cancel ignores it). */
  cancellationCutoffMinutes: z
    .number()
    .int('must be an integer')
    .min(0, 'must not be negative')
    .max(MINUTES_IN_A_YEAR, `must be at most ${MINUTES_IN_A_YEAR}`),
  /** How late before the start a customer may still reschedule (a business reschedule ignores it). */
  rescheduleCutoffMinutes: z
    .number()
    .int('must be an integer')
    .min(0, 'must not be negative')
    .max(MINUTES_IN_A_YEAR, `must be at most ${MINUTES_IN_A_YEAR}`),
  /** How soon a start may be booked: not before now + this many minutes. */
  minNoticeMinutes: z
    .number()
    .int('must be an integer')
    .min(0, 'must not be negative')
    .max(MINUTES_IN_A_YEAR, `must be at most ${MINUTES_IN_A_YEAR}`),
  /** How far ahead a start may be booked: not after now + this many days (of 24 hours). */
  maxAdvanceDays: z.number().int('must be an integer').min(1, 'must be at least 1').max(730, 'must be at most 730'),
  /** Offered starts step by this from each working interval's start; an off-grid start is refused. */
  slotIntervalMinutes: z
    .number()
    .int('must be an integer')
    .min(5, 'must be at least 5')
    .max(240, 'must be at most 240'),
  /** Bookings of the service one employee takes per local day (pending and confirmed ones count). */
  dailyLimitPerEmployee: z
    .number()
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(1000, 'must be at most 1000'),
};

export type RuleName = keyof typeof ruleFields;
/** The rules in force; `null` where a rule is unset (no interval: the 15-minute grid; no daily limit). */
export interface BookingRules {
  cancellationCutoffMinutes: number;
  rescheduleCutoffMinutes: number;
  minNoticeMinutes: number;
  maxAdvanceDays: number;
  slotIntervalMinutes: number | null;
  dailyLimitPerEmployee: number | null;
}
export type BookingRuleOverrides = { [K in RuleName]: number | null };

export const RULE_DEFAULTS: BookingRules = {
  cancellationCutoffMinutes: 0,
  rescheduleCutoffMinutes: 0,
  minNoticeMinutes: 0,
  maxAdvanceDays: 365,
  slotIntervalMinutes: null,
  dailyLimitPerEmployee: null,
};
const RULE_NAMES = Object.keys(ruleFields) as RuleName[];

/** A patch of rules: each key optional; null resets it (to the default, or to inherit on a service). */
export const bookingRulesPatch = z
  .object(
    Object.fromEntries(RULE_NAMES.map((k) => [k, ruleFields[k].nullable().optional()])) as {
      [K in RuleName]: z.ZodOptional<z.ZodNullable<(typeof ruleFields)[K]>>;
    },
  )
  .strict();

export type BookingRulesPatch = z.output<typeof bookingRulesPatch>;

/** The rules stored in a JSON column: only known keys with valid values count (others are ignored). */
function stored(json: unknown): Partial<Record<RuleName, number>> {
  const out: Partial<Record<RuleName, number>> = {};
  if (!json || typeof json !== 'object') return out;
  for (const k of RULE_NAMES) {
    const value = (json as Record<string, unknown>)[k];
    // An absent rule is the usual case (every company's GET /me reads them): no rule accepts
    // undefined, and a refused parse builds its issues, so it is skipped without parsing.
    if (value === undefined) continue;
    const parsed = ruleFields[k].safeParse(value);
    if (parsed.success) out[k] = parsed.data;
  }
  return out;
}

/** The stored object after a patch: set keys replace, null keys are removed, absent keys stay. */
export function patchBookingRules(json: unknown, patch: BookingRulesPatch): Partial<Record<RuleName, number>> {
  const next: Partial<Record<RuleName, number>> = { ...stored(json) };
  for (const k of RULE_NAMES) {
    const v = patch[k];
    if (v === null) delete next[k];
    else if (v !== undefined) next[k] = v;
  }
  return next;
}

/** A company's rules as the API shows them: every rule, defaults filled in. */
export function companyBookingRules(json: unknown): BookingRules {
  return { ...RULE_DEFAULTS, ...stored(json) };
}

/** A service's overrides as the API shows them: every rule, null where it inherits. */
export function serviceBookingRules(json: unknown): BookingRuleOverrides {
  const s = stored(json);
  return Object.fromEntries(RULE_NAMES.map((k) => [k, s[k] ?? null])) as BookingRuleOverrides;
}

/** The rules in force for a service: its overrides, else the company's, else the defaults. */
export function effectiveBookingRules(companyRules: unknown, serviceRules: unknown): BookingRules {
  return { ...companyBookingRules(companyRules), ...stored(serviceRules) };
}

/** The last instant a customer may still cancel or reschedule a booking starting at `start`. */
export function cutoffDeadline(start: Date, cutoffMinutes: number): Date {
  return new Date(start.getTime() - cutoffMinutes * 60_000);
}

/**
 * 409 CUTOFF_PASSED (docs/api.md, Errors) when `now` is past the deadline; at the deadline
 * itself the customer is still in time.
 */
export function assertBeforeCutoff(what: 'cancel' | 'reschedule', deadline: Date, now: Date): void {
  if (now.getTime() <= deadline.getTime()) return;
  throw new AppError(
    'CUTOFF_PASSED',
    `A customer could ${what} this booking until ${deadline.toISOString()}; that cut-off has passed`,
    { details: { deadline: deadline.toISOString() } },
  );
}
