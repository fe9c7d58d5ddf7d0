// The sample builder (docs/sandbox.md, Sample companies): what a sample company holds beyond its
// seed, so the calendar, overview and reports of the sandbox show a business at work. It is the
// one place the sample companies' activity is made; later work (the booking page, prepaid
// packages) adds a step to SAMPLE_SECTIONS below rather than a builder of its own.
//
// Every booking, payment, cancellation and mark is made by the use case the API runs for that
// verb (createBooking, createPayment and settlePayment, cancelBooking, transitionBooking,
// refundPayment, createCustomer, createClassSession), so holds, counts, waitlist positions,
// events, reminders and e-mails are what a client's requests would have made, and the exclusion
// constraints have their say: a booking the sample wants where the database says no is left out.
//
// The sections, in order:
// - `start`, for every sample company, on the real clock: the template's starting bookings (a
//   visit, a booking series, a full class with people waiting: sample-bookings.ts).
// - `week` (only when the caller passes `week`: restoring the samples, the demo, `svc accounts
//   create`): a week of bookings around today. The company is attached to a test clock set back
//   to the start of the day three days ago; the steps run under it (their use cases read that
//   domain time, so bookings three days ago are still in the future to them); then the clock is
//   advanced to now, which runs what fell due meanwhile (reminders sent, unpaid holds expired),
//   and is deleted, which puts the company back on the real clock.
// - `after`, on the real clock: the front desk's work since (served or missed, paid at the desk,
//   a refund) and a booking still waiting for its payment.
//
// Deterministic given "today": every choice comes from a PRNG seeded with the template and the
// company's local date, never Math.random, so the same day gives the same week (ids aside).
import { DateTime } from 'luxon';
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db } from '../../db/databases.js';
import { isAppError } from '../../errors.js';
import type { Booking, Company } from '../../generated/prisma/client.js';
import { cancelBooking, createBooking, transitionBooking } from '../bookings/index.js';
import { createClassSession } from '../classes/index.js';
import { createCustomer } from '../customers/index.js';
import { createPayment, refundPayment, settlePayment } from '../payments/index.js';
import { advanceTestClock, createTestClock, deleteTestClock } from '../test-clocks/index.js';
import { bookSampleCompany } from './sample-bookings.js';
import { datedSessions, SAMPLE_DATA, WEEKDAYS, type SampleCompanyData } from './sample-data/index.js';
import { SAMPLE_REGULARS } from './sample-data/regulars.js';
import type { SampleTemplate } from './samples.js';

/** What the week's steps need beyond the database: the server's config and logger. */
export interface SampleWeekDeps {
  config: Config;
  logger: Logger;
}

export interface SampleBuildOptions {
  /** "Now" (tests); the real time by default. */
  now?: Date;
  /** Build the week around today too (see above); without it, only the starting bookings. */
  week?: SampleWeekDeps;
}

/** How many days before and after today the week spans (today in the middle). */
export const SAMPLE_WEEK_DAYS_BEFORE = 3;
export const SAMPLE_WEEK_DAYS_AFTER = 3;
/** A test card that succeeds, and one that is declined (src/payments/card-simulator.ts). */
const CARD = { number: '4242424242424242', expMonth: 12, expYear: 2040, cvc: '123' };
const DECLINED = { ...CARD, number: '4000000000000002' };

