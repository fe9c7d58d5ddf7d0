// Commands on what is booked and by what rules: services (their timing, staff and booking
// rules), the company's booking rules, and test clocks (sandbox only: 403 FORBIDDEN in live).
import { Mismatch } from '../checker.js';
import { DAY, MINUTE, type Week } from '../reference/rows.js';
import { showRules, showService, showWeek, masked, type RulesPatch, type ServiceSpec } from '../specs.js';
import { brief, expectError, okData, unknownId, type Co } from '../world.js';
import { iso, nth, Step, SLOT_MODES, type CoModel, type Real } from './step.js';

// ---------------------------------------------------------------------------------------------
// Services and booking rules

export class AddService extends Step {
  readonly name = 'addService';
  constructor(
    c: number,
    probe: number,
    readonly spec: ServiceSpec,
  ) {
    super(c, probe);
  }
  protected async act(cm: CoModel, co: Co, r: Real) {
    const s = okData(
      await r.server.api.call(co, 'POST', '/api/v1/services', {
        name: `Service ${cm.n++}`,
        durationMinutes: this.spec.durationMinutes,
        price: 0,
        bufferBeforeMinutes: this.spec.bufferBeforeMinutes,
        bufferAfterMinutes: this.spec.bufferAfterMinutes,
        bookingRules: this.spec.bookingRules,
        employeeIds: cm.employees.length > 0 ? masked(cm.employees, this.spec.staff) : [],
      }),
      'the answer',
    );
    r.server.registry.own(co.id, s._id);
    cm.services.push(s._id);
  }
  protected args() {
    return showService(this.spec);
  }
}

/** A new line of business in one go: an employee with their week, and a service only they perform. */
export class Open extends Step {
  readonly name = 'open';
  constructor(
    c: number,
    probe: number,
    readonly week: Week,
    readonly spec: ServiceSpec,
  ) {
    super(c, probe);
  }
  protected async act(cm: CoModel, co: Co, r: Real) {
    const { api, registry } = r.server;
    const e = okData(
      await api.call(co, 'POST', '/api/v1/employees', { name: `Employee ${cm.n++}`, workingHours: this.week }),
      'the answer',
    );
    registry.own(co.id, e._id);
    cm.employees.push(e._id);
    const s = okData(
      await api.call(co, 'POST', '/api/v1/services', {
        name: `Service ${cm.n++}`,
        durationMinutes: this.spec.durationMinutes,
        price: 0,
        bufferBeforeMinutes: this.spec.bufferBeforeMinutes,
        bufferAfterMinutes: this.spec.bufferAfterMinutes,
        bookingRules: this.spec.bookingRules,
        employeeIds: [e._id],
      }),
      'the answer',
    );
    registry.own(co.id, s._id);
    cm.services.push(s._id);
  }
  protected args() {
    return `${showWeek(this.week)}; ${showService(this.spec)}`;
  }
}

type ServiceChange =
  | { k: 'rules'; rules: RulesPatch }
  | { k: 'timing'; durationMinutes: number; bufferBeforeMinutes: number; bufferAfterMinutes: number }
  | { k: 'staff'; staff: number }
  | { k: 'deactivate' };

export class ChangeService extends Step {
  readonly name = 'changeService';
  constructor(
    c: number,
    probe: number,
    readonly pick: number,
    readonly change: ServiceChange,
  ) {
    super(c, probe);
  }
  protected override applies(cm: CoModel) {
    return cm.services.length > 0;
  }
  protected async act(cm: CoModel, co: Co, r: Real) {
    const id = nth(cm.services, this.pick);
    const ch = this.change;
    const a =
      ch.k === 'deactivate'
        ? await r.server.api.call(co, 'DELETE', `/api/v1/services/${id}`)
        : await r.server.api.call(
            co,
            'PATCH',
            `/api/v1/services/${id}`,
            ch.k === 'rules'
              ? { bookingRules: ch.rules }
              : ch.k === 'staff'
                ? { employeeIds: masked(cm.employees, ch.staff) }
                : {
                    durationMinutes: ch.durationMinutes,
                    bufferBeforeMinutes: ch.bufferBeforeMinutes,
                    bufferAfterMinutes: ch.bufferAfterMinutes,
                  },
          );
    okData(a, 'the answer');
  }
  protected args() {
    const ch = this.change;
    const what =
      ch.k === 'rules'
        ? `rules ${showRules(ch.rules)}`
        : ch.k === 'staff'
          ? `staff ${ch.staff.toString(2)}`
          : ch.k === 'timing'
            ? `${ch.durationMinutes}m buf ${ch.bufferBeforeMinutes}/${ch.bufferAfterMinutes}`
            : 'deactivate';
    return `service#${this.pick}, ${what}`;
  }
}

