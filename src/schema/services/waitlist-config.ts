// A class service's waitlist (docs/api.md, Class waitlists):
// `waitlist: { enabled, maxSize, offerMode: "auto" | "offer", offerMinutes, cutoffMinutes }`,
// stored as one JSON object (services.waitlist) validated by the schema below; null: none.
//   auto:  a freed place goes to the first in line at once (confirmed, or pending when paid for).
//   offer: the first in line is offered the place until offerExpiresAt (offerMinutes later, never
//          past the class's start); unclaimed, the offer lapses and passes to the next in line.
//   cutoffMinutes: no promotion or offer once the class starts within this many minutes; a place
//          freed after that is open to anyone who books it.
import { z } from 'zod';

export const WAITLIST_DEFAULTS = { maxSize: 20, offerMode: 'auto', offerMinutes: 60, cutoffMinutes: 60 } as const;

export const waitlistSchema = z
  .object({
    enabled: z.boolean({ error: 'must be true or false' }),
    maxSize: z
      .number({ error: 'must be an integer' })
      .int('must be an integer')
      .min(1, 'must be at least 1')
      .max(1000, 'must be at most 1000')
      .optional(),
    offerMode: z.enum(['auto', 'offer'], { error: 'must be auto or offer' }).optional(),
    offerMinutes: z
      .number({ error: 'must be an integer' })
      .int('must be an integer')
      .min(1, 'must be at least 1')
      .max(10_080, 'must be at most 10080 (a week)')
      .optional(),
    cutoffMinutes: z
      .number({ error: 'must be an integer' })
      .int('must be an integer')
      .min(0, 'must not be negative')
      .max(10_080, 'must be at most 10080 (a week)')
      .optional(),
  })
  .strict()
  .transform((w) => ({ ...WAITLIST_DEFAULTS, ...w }));

export interface WaitlistConfig {
  enabled: boolean;
  maxSize: number;
  offerMode: 'auto' | 'offer';
  offerMinutes: number;
  cutoffMinutes: number;
}

/** The stored waitlist, defaults filled in; null when there is none (or it is unreadable). */
export function storedWaitlist(json: unknown): WaitlistConfig | null {
  if (json === null || json === undefined) return null;
  const parsed = waitlistSchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}

/** Whether a waitlist is taking new names. */
export const waitlistOpen = (w: WaitlistConfig | null): w is WaitlistConfig => w !== null && w.enabled;
