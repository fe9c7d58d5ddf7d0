// The operator's words for what the API names in codes (issue 41 §4): statuses, a reminder's
// reason, a payment's kind, a recurrence rule. Operator screens show these; the API and the
// webhooks keep their codes. A code not known here is shown as it is, with its underscores
// as spaces, never as nothing.

const said = (table: Record<string, string>, code: string | null | undefined): string =>
  code ? (Object.hasOwn(table, code) ? table[code]! : code.replace(/_/g, ' ')) : '—';

export const STATUS_LABELS: Record<string, string> = {
  pending: 'Pending',
  confirmed: 'Confirmed',
  completed: 'Completed',
  cancelled: 'Cancelled',
  no_show: 'No-show',
  expired: 'Expired',
  waitlisted: 'Waitlisted',
  offered: 'Offered',
};
export const bookingStatus = (code: string) => said(STATUS_LABELS, code);

export const PAYMENT_STATUS_LABELS: Record<string, string> = {
  processing: 'Processing',
  succeeded: 'Succeeded',
  failed: 'Failed',
  partially_refunded: 'Partly refunded',
  refunded: 'Refunded',
};
export const paymentStatus = (code: string) => said(PAYMENT_STATUS_LABELS, code);

export const KIND_LABELS: Record<string, string> = { full: 'Full', deposit: 'Deposit', balance: 'Balance' };
export const paymentKind = (code: string) => said(KIND_LABELS, code);

const REMINDER: Record<string, string> = {
  scheduled: 'Planned',
  sent: 'Sent',
  failed: 'Failed',
  cancelled: 'Withdrawn',
  skipped: 'Not sent',
};
export const reminderStatus = (code: string) => said(REMINDER, code);

const REASON: Record<string, string> = {
  due_time_passed: 'the time had passed when it was planned',
  appointment_started: 'the appointment had started',
  booking_cancelled: 'the booking was cancelled',
  booking_rescheduled: 'the booking was moved',
  booking_expired: 'the booking expired unpaid',
  booking_completed: 'the booking was completed',
  booking_no_show: 'the customer did not come',
  send_failed: 'sending failed',
};
/** Why a reminder was not sent, in words ("not sent: the time had passed"). */
export const reminderReason = (code: string | null) => (code ? said(REASON, code) : '—');

const DAYS: Record<string, string> = {
  MO: 'Monday',
  TU: 'Tuesday',
  WE: 'Wednesday',
  TH: 'Thursday',
  FR: 'Friday',
  SA: 'Saturday',
  SU: 'Sunday',
};
const UNIT: Record<string, string> = { DAILY: 'day', WEEKLY: 'week', MONTHLY: 'month', YEARLY: 'year' };

/** "a, b and c". */
export const listed = (items: string[]) =>
  items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

/**
 * A recurrence rule of the subset the API accepts for class schedules (FREQ, INTERVAL, BYDAY,
 * COUNT, UNTIL) in words: "Mondays and Wednesdays at 18:00", "every 2 weeks on Fridays at
 * 09:30, 10 times". A rule with any other part is shown as it is.
 */
export function recurrenceText(rrule: string, at?: string): string {
  const parts = new Map(
    rrule
      .replace(/^RRULE:/i, '')
      .split(';')
      .map((p) => p.split('=') as [string, string]),
  );
  const freq = parts.get('FREQ') ?? '';
  const interval = Number(parts.get('INTERVAL') ?? '1');
  const known = [...parts.keys()].every((k) => ['FREQ', 'INTERVAL', 'BYDAY', 'COUNT', 'UNTIL', 'WKST'].includes(k));
  const days = (parts.get('BYDAY') ?? '').split(',').filter(Boolean);
  if (!UNIT[freq] || !known || days.some((d) => !DAYS[d]) || !(interval >= 1)) return rrule;
  const dayWords = listed(days.map((d) => `${DAYS[d]}s`));
  let text =
    interval === 1
      ? days.length
        ? dayWords
        : freq === 'DAILY'
          ? 'Every day'
          : `Every ${UNIT[freq]}`
      : `Every ${interval} ${UNIT[freq]}s${days.length ? ` on ${dayWords}` : ''}`;
  if (at) text += ` at ${at}`;
  const count = parts.get('COUNT');
  const until = parts.get('UNTIL');
  if (count) text += `, ${count} times`;
  if (until && /^\d{8}/.test(until)) text += `, until ${until.slice(0, 4)}-${until.slice(4, 6)}-${until.slice(6, 8)}`;
  return text;
}
