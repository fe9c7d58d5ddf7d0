// Sending reminders (docs/api.md, Reminders): a reminder that fell due while no worker ran is
// sent once the workers start if its appointment is still ahead, else recorded skipped; e-mails
// go into the sandbox log exactly once, in the customer's zone, and webhook reminders become one
// booking.reminder_due event. The reschedule-vs-send and cancel-vs-send races run for real
// (the sender's claim and the use case on two connections at once): never both, never a
// reminder for a cancelled booking. A real `svc worker` process on real Redis, SIGKILLed while
// it sends, leaves the e-mail log with exactly one copy of every reminder once another worker
// has finished.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cancelBooking } from '../../src/schema/bookings/cancel-booking.js';
import { createBooking } from '../../src/schema/bookings/create-booking.js';
import { rescheduleBooking } from '../../src/schema/bookings/reschedule-booking.js';
import { createEmployee } from '../../src/schema/staff/create-employee.js';
import { createService } from '../../src/schema/services/manage-services.js';
import { JOBS } from '../../src/workers/job-catalog.js';
import { startWorkers } from '../../src/workers/runtime.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { ALL_DAY, blankCompany } from '../helpers/domain.js';
import { createAccountWithKeys, unique } from '../helpers/factories.js';
import { FAST_WORKERS, waitFor } from '../helpers/receiver.js';
import { killAllWorkers, spawnWorker } from '../helpers/worker-process.js';

const hasRedis = Boolean(process.env.REDIS_URL) && process.env.TEST_EMBEDDED !== '1';
const MIN = 60_000;

let t: TestApp & { db: { url: string | undefined } };
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;

beforeAll(async () => {
  t = await createTestApp({ env: { ...FAST_WORKERS, RATE_LIMIT_PER_SECOND: '1000000' } });
  w = await createAccountWithKeys(t.dbs);
});
afterEach(() => killAllWorkers());
afterAll(() => t?.close());

/** A sandbox company with the given reminders, an all-day employee and a free service. */
async function world(reminders: Array<{ offsetMinutes: number; channel: 'email' | 'webhook' }>) {
  const { company } = await blankCompany(t.dbs, w, { timezone: 'Europe/Berlin' });
  const db = t.dbs.test.prisma;
  const updated = await db.company.update({ where: { id: company.id }, data: { reminders } });
  const employee = await createEmployee(db, { companyId: company.id, input: { name: 'Ana', workingHours: ALL_DAY } });
  const service = await createService(db, {
    companyId: company.id,
    input: { name: 'Cut', durationMinutes: 30, employeeIds: [employee.id] },
  });
  return { company: updated, employeeId: employee.id, serviceId: service.id };
}

type World = Awaited<ReturnType<typeof world>>;

/**
 * A booking made through the use case as if at `bookedAt` (the use case's clock), starting at
 * `start`: its reminders were planned then, so one due before now is scheduled and overdue.
 */
function book(c: World, start: Date, bookedAt: Date, extra: Record<string, unknown> = {}) {
  return createBooking(t.dbs.test.prisma, {
    company: c.company,
    input: {
      serviceId: c.serviceId,
      employeeId: c.employeeId,
      startTime: start.toISOString(),
      customer: { name: 'Dana Customer', email: `dana-${unique()}@example.com` },
      ...extra,
    },
    now: bookedAt,
  });
}

const rowsOf = (bookingId: string) =>
  t.dbs.test.prisma.notification.findMany({ where: { bookingId }, orderBy: { id: 'asc' } });
const emailsOf = (notificationIds: string[]) =>
  t.dbs.test.prisma.email.findMany({ where: { notificationId: { in: notificationIds } } });

/** The send-reminder job's handler, called as a worker calls it. */
const send = (notificationId: string, version = 0) =>
  JOBS['send-reminder'].handler(
    { services: t.services, enqueue: async () => undefined, signal: new AbortController().signal },
    { mode: 'test', notificationId, version },
  );

