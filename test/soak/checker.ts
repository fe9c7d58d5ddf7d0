// The comparisons the soak makes after every step: a company's answers of /availability,
// /availability/explain and POST /bookings (and reschedule) against the reference model of
// reference.ts over the rows as committed. For a company on the real time, "now" is whatever the
// server read during the request: the model is asked at the instants just before and just after
// it (and at the instant a MIN_NOTICE or MAX_ADVANCE detail names, when that lies between them),
// and the answer must be the model's at one of them. With a test clock, "now" is the clock's.
import { DateTime } from 'luxon';
import type pg from 'pg';
import {
  availability,
  explain,
  type Expected,
  type Explanation,
  type Outcome,
  type Slot,
} from './reference/answers.js';
import { rulesOf } from './reference/hours.js';
import { DAY, idsOf, MINUTE, readWorld, type World } from './reference/rows.js';
import { reasonsDiffer, type Reason } from './reference/rule.js';
import { brief, unknownId, type Answer, type Api, type Co, type Mode, type Registry } from './world.js';

export class Mismatch extends Error {}

/** Counts for the progress lines and the final report. */
export class Stats {
  commands = new Map<string, number>();
  outcomes = new Map<string, number>();
  comparisons = 0;
  runs = 0;

  command(name: string) {
    this.commands.set(name, (this.commands.get(name) ?? 0) + 1);
  }
  /** The outcome of the step running (for SOAK_TRACE). */
  last: string | null = null;
  outcome(name: string, detail?: string) {
    this.last = detail ? `${name} ${detail}` : name;
    this.outcomes.set(name, (this.outcomes.get(name) ?? 0) + 1);
  }
  get total() {
    return [...this.commands.values()].reduce((a, b) => a + b, 0);
  }
  line(elapsedMs: number, requests: number) {
    const kinds = [...this.commands.entries()].sort().map(([k, n]) => `${k} ${n}`);
    const outs = [...this.outcomes.entries()].sort().map(([k, n]) => `${k} ${n}`);
    return (
      `[soak] ${(elapsedMs / 1000).toFixed(1)} s: ${this.runs} runs, ${this.total} commands, ` +
      `${requests} requests, ${this.comparisons} comparisons\n` +
      `[soak]   commands: ${kinds.join(', ') || '(none)'}\n[soak]   outcomes: ${outs.join(', ') || '(none)'}`
    );
  }
}

/** The reasons of a refusal's details (none for any other answer). */
export const reasonsIn = (a: Answer) => (a.body?.error?.details?.reasons ?? []) as Reason[];

