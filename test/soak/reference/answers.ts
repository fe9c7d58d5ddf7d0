// The reference model's answers: what GET /availability, GET /availability/explain, POST
// /bookings and reschedule must answer over a world (docs/api.md, Availability, Bookings, Slots),
// and which bookings a closure or a date override would be refused over (409 CONFLICT).
import { DateTime } from 'luxon';
import { inside, rulesOf, schedule, type Iv } from './hours.js';
import { MINUTE, type Emp, type Range, type Svc, type World } from './rows.js';
import { assess, employeeReasons, timeReasons, type Policy, type Reason, type Reasons } from './rule.js';

const iso = (t: number) => new Date(t).toISOString();

export type Expected<T> = { status: 200; data: T } | { status: number; code: string; path?: string };

export interface Explanation extends Reasons {
  available: boolean;
  employeeIds: string[];
}

/** GET /availability/explain?serviceId=&startTime=[&employeeId=]. */
export function explain(
  w: World,
  q: { serviceId: string; start: number; employeeId?: string },
  now: number,
): Expected<Explanation> {
  const svc = w.services.get(q.serviceId);
  if (!svc) return { status: 404, code: 'NOT_FOUND' };
  const emp = q.employeeId === undefined ? undefined : w.employees.get(q.employeeId);
  if (q.employeeId !== undefined && !emp) return { status: 404, code: 'NOT_FOUND' };
  const refused = (r: Reason): Expected<Explanation> => ({
    status: 200,
    // Beside a deactivated service or an employee who cannot take it at all, whether the
    // time's own reasons are given too, the docs do not say: any further reason is accepted.
    data: { available: false, employeeIds: [], reasons: [r], optional: [], open: true },
  });
  if (!svc.active) return refused({ code: 'SERVICE_INACTIVE' });
  if (emp && !svc.employeeIds.includes(emp.id)) return refused({ code: 'NOT_QUALIFIED', employeeId: emp.id });
  if (emp && !emp.active) return refused({ code: 'NOT_QUALIFIED', employeeId: emp.id });
  const policy: Policy = { now, rules: rulesOf(w, svc), skipRules: false };
  const a = assess(w, svc, emp ? [emp.id] : svc.employeeIds, q.start, policy);
  return { status: 200, data: { available: a.employeeIds.length > 0, ...a } };
}

export interface Slot {
  startTime: string;
  endTime: string;
  employeeIds: string[];
}

/** GET /availability?serviceId=&from=&to=[&employeeId=] (an appointment service). */
export function availability(
  w: World,
  q: { serviceId: string; from: number; to: number; employeeId?: string },
  now: number,
): Expected<{ slots: Slot[] }> {
  const svc = w.services.get(q.serviceId);
  if (!svc) return { status: 404, code: 'NOT_FOUND' };
  if (q.employeeId !== undefined) {
    if (!w.employees.has(q.employeeId)) return { status: 404, code: 'NOT_FOUND' };
    if (!svc.employeeIds.includes(q.employeeId)) return { status: 400, code: 'VALIDATION_ERROR', path: 'employeeId' };
  }
  // "Slots start after now and before `to`", from `from` on; a deactivated service offers none.
  const from = Math.max(q.from, now);
  if (!svc.active || from >= q.to) return { status: 200, data: { slots: [] } };
  const policy: Policy = { now, rules: rulesOf(w, svc), skipRules: false };
  const step = (policy.rules.slotIntervalMinutes ?? 15) * MINUTE;
  const staff = (q.employeeId !== undefined ? [q.employeeId] : svc.employeeIds)
    .map((id) => w.employees.get(id))
    .filter((e): e is Emp => !!e && e.active);
  const free = new Map<number, string[]>();
  for (const e of staff) {
    const s = schedule(w, e, from, q.to);
    // "A start every 15 minutes (or slotIntervalMinutes) from the start of each working interval."
    for (const [gs, ge] of s.intervals) {
      for (let start = gs; start < ge && start < q.to; start += step) {
        if (start < from) continue;
        if (timeReasons(start, policy).length > 0) continue;
        const own = employeeReasons(w, s, svc, start, policy);
        if (own.reasons.length > 0) continue;
        free.set(start, [...(free.get(start) ?? []), e.id]);
      }
    }
  }
  const slots = [...free.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([start, ids]) => ({
      startTime: iso(start),
      endTime: iso(start + svc.durationMinutes * MINUTE),
      employeeIds: [...ids].sort(),
    }));
  return { status: 200, data: { slots } };
}