/** A small seeded PRNG (mulberry32): the same seed, the same sequence. */
export function seededRandom(seed: string): () => number {
  let a = 0;
  for (let i = 0; i < seed.length; i++) a = (Math.imul(a ^ seed.charCodeAt(i), 2654435761) + i) | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** One booking of the week as planned: who, what and when, and what becomes of it. */
interface PlannedBooking {
  serviceId: string;
  employeeId: string;
  customerId: string;
  start: Date;
  end: Date;
  requiresPayment: boolean;
  /** A prepaid one paid with a declined card (its hold lapses), else paid when booking. */
  declined: boolean;
  /** Cancelled by the customer some days ahead. */
  cancelled: boolean;
  /** Left unpaid after the clock: still waiting for its payment (pending). */
  waiting: boolean;
}

export interface SampleContext {
  db: Db;
  /** The company as the use cases take it (re-read when its clock changes). */
  company: Company;
  template: SampleTemplate;
  data: SampleCompanyData;
  /** The real "now" the week is built around. */
  now: Date;
  /** The first instant of the week: local midnight SAMPLE_WEEK_DAYS_BEFORE days ago. */
  weekStart: Date;
  /** The end of the week: local midnight after its last day. */
  weekEnd: Date;
  deps: SampleWeekDeps;
  random: () => number;
  /** The bookings the week made, for the later steps. */
  made: Booking[];
  /** Future prepaid bookings held back to be made unpaid after the clock. */
  waiting: PlannedBooking[];
}

export interface SampleStep {
  name: string;
  run(ctx: SampleContext): Promise<void>;
}

const pick = <T>(random: () => number, list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
/**
 * Runs `fn` over groups that cannot touch each other (the days of the week: a room or an employee
 * is never booked across two days), a few at a time, each group's items one after the other: the
 * outcome is the same as one at a time, in a fraction of the time.
 */
async function byGroup<T>(groups: T[][], fn: (item: T) => Promise<void>, at = 3): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < groups.length) {
      const group = groups[next++]!;
      for (const item of group) await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(at, groups.length) }, lane));
}

/** Items grouped by the company's local day of `at(item)`, in order. */
function byDay<T>(items: T[], zone: string, at: (item: T) => Date): T[][] {
  const days = new Map<string, T[]>();
  for (const item of items) {
    const key = DateTime.fromJSDate(at(item), { zone }).toISODate()!;
    days.set(key, [...(days.get(key) ?? []), item]);
  }
  return [...days.values()];
}

