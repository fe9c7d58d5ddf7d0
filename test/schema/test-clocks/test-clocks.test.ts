// Test clocks (docs/sandbox.md, Test clocks): a sandbox company attached to a clock lives in the
// clock's time. A pending booking's hold and a reminder's due time pass when the clock passes
// them (advancing runs them, in order, with their events) and not when the wall clock does
// (the workers' sweeps judge the company by its clock); availability is computed from the
// clock's time. Clocks move forward only, at most 90 days a call, refuse live credentials, are
// deleted by a sandbox wipe, and two advances of one clock run one after the other.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openManageLink } from '../../../src/schema/core/index.js';
import { dueReminders } from '../../../src/schema/notifications/index.js';
import { wipeSandbox } from '../../../src/schema/sandbox/index.js';
import { JOBS } from '../../../src/workers/job-catalog.js';
import type { TestApp } from '../../helpers/app.js';
import { ALL_DAY, blankCompany, createDomainApp, expectError, ok, post, type World } from '../../helpers/domain.js';
import { bearer, createAccountWithKeys, unique } from '../../helpers/factories.js';
import { embedded } from '../../helpers/db.js';
import { waitFor } from '../../helpers/receiver.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

let t: TestApp;
let w: World;

beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
});
afterAll(() => t?.close());

/** A whole minute, so every instant the test names is one the API accepts as given. */
const minute = (ms: number) => new Date(Math.floor(ms / MIN) * MIN);
const iso = (d: Date | number) => new Date(d).toISOString();

/** A blank sandbox company with an all-day employee, a service, its reminders, on a new clock at `frozen`. */
async function clockWorld(frozen: Date, opts: { requiresPayment?: boolean; reminders?: unknown[] } = {}) {
  const { company, auth } = await blankCompany(t.dbs, w, { timezone: 'UTC' });
  const employee = await post(t.app, '/api/v1/employees', auth, { name: 'Ana', workingHours: ALL_DAY });
  const service = await post(t.app, '/api/v1/services', auth, {
    name: 'Cut',
    durationMinutes: 60,
    price: 4500,
    requiresPayment: opts.requiresPayment ?? false,
    employeeIds: [employee._id],
  });
  ok(
    await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/me',
      headers: auth,
      payload: { reminders: opts.reminders ?? [] },
    }),
  );
  const clock = await post(t.app, '/api/v1/test-clocks', auth, { frozenTime: iso(frozen) });
  expect(clock).toEqual({ _id: clock._id, frozenTime: iso(frozen), attached: false, createdAt: clock.createdAt });
  const me = ok(
    await t.app.inject({ method: 'PATCH', url: '/api/v1/me', headers: auth, payload: { testClockId: clock._id } }),
  );
  expect(me.testClockId).toBe(clock._id);
  const book = (startTime: Date) =>
    post(t.app, '/api/v1/bookings', auth, {
      serviceId: service._id,
      employeeId: employee._id,
      startTime: iso(startTime),
      customer: { name: 'Dana Customer', email: `dana-${unique()}@example.com` },
    });
  // Started at once (an inject's request starts when it is awaited).
  const advance = async (to: Date) =>
    t.app.inject({
      method: 'POST',
      url: `/api/v1/test-clocks/${clock._id}/advance`,
      headers: auth,
      payload: { to: iso(to) },
    });
  return { company, auth, clock, employee, service, book, advance };
}

const events = (companyId: string, type: string) =>
  t.dbs.test.prisma.event.findMany({ where: { companyId, type }, orderBy: { createdAt: 'asc' } });

/** The workers' own handlers, called as a worker calls them. */
const jobContext = () => ({
  services: t.services,
  enqueue: async () => undefined,
  signal: new AbortController().signal,
});

