// Commands on bookings: POST /bookings (with skipRules, refused or not), several at once for one
// time, reschedules and cancels, each answer compared with the reference model's outcome.
import { Mismatch, outcomeDiffers, reasonsIn } from '../checker.js';
import { book, reschedule } from '../reference/answers.js';
import { MARKUP, showTime, type TimeSpec } from '../specs.js';
import { brief, expectError, okData, type Answer, type Co } from '../world.js';
import {
  customerOf,
  iso,
  nth,
  outcomeName,
  recordBooking,
  resolveTime,
  Step,
  told,
  type CoModel,
  type Real,
} from './step.js';

export class Book extends Step {
  readonly name = 'book';
  constructor(
    c: number,
    probe: number,
    readonly service: number,
    readonly time: TimeSpec,
    readonly employee: number | null,
    readonly skipRules: boolean,
    readonly customer: number | null,
    readonly markup: boolean,
  ) {
    super(c, probe);
  }
  protected override applies(cm: CoModel) {
    return cm.services.length > 0;
  }
  protected async act(cm: CoModel, co: Co, r: Real) {
    const { checker, api } = r.server;
    const w = await checker.world(co);
    const serviceId = nth(cm.services, this.service);
    const start = await resolveTime(r, co, w, this.time, serviceId);
    const employeeId =
      this.employee === null || cm.employees.length === 0 ? undefined : nth(cm.employees, this.employee);
    const who = customerOf(cm, co, this.customer, this.markup);
    const notes = this.markup ? MARKUP[this.probe % MARKUP.length] : undefined;
    const a = await api.call(co, 'POST', '/api/v1/bookings', {
      serviceId,
      startTime: iso(start),
      ...(employeeId ? { employeeId } : {}),
      ...who,
      ...(this.skipRules ? { skipRules: true } : {}),
      ...(notes ? { notes } : {}),
    });
    const q = { serviceId, start, employeeId, customerId: who.customerId, skipRules: this.skipRules };
    checker.outcome(co, w, `at ${iso(start)}`, a, (now) => book(w, q, now), {
      start,
      durationMinutes: w.services.get(serviceId)!.durationMinutes,
    });
    if (a.status === 200 && notes !== undefined && a.body.data.notes !== notes)
      throw new Mismatch(`notes came back as ${JSON.stringify(a.body.data.notes)}`);
    checker.stats.outcome(`book-${outcomeName(a)}${this.skipRules ? '-skipRules' : ''}`, told(a));
    recordBooking(cm, r, co, a);
  }
  protected args() {
    return (
      `service#${this.service}, ${showTime(this.time)}` +
      (this.employee === null ? '' : `, employee#${this.employee}`) +
      (this.skipRules ? ', skipRules' : '') +
      (this.customer === null ? '' : `, customer#${this.customer}`) +
      (this.markup ? ', markup' : '')
    );
  }
}

/**
 * Several POST /bookings for one time at once (docs/api.md, "No double booking"): as many win as
 * there are free employees the model names (one, when the employee is named), each a different
 * one of them, and the rest are 409 SLOT_UNAVAILABLE. A loser's reasons depend on where it lost
 * (before the employee's lock, under it, or at the exclusion constraint), so only its code is
 * compared; every answer is still compared in full when the time is not free at all.
 */
export class Race extends Step {
  readonly name = 'race';
  constructor(
    c: number,
    probe: number,
    readonly service: number,
    readonly time: TimeSpec,
    readonly n: number,
    readonly employee: number | null,
    readonly skipRules: boolean,
  ) {
    super(c, probe);
  }
  protected override applies(cm: CoModel) {
    return cm.services.length > 0;
  }
  protected async act(cm: CoModel, co: Co, r: Real) {
    const { checker, api } = r.server;
    const w = await checker.world(co);
    const serviceId = nth(cm.services, this.service);
    const start = await resolveTime(r, co, w, this.time, serviceId);
    const employeeId =
      this.employee === null || cm.employees.length === 0 ? undefined : nth(cm.employees, this.employee);
    const bodies = Array.from({ length: this.n }, () => ({
      serviceId,
      startTime: iso(start),
      ...(employeeId ? { employeeId } : {}),
      ...customerOf(cm, co, null, false),
      ...(this.skipRules ? { skipRules: true } : {}),
    }));
    const answers = await Promise.all(bodies.map((b) => api.call(co, 'POST', '/api/v1/bookings', b)));
    const t0 = Math.min(...answers.map((a) => a.t0));
    const t1 = Math.max(...answers.map((a) => a.t1));
    const q = { serviceId, start, employeeId, skipRules: this.skipRules };
    const timing = { start, durationMinutes: w.services.get(serviceId)?.durationMinutes ?? 0 };
    // Refused or invalid, each request is judged alone, at the "now" it was answered at.
    const each = (a: Answer) =>
      checker.nows(w, a, reasonsIn(a)).some((now) => outcomeDiffers(a, book(w, q, now), timing) === null)
        ? null
        : outcomeDiffers(a, book(w, q, a.t0), timing);
    const verdicts = (w.clock !== null ? [w.clock] : [t0, t1]).map((now) => {
      const want = book(w, q, now);
      if (want.kind !== 'booked') return answers.map(each).find((d) => d !== null) ?? null;
      return winnersDiffer(answers, want.employeeIds, employeeId !== undefined);
    });
    checker.stats.comparisons++;
    if (verdicts.every((v) => v !== null))
      throw new Mismatch(`at ${iso(start)}: ${verdicts[0]}\n  answers: ${answers.map(brief).join('\n           ')}`);
    checker.stats.outcome(`race-${answers.filter((a) => a.status === 200).length}-of-${this.n}`);
    for (const a of answers) recordBooking(cm, r, co, a);
  }
  protected args() {
    return (
      `service#${this.service}, ${showTime(this.time)}, ${this.n} at once` +
      (this.employee === null ? '' : `, employee#${this.employee}`) +
      (this.skipRules ? ', skipRules' : '')
    );
  }
}