/** A small deterministic generator for the choices a step makes from its `probe` number. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0 || 0x9e3779b9;
  }
  next(): number {
    // xorshift32
    let x = this.s;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.s = x >>> 0;
    return this.s / 0x100000000;
  }
  int(n: number) {
    return Math.floor(this.next() * n);
  }
  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)]!;
  }
}

const iso = (t: number) => new Date(t).toISOString();

export class Checker {
  constructor(
    readonly api: Api,
    readonly pools: Record<Mode, pg.Pool>,
    readonly registry: Registry,
    readonly stats: Stats,
  ) {}

  /** The company's rows now; every id in them is registered as the company's. */
  async world(co: Co): Promise<World> {
    const w = await readWorld(this.pools[co.mode], co.id);
    for (const id of idsOf(w)) this.registry.own(co.id, id);
    return w;
  }

  /** The instants the server may have taken as "now" for this answer. */
  nows(w: World, a: Answer, reasons: Reason[] = []): number[] {
    if (w.clock !== null) return [w.clock];
    const out = [a.t0, a.t1];
    for (const r of reasons) {
      const d = r.details ?? {};
      const rules = d as {
        earliestStart?: string;
        minNoticeMinutes?: number;
        latestStart?: string;
        maxAdvanceDays?: number;
      };
      if (r.code === 'MIN_NOTICE' && rules.earliestStart && typeof rules.minNoticeMinutes === 'number')
        out.push(Date.parse(rules.earliestStart) - rules.minNoticeMinutes * MINUTE);
      if (r.code === 'MAX_ADVANCE' && rules.latestStart && typeof rules.maxAdvanceDays === 'number')
        out.push(Date.parse(rules.latestStart) - rules.maxAdvanceDays * DAY);
    }
    return [...new Set(out.filter((t) => t >= a.t0 && t <= a.t1))];
  }

  /** The answer matches `expected(now)` for one of the possible nows; otherwise a Mismatch naming the difference. */
  private judge<T>(
    co: Co,
    what: string,
    a: Answer,
    nows: number[],
    expected: (now: number) => T,
    differ: (want: T) => string | null,
  ) {
    this.stats.comparisons++;
    const diffs = nows.map((now) => ({ now, diff: differ(expected(now)) }));
    if (diffs.some((d) => d.diff === null)) return;
    throw new Mismatch(
      `${co.label} (${co.mode}, ${co.zone}) ${what}: the answer differs from the reference model ` +
        `(now ${nows.map(iso).join(' or ')})\n  ${diffs[0]!.diff}\n  answer: ${brief(a)}`,
    );
  }

  /** GET /availability for a window, compared; answers the server's slots. */
  async availability(
    co: Co,
    w: World,
    q: { serviceId: string; from: number; to: number; employeeId?: string },
  ): Promise<Slot[]> {
    const path =
      `/api/v1/availability?serviceId=${q.serviceId}&from=${iso(q.from)}&to=${iso(q.to)}` +
      (q.employeeId ? `&employeeId=${q.employeeId}` : '');
    const a = await this.api.call(co, 'GET', path);
    this.judge(
      co,
      `GET ${path}`,
      a,
      this.nows(w, a),
      (now) => availability(w, q, now),
      (want) => this.differs(a, want, slotsDiffer),
    );
    return a.status === 200 ? (a.body.data.slots as Slot[]) : [];
  }

  /** GET /availability/explain for one start, compared. */
  async explain(co: Co, w: World, q: { serviceId: string; start: number; employeeId?: string }) {
    const path =
      `/api/v1/availability/explain?serviceId=${q.serviceId}&startTime=${iso(q.start)}` +
      (q.employeeId ? `&employeeId=${q.employeeId}` : '');
    const a = await this.api.call(co, 'GET', path);
    const reasons = (a.body?.data?.reasons ?? []) as Reason[];
    this.judge(
      co,
      `GET ${path}`,
      a,
      this.nows(w, a, reasons),
      (now) => explain(w, q, now),
      (want) => this.differs(a, want, explanationDiffers),
    );
  }

  /** An answer against an expected status (and data, compared by `same`). */
  differs<T>(a: Answer, want: Expected<T>, same: (got: any, want: T) => string | null): string | null {
    if (want.status === 200) {
      if (a.status !== 200) return `expected 200, got ${a.status}`;
      return same(a.body.data, (want as { data: T }).data);
    }
    return errorDiffers(a, want as { status: number; code: string; path?: string });
  }

  /** POST /bookings or a reschedule, against the model's outcome; answers the booking when one was made. */
  outcome(
    co: Co,
    w: World,
    what: string,
    a: Answer,
    expected: (now: number) => Outcome,
    q: { start: number; durationMinutes: number },
  ) {
    this.judge(co, what, a, this.nows(w, a, reasonsIn(a)), expected, (want) => outcomeDiffers(a, want, q));
    if (a.status === 200) {
      this.registry.own(co.id, a.body.data._id);
      this.registry.own(co.id, a.body.data.customerId);
    }
  }

  /**
   * The comparisons of one company after a step: a window of /availability for one of its
   * services (the cache's windows repeat: local days from today), and /availability/explain at
   * three starts (an offered one, one anywhere in the window, one at an edge of a booking or of
   * the rules).
   */
  async compareCompany(co: Co, rng: Rng) {
    const w = await this.world(co);
    const services = [...w.services.values()];
    if (services.length === 0) {
      const a = await this.api.call(
        co,
        'GET',
        `/api/v1/availability?serviceId=${unknownId()}&from=${iso(Date.now())}&to=${iso(Date.now() + DAY)}`,
      );
      this.judge(
        co,
        'GET /availability of an unknown service',
        a,
        [0],
        () => ({ status: 404, code: 'NOT_FOUND' }),
        (want) => errorDiffers(a, want),
      );
      return;
    }
    const svc = rng.pick(services);
    const now = w.clock ?? Date.now();
    const today = startOfLocalDay(w.zone, now);
    const from = addLocalDays(w.zone, today, rng.pick([-1, 0, 0, 0, 1, 2, 6]));
    const to = addLocalDays(w.zone, from, rng.pick([1, 1, 2, 3, 7]));
    const employees = [...w.employees.keys()];
    const employeeId = employees.length > 0 && rng.int(4) === 0 ? rng.pick(employees) : undefined;
    const slots = await this.availability(co, w, { serviceId: svc.id, from, to, employeeId });
    const starts: number[] = [];
    if (slots.length > 0) starts.push(Date.parse(rng.pick(slots).startTime));
    starts.push(from + rng.int(Math.floor((to - from) / (5 * MINUTE))) * 5 * MINUTE);
    const edges: number[] = [];
    for (const b of w.bookings.filter((x) => x.serviceId === svc.id || rng.int(2) === 0))
      edges.push(b.start, b.end, b.blockEnd, b.blockStart - svc.durationMinutes * MINUTE);
    const rules = rulesOf(w, svc);
    const minute = Math.ceil(now / MINUTE) * MINUTE;
    edges.push(minute + rules.minNoticeMinutes * MINUTE, minute + rules.minNoticeMinutes * MINUTE - MINUTE);
    edges.push(Math.floor((now + rules.maxAdvanceDays * DAY) / MINUTE) * MINUTE);
    starts.push(rng.pick(edges));
    const asks = starts.map((start) => ({
      serviceId: svc.id,
      start,
      employeeId: employees.length > 0 && rng.int(3) === 0 ? rng.pick(employees) : undefined,
    }));
    await Promise.all(asks.map((q) => this.explain(co, w, q)));
  }
}

