// Commands on staff and their time: employees and their weeks, date overrides (409 CONFLICT over
// bookings they would leave outside the day's hours, as the model says), time off and closures
// (409 CONFLICT over live bookings, or those bookings cancelled with cancelBookings).
import { Mismatch } from '../checker.js';
import { closureConflicts, overrideConflicts } from '../reference/answers.js';
import { localDate } from '../reference/hours.js';
import { MINUTE, type Range, type Week } from '../reference/rows.js';
import { localDayStart, MARKUP, masked, showDay, showTime, showWeek, type TimeSpec } from '../specs.js';
import { expectError, okData, type Answer, type Co } from '../world.js';
import { iso, nth, resolveTime, Step, type CoModel, type Real } from './step.js';

// ---------------------------------------------------------------------------------------------
// Staff, hours, date overrides, time off

export class AddEmployee extends Step {
  readonly name = 'addEmployee';
  constructor(
    c: number,
    probe: number,
    readonly week: Week,
    readonly services: number,
    readonly markup: number | null,
  ) {
    super(c, probe);
  }
  protected async act(cm: CoModel, co: Co, r: Real) {
    const name = this.markup === null ? `Employee ${cm.n++}` : MARKUP[this.markup % MARKUP.length]!;
    const serviceIds = cm.services.length > 0 ? masked(cm.services, this.services) : [];
    const e = okData(
      await r.server.api.call(co, 'POST', '/api/v1/employees', { name, workingHours: this.week, serviceIds }),
      'the answer',
    );
    if (e.name !== name) throw new Mismatch(`the name came back as ${JSON.stringify(e.name)}`);
    r.server.registry.own(co.id, e._id);
    cm.employees.push(e._id);
  }
  protected args() {
    return `${showWeek(this.week)}, services ${this.services.toString(2)}${this.markup === null ? '' : ', markup'}`;
  }
}

export class SetHours extends Step {
  readonly name = 'setHours';
  constructor(
    c: number,
    probe: number,
    readonly pick: number,
    readonly week: Week,
  ) {
    super(c, probe);
  }
  protected override applies(cm: CoModel) {
    return cm.employees.length > 0;
  }
  protected async act(cm: CoModel, co: Co, r: Real) {
    const id = nth(cm.employees, this.pick);
    okData(await r.server.api.call(co, 'PATCH', `/api/v1/employees/${id}`, { workingHours: this.week }), 'the answer');
  }
  protected args() {
    return `employee#${this.pick}, ${showWeek(this.week)}`;
  }
}

export class Deactivate extends Step {
  readonly name = 'deactivate';
  constructor(
    c: number,
    probe: number,
    readonly pick: number,
  ) {
    super(c, probe);
  }
  protected override applies(cm: CoModel) {
    return cm.employees.length > 0;
  }
  protected async act(cm: CoModel, co: Co, r: Real) {
    const e = okData(
      await r.server.api.call(co, 'DELETE', `/api/v1/employees/${nth(cm.employees, this.pick)}`),
      'the answer',
    );
    if (e.active !== false) throw new Mismatch(`still active`);
  }
  protected args() {
    return `employee#${this.pick}`;
  }
}

export class PutOverride extends Step {
  readonly name = 'putOverride';
  constructor(
    c: number,
    probe: number,
    readonly pick: number,
    readonly day: number,
    readonly intervals: Range[],
  ) {
    super(c, probe);
  }
  protected override applies(cm: CoModel) {
    return cm.employees.length > 0;
  }
  protected async act(cm: CoModel, co: Co, r: Real) {
    const w = await r.server.checker.world(co);
    const employeeId = nth(cm.employees, this.pick);
    const date = localDate(w.zone, localDayStart(w, this.day));
    const conflicts = overrideConflicts(w, { employeeId, date, intervals: this.intervals });
    const a = await r.server.api.call(co, 'PUT', `/api/v1/employees/${employeeId}/date-overrides/${date}`, {
      intervals: this.intervals,
    });
    judgeConflict(`on ${date}`, a, conflicts);
    r.server.checker.stats.outcome(conflicts.length > 0 ? 'override-conflict' : 'override-set');
    if (conflicts.length === 0 && !cm.overrides.some(([e, d]) => e === employeeId && d === date))
      cm.overrides.push([employeeId, date]);
  }
  protected args() {
    return `employee#${this.pick}, +${this.day}d, ${showDay(this.intervals)}`;
  }
}

export class DeleteOverride extends Step {
  readonly name = 'deleteOverride';
  constructor(
    c: number,
    probe: number,
    readonly pick: number,
  ) {
    super(c, probe);
  }
  protected override applies(cm: CoModel) {
    return cm.overrides.length > 0;
  }
  protected async act(cm: CoModel, co: Co, r: Real) {
    const w = await r.server.checker.world(co);
    const i = this.pick % cm.overrides.length;
    const [employeeId, date] = cm.overrides[i]!;
    const a = await r.server.api.call(co, 'DELETE', `/api/v1/employees/${employeeId}/date-overrides/${date}`);
    if (!w.overrides.get(employeeId)?.has(date)) {
      expectError(a, 404, 'NOT_FOUND', 'the answer');
      cm.overrides.splice(i, 1);
      return;
    }
    const conflicts = overrideConflicts(w, { employeeId, date, intervals: null });
    judgeConflict(`on ${date}`, a, conflicts);
    if (conflicts.length === 0) cm.overrides.splice(i, 1);
  }
  protected args() {
    return `override#${this.pick}`;
  }
}