/** As many winners as free employees (one when named), each a different free one; the rest refused. */
function winnersDiffer(answers: Answer[], free: string[], named: boolean): string | null {
  const winners = answers.filter((a) => a.status === 200).map((a) => a.body.data.employeeId as string);
  const expected = named ? 1 : Math.min(answers.length, free.length);
  if (winners.length !== expected) return `${winners.length} won, expected ${expected} (free: ${JSON.stringify(free)})`;
  if (new Set(winners).size !== winners.length || winners.some((e) => !free.includes(e)))
    return `winners booked ${JSON.stringify(winners)}, free were ${JSON.stringify(free)}`;
  const loser = answers.find(
    (a) => a.status !== 200 && (a.status !== 409 || a.body?.error?.code !== 'SLOT_UNAVAILABLE'),
  );
  return loser ? `a loser answered ${brief(loser)}` : null;
}

export class Reschedule extends Step {
  readonly name = 'reschedule';
  constructor(
    c: number,
    probe: number,
    readonly booking: number,
    readonly time: TimeSpec,
    readonly employee: number | null,
    readonly skipRules: boolean,
  ) {
    super(c, probe);
  }
  protected override applies(cm: CoModel) {
    return cm.bookings.length > 0;
  }
  protected async act(cm: CoModel, co: Co, r: Real) {
    const { checker, api } = r.server;
    const w = await checker.world(co);
    const bookingId = nth(cm.bookings, this.booking);
    const b = w.bookings.find((x) => x.id === bookingId)!;
    const start = await resolveTime(r, co, w, this.time, b.serviceId);
    const employeeId =
      this.employee === null || cm.employees.length === 0 ? undefined : nth(cm.employees, this.employee);
    const a = await api.call(co, 'POST', `/api/v1/bookings/${bookingId}/reschedule`, {
      startTime: iso(start),
      ...(employeeId ? { employeeId } : {}),
      ...(this.skipRules ? { skipRules: true } : {}),
    });
    checker.outcome(
      co,
      w,
      `to ${iso(start)}`,
      a,
      (now) => reschedule(w, { bookingId, start, employeeId, skipRules: this.skipRules }, now),
      {
        start,
        durationMinutes: w.services.get(b.serviceId)!.durationMinutes,
      },
    );
    checker.stats.outcome(`reschedule-${outcomeName(a)}`, told(a));
  }
  protected args() {
    return (
      `booking#${this.booking}, ${showTime(this.time)}` +
      (this.employee === null ? '' : `, employee#${this.employee}`) +
      (this.skipRules ? ', skipRules' : '')
    );
  }
}

export class Cancel extends Step {
  readonly name = 'cancel';
  constructor(
    c: number,
    probe: number,
    readonly booking: number,
  ) {
    super(c, probe);
  }
  protected override applies(cm: CoModel) {
    return cm.bookings.length > 0;
  }
  protected async act(cm: CoModel, co: Co, r: Real) {
    const w = await r.server.checker.world(co);
    const id = nth(cm.bookings, this.booking);
    const b = w.bookings.find((x) => x.id === id)!;
    const a = await r.server.api.call(co, 'POST', `/api/v1/bookings/${id}/cancel`, {});
    if (b.status === 'pending' || b.status === 'confirmed') {
      const data = okData(a, 'the answer');
      if (data.status !== 'cancelled') throw new Mismatch(`${data.status}`);
    } else expectError(a, 409, 'INVALID_STATE_TRANSITION', `of a ${b.status} booking`);
  }
  protected args() {
    return `booking#${this.booking}`;
  }
}