export function startOfLocalDay(zone: string, at: number): number {
  return DateTimeOf(zone, at).startOf('day').toMillis();
}
export function addLocalDays(zone: string, at: number, days: number): number {
  return DateTimeOf(zone, at).plus({ days }).startOf('day').toMillis();
}
const DateTimeOf = (zone: string, at: number) => DateTime.fromMillis(at, { zone });

function errorDiffers(a: Answer, want: { status: number; code: string; path?: string }): string | null {
  const err = a.body?.error;
  if (a.status !== want.status || err?.code !== want.code)
    return `expected ${want.status} ${want.code}, got ${a.status} ${err?.code ?? ''}`;
  if (
    want.path !== undefined &&
    !(Array.isArray(err.details) && err.details.some((d: { path?: string }) => d.path === want.path))
  )
    return `expected ${want.code} naming ${want.path}, got ${JSON.stringify(err.details)}`;
  return null;
}

function slotsDiffer(got: { slots: Slot[] }, want: { slots: Slot[] }): string | null {
  const norm = (s: Slot[]) =>
    s.map((x) => ({ startTime: x.startTime, endTime: x.endTime, employeeIds: [...x.employeeIds].sort() }));
  const g = norm(got.slots);
  const e = norm(want.slots);
  if (JSON.stringify(g) === JSON.stringify(e)) return null;
  const gs = new Set(g.map((x) => JSON.stringify(x)));
  const es = new Set(e.map((x) => JSON.stringify(x)));
  const extra = g.filter((x) => !es.has(JSON.stringify(x))).slice(0, 5);
  const missing = e.filter((x) => !gs.has(JSON.stringify(x))).slice(0, 5);
  return `slots: ${g.length} answered, ${e.length} expected; not expected ${JSON.stringify(extra)}; missing ${JSON.stringify(missing)}`;
}

function explanationDiffers(got: any, want: Explanation): string | null {
  const keys = Object.keys(got).sort().join(',');
  if (keys !== 'available,employeeIds,reasons') return `fields ${keys}`;
  if (got.available !== want.available)
    return `available ${got.available}, expected ${want.available} (${JSON.stringify(want)})`;
  const ids = [...got.employeeIds].sort();
  if (JSON.stringify(ids) !== JSON.stringify([...want.employeeIds].sort()))
    return `employeeIds ${JSON.stringify(ids)}, expected ${JSON.stringify(want.employeeIds)}`;
  const r = reasonsDiffer(got.reasons, want);
  return r && `reasons ${r}`;
}

export function outcomeDiffers(a: Answer, want: Outcome, q: { start: number; durationMinutes: number }): string | null {
  if (want.kind === 'booked') {
    if (a.status !== 200)
      return `expected a booking with one of ${JSON.stringify(want.employeeIds)}, got ${a.status} ${a.body?.error?.code}`;
    const b = a.body.data;
    if (!want.employeeIds.includes(b.employeeId))
      return `booked ${b.employeeId}, expected one of ${JSON.stringify(want.employeeIds)}`;
    if (
      b.startTime !== iso(q.start) ||
      b.endTime !== iso(q.start + q.durationMinutes * MINUTE) ||
      b.status !== 'confirmed'
    )
      return `booked ${b.startTime}-${b.endTime} ${b.status}, expected ${iso(q.start)} confirmed`;
    return null;
  }
  if (want.kind === 'refused') {
    const err = errorDiffers(a, { status: 409, code: 'SLOT_UNAVAILABLE' });
    if (err) return `${err}; expected reasons ${JSON.stringify(want.reasons)}`;
    const r = reasonsDiffer(a.body.error.details?.reasons ?? [], want);
    return r && `reasons ${r}`;
  }
  return errorDiffers(a, want);
}