describe('due while the workers were down', () => {
  it('sends what is still before its appointment once the workers start, and skips what has started', async () => {
    const c = await world([
      { offsetMinutes: 60, channel: 'email' },
      { offsetMinutes: 45, channel: 'webhook' },
    ]);
    const now = Date.now();
    // Starts in 20 minutes: both reminders fell due while nothing ran (40 and 25 minutes ago).
    const ahead = await book(c, new Date(now + 20 * MIN), new Date(now - 2 * 60 * MIN), {
      customerTimeZone: 'America/New_York',
    });
    // Started 10 minutes ago: its reminders are no use any more.
    const started = await book(c, new Date(now - 10 * MIN), new Date(now - 3 * 60 * MIN));
    expect((await rowsOf(ahead.id)).map((n) => n.status)).toEqual(['scheduled', 'scheduled']);
    expect((await rowsOf(started.id)).map((n) => n.status)).toEqual(['scheduled', 'scheduled']);

    const workers = await startWorkers(t.services);
    try {
      await waitFor(
        async () =>
          (await t.dbs.test.prisma.notification.count({
            where: { bookingId: { in: [ahead.id, started.id] }, status: 'scheduled' },
          })) === 0,
        { what: 'every reminder handled', timeoutMs: 20_000 },
      );
    } finally {
      await workers.stop();
    }
    const sent = await rowsOf(ahead.id);
    expect(sent.map((n) => [n.channel, n.status, n.reason])).toEqual([
      ['email', 'sent', null],
      ['webhook', 'sent', null],
    ]);
    expect(sent.every((n) => n.sentAt && n.sentAt.getTime() >= now)).toBe(true);
    expect((await rowsOf(started.id)).map((n) => [n.status, n.reason, n.sentAt])).toEqual([
      ['skipped', 'appointment_started', null],
      ['skipped', 'appointment_started', null],
    ]);

    // One e-mail, in the sandbox log, in the customer's zone (named), with a Message-ID of its own.
    const [mail, ...more] = await emailsOf(sent.map((n) => n.id));
    expect(more).toEqual([]);
    expect(mail).toMatchObject({ status: 'logged', kind: 'booking_reminder', notificationId: sent[0]!.id });
    expect(mail!.text).toContain('(America/New_York)');
    expect((mail!.headers as Record<string, string>)['Message-ID']).toMatch(new RegExp(`^<rem\\.${sent[0]!.id}@`));
    // One booking.reminder_due event with the booking's fields and the offset.
    const events = await t.dbs.test.prisma.event.findMany({
      where: { type: 'booking.reminder_due', data: { path: ['bookingId'], equals: ahead.id } },
    });
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({
      bookingId: ahead.id,
      startTime: ahead.startTime.toISOString(),
      status: 'confirmed',
      reminderOffsetMinutes: 45,
      notificationId: sent[1]!.id,
    });
    expect(
      await t.dbs.test.prisma.event.count({
        where: { type: 'booking.reminder_due', data: { path: ['bookingId'], equals: started.id } },
      }),
    ).toBe(0);
    // Running a job again (a duplicate, a retry) sends nothing more.
    await send(sent[0]!.id, 0);
    await send(sent[0]!.id, 1);
    expect(await emailsOf(sent.map((n) => n.id))).toHaveLength(1);
  }, 40_000);
});

describe('races', () => {
  const ROUNDS = 25;

  it('a reschedule racing the send: the old reminder is sent or withdrawn, never both, and the new one planned', async () => {
    const c = await world([{ offsetMinutes: 60, channel: 'email' }]);
    const outcomes = { sent: 0, withdrawn: 0 };
    for (let i = 0; i < ROUNDS; i++) {
      const now = Date.now();
      const start = new Date(Math.ceil((now + 30 * MIN) / MIN) * MIN + i * 2 * 60 * MIN);
      const b = await book(c, start, new Date(now - 60 * MIN));
      const [old] = await rowsOf(b.id);
      const moved = new Date(start.getTime() + 3 * 24 * 60 * MIN);
      await Promise.all([
        (async () => {
          await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 12)));
          await send(old!.id);
        })(),
        rescheduleBooking(t.dbs.test.prisma, {
          company: c.company,
          bookingId: b.id,
          input: { startTime: moved.toISOString() },
        }),
      ]);
      const rows = await rowsOf(b.id);
      const first = rows.find((r) => r.id === old!.id)!;
      const mails = await emailsOf(rows.map((r) => r.id));
      if (first.status === 'sent') {
        outcomes.sent++;
        // Sent before the reschedule committed: about the old time.
        expect(mails).toHaveLength(1);
        expect(mails[0]!.notificationId).toBe(old!.id);
      } else {
        outcomes.withdrawn++;
        expect([first.status, first.reason]).toEqual(['cancelled', 'booking_rescheduled']);
        expect(mails).toEqual([]);
      }
      // The new time's reminder is planned either way, and due later.
      const fresh = rows.filter((r) => r.id !== old!.id);
      expect(fresh.map((r) => [r.status, r.dueAt.getTime()])).toEqual([['scheduled', moved.getTime() - 60 * MIN]]);
    }
    expect(outcomes.sent + outcomes.withdrawn).toBe(ROUNDS);
  }, 60_000);

  it('a cancel racing the send: never a reminder for a cancelled booking', async () => {
    const c = await world([{ offsetMinutes: 60, channel: 'email' }]);
    for (let i = 0; i < ROUNDS; i++) {
      const now = Date.now();
      const start = new Date(Math.ceil((now + 30 * MIN) / MIN) * MIN + i * 2 * 60 * MIN);
      const b = await book(c, start, new Date(now - 60 * MIN));
      const [old] = await rowsOf(b.id);
      let cancelCommitted = 0;
      await Promise.all([
        (async () => {
          await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 8)));
          await send(old!.id);
        })(),
        cancelBooking(t.dbs.test.prisma, {
          company: c.company,
          mode: 'test',
          config: t.config,
          bookingId: b.id,
          input: { reason: 'race' },
        }).then(() => (cancelCommitted = Date.now())),
      ]);
      expect(cancelCommitted).toBeGreaterThan(0);
      const [row] = await rowsOf(b.id);
      const mails = await emailsOf([old!.id]);
      if (row!.status === 'sent') {
        // The send committed first: the booking was confirmed when it was sent.
        expect(mails).toHaveLength(1);
        expect(row!.sentAt!.getTime()).toBeLessThanOrEqual(cancelCommitted);
      } else {
        expect([row!.status, row!.reason]).toEqual(['cancelled', 'booking_cancelled']);
        expect(mails).toEqual([]);
      }
      // Whatever the order, nothing more goes out now that it is cancelled.
      await send(old!.id, row!.version);
      expect(await emailsOf([old!.id])).toHaveLength(mails.length);
    }
  }, 60_000);
});

