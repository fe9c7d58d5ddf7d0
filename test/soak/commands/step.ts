// What every soak command shares: the fast-check model (the ids each company's commands made, by
// creation order), the real side (the run's companies and the server), and the step itself: act,
// then compare the companies it touched and one it did not with the reference model
// (checker.ts). What the answers must be always comes from the rows (reference/), never from here.
import type fc from 'fast-check';
import { Rng } from '../checker.js';
import type { World } from '../reference/rows.js';
import type { Server } from '../server.js';
import { DAY } from '../reference/rows.js';
import { localDayStart, localTime, MARKUP, plainTime, type TimeSpec } from '../specs.js';
import type { Answer, Co } from '../world.js';

export const SLOTS = ['L0', 'L1', 'T0', 'T1'] as const;
export const SLOT_MODES = ['live', 'live', 'test', 'test'] as const;

/** What the commands know of one company: its records' ids in the order they were made. */
export interface CoModel {
  employees: string[];
  services: string[];
  customers: string[];
  bookings: string[];
  closures: string[];
  /** [employeeId, timeOffId] */
  timeOff: Array<[string, string]>;
  /** [employeeId, date] */
  overrides: Array<[string, string]>;
  clock: string | null;
  n: number;
}
export interface Model {
  cos: CoModel[];
  /** While exploring: no command starts after this instant (the run ends there, passing). */
  stopAt?: number;
}
export const emptyModel = (stopAt?: number): Model => ({
  ...(stopAt !== undefined ? { stopAt } : {}),
  cos: SLOTS.map(() => ({
    employees: [],
    services: [],
    customers: [],
    bookings: [],
    closures: [],
    timeOff: [],
    overrides: [],
    clock: null,
    n: 0,
  })),
});

export interface Real {
  /** This run's companies, by slot. */
  cos: Co[];
  server: Server;
  /** Steps run so far (failures name theirs). */
  steps: number;
  /** Each step as it ends (SOAK_TRACE). */
  trace?: (line: string) => void;
}

export const iso = (t: number) => new Date(t).toISOString();
export const nth = <T>(list: T[], i: number) => list[i % list.length]!;

/** The steps every command shares: count it, act, then compare the companies touched and one untouched. */
export abstract class Step implements fc.AsyncCommand<Model, Real, false> {
  abstract readonly name: string;
  constructor(
    readonly c: number,
    /** The seed of the step's own choices (which windows and starts are compared). */
    readonly probe: number,
  ) {}

  check(m: Model): boolean {
    if (m.stopAt !== undefined && Date.now() > m.stopAt) return false;
    return this.applies(m.cos[this.c]!);
  }
  protected applies(_cm: CoModel): boolean {
    return true;
  }

  async run(m: Model, r: Real): Promise<void> {
    const co = r.cos[this.c]!;
    const step = ++r.steps;
    const stats = r.server.checker.stats;
    stats.command(this.name);
    stats.last = null;
    try {
      const began = Date.now();
      const touched = (await this.act(m.cos[this.c]!, co, r)) ?? [co];
      const acted = Date.now();
      const rng = new Rng(this.probe);
      const others = [...r.cos, ...r.server.canaries].filter((x) => !touched.includes(x));
      for (const x of [...new Set(touched), rng.pick(others)]) await r.server.checker.compareCompany(x, rng);
      const said = stats.last as string | null;
      r.trace?.(
        `[soak]   ${step}. ${this.toString()}${said ? ` -> ${said}` : ''} (${acted - began} + ${Date.now() - acted} ms)`,
      );
    } catch (err) {
      if (err instanceof Error) err.message = `step ${step}, ${this.toString()}: ${err.message}`;
      throw err;
    }
  }

  protected abstract act(cm: CoModel, co: Co, r: Real): Promise<Co[] | void>;
  protected abstract args(): string;

  toString() {
    const a = this.args();
    return `${this.name}(${SLOTS[this.c]}${a ? `, ${a}` : ''})`;
  }
}

// ---------------------------------------------------------------------------------------------
// Bookings

/** The instant a time spec names now; a `slot` asks /availability (compared like any other answer). */
export async function resolveTime(
  r: Real,
  co: Co,
  w: World,
  t: TimeSpec,
  serviceId: string | undefined,
): Promise<number> {
  if (t.k !== 'slot') return plainTime(w, t);
  if (!serviceId || !w.services.has(serviceId)) return localTime(w, t.day, 600);
  const from = localDayStart(w, t.day);
  const slots = await r.server.checker.availability(co, w, { serviceId, from, to: from + 2 * DAY });
  if (slots.length === 0) return localTime(w, t.day, 600);
  return Date.parse(slots[t.pick % slots.length]!.startTime);
}

export const customerOf = (cm: CoModel, co: Co, pick: number | null, markup: boolean) =>
  pick !== null && cm.customers.length > 0
    ? { customerId: nth(cm.customers, pick) }
    : {
        customer: {
          name: markup ? MARKUP[cm.n % MARKUP.length]! : `Customer ${cm.n}`,
          email: `c${cm.n++}-${co.label.toLowerCase()}-${co.id.slice(-6)}@example.com`,
        },
      };

export function recordBooking(cm: CoModel, r: Real, co: Co, a: Answer) {
  if (a.status !== 200) return;
  const b = a.body.data;
  r.server.registry.own(co.id, b._id);
  r.server.registry.own(co.id, b.customerId);
  cm.bookings.push(b._id);
  if (!cm.customers.includes(b.customerId)) cm.customers.push(b.customerId);
}

export const outcomeName = (a: Answer) => (a.status === 200 ? 'ok' : (a.body?.error?.code ?? String(a.status)));
/** What an answer said, for SOAK_TRACE: the employee booked, or the reasons' codes. */
export function told(a: Answer): string {
  if (a.status === 200) return `${a.body.data.employeeId?.slice(-4)} ${a.body.data.startTime}`;
  const details: unknown = a.body?.error?.details?.reasons ?? a.body?.error?.details;
  if (!Array.isArray(details)) return JSON.stringify(details ?? null);
  return details.map((x: { code?: string; path?: string }) => x.code ?? x.path).join(' ');
}