/** A write refused 409 CONFLICT naming exactly these bookings, or done when there are none. */
function judgeConflict(what: string, a: Answer, conflicts: string[]) {
  if (conflicts.length === 0) {
    okData(a, what);
    return;
  }
  const err = expectError(a, 409, 'CONFLICT', `${what} (over bookings ${conflicts.join(', ')})`);
  const named = [...(err.details?.bookingIds ?? [])].sort();
  if (JSON.stringify(named) !== JSON.stringify(conflicts))
    throw new Mismatch(`${what}: CONFLICT named ${JSON.stringify(named)}, the model ${JSON.stringify(conflicts)}`);
}

export class AddTimeOff extends Step {
  readonly name = 'addTimeOff';
  constructor(
    c: number,
    probe: number,
    readonly pick: number,
    readonly time: TimeSpec,
    readonly minutes: number,
  ) {
    super(c, probe);
  }
  protected override applies(cm: CoModel) {
    return cm.employees.length > 0;
  }
  protected async act(cm: CoModel, co: Co, r: Real) {
    const w = await r.server.checker.world(co);
    const employeeId = nth(cm.employees, this.pick);
    const start = await resolveTime(r, co, w, this.time, cm.services[0]);
    const t = okData(
      await r.server.api.call(co, 'POST', `/api/v1/employees/${employeeId}/time-off`, {
        startTime: iso(start),
        endTime: iso(start + this.minutes * MINUTE),
        reason: 'soak',
      }),
      'the answer',
    );
    r.server.registry.own(co.id, t._id);
    cm.timeOff.push([employeeId, t._id]);
  }
  protected args() {
    return `employee#${this.pick}, ${showTime(this.time)}, ${this.minutes}m`;
  }
}

export class DeleteTimeOff extends Step {
  readonly name = 'deleteTimeOff';
  constructor(
    c: number,
    probe: number,
    readonly pick: number,
  ) {
    super(c, probe);
  }
  protected override applies(cm: CoModel) {
    return cm.timeOff.length > 0;
  }
  protected async act(cm: CoModel, co: Co, r: Real) {
    const i = this.pick % cm.timeOff.length;
    const [employeeId, id] = cm.timeOff[i]!;
    okData(await r.server.api.call(co, 'DELETE', `/api/v1/employees/${employeeId}/time-off/${id}`), 'the answer');
    cm.timeOff.splice(i, 1);
  }
  protected args() {
    return `timeOff#${this.pick}`;
  }
}

// ---------------------------------------------------------------------------------------------
// Closures

export class AddClosure extends Step {
  readonly name = 'addClosure';
  constructor(
    c: number,
    probe: number,
    readonly time: TimeSpec,
    readonly minutes: number,
    /** null: the whole company. */
    readonly staff: number | null,
    readonly cancelBookings: boolean,
  ) {
    super(c, probe);
  }
  protected async act(cm: CoModel, co: Co, r: Real) {
    const { checker, api } = r.server;
    const w = await checker.world(co);
    const start = await resolveTime(r, co, w, this.time, cm.services[0]);
    const end = start + this.minutes * MINUTE;
    const employeeIds =
      this.staff === null || cm.employees.length === 0 ? undefined : [...masked(cm.employees, this.staff)].sort();
    const conflicts = closureConflicts(w, { start, end, employeeIds });
    const a = await api.call(co, 'POST', '/api/v1/closures', {
      startTime: iso(start),
      endTime: iso(end),
      reason: MARKUP[this.probe % MARKUP.length],
      ...(employeeIds ? { employeeIds } : {}),
      cancelBookings: this.cancelBookings,
    });
    if (conflicts.length > 0 && !this.cancelBookings) {
      judgeConflict('the answer', a, conflicts);
      checker.stats.outcome('closure-conflict');
      return;
    }
    const closure = okData(a, 'the answer');
    r.server.registry.own(co.id, closure._id);
    cm.closures.push(closure._id);
    checker.stats.outcome(conflicts.length > 0 ? 'closure-cancelled' : 'closure');
    // "Those bookings are cancelled with the closure's reason in the same transaction."
    const after = await checker.world(co);
    for (const id of conflicts) {
      const b = after.bookings.find((x) => x.id === id)!;
      if (b.status !== 'cancelled') throw new Mismatch(`booking ${id} under the closure is ${b.status}`);
    }
  }
  protected args() {
    return `${showTime(this.time)}, ${this.minutes}m, ${this.staff === null ? 'company' : `staff ${this.staff.toString(2)}`}${this.cancelBookings ? ', cancelBookings' : ''}`;
  }
}

export class DeleteClosure extends Step {
  readonly name = 'deleteClosure';
  constructor(
    c: number,
    probe: number,
    readonly pick: number,
  ) {
    super(c, probe);
  }
  protected override applies(cm: CoModel) {
    return cm.closures.length > 0;
  }
  protected async act(cm: CoModel, co: Co, r: Real) {
    const i = this.pick % cm.closures.length;
    okData(await r.server.api.call(co, 'DELETE', `/api/v1/closures/${cm.closures[i]}`), 'the answer');
    cm.closures.splice(i, 1);
  }
  protected args() {
    return `closure#${this.pick}`;
  }
}
