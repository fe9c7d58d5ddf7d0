// Reminders planned in the booking's own transaction (docs/api.md, Reminders): settings on the
// company (PATCH /me) and per service (null inherits), rows planned on create, withdrawn and
// re-planned on reschedule, withdrawn on cancel, expiry, complete, no-show and class cancellation, and a
// reminder already due at booking time recorded skipped. GET /bookings/:id/notifications and
// Booking.notifications show them. Hostile settings are refused naming the field, nothing written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBooking } from '../../../src/schema/bookings/create-booking.js';
import { expirePendingBookings } from '../../../src/schema/bookings/expire-pending-bookings.js';
import { bookThroughUseCase, minutesAgo } from '../../helpers/bookings.js';
import { blankCompany, createDomainApp, expectError, futureHour, ok, post, salon } from '../../helpers/domain.js';
import { createAccountWithKeys } from '../../helpers/factories.js';
import type { TestApp } from '../../helpers/app.js';

let t: TestApp;
let c: Awaited<ReturnType<typeof blankCompany>>;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;

beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
  c = await blankCompany(t.dbs, w);
});
afterAll(() => t?.close());

const get = async (url: string, headers = c.auth) => ok(await t.app.inject({ method: 'GET', url, headers }));
const patch = (url: string, payload: object, headers = c.auth) =>
  t.app.inject({ method: 'PATCH', url, headers, payload });
const notificationsOf = (bookingId: string) =>
  t.dbs.test.prisma.notification.findMany({ where: { bookingId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
const at = (iso: string, minutesBefore: number) => new Date(Date.parse(iso) - minutesBefore * 60_000);

describe('settings', () => {
  it('a new company has one e-mail 24 h before; PATCH /me replaces the list, null restores the default', async () => {
    const fresh = await blankCompany(t.dbs, w);
    expect((await get('/api/v1/me', fresh.auth)).reminders).toEqual([{ offsetMinutes: 1440, channel: 'email' }]);
    const list = [
      { offsetMinutes: 60, channel: 'webhook' },
      { offsetMinutes: 2880, channel: 'email' },
    ];
    const changed = ok(await patch('/api/v1/me', { reminders: list }, fresh.auth));
    // Shown earliest first.
    expect(changed.reminders).toEqual([list[1], list[0]]);
    expect((await get('/api/v1/me', fresh.auth)).reminders).toEqual([list[1], list[0]]);
    expect(ok(await patch('/api/v1/me', { reminders: [] }, fresh.auth)).reminders).toEqual([]);
    expect(ok(await patch('/api/v1/me', { reminders: null }, fresh.auth)).reminders).toEqual([
      { offsetMinutes: 1440, channel: 'email' },
    ]);
  });

  it('hostile reminders are 400 naming the field, and nothing is written', async () => {
    const fresh = await blankCompany(t.dbs, w);
    const { service } = await salon(t.app, fresh.auth);
    const seven = Array.from({ length: 7 }, (_, i) => ({ offsetMinutes: 60 + i, channel: 'email' }));
    const cases: Array<[string, unknown, string]> = [
      ['seven items', seven, 'reminders'],
      ['an offset of 1', [{ offsetMinutes: 1, channel: 'email' }], 'offsetMinutes'],
      ['an offset of 30000', [{ offsetMinutes: 30_000, channel: 'email' }], 'offsetMinutes'],
      ['a bad channel', [{ offsetMinutes: 60, channel: 'sms' }], 'channel'],
      ['a fractional offset', [{ offsetMinutes: 60.5, channel: 'email' }], 'offsetMinutes'],
      ['an unknown field', [{ offsetMinutes: 60, channel: 'email', extra: 1 }], 'extra'],
      [
        'a duplicate',
        [
          { offsetMinutes: 60, channel: 'email' },
          { offsetMinutes: 60, channel: 'email' },
        ],
        'offsetMinutes',
      ],
      ['not a list', { offsetMinutes: 60, channel: 'email' }, 'reminders'],
    ];
    for (const [what, reminders, field] of cases) {
      const beforeMe = await get('/api/v1/me', fresh.auth);
      const beforeService = await get(`/api/v1/services/${service._id}`, fresh.auth);
      for (const [url, payload] of [
        ['/api/v1/me', { reminders }],
        [`/api/v1/services/${service._id}`, { reminders }],
      ] as const) {
        const body = expectError(await patch(url, payload, fresh.auth), 400, 'VALIDATION_ERROR');
        expect(JSON.stringify(body.error), `${what} at ${url}`).toContain('reminders');
        expect(JSON.stringify(body.error), `${what} at ${url}`).toContain(field);
      }
      expect(await get('/api/v1/me', fresh.auth)).toEqual(beforeMe);
      expect(await get(`/api/v1/services/${service._id}`, fresh.auth)).toEqual(beforeService);
    }
    // The domain's own rule, behind GraphQL too (a duplicate passes JSON Schema).
    const gql = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: fresh.auth,
      payload: {
        query:
          'mutation { updateMe(input: { reminders: [{ offsetMinutes: 60, channel: email }, { offsetMinutes: 60, channel: email }] }) { _id } }',
      },
    });
    expect(gql.json().errors[0].extensions.code).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(gql.json().errors[0])).toContain('reminders.1.offsetMinutes');
  });

  it("a service's own reminders replace the company's; null inherits again", async () => {
    const fresh = await blankCompany(t.dbs, w);
    const { service, employee } = await salon(t.app, fresh.auth);
    expect(service.reminders).toBeNull();
    const own = [{ offsetMinutes: 120, channel: 'webhook' }];
    expect(ok(await patch(`/api/v1/services/${service._id}`, { reminders: own }, fresh.auth)).reminders).toEqual(own);
    const startTime = futureHour(5);
    const b = await post(t.app, '/api/v1/bookings', fresh.auth, {
      serviceId: service._id,
      employeeId: employee._id,
      startTime,
      customer: { name: 'Ann', email: 'ann@example.com' },
    });
    const rows = await get(`/api/v1/bookings/${b._id}/notifications`, fresh.auth);
    expect(rows).toEqual([
      expect.objectContaining({
        channel: 'webhook',
        offsetMinutes: 120,
        dueAt: at(startTime, 120).toISOString(),
        status: 'scheduled',
      }),
    ]);
    expect(ok(await patch(`/api/v1/services/${service._id}`, { reminders: null }, fresh.auth)).reminders).toBeNull();
    const b2 = await post(t.app, '/api/v1/bookings', fresh.auth, {
      serviceId: service._id,
      employeeId: employee._id,
      startTime: futureHour(6),
      customer: { name: 'Ann', email: 'ann@example.com' },
    });
    expect((await get(`/api/v1/bookings/${b2._id}/notifications`, fresh.auth)).map((n: any) => n.channel)).toEqual([
      'email',
    ]);
  });
});

