// `svc trigger <event>` (docs/cli.md, Sandbox events on your machine): causes one event in a
// test company by doing through the API what a client would do to cause it, so the real event
// flows through the real outbox to webhooks, the events stream and `svc listen`; no payload is
// made up. It books the company's own services and staff at a free time, creating only the
// customer (one per run, so runs never collide). Only when none of them can take it (no active
// unpaid appointment service with a free time in the next weeks, or an event that needs a
// paid service, a webhook reminder or a class of one place) it uses fixtures of its own, named
// "svc trigger fixture" and found again by their metadata (`svcTrigger`): created or
// reactivated for the run and deactivated after it, so they never show in the calendar, in
// availability or on a booking page between runs. The four events that need time to pass (a
// start, a payment hold, a reminder's due time) are caused with a test clock (docs/sandbox.md):
// the company's own clock when it is attached to one, which is advanced; else a clock made for
// the run, attached, advanced, then detached and deleted, so the company is back in real time.
import { randomBytes } from 'node:crypto';
import { AppError } from '../errors.js';
import type { ApiClient, Company } from './api-client.js';
import { OUTBOX_EVENT_TYPES, type OutboxEventType } from '../webhooks/event-types.js';
import { optional, type Values } from './values.js';

const WEEK = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const AROUND_THE_CLOCK = Object.fromEntries(WEEK.map((d) => [d, [{ start: '00:00', end: '24:00' }]]));
/** booking.reminder_due: the fixture service's webhook reminder, this long before the start. */
const REMINDER_MINUTES = 5;
const SUCCEEDS = { number: '4242424242424242', expMonth: 12, expYear: 2099, cvc: '123' };
const DECLINED = { number: '4000000000000002', expMonth: 12, expYear: 2099, cvc: '123' };

interface Record_ {
  _id: string;
  metadata?: Record<string, unknown>;
}
interface Service extends Record_ {
  employeeIds: string[];
  active?: boolean;
  requiresPayment?: boolean;
}

/** Where a booking goes: a service, one of its employees, a start. */
interface Place {
  serviceId: string;
  employeeId: string;
  startTime: string;
}
interface Booking extends Record_ {
  status: string;
  startTime: string;
  holdExpiresAt: string | null;
}
interface Payment extends Record_ {
  status: string;
}

type Fixture = 'employee' | 'appointment' | 'paid' | 'class' | 'reminder';

interface Clock {
  _id: string;
  frozenTime: string;
}

/** What a run made, by name: shown to the user, so they can look the objects up. */
type Made = Record<string, string>;

class Fixtures {
  private employee: Promise<string> | null = null;
  private readonly services = new Map<Fixture, Promise<string>>();
  readonly made: Made = {};
  private readonly run = randomBytes(4).toString('hex');

  constructor(
    readonly api: ApiClient,
    /** The key's company, as GET /me answered when the command started. */
    private readonly company: Company,
  ) {}