describe.skipIf(!hasRedis)('a real worker process', () => {
  it('SIGKILLed while it sends reminders, then another: every reminder in the e-mail log exactly once', async () => {
    const N = 200;
    // Due 20000 minutes before the start: every booking of the next days is due now.
    const c = await world([{ offsetMinutes: 20_000, channel: 'email' }]);
    const now = Date.now();
    const bookedAt = new Date(now - 14 * 24 * 60 * MIN);
    const first = Math.ceil((now + 60 * MIN) / (60 * MIN)) * 60 * MIN;
    const ids: string[] = [];
    for (let i = 0; i < N; i++) ids.push((await book(c, new Date(first + i * 60 * MIN), bookedAt)).id);
    const rows = await t.dbs.test.prisma.notification.findMany({ where: { bookingId: { in: ids } } });
    expect(rows.map((r) => r.status)).toEqual(rows.map(() => 'scheduled'));
    const env = {
      ...FAST_WORKERS,
      DATABASE_URL: t.db.url!,
      REDIS_URL: t.config.REDIS_URL!,
      REDIS_PREFIX: t.config.REDIS_PREFIX,
      DATA_DIR: '.data',
      // One job at a time, so the kill lands while some are sent and others are not.
      WORKER_CONCURRENCY: '1',
    };
    const sentCount = () => t.dbs.test.prisma.notification.count({ where: { bookingId: { in: ids }, status: 'sent' } });
    const one = await spawnWorker(env);
    await waitFor(async () => (await sentCount()) >= 5, { what: 'the first reminders to go', timeoutMs: 30_000 });
    one.proc.kill('SIGKILL');
    expect(await one.exited).toBeNull();
    const atKill = await sentCount();
    expect(atKill).toBeLessThan(N);
    // Recorded as sent ⇔ in the log, even for the send the kill cut short.
    expect(await t.dbs.test.prisma.email.count({ where: { notificationId: { in: rows.map((r) => r.id) } } })).toBe(
      atKill,
    );

    const two = await spawnWorker({ ...env, WORKER_CONCURRENCY: '8' });
    await waitFor(async () => (await sentCount()) === N, { what: 'every reminder sent', timeoutMs: 60_000 });
    two.proc.kill('SIGTERM');
    expect(await two.exited).toBe(0);
    const mails = await t.dbs.test.prisma.email.findMany({
      where: { notificationId: { in: rows.map((r) => r.id) } },
      select: { notificationId: true, status: true, kind: true },
    });
    expect(mails).toHaveLength(N);
    expect(new Set(mails.map((m) => m.notificationId))).toEqual(new Set(rows.map((r) => r.id)));
    expect(new Set(mails.map((m) => `${m.status}/${m.kind}`))).toEqual(new Set(['logged/booking_reminder']));
  }, 120_000);
});
