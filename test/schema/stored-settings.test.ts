// The stored booking rules and reminders are read on every GET /me; their readers skip the parse
// of a value that is absent (issue 42). The answer must equal the plain reading: every rule
// parsed, absent or not, and the reminders' list parsed whatever it is.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bookingRulesPatch,
  RULE_DEFAULTS,
  effectiveBookingRules,
  serviceBookingRules,
} from '../../src/schema/booking-rules.js';
import {
  companyReminders,
  DEFAULT_REMINDERS,
  remindersInput,
  serviceReminders,
} from '../../src/schema/notifications/reminders.js';

const RULES = Object.keys(bookingRulesPatch.shape);
const ruleValue = fc.oneof(fc.integer({ min: -10, max: 2000 }), fc.constant(null), fc.string(), fc.double());
const storedRules = fc.oneof(
  fc.constant(null),
  fc.constant(undefined),
  fc.dictionary(fc.constantFrom(...RULES, 'other'), ruleValue),
);

/** The plain reading: each rule parsed by the patch's own schema, absent ones included. */
function plain(json: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (!json || typeof json !== 'object') return out;
  const shape = bookingRulesPatch.shape as Record<
    string,
    { safeParse(v: unknown): { success: boolean; data?: unknown } }
  >;
  for (const k of RULES) {
    const parsed = shape[k]!.safeParse((json as Record<string, unknown>)[k]);
    if (parsed.success && typeof parsed.data === 'number') out[k] = parsed.data;
  }
  return out;
}

describe('stored settings read without parsing what is absent', () => {
  it('booking rules: the same as parsing every rule', () => {
    fc.assert(
      fc.property(storedRules, storedRules, (company, service) => {
        const c = plain(company);
        const s = plain(service);
        expect(serviceBookingRules(service)).toEqual(Object.fromEntries(RULES.map((k) => [k, s[k] ?? null])));
        expect(effectiveBookingRules(company, service)).toEqual({ ...RULE_DEFAULTS, ...c, ...s });
      }),
      { numRuns: 500 },
    );
  });

  it('reminders: the same as parsing whatever is stored', () => {
    const reminder = fc.record({
      offsetMinutes: fc.oneof(fc.integer({ min: 0, max: 30_000 }), fc.string()),
      channel: fc.constantFrom('email', 'webhook', 'sms'),
    });
    fc.assert(
      fc.property(fc.oneof(fc.constant(null), fc.constant(undefined), fc.array(reminder, { maxLength: 6 })), (json) => {
        const parsed = remindersInput.safeParse(json);
        const list = parsed.success ? parsed.data : null;
        const byOffset = (a: { offsetMinutes: number }, b: { offsetMinutes: number }) =>
          b.offsetMinutes - a.offsetMinutes;
        expect([...companyReminders(json)].sort(byOffset)).toEqual([...(list ?? DEFAULT_REMINDERS)].sort(byOffset));
        const own = serviceReminders(json);
        if (json === null || json === undefined || !list) expect(own).toBeNull();
        else expect([...own!].sort(byOffset)).toEqual([...list].sort(byOffset));
      }),
      { numRuns: 500 },
    );
  });
});
