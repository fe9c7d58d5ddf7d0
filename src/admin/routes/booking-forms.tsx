// What the booking pages share (docs/admin.md, Bookings): the status names, a use case's refusal
// said in words (a SLOT_UNAVAILABLE's reasons with the employee's name), and the slot picker of
// the new-booking and reschedule pages: a day chooser (a GET form) and one radio button per free
// start or class session of that day, as the availability use case of GET /api/v1/availability
// lists them.
import { DateTime } from 'luxon';
import type { ComponentChildren } from 'preact';
import type { Company, Employee } from '../../generated/prisma/client.js';
import { isAppError, type AppError } from '../../errors.js';
import { findAvailability } from '../../schema/availability/index.js';
import type { Db } from '../../db/databases.js';
import { describedBy, ErrorText, HintText } from '../components/fields.js';
export { STATUS_LABELS } from '../words.js';

/** A table's header row. */
export const Head = ({ cols }: { cols: string[] }) => (
  <thead>
    <tr>
      {cols.map((c) => (
        <th scope="col">{c}</th>
      ))}
    </tr>
  </thead>
);

/** A use case's refusal of the whole action, in its words (role="alert", at the top of the page). */
export const Refused = ({ message }: { message: string }) => (
  <p class="notice error" role="alert">
    {message}
  </p>
);

type Reason = { code?: string; message?: string; employeeId?: string };

/**
 * A client error (4xx) of a use case in words: the reasons of a SLOT_UNAVAILABLE or CLASS_FULL
 * ("Anna is off at that time"), else its message. Null for anything else (a 5xx is thrown on).
 */
