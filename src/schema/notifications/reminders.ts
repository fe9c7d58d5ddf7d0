// Reminder settings (docs/api.md, Reminders): the company's list (PATCH /me { reminders }) and a
// service's own list (reminders on services; null inherits the company's). One rule for both,
// here: at most 5 reminders, each 5 minutes to 14 days before the start, by e-mail or webhook,
// no two alike. New companies (and, by the migration, every company that existed before) start
// with one e-mail 24 hours before.
import { z } from 'zod';

export const MIN_OFFSET_MINUTES = 5;
export const MAX_OFFSET_MINUTES = 14 * 24 * 60;
export const MAX_REMINDERS = 5;

export const REMINDER_CHANNELS = ['email', 'webhook'] as const;
export type ReminderChannelName = (typeof REMINDER_CHANNELS)[number];

// A type, not an interface, so a list of them is a JSON value Prisma can store.
export type Reminder = {
  offsetMinutes: number;
  channel: ReminderChannelName;
};

/** What a company without settings of its own gets (the column's default says the same). */
export const DEFAULT_REMINDERS: Reminder[] = [{ offsetMinutes: 1440, channel: 'email' }];

const reminder = z
  .object({
    offsetMinutes: z
      .number({ error: 'must be a number of minutes' })
      .int('must be an integer')
      .min(MIN_OFFSET_MINUTES, `must be at least ${MIN_OFFSET_MINUTES}`)
      .max(MAX_OFFSET_MINUTES, `must be at most ${MAX_OFFSET_MINUTES} (14 days)`),
    channel: z.enum(REMINDER_CHANNELS, { error: 'must be email or webhook' }),
  })
  .strict();

/** A list of reminders as given: the whole list replaces the stored one. */
export const remindersInput = z
  .array(reminder, { error: 'must be a list of { offsetMinutes, channel }' })
  .max(MAX_REMINDERS, `must hold at most ${MAX_REMINDERS} reminders`)
  .superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((r, i) => {
      const key = `${r.channel}:${r.offsetMinutes}`;
      if (seen.has(key))
        ctx.addIssue({ code: 'custom', path: [i, 'offsetMinutes'], message: 'repeats an earlier reminder' });
      seen.add(key);
    });
  });

/** The reminders stored in a JSON column: only a valid list counts (anything else is none). */
function stored(json: unknown): Reminder[] | null {
  // Nothing stored (the company keeps the defaults) is the usual case: no list to parse.
  if (json === null || json === undefined) return null;
  const parsed = remindersInput.safeParse(json);
  return parsed.success ? parsed.data : null;
}

/** A company's reminders as the API shows them, earliest first. */
export function companyReminders(json: unknown): Reminder[] {
  return sorted(stored(json) ?? DEFAULT_REMINDERS);
}

/** A service's own reminders; null when it inherits the company's. */
export function serviceReminders(json: unknown): Reminder[] | null {
  if (json === null || json === undefined) return null;
  const s = stored(json);
  return s ? sorted(s) : null;
}

/** The reminders a booking of the service gets: the service's own, else the company's. */
export function effectiveReminders(companyJson: unknown, serviceJson: unknown): Reminder[] {
  return serviceReminders(serviceJson) ?? companyReminders(companyJson);
}

/** Earliest first (the largest offset), then e-mail before webhook: the order rows are planned in. */
function sorted(list: Reminder[]): Reminder[] {
  return [...list].sort((a, b) => b.offsetMinutes - a.offsetMinutes || a.channel.localeCompare(b.channel));
}