/** What POST /bookings (or a reschedule) must do: book one of `employeeIds`, or refuse. */
export type Outcome =
  | { kind: 'booked'; employeeIds: string[] }
  | ({ kind: 'refused' } & Reasons)
  | { kind: 'error'; status: number; code: string; path?: string };
const error = (status: number, code: string, path?: string): Outcome => ({
  kind: 'error',
  status,
  code,
  ...(path ? { path } : {}),
});

/** POST /bookings of an appointment service (the parts the soak sends: a valid body). */
export function book(
  w: World,
  q: { serviceId: string; start: number; employeeId?: string; customerId?: string; skipRules: boolean },
  now: number,
): Outcome {
  const svc = w.services.get(q.serviceId);
  if (!svc) return error(404, 'NOT_FOUND');
  if (!svc.active) return error(400, 'VALIDATION_ERROR', 'serviceId');
  if (q.customerId !== undefined && !w.customers.includes(q.customerId)) return error(404, 'NOT_FOUND');
  return appoint(w, svc, q, now);
}

/** POST /bookings/{id}/reschedule (by the business). */
export function reschedule(
  w: World,
  q: { bookingId: string; start: number; employeeId?: string; skipRules: boolean },
  now: number,
): Outcome {
  const b = w.bookings.find((x) => x.id === q.bookingId);
  if (!b) return error(404, 'NOT_FOUND');
  if (b.status !== 'confirmed') return error(409, 'INVALID_STATE_TRANSITION');
  const svc = w.services.get(b.serviceId)!;
  const out = appoint(w, svc, q, now, b.id);
  // "Without employeeId the current employee is kept when free."
  if (out.kind === 'booked' && q.employeeId === undefined && out.employeeIds.includes(b.employeeId))
    return { kind: 'booked', employeeIds: [b.employeeId] };
  return out;
}

function appoint(
  w: World,
  svc: Svc,
  q: { start: number; employeeId?: string; skipRules: boolean },
  now: number,
  ignore?: string,
): Outcome {
  if (q.start <= now) return error(400, 'VALIDATION_ERROR', 'startTime');
  if (q.employeeId !== undefined) {
    const e = w.employees.get(q.employeeId);
    if (!e) return error(404, 'NOT_FOUND');
    if (!svc.employeeIds.includes(e.id) || !e.active) return error(400, 'VALIDATION_ERROR', 'employeeId');
  }
  const policy: Policy = { now, rules: rulesOf(w, svc), skipRules: q.skipRules };
  const a = assess(w, svc, q.employeeId !== undefined ? [q.employeeId] : svc.employeeIds, q.start, policy, { ignore });
  if (a.employeeIds.length === 0) return { kind: 'refused', reasons: a.reasons, optional: a.optional, open: a.open };
  return { kind: 'booked', employeeIds: a.employeeIds };
}

/** POST /closures: the live bookings it would fall on (409 CONFLICT unless cancelBookings). */
export function closureConflicts(w: World, q: { start: number; end: number; employeeIds?: string[] }): string[] {
  return w.bookings
    .filter(
      (b) =>
        (b.status === 'pending' || b.status === 'confirmed') &&
        b.start < q.end &&
        q.start < b.end &&
        (q.employeeIds === undefined || q.employeeIds.includes(b.employeeId)),
    )
    .map((b) => b.id)
    .sort();
}

/**
 * PUT or DELETE of a date override: the live bookings "of that day" (overlapping the local day)
 * the change would leave outside the employee's hours (409 CONFLICT, details.bookingIds).
 */
export function overrideConflicts(
  w: World,
  q: { employeeId: string; date: string; intervals: Range[] | null },
): string[] {
  const emp = w.employees.get(q.employeeId)!;
  const day = DateTime.fromISO(q.date, { zone: w.zone }).startOf('day');
  const span: Iv = [day.toMillis(), day.plus({ days: 1 }).startOf('day').toMillis()];
  const s = schedule(w, emp, span[0], span[1] - 1, { override: { date: q.date, intervals: q.intervals } });
  return w.bookings
    .filter(
      (b) =>
        b.employeeId === emp.id &&
        (b.status === 'pending' || b.status === 'confirmed') &&
        b.start < span[1] &&
        span[0] < b.end &&
        !inside(s.hours, b.start, b.end),
    )
    .map((b) => b.id)
    .sort();
}