export function refusalWords(err: unknown, employees: Pick<Employee, 'id' | 'name'>[]): string | null {
  if (!isAppError(err) || err.status >= 500) return null;
  const reasons = ((err.details as { reasons?: Reason[] } | undefined)?.reasons ?? []).filter((r) => r.message);
  const sentence = (s: string) => (/[.!?]$/.test(s) ? s : `${s}.`);
  if (reasons.length === 0) return sentence(err.message);
  const named = reasons.map((r) => {
    const name = employees.find((e) => e.id === r.employeeId)?.name;
    return name ? r.message!.replace(/^The employee\b/, name).replace(/\bthe employee's\b/g, `${name}'s`) : r.message!;
  });
  return [...new Set(named)].map(sentence).join(' ');
}

/** A VALIDATION_ERROR's messages keyed by their whole path (customer.email, startTime). */
export function errorsByPath(err: AppError): Record<string, string> {
  const out: Record<string, string> = {};
  const details = Array.isArray(err.details) ? (err.details as Array<{ path?: string; message?: string }>) : [];
  for (const d of details) out[String(d.path ?? '') || '_'] ??= d.message ?? 'is invalid';
  if (Object.keys(out).length === 0) out._ = err.message;
  return out;
}

/** The day a `date` query names (YYYY-MM-DD), or the day of `start`, or today, in the company's zone. */
export function dayOf(zone: string, date: unknown, start?: Date | null): DateTime {
  const given = typeof date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(date) ? DateTime.fromISO(date, { zone }) : null;
  if (given?.isValid) return given.startOf('day');
  if (start) return DateTime.fromJSDate(start).setZone(zone).startOf('day');
  return DateTime.now().setZone(zone).startOf('day');
}

/** An ISO instant of a query or form (any offset), as a Date; null if it is not one. */
export function instantOf(value: unknown): Date | null {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T/.test(value)) return null;
  const d = DateTime.fromISO(value, { setZone: true });
  return d.isValid ? d.toJSDate() : null;
}

export interface DayChoices {
  kind: 'appointment' | 'class';
  /** Free starts (appointment services) with the employees free for each. */
  slots: ReadonlyArray<{ startTime: Date; endTime: Date; employeeIds: readonly string[] }>;
  /** Scheduled sessions (class services) with the places left. */
  sessions: Array<{ classId: string; startTime: Date; endTime: Date; employeeId: string; spotsLeft: number }>;
  /** The availability use case's refusal of the question (an employee who does not do the service). */
  error?: string;
}

/** The free starts or sessions of one day, from the availability use case (GET /api/v1/availability's). */
export async function choicesOfDay(
  db: Db,
  company: Company,
  opts: { serviceId: string; employeeId?: string | null; day: DateTime },
): Promise<DayChoices> {
  try {
    const a = await findAvailability(db, {
      company,
      input: {
        serviceId: opts.serviceId,
        from: opts.day.toUTC().toISO(),
        to: opts.day.plus({ days: 1 }).toUTC().toISO(),
        ...(opts.employeeId ? { employeeId: opts.employeeId } : {}),
      },
    });
    return a.kind === 'appointment'
      ? { kind: 'appointment', slots: a.slots, sessions: [] }
      : { kind: 'class', slots: [], sessions: a.sessions };
  } catch (err) {
    if (!isAppError(err) || err.status >= 500) throw err;
    return { kind: 'appointment', slots: [], sessions: [], error: refusalWords(err, []) ?? err.message };
  }
}

/**
 * The day chooser: a GET form to the same page with the day (and the employee, when `employees`
 * is given), keeping the other query fields as hidden inputs.
 */
export function DayChooser({
  action,
  day,
  keep,
  employees,
  employeeId,
  children,
}: {
  action: string;
  day: DateTime;
  keep: Record<string, string | null | undefined>;
  employees?: Pick<Employee, 'id' | 'name'>[];
  employeeId?: string | null;
  children?: ComponentChildren;
}) {
  return (
    <form method="get" action={action} class="inline" aria-label="Choose the day">
      {Object.entries(keep).map(([k, v]) => (v ? <input type="hidden" name={k} value={v} /> : null))}
      {children}
      <div>
        <label for="f-date">Day</label>
        <br />
        <input id="f-date" name="date" type="date" value={day.toISODate() ?? ''} required />
      </div>
      {employees && (
        <div>
          <label for="f-employee">Staff member</label>
          <br />
          <select id="f-employee" name="employeeId">
            <option value="">Anyone free</option>
            {employees.map((e) => (
              <option value={e.id} selected={e.id === employeeId}>
                {e.name}
              </option>
            ))}
          </select>
        </div>
      )}
      <button type="submit">Show free times</button>
    </form>
  );
}

/**
 * The free times of the day as radio buttons (arrow keys move between them): `startTime` for an
 * appointment service, `classId` for a class service's sessions. `asked` is a start chosen
 * elsewhere (the calendar's free cell) shown checked even when the list does not have it, so the
 * use case's answer, not this page, decides.
 */
export function SlotPicker({
  choices,
  day,
  zone,
  selected,
  asked,
  error,
  employees,
}: {
  choices: DayChoices;
  day: DateTime;
  zone: string;
  selected?: string | null;
  asked?: Date | null;
  error?: string;
  employees: Pick<Employee, 'id' | 'name'>[];
}) {
  const hm = (d: Date) => DateTime.fromJSDate(d).setZone(zone).toFormat('HH:mm');
  const id = 'f-slot';
  const hint = `Times in ${zone}.`;
  const legend = `Time on ${day.toFormat('cccc d LLLL yyyy')}`;
  const nameOf = (employeeId: string) => employees.find((e) => e.id === employeeId)?.name ?? '';
  if (choices.kind === 'class') {
    return (
      <fieldset class="slots" {...describedBy(id, { hint, error })}>
        <legend>{`Class session on ${day.toFormat('cccc d LLLL yyyy')}`}</legend>
        <HintText id={id} hint={hint} />
        {choices.error && <p class="field-error">{choices.error}</p>}
        {choices.sessions.length === 0 && <p class="empty">No sessions on this day.</p>}
        {choices.sessions.map((s, i) => (
          <label>
            <input type="radio" name="classId" value={s.classId} required={i === 0} checked={selected === s.classId} />
            {`${hm(s.startTime)}–${hm(s.endTime)} with ${nameOf(s.employeeId)}, ${s.spotsLeft} ${s.spotsLeft === 1 ? 'place' : 'places'} left`}
          </label>
        ))}
        <ErrorText id={id} error={error} />
      </fieldset>
    );
  }
  const listed = choices.slots.map((s) => s.startTime.toISOString());
  const extra = asked && !listed.includes(asked.toISOString()) ? asked : null;
  const checked = selected ?? asked?.toISOString() ?? null;
  return (
    <fieldset class="slots" {...describedBy(id, { hint, error })}>
      <legend>{legend}</legend>
      <HintText id={id} hint={hint} />
      {choices.error && <p class="field-error">{choices.error}</p>}
      {choices.slots.length === 0 && !extra && <p class="empty">No free times on this day.</p>}
      <div class="slot-grid">
        {extra && (
          <label>
            <input type="radio" name="startTime" value={extra.toISOString()} required checked />
            {`${hm(extra)} (as asked; not a free time in the list)`}
          </label>
        )}
        {choices.slots.map((s, i) => (
          <label>
            <input
              type="radio"
              name="startTime"
              value={s.startTime.toISOString()}
              required={i === 0 && !extra}
              checked={checked === s.startTime.toISOString()}
            />
            {hm(s.startTime)}
          </label>
        ))}
      </div>
      <ErrorText id={id} error={error} />
    </fieldset>
  );
}