describe('a pending booking on a test clock', () => {
  it('expires when the clock passes its hold, not before, and not by the wall clock', async () => {
    // The clock stands an hour behind the wall clock, so the hold (15 minutes) is in the wall
    // clock's past from the start.
    const t0 = minute(Date.now() - HOUR);
    const c = await clockWorld(t0, { requiresPayment: true });
    const booking = await c.book(new Date(t0.getTime() + 2 * DAY));
    expect(booking.status).toBe('pending');
    expect(booking.holdExpiresAt).toBe(iso(t0.getTime() + 15 * MIN));
    const startedAt = Date.now();

    // The workers' expiry sweep runs by the wall clock: this company's hold is not over.
    await JOBS['expire-bookings'].handler(jobContext(), { bucket: 0 });
    const status = async () =>
      (await t.dbs.test.prisma.booking.findUniqueOrThrow({ where: { id: booking._id } })).status;
    expect(await status()).toBe('pending');

    expect(ok(await c.advance(new Date(t0.getTime() + 14 * MIN))).frozenTime).toBe(iso(t0.getTime() + 14 * MIN));
    expect(await status()).toBe('pending');
    expect(await events(c.company.id, 'booking.expired')).toEqual([]);

    const after = ok(await c.advance(new Date(t0.getTime() + 16 * MIN)));
    expect(after).toEqual({ ...c.clock, frozenTime: iso(t0.getTime() + 16 * MIN), attached: true });
    expect(await status()).toBe('expired');
    const expired = await events(c.company.id, 'booking.expired');
    expect(expired).toHaveLength(1);
    // Events keep the real time.
    expect(expired[0]!.createdAt.getTime()).toBeGreaterThanOrEqual(startedAt - 1000);
  });
});

describe('reminders on a test clock', () => {
  it('fire when the clock passes their due time, in order, and not before (the wall clock long past them)', async () => {
    // Ten hours behind the wall clock: the appointment and its reminders are all in the wall
    // clock's past, in the clock's future.
    const t0 = minute(Date.now() - 10 * HOUR);
    const c = await clockWorld(t0, {
      reminders: [
        { offsetMinutes: 60, channel: 'webhook' },
        { offsetMinutes: 30, channel: 'email' },
      ],
    });
    const start = new Date(t0.getTime() + 3 * HOUR);
    const booking = await c.book(start);
    const rows = await t.dbs.test.prisma.notification.findMany({
      where: { bookingId: booking._id },
      orderBy: { dueAt: 'asc' },
    });
    expect(rows.map((r) => [r.channel, r.status])).toEqual([
      ['webhook', 'scheduled'],
      ['email', 'scheduled'],
    ]);
    const ids = rows.map((r) => r.id);

    // The sweep finds nothing due for this company, and a job sent for it finds nothing to send.
    const due = await dueReminders(t.dbs.test.prisma, { now: new Date(), limit: 1000 });
    expect(due.filter((d) => ids.includes(d.id))).toEqual([]);
    for (const r of rows)
      await JOBS['send-reminder'].handler(jobContext(), { mode: 'test', notificationId: r.id, version: r.version });
    const statuses = async () =>
      (await t.dbs.test.prisma.notification.findMany({ where: { id: { in: ids } }, orderBy: { dueAt: 'asc' } })).map(
        (r) => r.status,
      );
    expect(await statuses()).toEqual(['scheduled', 'scheduled']);

    ok(await c.advance(new Date(start.getTime() - 61 * MIN)));
    expect(await statuses()).toEqual(['scheduled', 'scheduled']);
    expect(await events(c.company.id, 'booking.reminder_due')).toEqual([]);

    ok(await c.advance(new Date(start.getTime() - 45 * MIN)));
    expect(await statuses()).toEqual(['sent', 'scheduled']);
    expect(await events(c.company.id, 'booking.reminder_due')).toHaveLength(1);
    expect(await t.dbs.test.prisma.email.count({ where: { notificationId: ids[1] } })).toBe(0);

    ok(await c.advance(new Date(start.getTime() - 10 * MIN)));
    expect(await statuses()).toEqual(['sent', 'sent']);
    const sent = await t.dbs.test.prisma.notification.findMany({
      where: { id: { in: ids } },
      orderBy: { dueAt: 'asc' },
    });
    // Each sent at the clock time it fell due.
    expect(sent.map((n) => n.sentAt?.toISOString())).toEqual(sent.map((n) => n.dueAt.toISOString()));
    const email = await t.dbs.test.prisma.email.findFirstOrThrow({ where: { notificationId: ids[1] } });
    expect(email.kind).toBe('booking_reminder');
    expect(email.status).toBe('logged');
  });
});