export class CompanyRules extends Step {
  readonly name = 'companyRules';
  constructor(
    c: number,
    probe: number,
    readonly rules: RulesPatch,
  ) {
    super(c, probe);
  }
  protected async act(_cm: CoModel, co: Co, r: Real) {
    okData(await r.server.api.call(co, 'PATCH', '/api/v1/me', { bookingRules: this.rules }), 'the answer');
  }
  protected args() {
    return showRules(this.rules);
  }
}

// ---------------------------------------------------------------------------------------------
// Test clocks (docs/api.md, "Test clocks (sandbox)"; docs/sandbox.md)

/** Days before each 2027 DST change of the zones in use (US 14 March and 7 November, EU 28 March and 31 October). */
const DST_EVES = ['2027-03-13T15:00:00Z', '2027-03-27T09:30:00Z', '2027-10-30T09:30:00Z', '2027-11-06T15:00:00Z'];

type ClockAction =
  { k: 'attach'; dst: number | null; days: number } | { k: 'advance'; minutes: number } | { k: 'detach' };

export class Clock extends Step {
  readonly name = 'clock';
  constructor(
    c: number,
    probe: number,
    readonly action: ClockAction,
  ) {
    super(c, probe);
  }
  protected override applies(cm: CoModel) {
    return this.action.k === 'attach' || cm.clock !== null || SLOT_MODES[this.c] === 'live';
  }
  protected async act(cm: CoModel, co: Co, r: Real) {
    const { api, checker } = r.server;
    const x = this.action;
    if (co.mode === 'live') {
      // "Only for test companies: a live credential gets 403 FORBIDDEN."
      const a =
        x.k === 'attach'
          ? await api.call(co, 'POST', '/api/v1/test-clocks', { frozenTime: iso(Date.now()) })
          : x.k === 'advance'
            ? await api.call(co, 'POST', `/api/v1/test-clocks/${unknownId()}/advance`, { to: iso(Date.now()) })
            : await api.call(co, 'PATCH', '/api/v1/me', { testClockId: null });
      expectError(a, 403, 'FORBIDDEN', `in live`);
      return;
    }
    if (x.k === 'attach') {
      const frozen =
        x.dst !== null
          ? Date.parse(DST_EVES[x.dst % DST_EVES.length]!)
          : Math.floor(Date.now() / MINUTE) * MINUTE + x.days * DAY;
      const clock = okData(
        await api.call(co, 'POST', '/api/v1/test-clocks', { frozenTime: iso(frozen) }),
        'the answer',
      );
      r.server.registry.own(co.id, clock._id);
      okData(await api.call(co, 'PATCH', '/api/v1/me', { testClockId: clock._id }), `attach`);
      cm.clock = clock._id;
    } else if (x.k === 'advance') {
      const w = await checker.world(co);
      const to = w.clock! + x.minutes * MINUTE;
      const a = await api.call(co, 'POST', `/api/v1/test-clocks/${cm.clock}/advance`, { to: iso(to) });
      // "A to before the clock's time, or more than 90 days after it, is 400 VALIDATION_ERROR naming to."
      if (x.minutes < 0 || x.minutes > 90 * 24 * 60) {
        const err = expectError(a, 400, 'VALIDATION_ERROR', 'the answer');
        if (!err.details?.some((d: { path: string }) => d.path === 'to')) throw new Mismatch(`${brief(a)}`);
      } else if (okData(a, 'the answer').frozenTime !== iso(to)) throw new Mismatch(`${brief(a)}`);
    } else {
      okData(await api.call(co, 'PATCH', '/api/v1/me', { testClockId: null }), 'the answer');
      cm.clock = null;
    }
  }
  protected args() {
    const x = this.action;
    return x.k === 'attach'
      ? `attach ${x.dst !== null ? `DST eve #${x.dst}` : `real ${x.days >= 0 ? '+' : ''}${x.days}d`}`
      : x.k === 'advance'
        ? `advance ${x.minutes}m`
        : 'detach';
  }
}
