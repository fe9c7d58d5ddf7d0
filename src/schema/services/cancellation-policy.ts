// A service's cancellation policy and deposit (docs/api.md, Cancellation and deposits):
// `cancellationPolicy: { freeUntilMinutesBefore, lateFee: { percent } | { amount } }` and
// `depositAmount`. The policy is stored as one JSON object validated by the schema below; the
// fee it implies is computed in one place only, src/schema/bookings/cancellation-terms.ts.
import { z } from 'zod';
import type { FieldError } from '../../errors.js';

const MINUTES_IN_A_YEAR = 525_600;
const MAX_MONEY = 100_000_000;

const lateFee = z
  .object({
    percent: z
      .number()
      .int('must be an integer')
      .min(0, 'must not be negative')
      .max(100, 'must be at most 100')
      .optional(),
    amount: z
      .number()
      .int('must be an integer in minor units')
      .min(0, 'must not be negative')
      .max(MAX_MONEY, `must be at most ${MAX_MONEY}`)
      .optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    const given = (v.percent !== undefined ? 1 : 0) + (v.amount !== undefined ? 1 : 0);
    if (given !== 1)
      ctx.addIssue({
        code: 'custom',
        message: given ? 'give either percent or amount, not both' : 'give percent or amount',
      });
  });

export const cancellationPolicySchema = z
  .object({
    freeUntilMinutesBefore: z
      .number()
      .int('must be an integer')
      .min(0, 'must not be negative')
      .max(MINUTES_IN_A_YEAR, `must be at most ${MINUTES_IN_A_YEAR}`),
    lateFee,
  })
  .strict();

export type CancellationPolicy = {
  freeUntilMinutesBefore: number;
  lateFee: { percent: number } | { amount: number };
};

export const depositAmountSchema = z
  .number()
  .int('must be an integer in minor units')
  .min(1, 'must be at least 1')
  .max(MAX_MONEY, `must be at most ${MAX_MONEY}`);

/** The policy as stored; a row written before a rule changed, or none at all, is null. */
export function storedCancellationPolicy(json: unknown): CancellationPolicy | null {
  const parsed = cancellationPolicySchema.safeParse(json);
  if (!parsed.success) return null;
  const { freeUntilMinutesBefore, lateFee } = parsed.data;
  return {
    freeUntilMinutesBefore,
    lateFee: lateFee.percent !== undefined ? { percent: lateFee.percent } : { amount: lateFee.amount! },
  };
}

/**
 * The rules between fields of a service once a change is applied: a deposit and a fixed late
 * fee are parts of the price (the services_deposit_within_price CHECK backs the first).
 */
export function moneyFieldErrors(s: {
  price: number;
  depositAmount: number | null;
  cancellationPolicy: unknown;
}): FieldError[] {
  const errors: FieldError[] = [];
  if (s.depositAmount !== null && s.depositAmount > s.price)
    errors.push({ path: 'depositAmount', message: `must be at most the price (${s.price})` });
  const policy = storedCancellationPolicy(s.cancellationPolicy);
  if (policy && 'amount' in policy.lateFee && policy.lateFee.amount > s.price)
    errors.push({ path: 'cancellationPolicy.lateFee.amount', message: `must be at most the price (${s.price})` });
  return errors;
}