  /** The first record of a list whose metadata marks it as this fixture. */
  private async find<T extends Record_>(path: string, fixture: Fixture): Promise<T | null> {
    let cursor: string | null = null;
    for (let pages = 0; pages < 50; pages++) {
      const page: { data: T[]; nextCursor: string | null } = await this.api.page<T>(
        `${path}?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      const found = page.data.find((r) => r.metadata?.svcTrigger === fixture);
      if (found) return found;
      cursor = page.nextCursor;
      if (!cursor) return null;
    }
    return null;
  }

  /** The fixtures this run used, deactivated again by `deactivate()`. */
  private readonly used = new Set<string>();

  employeeId(): Promise<string> {
    this.employee ??= (async () => {
      const found = await this.find<Record_ & { active?: boolean }>('/employees', 'employee');
      if (found) {
        if (found.active === false) await this.api.request('PATCH', `/employees/${found._id}`, { active: true });
        this.used.add(`/employees/${found._id}`);
        return found._id;
      }
      const created = await this.api.request<Record_>('POST', '/employees', {
        name: 'svc trigger fixture',
        workingHours: AROUND_THE_CLOCK,
        metadata: { svcTrigger: 'employee' },
      });
      this.used.add(`/employees/${created._id}`);
      return created._id;
    })();
    return this.employee;
  }

  /** Deactivates the fixtures this run used (DELETE of an employee deactivates it). */
  async deactivate(): Promise<void> {
    for (const path of this.used) {
      if (path.startsWith('/employees/')) await this.api.request('DELETE', path);
      else await this.api.request('PATCH', path, { active: false });
    }
    this.used.clear();
  }

  /**
   * A free time of the company's own active appointment services and staff (not fixtures, not
   * paid unless `paid`), after `after` or the company's now, within the next two weeks; null
   * when none has one.
   */
  async ownPlace(opts: { paid: boolean; after?: string }): Promise<Place | null> {
    const page = await this.api.page<Service>('/services?active=true&kind=appointment&limit=100');
    const services = page.data.filter(
      (s) => s.metadata?.svcTrigger === undefined && (s.requiresPayment === true) === opts.paid,
    );
    const from = opts.after ? new Date(Date.parse(opts.after) + 60_000) : (this.clockTime ?? new Date());
    const to = new Date(from.getTime() + 14 * 86_400_000);
    for (const service of services.slice(0, 10)) {
      const q = new URLSearchParams({ serviceId: service._id, from: from.toISOString(), to: to.toISOString() });
      const { slots } = await this.api.request<{ slots: Array<{ startTime: string; employeeIds: string[] }> }>(
        'GET',
        `/availability?${q}`,
      );
      const slot = slots.find((x) => x.employeeIds.length > 0);
      if (slot) return { serviceId: service._id, employeeId: slot.employeeIds[0]!, startTime: slot.startTime };
    }
    return null;
  }

  serviceId(fixture: Exclude<Fixture, 'employee'>): Promise<string> {
    let id = this.services.get(fixture);
    if (!id) {
      id = (async () => {
        const employeeId = await this.employeeId();
        const found = await this.find<Service>('/services', fixture);
        if (found) {
          // The employee was deleted and made again, or the service was edited: qualify them;
          // deactivated after its last run: active again for this one.
          if (!found.employeeIds.includes(employeeId) || found.active === false)
            await this.api.request('PATCH', `/services/${found._id}`, {
              employeeIds: found.employeeIds.includes(employeeId)
                ? found.employeeIds
                : [...found.employeeIds, employeeId],
              active: true,
            });
          this.used.add(`/services/${found._id}`);
          return found._id;
        }
        const created = await this.api.request<Record_>('POST', '/services', {
          name: `svc trigger fixture: ${fixture === 'paid' ? 'paid appointment' : fixture === 'reminder' ? 'appointment with a webhook reminder' : fixture}`,
          durationMinutes: 30,
          price: 2500,
          kind: fixture === 'class' ? 'class' : 'appointment',
          requiresPayment: fixture === 'paid',
          employeeIds: [employeeId],
          // booking.reminder_due is the webhook channel's reminder.
          ...(fixture === 'reminder' ? { reminders: [{ offsetMinutes: REMINDER_MINUTES, channel: 'webhook' }] } : {}),
          metadata: { svcTrigger: fixture },
        });
        this.used.add(`/services/${created._id}`);
        return created._id;
      })();
      this.services.set(fixture, id);
    }
    return id;
  }

  /**
   * The next free start of the appointment service on the fixture employee, after `after`
   * (default: the company's now, its test clock's time when it has one).
   */
  async nextSlot(after?: string): Promise<string> {
    const [serviceId, employeeId] = await Promise.all([this.serviceId('appointment'), this.employeeId()]);
    const from = after ? new Date(Date.parse(after) + 60_000) : (this.clockTime ?? new Date());
    for (let week = 0; week < 8; week++) {
      const start = new Date(from.getTime() + week * 7 * 86_400_000);
      const to = new Date(start.getTime() + 7 * 86_400_000);
      const q = new URLSearchParams({
        serviceId,
        employeeId,
        from: start.toISOString(),
        to: to.toISOString(),
      });
      const { slots } = await this.api.request<{ slots: Array<{ startTime: string }> }>('GET', `/availability?${q}`);
      const slot = slots.find((s) => !after || Date.parse(s.startTime) > Date.parse(after));
      if (slot) return slot.startTime;
    }
    throw new AppError(
      'SLOT_UNAVAILABLE',
      'the svc trigger employee has no free slot in the next 8 weeks: check its working hours, time off and closures',
    );
  }

  /** Where the last booking went, for a reschedule to the next free time of the same place. */
  place: Place | null = null;

  /**
   * Books a customer of this run: at a free time of the company's own services and staff, or
   * (a webhook reminder, or none free) of the fixture service `fixture`.
   */
  async book(fixture: 'appointment' | 'paid' | 'reminder', after?: string): Promise<Booking> {
    const own = fixture === 'reminder' ? null : await this.ownPlace({ paid: fixture === 'paid', after });
    const [serviceId, employeeId, startTime] = own
      ? [own.serviceId, own.employeeId, own.startTime]
      : await Promise.all([this.serviceId(fixture), this.employeeId(), this.nextSlot(after)]);
    this.place = { serviceId, employeeId, startTime };
    const booking = await this.api.request<Booking>('POST', '/bookings', {
      serviceId,
      employeeId,
      startTime,
      customer: { name: 'svc trigger', email: `trigger+${this.run}@example.com` },
      notes: 'made by svc trigger',
      metadata: { svcTrigger: 'booking' },
    });
    this.made.booking = booking._id;
    return booking;
  }

  /** The next free start of the last booking's service and employee after its start. */
  async nextStartOfPlace(): Promise<string> {
    const p = this.place!;
    const from = new Date(Date.parse(p.startTime) + 60_000);
    const to = new Date(from.getTime() + 14 * 86_400_000);
    const q = new URLSearchParams({
      serviceId: p.serviceId,
      employeeId: p.employeeId,
      from: from.toISOString(),
      to: to.toISOString(),
    });
    const { slots } = await this.api.request<{ slots: Array<{ startTime: string }> }>('GET', `/availability?${q}`);
    if (!slots[0])
      throw new AppError('SLOT_UNAVAILABLE', 'no free time in the two weeks after the booking to move it to');
    return slots[0].startTime;
  }

  /** The company's test clock time while `withClock` runs. */
  clockTime: Date | null = null;

  /**
   * Runs `work` with the company on a test clock: its own, or one made for the run and
   * removed after (the company returns to real time), whatever `work` does.
   */
  async withClock(work: (advance: (to: Date) => Promise<void>) => Promise<void>): Promise<void> {
    let clock: Clock;
    let own = false;
    if (this.company.testClockId) {
      clock = await this.api.request<Clock>('GET', `/test-clocks/${this.company.testClockId}`);
    } else {
      clock = await this.api.request<Clock>('POST', '/test-clocks', { frozenTime: new Date().toISOString() });
      own = true;
      await this.api.request('PATCH', '/me', { testClockId: clock._id });
    }
    this.made.testClock = clock._id;
    this.clockTime = new Date(clock.frozenTime);
    try {
      await work(async (to) => {
        const moved = await this.api.request<Clock>('POST', `/test-clocks/${clock._id}/advance`, {
          to: to.toISOString(),
        });
        this.clockTime = new Date(moved.frozenTime);
      });
    } finally {
      this.clockTime = null;
      if (own) {
        await this.api.request('PATCH', '/me', { testClockId: null });
        await this.api.request('DELETE', `/test-clocks/${clock._id}`);
        delete this.made.testClock;
      }
    }
  }

  /**
   * A class session of one place, taken, with a second customer on its waitlist (the class
   * fixture's waitlist in offer mode): booking.waitlisted. Returns both bookings.
   */
  async fullClass(): Promise<{ first: Booking; waiting: Booking }> {
    const [serviceId, employeeId, startTime] = await Promise.all([
      this.serviceId('class'),
      this.employeeId(),
      this.nextSlot(),
    ]);
    await this.api.request('PATCH', `/services/${serviceId}`, {
      waitlist: { enabled: true, maxSize: 5, offerMode: 'offer', offerMinutes: 30, cutoffMinutes: 0 },
    });
    const session = await this.api.request<Record_>('POST', '/classes', {
      serviceId,
      employeeId,
      startTime,
      capacity: 1,
    });
    this.made.class = session._id;
    const customer = (who: string) => ({ name: 'svc trigger', email: `trigger+${this.run}-${who}@example.com` });
    const first = await this.api.request<Booking>('POST', '/bookings', {
      serviceId,
      classId: session._id,
      customer: customer('first'),
      metadata: { svcTrigger: 'booking' },
    });
    const waiting = await this.api.request<Booking>('POST', '/bookings', {
      serviceId,
      classId: session._id,
      customer: customer('waiting'),
      waitlist: true,
      metadata: { svcTrigger: 'booking' },
    });
    this.made.booking = waiting._id;
    return { first, waiting };
  }

  async pay(card: typeof SUCCEEDS): Promise<Payment> {
    const booking = await this.book('paid');
    const payment = await this.api.request<Payment>('POST', '/payments', { bookingId: booking._id, card });
    this.made.payment = payment._id;
    return payment;
  }

  /** Payments settle in the workers: waits for this one to leave `processing`. */
  async settled(payment: Payment, signal: AbortSignal): Promise<Payment> {
    for (let p = payment; ;) {
      if (p.status !== 'processing') return p;
      await new Promise((resolve) => setTimeout(resolve, 250));
      if (signal.aborted)
        throw new AppError(
          'SERVICE_UNAVAILABLE',
          `payment ${payment._id} is still processing: are the workers running?`,
        );
      p = await this.api.request<Payment>('GET', `/payments/${payment._id}`);
    }
  }
}

type Recipe = (f: Fixtures, signal: AbortSignal) => Promise<void>;

const RECIPES: Record<OutboxEventType, Recipe> = {
  'booking.created': async (f) => {
    await f.book('appointment');
  },
  'booking.confirmed': async (f) => {
    const b = await f.book('paid');
    await f.api.request('POST', `/bookings/${b._id}/confirm`);
  },
  'booking.rescheduled': async (f) => {
    const b = await f.book('appointment');
    await f.api.request('POST', `/bookings/${b._id}/reschedule`, { startTime: await f.nextStartOfPlace() });
  },
  'booking.cancelled': async (f) => {
    const b = await f.book('appointment');
    await f.api.request('POST', `/bookings/${b._id}/cancel`, { reason: 'svc trigger' });
  },
  'booking.updated': async (f) => {
    const b = await f.book('appointment');
    await f.api.request('PATCH', `/bookings/${b._id}`, { notes: 'changed by svc trigger' });
  },
  // A booking whose start has passed by the clock.
  'booking.completed': (f) =>
    f.withClock(async (advance) => {
      const b = await f.book('appointment');
      await advance(new Date(Date.parse(b.startTime) + 60_000));
      await f.api.request('POST', `/bookings/${b._id}/complete`);
    }),
  'booking.no_show': (f) =>
    f.withClock(async (advance) => {
      const b = await f.book('appointment');
      await advance(new Date(Date.parse(b.startTime) + 60_000));
      await f.api.request('POST', `/bookings/${b._id}/no-show`);
    }),
  // An unpaid booking whose hold the clock passes: the advance expires it.
  'booking.expired': (f) =>
    f.withClock(async (advance) => {
      const b = await f.book('paid');
      await advance(new Date(Date.parse(b.holdExpiresAt!) + 1000));
    }),
  // A webhook reminder whose due time the clock passes: the advance sends it. Booked far
  // enough ahead that the reminder is still due when the booking is made.
  'booking.reminder_due': (f) =>
    f.withClock(async (advance) => {
      const b = await f.book(
        'reminder',
        new Date(f.clockTime!.getTime() + (REMINDER_MINUTES + 5) * 60_000).toISOString(),
      );
      await advance(new Date(Date.parse(b.startTime) - REMINDER_MINUTES * 60_000 + 1000));
    }),
  'booking.waitlisted': async (f) => {
    await f.fullClass();
  },
  // The place is freed: the first in line is offered it.
  'booking.offered': async (f) => {
    const { first } = await f.fullClass();
    await f.api.request('POST', `/bookings/${first._id}/cancel`, { reason: 'svc trigger' });
  },
  // An offer the clock passes: the advance lapses it.
  'booking.offer_expired': (f) =>
    f.withClock(async (advance) => {
      const { first, waiting } = await f.fullClass();
      await f.api.request('POST', `/bookings/${first._id}/cancel`, { reason: 'svc trigger' });
      const offered = await f.api.request<Booking & { offerExpiresAt: string }>('GET', `/bookings/${waiting._id}`);
      await advance(new Date(Date.parse(offered.offerExpiresAt) + 1000));
    }),
  'payment.succeeded': async (f, signal) => {
    await f.settled(await f.pay(SUCCEEDS), signal);
  },
  'payment.failed': async (f, signal) => {
    await f.settled(await f.pay(DECLINED), signal);
  },
  'payment.refunded': async (f, signal) => {
    const p = await f.settled(await f.pay(SUCCEEDS), signal);
    await f.api.request('POST', `/payments/${p._id}/refund`, {});
  },
  'payment.updated': async (f) => {
    const p = await f.pay(SUCCEEDS);
    await f.api.request('PATCH', `/payments/${p._id}`, { metadata: { svcTrigger: 'updated' } });
  },
  'customer.created': async (f) => {
    const c = await f.api.request<Record_>('POST', '/customers', {
      name: 'svc trigger',
      email: `trigger+${randomBytes(4).toString('hex')}@example.com`,
    });
    f.made.customer = c._id;
  },
  'customer.updated': async (f) => {
    const c = await f.api.request<Record_>('POST', '/customers', {
      name: 'svc trigger',
      email: `trigger+${randomBytes(4).toString('hex')}@example.com`,
    });
    f.made.customer = c._id;
    await f.api.request('PATCH', `/customers/${c._id}`, { notes: 'changed by svc trigger' });
  },
  'customer.erased': async (f) => {
    const c = await f.api.request<Record_>('POST', '/customers', {
      name: 'svc trigger',
      email: `trigger+${randomBytes(4).toString('hex')}@example.com`,
    });
    f.made.customer = c._id;
    await f.api.request('POST', `/customers/${c._id}/erase`, {});
  },
  'class.cancelled': async (f) => {
    const [serviceId, employeeId, startTime] = await Promise.all([f.serviceId('class'), f.employeeId(), f.nextSlot()]);
    const session = await f.api.request<Record_>('POST', '/classes', {
      serviceId,
      employeeId,
      startTime,
      capacity: 5,
    });
    f.made.class = session._id;
    await f.api.request('POST', `/classes/${session._id}/cancel`, { reason: 'svc trigger' });
  },
};

/** Waiting for a payment to settle gives up after this long. */
const SETTLE_TIMEOUT_MS = 30_000;

/** The event named, checked before anything is sent. */
export function triggerEvent(values: Values): OutboxEventType {
  const event = optional(values, 'event');
  if (!event || !(OUTBOX_EVENT_TYPES as readonly string[]).includes(event))
    throw AppError.validation([
      {
        path: 'event',
        message: `${event ? `${event} is not an event svc trigger causes` : 'is required'}; one of ${OUTBOX_EVENT_TYPES.join(', ')}`,
      },
    ]);
  return event as OutboxEventType;
}

export async function trigger(
  api: ApiClient,
  company: Company,
  event: OutboxEventType,
): Promise<{ event: OutboxEventType; companyId: string; made: Made }> {
  const recipe = RECIPES[event];
  const fixtures = new Fixtures(api, company);
  try {
    await recipe(fixtures, AbortSignal.timeout(SETTLE_TIMEOUT_MS));
  } finally {
    await fixtures.deactivate();
  }
  return { event, companyId: company._id, made: fixtures.made };
}
