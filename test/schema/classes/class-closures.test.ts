// Class sessions and closures (docs/api.md, Closures): a session cannot be put or moved inside a
// closure of its instructor; a closure over a session with no places taken leaves it off
// /availability and refuses its bookings with the reason CLOSURE; and a closure racing a class
// booking never leaves a live booking inside it (both take the instructor's lock).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountWithKeys } from '../../helpers/factories.js';
import type { TestApp } from '../../helpers/app.js';
import {
  ALL_DAY,
  blankCompany,
  createDomainApp,
  expectError,
  futureHour,
  ok,
  post,
  type World,
} from '../../helpers/domain.js';

let t: TestApp;
let w: World;

beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
});
afterAll(async () => {
  await t?.close();
});

const H = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
const inject = (method: 'GET' | 'POST' | 'PATCH', url: string, auth: Record<string, string>, payload?: unknown) =>
  t.app.inject({ method, url, headers: auth, ...(payload === undefined ? {} : { payload: payload as object }) });

async function studio() {
  const c = await blankCompany(t.dbs, w);
  const ann = await post(t.app, '/api/v1/employees', c.auth, { name: 'Ann', workingHours: ALL_DAY });
  const yoga = await post(t.app, '/api/v1/services', c.auth, {
    name: 'Yoga',
    kind: 'class',
    durationMinutes: 60,
    employeeIds: [ann._id],
  });
  return { c, ann, yoga };
}

const book = (auth: Record<string, string>, serviceId: string, classId: string, n: number) =>
  inject('POST', '/api/v1/bookings', auth, {
    serviceId,
    classId,
    customer: { name: `Guest ${n}`, email: `guest${n}@example.com` },
  });

describe('class sessions and closures', () => {
  it('refuses a session put or moved inside a closure of its instructor, with the reason CLOSURE', async () => {
    const { c, ann, yoga } = await studio();
    const start = Date.parse(futureHour(3, 9));
    await post(t.app, '/api/v1/closures', c.auth, {
      startTime: iso(start),
      endTime: iso(start + 2 * H),
      reason: 'Floor',
    });
    const inside = expectError(
      await inject('POST', '/api/v1/classes', c.auth, {
        serviceId: yoga._id,
        employeeId: ann._id,
        startTime: iso(start + H),
        capacity: 5,
      }),
      409,
      'SLOT_UNAVAILABLE',
    );
    expect(inside.error.details.reasons).toEqual([
      { code: 'CLOSURE', message: expect.any(String), employeeId: ann._id },
    ]);
    // Ending exactly at the closure's start is fine; moving it in is refused and changes nothing.
    const before = await post(t.app, '/api/v1/classes', c.auth, {
      serviceId: yoga._id,
      employeeId: ann._id,
      startTime: iso(start - H),
      capacity: 5,
    });
    expectError(
      await inject('PATCH', `/api/v1/classes/${before._id}`, c.auth, {
        startTime: iso(start + H),
        endTime: iso(start + 2 * H),
      }),
      409,
      'SLOT_UNAVAILABLE',
    );
    const after = ok(await inject('GET', `/api/v1/classes/${before._id}`, c.auth));
    expect(after.startTime).toBe(iso(start - H));
  });

  it('a closure over an empty session hides it from /availability and refuses its bookings', async () => {
    const { c, ann, yoga } = await studio();
    const start = Date.parse(futureHour(4, 9));
    const session = await post(t.app, '/api/v1/classes', c.auth, {
      serviceId: yoga._id,
      employeeId: ann._id,
      startTime: iso(start),
      capacity: 5,
    });
    const offered = async () =>
      ok(
        await inject(
          'GET',
          `/api/v1/availability?serviceId=${yoga._id}&from=${iso(start - H)}&to=${iso(start + H)}`,
          c.auth,
        ),
      ).sessions.map((s: { classId: string }) => s.classId);
    expect(await offered()).toEqual([session._id]);
    await post(t.app, '/api/v1/closures', c.auth, {
      startTime: iso(start + 30 * 60_000),
      endTime: iso(start + 3 * H),
      reason: 'Leak',
      employeeIds: [ann._id],
    });
    expect(await offered()).toEqual([]);
    const refused = expectError(await book(c.auth, yoga._id, session._id, 1), 409, 'SLOT_UNAVAILABLE');
    expect(refused.error.details.reasons).toEqual([
      { code: 'CLOSURE', message: expect.any(String), employeeId: ann._id },
    ]);
    const row = await t.dbs.test.prisma.classSession.findUniqueOrThrow({ where: { id: session._id } });
    expect(row.bookedCount).toBe(0);
  });

  it('a closure racing class bookings never leaves a live booking inside it', async () => {
    const { c, ann, yoga } = await studio();
    for (let round = 0; round < 6; round++) {
      const start = Date.parse(futureHour(5 + round, 9));
      const session = await post(t.app, '/api/v1/classes', c.auth, {
        serviceId: yoga._id,
        employeeId: ann._id,
        startTime: iso(start),
        capacity: 10,
      });
      const [closure, ...bookings] = await Promise.all([
        inject('POST', '/api/v1/closures', c.auth, { startTime: iso(start), endTime: iso(start + H), reason: 'Race' }),
        ...[1, 2, 3, 4].map((n) => book(c.auth, yoga._id, session._id, round * 10 + n)),
      ]);
      const live = await t.dbs.test.prisma.booking.count({
        where: { classSessionId: session._id, status: { in: ['pending', 'confirmed'] } },
      });
      if (closure.statusCode === 201 || closure.statusCode === 200) {
        // The closure won: every booking was refused after it, none is live inside it.
        expect(live).toBe(0);
        for (const b of bookings) expect(b.statusCode).toBe(409);
      } else {
        // A booking won: the closure was refused naming the live bookings written before it
        // (bookings that commit after the refusal may add to them: nothing closes the time).
        const body = expectError(closure, 409, 'CONFLICT');
        const named = body.error.details.bookingIds as string[];
        expect(named.length).toBeGreaterThan(0);
        const liveIds = (
          await t.dbs.test.prisma.booking.findMany({
            where: { classSessionId: session._id, status: { in: ['pending', 'confirmed'] } },
            select: { id: true },
          })
        ).map((b) => b.id);
        expect(liveIds).toEqual(expect.arrayContaining(named));
        expect(live).toBe(liveIds.length);
      }
      await inject('POST', `/api/v1/classes/${session._id}/cancel`, c.auth, {});
    }
  });
});