/** A Fisher–Yates shuffle driven by the seeded PRNG. */
function shuffled<T>(random: () => number, list: readonly T[]): T[] {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** A refusal the database or the rules give a sample booking: the sample leaves it out. */
const refused = (err: unknown) =>
  isAppError(err) && (err.code === 'SLOT_UNAVAILABLE' || err.code === 'CONFLICT' || err.code === 'CLASS_FULL');

async function customersOf(ctx: SampleContext) {
  return ctx.db.customer.findMany({
    where: { companyId: ctx.company.id },
    orderBy: { email: 'asc' },
    select: { id: true },
  });
}

async function payNow(ctx: SampleContext, bookingId: string, card = CARD, now?: Date): Promise<void> {
  const payment = await createPayment(ctx.db, {
    companyId: ctx.company.id,
    mode: 'test',
    config: ctx.deps.config,
    input: { bookingId, card },
    ...(now ? { now } : {}),
  });
  await settlePayment({ db: ctx.db, ...ctx.deps }, { mode: 'test', paymentId: payment.id });
}

// ---- The week's steps, under the test clock -------------------------------------------------

/** The company's regulars, as POST /customers makes them (an e-mail already there is kept). */
const regulars: SampleStep = {
  name: 'regulars',
  async run(ctx) {
    const known = new Set(
      (await ctx.db.customer.findMany({ where: { companyId: ctx.company.id }, select: { email: true } })).map(
        (c) => c.email,
      ),
    );
    await Promise.all(
      SAMPLE_REGULARS[ctx.template]
        .filter((person) => !known.has(person.email))
        .map((person) => createCustomer(ctx.db, { companyId: ctx.company.id, input: { ...person } })),
    );
  },
};

/** The timetable's classes of the past days (the seed scheduled from today on), as POST /classes. */
const pastClasses: SampleStep = {
  name: 'past classes',
  async run(ctx) {
    if (ctx.data.timetable.length === 0) return;
    const [services, employees] = await Promise.all([
      ctx.db.service.findMany({
        where: { companyId: ctx.company.id, kind: 'class' },
        select: { id: true, name: true },
      }),
      ctx.db.employee.findMany({ where: { companyId: ctx.company.id }, select: { id: true, name: true } }),
    ]);
    const serviceId = (key: string) =>
      services.find((s) => s.name === ctx.data.services.find((x) => x.key === key)?.name)?.id;
    const employeeId = (key: string) =>
      employees.find((e) => e.name === ctx.data.employees.find((x) => x.key === key)?.name)?.id;
    const sessions = datedSessions({
      timetable: ctx.data.timetable,
      durationMinutes: (key) => ctx.data.services.find((s) => s.key === key)?.durationMinutes ?? 60,
      zone: ctx.company.timezone,
      now: ctx.weekStart,
      days: SAMPLE_WEEK_DAYS_BEFORE + 1,
    }).filter((s) => s.startTime.getTime() <= ctx.now.getTime());
    for (const s of sessions) {
      const service = serviceId(s.slot.service);
      const instructor = employeeId(s.slot.instructor);
      if (!service || !instructor) continue;
      try {
        await createClassSession(ctx.db, {
          companyId: ctx.company.id,
          input: {
            serviceId: service,
            employeeId: instructor,
            startTime: s.startTime.toISOString(),
            capacity: s.slot.capacity,
          },
        });
      } catch (err) {
        if (!refused(err)) throw err;
      }
    }
  },
};

/** At most this many appointments a day per company, and per employee: a steady week, quickly made. */
const APPOINTMENTS_PER_DAY = 6;
const APPOINTMENTS_PER_EMPLOYEE_DAY = 3;

/** The week's appointments: each day, its employees in a drawn order, their hours part filled. */
function planAppointments(ctx: SampleContext, customers: Array<{ id: string }>, ids: Ids): PlannedBooking[] {
  const { random, data } = ctx;
  const zone = ctx.company.timezone;
  const plan: PlannedBooking[] = [];
  const first = DateTime.fromJSDate(ctx.weekStart, { zone });
  for (let d = 0; d <= SAMPLE_WEEK_DAYS_BEFORE + SAMPLE_WEEK_DAYS_AFTER; d++) {
    const date = first.plus({ days: d });
    let today = 0;
    for (const employee of shuffled(random, data.employees)) {
      const services = data.services.filter((s) => s.kind === 'appointment' && s.employees.includes(employee.key));
      if (services.length === 0) continue;
      let booked = 0;
      for (const range of employee.workingHours[WEEKDAYS[date.weekday - 1]!] ?? []) {
        let at = minutesOf(range.start) + pick(random, [0, 0, 30, 60]);
        const end = minutesOf(range.end);
        while (booked < APPOINTMENTS_PER_EMPLOYEE_DAY && today < APPOINTMENTS_PER_DAY) {
          const s = pick(random, services);
          const startMinute = at + s.bufferBeforeMinutes;
          if (startMinute + s.durationMinutes + s.bufferAfterMinutes > end) break;
          const start = date.set({ hour: Math.floor(startMinute / 60), minute: startMinute % 60 });
          if (start.isValid && start.hour * 60 + start.minute === startMinute) {
            const future = start.toMillis() > ctx.now.getTime();
            const r = random();
            plan.push({
              serviceId: ids.service(s.key),
              employeeId: ids.employee(employee.key),
              customerId: pick(random, customers).id,
              start: start.toJSDate(),
              end: start.plus({ minutes: s.durationMinutes }).toJSDate(),
              requiresPayment: s.requiresPayment,
              declined: s.requiresPayment && !future && r < 0.25,
              cancelled: r > 0.88,
              waiting: false,
            });
            booked++;
            today++;
          }
          at = startMinute + s.durationMinutes + s.bufferAfterMinutes + pick(random, [0, 0, 15, 30, 60, 90]);
        }
      }
    }
  }
  // The future prepaid ones are made after the clock: the first that can be made is left unpaid
  // (pending, holding its time for its payment), the others paid as they are made.
  for (const p of plan)
    if (p.requiresPayment && !p.cancelled && p.start.getTime() > ctx.now.getTime()) p.waiting = true;
  return plan;
}

interface Ids {
  service(key: string): string;
  employee(key: string): string;
}

async function idsOf(ctx: SampleContext): Promise<Ids> {
  const [services, employees] = await Promise.all([
    ctx.db.service.findMany({ where: { companyId: ctx.company.id }, select: { id: true, name: true } }),
    ctx.db.employee.findMany({ where: { companyId: ctx.company.id }, select: { id: true, name: true } }),
  ]);
  const find = (rows: Array<{ id: string; name: string }>, name: string | undefined, what: string) => {
    const row = rows.find((r) => r.name === name);
    if (!row) throw new Error(`sample data: no ${what}`);
    return row.id;
  };
  return {
    service: (key) => find(services, ctx.data.services.find((s) => s.key === key)?.name, `service ${key}`),
    employee: (key) => find(employees, ctx.data.employees.find((e) => e.key === key)?.name, `employee ${key}`),
  };
}

/** Books a planned appointment as POST /bookings does (a business's booking: its rules waived). */
async function book(ctx: SampleContext, p: PlannedBooking, now?: Date): Promise<Booking | null> {
  try {
    return await createBooking(ctx.db, {
      company: ctx.company,
      ...(now ? { now } : {}),
      input: {
        serviceId: p.serviceId,
        employeeId: p.employeeId,
        customerId: p.customerId,
        startTime: p.start.toISOString(),
        skipRules: true,
      },
    });
  } catch (err) {
    if (refused(err)) return null;
    throw err;
  }
}

const appointments: SampleStep = {
  name: 'appointments',
  async run(ctx) {
    const plan = planAppointments(ctx, await customersOf(ctx), await idsOf(ctx));
    ctx.waiting.push(...plan.filter((p) => p.waiting));
    const now = plan.filter((p) => !p.waiting);
    await byGroup(
      byDay(now, ctx.company.timezone, (p) => p.start),
      async (p) => {
        const booking = await book(ctx, p);
        if (!booking) return;
        ctx.made.push(booking);
        // Paid up front when the service asks for it (a declined card leaves it to lapse).
        if (p.requiresPayment) await payNow(ctx, booking.id, p.declined ? DECLINED : CARD).catch(ignoreRefusal);
        if (p.cancelled)
          await cancelBooking(ctx.db, {
            company: ctx.company,
            mode: 'test',
            config: ctx.deps.config,
            bookingId: booking.id,
            input: { cancelledBy: 'customer', reason: 'Cannot make it after all', waiveFee: true },
          }).catch(ignoreRefusal);
      },
    );
  },
};

const ignoreRefusal = (err: unknown) => {
  if (!isAppError(err) || err.status >= 500) throw err;
};

/** Places in the week's classes, as POST /bookings with a classId does; a busy few, a quiet few. */
const classPlaces: SampleStep = {
  name: 'class places',
  async run(ctx) {
    const sessions = await ctx.db.classSession.findMany({
      where: {
        companyId: ctx.company.id,
        status: 'scheduled',
        startTime: { gte: ctx.weekStart, lt: ctx.weekEnd },
      },
      orderBy: [{ startTime: 'asc' }, { id: 'asc' }],
    });
    if (sessions.length === 0) return;
    const customers = await customersOf(ctx);
    // The draws first, in order; then the bookings, a day's sessions one after the other.
    const wanted = sessions.map((session, n) => ({
      session,
      people: shuffled(ctx.random, customers).slice(
        0,
        Math.max(0, Math.min(session.capacity - session.bookedCount, 1 + Math.floor(ctx.random() * 3))),
      ),
      // Now and then someone gives their place back a few days ahead.
      giveBack: n % 5 === 2,
    }));
    await byGroup(
      byDay(wanted, ctx.company.timezone, (w) => w.session.startTime),
      async ({ session, people, giveBack }) => {
        let last: Booking | null = null;
        for (const customer of people) {
          try {
            last = await createBooking(ctx.db, {
              company: ctx.company,
              input: { serviceId: session.serviceId, classId: session.id, customerId: customer.id },
            });
            ctx.made.push(last);
          } catch (err) {
            if (!refused(err)) throw err;
          }
        }
        if (last && giveBack)
          await cancelBooking(ctx.db, {
            company: ctx.company,
            mode: 'test',
            config: ctx.deps.config,
            bookingId: last.id,
            input: { cancelledBy: 'customer', reason: 'Something came up', waiveFee: true },
          });
      },
    );
  },
};

// ---- After the clock: the front desk's work ---------------------------------------------------

/**
 * What the front desk marked since: of the bookings that have ended, one in seven missed (no-show)
 * and the others served, most paid at the desk and one in four left on account (unpaid); one
 * paid one refunded after a complaint. Bookings still running or to come stay as they are.
 */
const attendance: SampleStep = {
  name: 'attendance',
  async run(ctx) {
    const now = ctx.now;
    const ended = await ctx.db.booking.findMany({
      where: { id: { in: ctx.made.map((b) => b.id) }, status: 'confirmed', endTime: { lte: now } },
      orderBy: [{ startTime: 'asc' }, { id: 'asc' }],
      include: { payments: { where: { status: 'succeeded' }, select: { id: true } } },
    });
    const paidAtDesk = (i: number, price: number) => price > 0 && i % 4 !== 1;
    const refund = ended.findIndex(
      (b, i) => i >= 2 && i % 7 !== 3 && (b.payments.length > 0 || paidAtDesk(i, b.price)),
    );
    const marks = ended.map((booking, i) => ({ booking, i }));
    await byGroup(
      marks.map((m) => [m]),
      async ({ booking, i }) => {
        const marked = { companyId: ctx.company.id, bookingId: booking.id, now };
        if (i % 7 === 3) {
          await transitionBooking(ctx.db, { ...marked, action: 'no_show' });
          return;
        }
        if (booking.payments.length === 0 && paidAtDesk(i, booking.price)) await payNow(ctx, booking.id, CARD, now);
        await transitionBooking(ctx.db, { ...marked, action: 'complete' });
        if (i !== refund) return;
        const payment = await ctx.db.payment.findFirstOrThrow({
          where: { bookingId: booking.id, status: 'succeeded' },
        });
        await refundPayment(ctx.db, {
          companyId: ctx.company.id,
          mode: 'test',
          config: ctx.deps.config,
          id: payment.id,
        });
      },
    );
  },
};

const waitingForPayment: SampleStep = {
  name: 'waiting for payment',
  async run(ctx) {
    let left = false;
    for (const p of ctx.waiting) {
      const booking = await book(ctx, p, ctx.now);
      if (!booking) continue;
      ctx.made.push(booking);
      if (left) await payNow(ctx, booking.id, CARD, ctx.now).catch(ignoreRefusal);
      left = true;
    }
  },
};

/**
 * The builder's steps, in order, registered here only. `start` runs for every sample company;
 * `week` runs under a test clock set back to the week's start, `after` on the real clock again.
 */
export const SAMPLE_SECTIONS: Readonly<Record<'week' | 'after', readonly SampleStep[]>> = Object.freeze({
  week: Object.freeze([regulars, pastClasses, appointments, classPlaces]),
  after: Object.freeze([attendance, waitingForPayment]),
});

/**
 * Builds a freshly seeded sample company's activity (nothing for a company made from no
 * template). Runs after the seed's transaction has committed: the use cases run their own.
 */
export async function buildSampleCompany(db: Db, company: Company, opts: SampleBuildOptions = {}): Promise<void> {
  const template = company.template as SampleTemplate | null;
  if (!template || !SAMPLE_DATA[template]) return;
  await bookSampleCompany(db, company, { now: opts.now });
  if (!opts.week) return;
  const now = opts.now ?? new Date();
  const zone = company.timezone;
  const today = DateTime.fromJSDate(now, { zone }).startOf('day');
  const weekStart = today.minus({ days: SAMPLE_WEEK_DAYS_BEFORE });
  const clock = await createTestClock(db, {
    companyId: company.id,
    mode: 'test',
    input: { frozenTime: weekStart.toJSDate().toISOString() },
  });
  const attached = await db.company.update({ where: { id: company.id }, data: { testClockId: clock.id } });
  const ctx: SampleContext = {
    db,
    company: attached,
    template,
    data: SAMPLE_DATA[template],
    now,
    weekStart: weekStart.toJSDate(),
    weekEnd: today.plus({ days: SAMPLE_WEEK_DAYS_AFTER + 1 }).toJSDate(),
    // The sample's own declined card is no news for the server's log (a start prints one banner).
    deps: { config: opts.week.config, logger: opts.week.logger.child({}, { level: 'warn' }) },
    random: seededRandom(`${template}:${today.toISODate()}`),
    made: [],
    waiting: [],
  };
  try {
    for (const step of SAMPLE_SECTIONS.week) await step.run(ctx);
    // What fell due between the week's start and now runs, each at its time.
    await advanceTestClock(db, {
      companyId: company.id,
      mode: 'test',
      config: opts.week.config,
      clockId: clock.id,
      input: { to: now.toISOString() },
    });
  } finally {
    // Deleting the clock detaches the company: it is on the real clock again.
    await deleteTestClock(db, { companyId: company.id, mode: 'test', clockId: clock.id });
  }
  ctx.company = await db.company.findUniqueOrThrow({ where: { id: company.id } });
  for (const step of SAMPLE_SECTIONS.after) await step.run(ctx);
}