describe('availability on a test clock', () => {
  it('is computed from the clock: a start in the wall clock past but the clock future is offered', async () => {
    const t0 = new Date(Math.floor((Date.now() - 10 * DAY) / HOUR) * HOUR);
    const c = await clockWorld(t0);
    const from = new Date(t0.getTime() + DAY);
    const to = new Date(from.getTime() + 4 * HOUR);
    const found = ok(
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/availability?serviceId=${c.service._id}&from=${iso(from)}&to=${iso(to)}`,
        headers: c.auth,
      }),
    );
    expect(found.slots.length).toBeGreaterThan(0);
    expect(found.slots[0].startTime).toBe(iso(from));
    // And it can be booked.
    expect((await c.book(from)).status).toBe('confirmed');

    // Detached, the company is back on the real time: that start is in the past.
    ok(await t.app.inject({ method: 'PATCH', url: '/api/v1/me', headers: c.auth, payload: { testClockId: null } }));
    const real = ok(
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/availability?serviceId=${c.service._id}&from=${iso(from)}&to=${iso(to)}`,
        headers: c.auth,
      }),
    );
    expect(real.slots).toEqual([]);
  });

  it('a month asked again is cut to the clock as it advances (the kept answer and its body follow the cut)', async () => {
    const t0 = new Date(Math.floor((Date.now() - 10 * DAY) / HOUR) * HOUR);
    const c = await clockWorld(t0);
    const from = new Date(t0.getTime() + HOUR);
    const to = new Date(from.getTime() + 6 * HOUR);
    const ask = async () =>
      ok(
        await t.app.inject({
          method: 'GET',
          url: `/api/v1/availability?serviceId=${c.service._id}&from=${iso(from)}&to=${iso(to)}`,
          headers: c.auth,
        }),
      ).slots as Array<{ startTime: string }>;
    const first = await ask();
    expect(first[0]!.startTime).toBe(iso(from));
    expect(await ask()).toEqual(first); // the kept month, answered again
    // Moving the clock writes nothing availability depends on: the month stays kept, its cut moves.
    ok(await c.advance(new Date(t0.getTime() + 3 * HOUR)));
    const later = await ask();
    expect(later[0]!.startTime).toBe(iso(new Date(t0.getTime() + 3 * HOUR + 15 * 60_000)));
    expect(later).toEqual(first.filter((s) => Date.parse(s.startTime) > t0.getTime() + 3 * HOUR));
  });
});

describe('manage links on a test clock', () => {
  it("judge whether the appointment has started by the clock, and count the picker's days from it", async () => {
    const t0 = minute(Date.now() - 10 * HOUR);
    const c = await clockWorld(t0);
    const booking = await c.book(new Date(t0.getTime() + 3 * HOUR));
    const token = String(booking.manageUrl).split('/b/')[1]!;
    const opened = await openManageLink(t.dbs, t.config, token);
    // Its start is seven hours in the real past, three hours in the clock's future.
    expect(opened).toMatchObject({ started: false, now: t0 });
    ok(await c.advance(new Date(t0.getTime() + 3 * HOUR)));
    expect(await openManageLink(t.dbs, t.config, token)).toMatchObject({ started: true });
  });
});