describe('planning', () => {
  it('create plans one row per reminder; reschedule withdraws them and plans the new ones; cancel withdraws', async () => {
    await patch('/api/v1/me', {
      reminders: [
        { offsetMinutes: 1440, channel: 'email' },
        { offsetMinutes: 60, channel: 'webhook' },
      ],
    });
    const { service, employee } = await salon(t.app, c.auth);
    const startTime = futureHour(3);
    const b = await post(t.app, '/api/v1/bookings', c.auth, {
      serviceId: service._id,
      employeeId: employee._id,
      startTime,
      customer: { name: 'Bo', email: 'bo@example.com' },
    });
    const planned = await get(`/api/v1/bookings/${b._id}/notifications?limit=10`);
    // Newest first: the later-planned (later due) row first.
    expect(planned).toEqual([
      {
        _id: expect.any(String),
        bookingId: b._id,
        channel: 'webhook',
        offsetMinutes: 60,
        dueAt: at(startTime, 60).toISOString(),
        status: 'scheduled',
        sentAt: null,
        reason: null,
        createdAt: expect.any(String),
      },
      expect.objectContaining({ channel: 'email', offsetMinutes: 1440, dueAt: at(startTime, 1440).toISOString() }),
    ]);

    const moved = futureHour(4);
    ok(
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/bookings/${b._id}/reschedule`,
        headers: c.auth,
        payload: { startTime: moved },
      }),
    );
    const after = await notificationsOf(b._id);
    expect(after.map((n) => [n.status, n.reason, n.dueAt.toISOString()])).toEqual([
      ['cancelled', 'booking_rescheduled', at(startTime, 1440).toISOString()],
      ['cancelled', 'booking_rescheduled', at(startTime, 60).toISOString()],
      ['scheduled', null, at(moved, 1440).toISOString()],
      ['scheduled', null, at(moved, 60).toISOString()],
    ]);

    ok(await t.app.inject({ method: 'POST', url: `/api/v1/bookings/${b._id}/cancel`, headers: c.auth, payload: {} }));
    expect((await notificationsOf(b._id)).map((n) => [n.status, n.reason])).toEqual([
      ['cancelled', 'booking_rescheduled'],
      ['cancelled', 'booking_rescheduled'],
      ['cancelled', 'booking_cancelled'],
      ['cancelled', 'booking_cancelled'],
    ]);

    // GraphQL: Booking.notifications, the same rows.
    const gql = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: c.auth,
      payload: {
        query: `{ booking(id: "${b._id}") { notifications(first: 10, orderBy: OLDEST_FIRST) { totalCount nodes { channel offsetMinutes status reason dueAt sentAt } } } }`,
      },
    });
    const conn = gql.json().data.booking.notifications;
    expect(conn.totalCount).toBe(4);
    expect(conn.nodes[2]).toEqual({
      channel: 'email',
      offsetMinutes: 1440,
      status: 'cancelled',
      reason: 'booking_cancelled',
      dueAt: at(moved, 1440).toISOString(),
      sentAt: null,
    });
  });

  it('a reminder already due when the booking is made is recorded skipped, not sent late', async () => {
    const fresh = await blankCompany(t.dbs, w);
    ok(
      await patch(
        '/api/v1/me',
        {
          reminders: [
            { offsetMinutes: 1440, channel: 'email' },
            { offsetMinutes: 30, channel: 'email' },
          ],
        },
        fresh.auth,
      ),
    );
    const { service, employee } = await salon(t.app, fresh.auth);
    const soon = new Date(Math.ceil((Date.now() + 2 * 3_600_000) / 3_600_000) * 3_600_000).toISOString();
    const b = await post(t.app, '/api/v1/bookings', fresh.auth, {
      serviceId: service._id,
      employeeId: employee._id,
      startTime: soon,
      customer: { name: 'Cy', email: 'cy@example.com' },
    });
    expect((await notificationsOf(b._id)).map((n) => [n.offsetMinutes, n.status, n.reason])).toEqual([
      [1440, 'skipped', 'due_time_passed'],
      [30, 'scheduled', null],
    ]);
  });

  it('an expired pending booking withdraws its reminders', async () => {
    const company = await t.dbs.test.prisma.company.findUniqueOrThrow({ where: { id: c.company.id } });
    const pending = await bookThroughUseCase(t.dbs.test.prisma, company, {
      requiresPayment: true,
      bookedAt: minutesAgo(16),
    });
    expect((await notificationsOf(pending.booking.id)).map((n) => n.status)).toEqual(['scheduled', 'scheduled']);
    await expirePendingBookings(t.dbs.test.prisma);
    expect((await notificationsOf(pending.booking.id)).map((n) => [n.status, n.reason])).toEqual([
      ['cancelled', 'booking_expired'],
      ['cancelled', 'booking_expired'],
    ]);
  });

  it('a completed booking and a no-show withdraw the reminders still scheduled', async () => {
    const fresh = await blankCompany(t.dbs, w);
    ok(await patch('/api/v1/me', { reminders: [{ offsetMinutes: 5, channel: 'webhook' }] }, fresh.auth));
    const { service, employee } = await salon(t.app, fresh.auth);
    const company = await t.dbs.test.prisma.company.findUniqueOrThrow({ where: { id: fresh.company.id } });
    const ids: string[] = [];
    for (const minutesAgo of [60, 120]) {
      // Made (by the use case's clock) three hours ago for a start that has now passed; no worker
      // ran, so its reminder is still scheduled.
      const b = await createBooking(t.dbs.test.prisma, {
        company,
        input: {
          serviceId: service._id,
          employeeId: employee._id,
          startTime: new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - minutesAgo * 60_000).toISOString(),
          customer: { name: 'Ed', email: 'ed@example.com' },
        },
        now: new Date(Date.now() - 4 * 3_600_000),
      });
      expect((await notificationsOf(b.id)).map((n) => n.status)).toEqual(['scheduled']);
      ids.push(b.id);
    }
    ok(await t.app.inject({ method: 'POST', url: `/api/v1/bookings/${ids[0]}/complete`, headers: fresh.auth }));
    ok(await t.app.inject({ method: 'POST', url: `/api/v1/bookings/${ids[1]}/no-show`, headers: fresh.auth }));
    expect((await notificationsOf(ids[0]!)).map((n) => [n.status, n.reason])).toEqual([
      ['cancelled', 'booking_completed'],
    ]);
    expect((await notificationsOf(ids[1]!)).map((n) => [n.status, n.reason])).toEqual([
      ['cancelled', 'booking_no_show'],
    ]);
  });

  it('class bookings are planned, and cancelling the session withdraws them', async () => {
    const fresh = await blankCompany(t.dbs, w);
    const { service, employee } = await salon(t.app, fresh.auth, { kind: 'class' });
    const startTime = futureHour(8);
    const session = await post(t.app, '/api/v1/classes', fresh.auth, {
      serviceId: service._id,
      employeeId: employee._id,
      startTime,
      endTime: new Date(Date.parse(startTime) + 3_600_000).toISOString(),
      capacity: 5,
    });
    const b = await post(t.app, '/api/v1/bookings', fresh.auth, {
      serviceId: service._id,
      classId: session._id,
      customer: { name: 'Di', email: 'di@example.com' },
    });
    expect((await notificationsOf(b._id)).map((n) => [n.status, n.dueAt.toISOString()])).toEqual([
      ['scheduled', at(startTime, 1440).toISOString()],
    ]);
    ok(
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/classes/${session._id}/cancel`,
        headers: fresh.auth,
        payload: {},
      }),
    );
    expect((await notificationsOf(b._id)).map((n) => [n.status, n.reason])).toEqual([
      ['cancelled', 'booking_cancelled'],
    ]);
  });
});
