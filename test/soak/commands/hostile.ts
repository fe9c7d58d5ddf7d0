// Requests with another company's ids (and malformed ones): every id of another company is "not
// found" (docs/api.md, Ids and NOT_FOUND), whatever it names and wherever it is sent.
import { Mismatch } from '../checker.js';
import { book } from '../reference/answers.js';
import { DAY, MINUTE } from '../reference/rows.js';
import { localTime, nowOf } from '../specs.js';
import { brief, expectError, unknownId, type Answer, type Co } from '../world.js';
import { iso, nth, recordBooking, Step, type CoModel, type Real } from './step.js';

// ---------------------------------------------------------------------------------------------
// Another company's ids: every one is "not found" (docs/api.md, Ids and NOT_FOUND).

export const HOSTILE = [
  'foreign-service',
  'foreign-employee',
  'foreign-customer',
  'unknown-service',
  'malformed-id',
  'no-offset',
  'impossible-date',
  'past',
  'foreign-reschedule',
  'foreign-cancel',
  'foreign-explain',
  'foreign-availability',
  'foreign-closure',
  'foreign-time-off',
  'foreign-override',
  'foreign-clock',
] as const;
type HostileKind = (typeof HOSTILE)[number];

export class Hostile extends Step {
  readonly name = 'hostile';
  constructor(
    c: number,
    probe: number,
    readonly kind: HostileKind,
    readonly other: number,
    readonly skipRules: boolean,
  ) {
    super(c, probe);
  }
  protected async act(cm: CoModel, co: Co, r: Real) {
    const { api, checker } = r.server;
    const others = [...r.cos.filter((x) => x !== co), ...r.server.canaries];
    const other = nth(others, this.other);
    const w = await checker.world(co);
    const ow = await checker.world(other);
    const theirs = (list: string[]) => (list.length > 0 ? nth(list, this.probe) : other.id);
    const foreignService = theirs([...ow.services.keys()]);
    const foreignEmployee = theirs([...ow.employees.keys()]);
    const serviceId = cm.services.length > 0 ? nth(cm.services, this.probe) : undefined;
    const start = localTime(w, 2, 600);
    const customer = { customer: { name: 'Hostile', email: `hostile-${cm.n++}-${co.id.slice(-6)}@example.com` } };
    const notFound = (a: Answer) => expectError(a, 404, 'NOT_FOUND', `(${other.label}'s id)`);
    const invalid = (a: Answer, path: string) => {
      const err = expectError(a, 400, 'VALIDATION_ERROR', 'the answer');
      if (!err.details?.some((d: { path: string }) => d.path === path))
        throw new Mismatch(`expected ${path} named, got ${brief(a)}`);
    };
    const post = (body: object) => api.call(co, 'POST', '/api/v1/bookings', body);
    const judged = async (body: { serviceId: string; employeeId?: string; customerId?: string; start: number }) => {
      const a = await post({
        serviceId: body.serviceId,
        startTime: iso(body.start),
        ...(body.employeeId ? { employeeId: body.employeeId } : {}),
        ...(body.customerId ? { customerId: body.customerId } : customer),
        ...(this.skipRules ? { skipRules: true } : {}),
      });
      const svc = w.services.get(body.serviceId);
      checker.outcome(co, w, 'the answer', a, (now) => book(w, { ...body, skipRules: this.skipRules }, now), {
        start: body.start,
        durationMinutes: svc?.durationMinutes ?? 0,
      });
      recordBooking(cm, r, co, a);
    };
    const window = `from=${iso(start)}&to=${iso(start + DAY)}`;
    switch (this.kind) {
      case 'foreign-service':
        await judged({ serviceId: foreignService, start });
        return [co, other];
      case 'unknown-service':
        await judged({ serviceId: unknownId(), start });
        return [co, other];
      case 'foreign-employee':
        await judged({ serviceId: serviceId ?? foreignService, employeeId: foreignEmployee, start });
        return [co, other];
      case 'foreign-customer':
        await judged({ serviceId: serviceId ?? foreignService, customerId: theirs(ow.customers), start });
        return [co, other];
      case 'past':
        await judged({
          serviceId: serviceId ?? foreignService,
          start: Math.floor(nowOf(w) / MINUTE) * MINUTE - 60 * MINUTE,
        });
        return [co, other];
      case 'malformed-id':
        invalid(await post({ serviceId: 'not-an-id', startTime: iso(start), ...customer }), 'serviceId');
        return [co, other];
      case 'no-offset':
        invalid(
          await post({ serviceId: serviceId ?? foreignService, startTime: '2027-05-03T10:00:00', ...customer }),
          'startTime',
        );
        return [co, other];
      case 'impossible-date':
        invalid(
          await post({ serviceId: serviceId ?? foreignService, startTime: '2027-02-30T10:00:00Z', ...customer }),
          'startTime',
        );
        return [co, other];
      case 'foreign-reschedule':
        notFound(
          await api.call(co, 'POST', `/api/v1/bookings/${theirs(ow.bookings.map((b) => b.id))}/reschedule`, {
            startTime: iso(start),
          }),
        );
        return [co, other];
      case 'foreign-cancel':
        notFound(await api.call(co, 'POST', `/api/v1/bookings/${theirs(ow.bookings.map((b) => b.id))}/cancel`, {}));
        return [co, other];
      case 'foreign-explain':
        notFound(
          await api.call(co, 'GET', `/api/v1/availability/explain?serviceId=${foreignService}&startTime=${iso(start)}`),
        );
        if (serviceId)
          notFound(
            await api.call(
              co,
              'GET',
              `/api/v1/availability/explain?serviceId=${serviceId}&startTime=${iso(start)}&employeeId=${foreignEmployee}`,
            ),
          );
        return [co, other];
      case 'foreign-availability':
        notFound(await api.call(co, 'GET', `/api/v1/availability?serviceId=${foreignService}&${window}`));
        if (serviceId)
          notFound(
            await api.call(
              co,
              'GET',
              `/api/v1/availability?serviceId=${serviceId}&${window}&employeeId=${foreignEmployee}`,
            ),
          );
        return [co, other];
      case 'foreign-closure':
        notFound(
          await api.call(co, 'POST', '/api/v1/closures', {
            startTime: iso(start),
            endTime: iso(start + 3_600_000),
            reason: 'hostile',
            employeeIds: [foreignEmployee],
          }),
        );
        return [co, other];
      case 'foreign-time-off':
        notFound(
          await api.call(co, 'POST', `/api/v1/employees/${foreignEmployee}/time-off`, {
            startTime: iso(start),
            endTime: iso(start + 3_600_000),
          }),
        );
        return [co, other];
      case 'foreign-override':
        notFound(
          await api.call(co, 'PUT', `/api/v1/employees/${foreignEmployee}/date-overrides/2027-01-04`, {
            intervals: [{ start: '09:00', end: '10:00' }],
          }),
        );
        return [co, other];
      case 'foreign-clock': {
        const a = await api.call(co, 'PATCH', '/api/v1/me', { testClockId: theirs(ow.clocks) });
        // "Another company's clock is NOT_FOUND, or 400 VALIDATION_ERROR naming testClockId"; live: 403.
        if (co.mode === 'live') expectError(a, 403, 'FORBIDDEN', `in live`);
        else invalid(a, 'testClockId');
        return [co, other];
      }
    }
  }
  protected args() {
    return `${this.kind}, other#${this.other}${this.skipRules ? ', skipRules' : ''}`;
  }
}