describe('refusals', () => {
  it('a live credential is FORBIDDEN, for the clocks and for attaching one', async () => {
    const live = bearer(w.liveKey.key);
    expectError(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/test-clocks',
        headers: live,
        payload: { frozenTime: iso(Date.now()) },
      }),
      403,
      'FORBIDDEN',
    );
    expectError(await t.app.inject({ method: 'GET', url: '/api/v1/test-clocks', headers: live }), 403, 'FORBIDDEN');
    expectError(
      await t.app.inject({ method: 'PATCH', url: '/api/v1/me', headers: live, payload: { testClockId: null } }),
      403,
      'FORBIDDEN',
    );
    expect(await t.dbs.live.prisma.company.count({ where: { testClockId: { not: null } } })).toBe(0);
  });

  it('backwards and over 90 days are refused naming `to`, and the clock stays', async () => {
    const t0 = minute(Date.now());
    const c = await clockWorld(t0);
    const back = expectError(await c.advance(new Date(t0.getTime() - MIN)), 400, 'VALIDATION_ERROR');
    expect(back.error.details.map((d: { path: string }) => d.path)).toEqual(['to']);
    const far = expectError(await c.advance(new Date(t0.getTime() + 90 * DAY + MIN)), 400, 'VALIDATION_ERROR');
    expect(far.error.details.map((d: { path: string }) => d.path)).toEqual(['to']);
    const got = ok(await t.app.inject({ method: 'GET', url: `/api/v1/test-clocks/${c.clock._id}`, headers: c.auth }));
    expect(got.frozenTime).toBe(iso(t0));
    // Exactly 90 days is allowed.
    expect(ok(await c.advance(new Date(t0.getTime() + 90 * DAY))).frozenTime).toBe(iso(t0.getTime() + 90 * DAY));
  });

  it("another company's clock cannot be attached, read or advanced", async () => {
    const a = await clockWorld(minute(Date.now()));
    const b = await blankCompany(t.dbs, w, { timezone: 'UTC' });
    const attach = expectError(
      await t.app.inject({
        method: 'PATCH',
        url: '/api/v1/me',
        headers: b.auth,
        payload: { testClockId: a.clock._id },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(attach.error.details.map((d: { path: string }) => d.path)).toEqual(['testClockId']);
    expectError(
      await t.app.inject({ method: 'GET', url: `/api/v1/test-clocks/${a.clock._id}`, headers: b.auth }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/test-clocks/${a.clock._id}/advance`,
        headers: b.auth,
        payload: { to: iso(Date.now() + DAY) },
      }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('lifecycle', () => {
  it('lists and deletes clocks; deleting detaches the company', async () => {
    const c = await clockWorld(minute(Date.now()));
    const list = ok(await t.app.inject({ method: 'GET', url: '/api/v1/test-clocks', headers: c.auth }));
    expect(list.map((x: { _id: string }) => x._id)).toEqual([c.clock._id]);
    const gone = ok(
      await t.app.inject({ method: 'DELETE', url: `/api/v1/test-clocks/${c.clock._id}`, headers: c.auth }),
    );
    expect(gone._id).toBe(c.clock._id);
    const me = ok(await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: c.auth }));
    expect(me.testClockId).toBeNull();
  });

  it('a sandbox wipe deletes the clocks', async () => {
    const owner = await createAccountWithKeys(t.dbs);
    const { auth } = await blankCompany(t.dbs, owner, { timezone: 'UTC' });
    const clock = await post(t.app, '/api/v1/test-clocks', auth, { frozenTime: iso(minute(Date.now())) });
    await wipeSandbox(t.dbs, t.services.credentials, { accountId: owner.account.id });
    expect(await t.dbs.test.prisma.testClock.count({ where: { id: clock._id } })).toBe(0);
  });

  // Needs real PostgreSQL: PGlite serves one connection at a time, so nothing waits on a lock there.
  it.skipIf(embedded())(
    'two advances of one clock wait on its row lock and run one after the other: the clock never moves back',
    async () => {
      const t0 = minute(Date.now() - HOUR);
      const c = await clockWorld(t0, { requiresPayment: true });
      const booking = await c.book(new Date(t0.getTime() + 2 * DAY));
      // Hold the clock's row lock from outside, then start both advances.
      let locked = false;
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      const holder = t.dbs.test.prisma.$transaction(
        async (tx) => {
          await tx.$queryRaw`SELECT id FROM test_clocks WHERE id = ${c.clock._id} FOR UPDATE`;
          locked = true;
          await released;
        },
        { timeout: 20_000 },
      );
      await waitFor(() => locked, { what: 'the lock held' });
      const lockWaiters = async () => {
        const [row] = await t.dbs.test.prisma.$queryRaw<[{ n: number }]>`
        SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'`;
        return row.n;
      };
      const far = c.advance(new Date(t0.getTime() + 2 * HOUR));
      await waitFor(async () => (await lockWaiters()) >= 1, { what: 'the first advance waiting on the lock' });
      const near = c.advance(new Date(t0.getTime() + HOUR));
      await waitFor(async () => (await lockWaiters()) >= 2, { what: 'both advances waiting on the lock' });
      // Both wait: nothing has moved.
      const clockRow = () => t.dbs.test.prisma.testClock.findUniqueOrThrow({ where: { id: c.clock._id } });
      expect((await clockRow()).frozenTime.toISOString()).toBe(iso(t0));
      expect((await t.dbs.test.prisma.booking.findUniqueOrThrow({ where: { id: booking._id } })).status).toBe(
        'pending',
      );
      release();
      await holder;
      const [farRes, nearRes] = await Promise.all([far, near]);
      expect(farRes.statusCode).toBe(200);
      // The nearer one ran after the farther and found the clock past its `to` (or, had it been
      // granted the lock first, ran first): never a clock moved back.
      if (nearRes.statusCode !== 200)
        expect(expectError(nearRes, 400, 'VALIDATION_ERROR').error.details[0].path).toBe('to');
      expect((await clockRow()).frozenTime.toISOString()).toBe(iso(t0.getTime() + 2 * HOUR));
      expect(await events(c.company.id, 'booking.expired')).toHaveLength(1);
    },
  );
});

describe('GraphQL', () => {
  const gql = (key: string, query: string, variables?: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/graphql', headers: bearer(key), payload: { query, variables } });

  it('creates, attaches, advances and reads a clock through the same use cases; live is FORBIDDEN', async () => {
    const { key } = await blankCompany(t.dbs, w, { timezone: 'UTC' });
    const t0 = minute(Date.now());
    const made = (
      await gql(key, 'mutation($i: CreateTestClockInput!) { createTestClock(input: $i) { _id frozenTime attached } }', {
        i: { frozenTime: iso(t0) },
      })
    ).json().data.createTestClock;
    expect(made).toEqual({ _id: made._id, frozenTime: iso(t0), attached: false });
    const me = await gql(key, 'mutation($i: UpdateCompanyInput!) { updateMe(input: $i) { testClockId } }', {
      i: { testClockId: made._id },
    });
    expect(me.json()).toEqual({ data: { updateMe: { testClockId: made._id } } });
    const to = iso(t0.getTime() + DAY);
    const advanced = await gql(
      key,
      'mutation($id: ID!, $i: AdvanceTestClockInput!) { advanceTestClock(id: $id, input: $i) { frozenTime attached } }',
      { id: made._id, i: { to } },
    );
    expect(advanced.json()).toEqual({ data: { advanceTestClock: { frozenTime: to, attached: true } } });
    const back = (
      await gql(
        key,
        'mutation($id: ID!, $i: AdvanceTestClockInput!) { advanceTestClock(id: $id, input: $i) { _id } }',
        {
          id: made._id,
          i: { to: iso(t0) },
        },
      )
    ).json();
    expect(back.errors[0].extensions.code).toBe('VALIDATION_ERROR');
    const live = (await gql(w.liveKey.key, '{ testClocks { totalCount } }')).json();
    expect(live.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});
