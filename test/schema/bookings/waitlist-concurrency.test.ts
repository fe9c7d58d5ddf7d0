// The waitlist's invariant and fairness under real concurrency (docs/api.md, Class waitlists):
// confirmed + pending + offered never exceeds the capacity (the database's CHECK), positions
// stay contiguous, and places go to the line in the order it was joined, nobody skipped.
// Concurrent HTTP requests over a real socket; embedded PGlite runs one transaction at a time,
// so the file needs real PostgreSQL and is skipped without it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type TestApp } from '../../helpers/app.js';
import { embedded } from '../../helpers/db.js';
import { createAccountWithKeys } from '../../helpers/factories.js';
import { blankCompany, createDomainApp, ok, post, type World } from '../../helpers/domain.js';

let t: TestApp;
let w: World;
let origin: string;

beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
  origin = await listen(t.app);
});
afterAll(() => t?.close());

describe.skipIf(embedded())('waitlist races (real PostgreSQL only)', () => {
  it('30 concurrent cancels and accepts on a class of 10 with a waitlist of 20: 10 places, a contiguous line, nobody skipped', async () => {
    const c = await blankCompany(t.dbs, w);
    const coach = await post(t.app, '/api/v1/employees', c.auth, { name: 'Coach' });
    const service = await post(t.app, '/api/v1/services', c.auth, {
      name: 'Spin',
      kind: 'class',
      durationMinutes: 45,
      employeeIds: [coach._id],
      waitlist: { enabled: true, maxSize: 20, offerMode: 'offer', offerMinutes: 120, cutoffMinutes: 0 },
    });
    const session = await post(t.app, '/api/v1/classes', c.auth, {
      serviceId: service._id,
      employeeId: coach._id,
      startTime: new Date(Date.now() + 3 * 86_400_000).toISOString(),
      capacity: 10,
    });
    const book = (who: string, waitlist = false) =>
      post(t.app, '/api/v1/bookings', c.auth, {
        serviceId: service._id,
        classId: session._id,
        customer: { name: who, email: `${who}@example.com` },
        ...(waitlist ? { waitlist: true } : {}),
      });
    const A: Array<{ _id: string }> = [];
    for (let i = 0; i < 10; i++) A.push(await book(`a${i}`));
    const W: Array<{ _id: string; waitlistPosition: number }> = [];
    for (let i = 0; i < 20; i++) W.push(await book(`w${i}`, true));
    expect(W.map((b) => b.waitlistPosition)).toEqual(W.map((_, i) => i + 1));
    // Four places freed first: the first four in line are offered them.
    for (let i = 0; i < 4; i++)
      ok(await t.app.inject({ method: 'POST', url: `/api/v1/bookings/${A[i]!._id}/cancel`, headers: c.auth }));

    const leavers = new Set([5, 9, 14, 19]);
    const requests: Array<[string, string]> = [
      ...[0, 1, 2, 3].map((i) => [W[i]!._id, 'accept-offer'] as [string, string]),
      ...[4, 5, 6, 7, 8, 9].map((i) => [A[i]!._id, 'cancel'] as [string, string]),
      ...[...leavers].map((i) => [W[i]!._id, 'cancel'] as [string, string]),
      ...W.map((b) => [b._id, 'accept-offer'] as [string, string]).filter((_, i) => i >= 4 && !leavers.has(i)),
      ...[0, 1, 2, 3].map((i) => [A[i]!._id, 'cancel'] as [string, string]),
    ];
    expect(requests).toHaveLength(30);
    const results = await Promise.all(
      requests.map(([id, action]) =>
        fetch(`${origin}/api/v1/bookings/${id}/${action}`, { method: 'POST', headers: c.auth }).then(async (r) => ({
          status: r.status,
          body: (await r.json()) as { error?: { code: string } },
        })),
      ),
    );
    for (const r of results) {
      if (r.status !== 200) expect([r.status, r.body.error?.code]).toEqual([409, 'INVALID_STATE_TRANSITION']);
    }

    const p = t.dbs.test.prisma;
    const all = await p.booking.findMany({ where: { classSessionId: session._id } });
    const byId = new Map(all.map((b) => [b.id, b]));
    const count = (...s: string[]) => all.filter((b) => s.includes(b.status)).length;
    // Exactly the capacity is taken, and the session's counters agree with the rows.
    expect(count('confirmed', 'pending', 'offered')).toBe(10);
    const row = await p.classSession.findUniqueOrThrow({ where: { id: session._id } });
    expect([row.bookedCount, row.offeredCount, row.waitlistCount]).toEqual([
      count('confirmed', 'pending'),
      count('offered'),
      count('waitlisted'),
    ]);
    expect(A.every((a) => byId.get(a._id)!.status === 'cancelled')).toBe(true);
    // The line left is contiguous and in the order it was joined.
    const waiting = W.map((b) => byId.get(b._id)!).filter((b) => b.status === 'waitlisted');
    expect(waiting.map((b) => b.waitlistPosition)).toEqual(waiting.map((_, i) => i + 1));
    // Nobody skipped: every place went to the line in the order it was joined. The offers were
    // made one at a time under the session's lock, so their events' ids are in promotion order.
    const offers = await p.event.findMany({
      where: { companyId: c.company.id, type: 'booking.offered' },
      orderBy: { id: 'asc' },
    });
    const promoted = offers.map((e) => (e.data as { bookingId: string }).bookingId);
    const joined = W.map((b) => b._id);
    expect(promoted).toEqual([...promoted].sort((x, y) => joined.indexOf(x) - joined.indexOf(y)));
    expect(new Set(promoted).size).toBe(promoted.length);
    // Everyone before the last one promoted was promoted, unless they left the line first.
    const last = joined.indexOf(promoted.at(-1)!);
    for (let i = 0; i <= last; i++) {
      const b = byId.get(joined[i]!)!;
      if (!promoted.includes(b.id)) expect([b.status, leavers.has(i)]).toEqual(['cancelled', true]);
    }
    // And nobody after them was.
    for (let i = last + 1; i < joined.length; i++)
      expect(['waitlisted', 'cancelled']).toContain(byId.get(joined[i]!)!.status);
  });
});
