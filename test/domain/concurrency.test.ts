// No double booking under any concurrency (API.md §5): the database decides, not a
// read-then-write check. Real sockets, two app instances over one PostgreSQL database, each
// with its own connection pool; requests race with fetch.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountWithKeys } from '../helpers/factories.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { blankCompany, createDomainApp, futureHour, post, salon, type World } from '../helpers/domain.js';

let a: TestApp;
let b: TestApp;
let urls: string[];
let w: World;

beforeAll(async () => {
  a = await createDomainApp();
  b = await createTestApp({ db: (a as TestApp & { db: never }).db, env: { RATE_LIMIT_PER_SECOND: '1000000' } });
  urls = [];
  for (const x of [a, b]) {
    await x.app.listen({ port: 0, host: '127.0.0.1' });
    urls.push(`http://127.0.0.1:${(x.app.server.address() as AddressInfo).port}`);
  }
  w = await createAccountWithKeys(a.dbs);
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

async function race(n: number, body: (i: number) => object, auth: Record<string, string>) {
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      fetch(`${urls[i % 2]}/api/v1/bookings`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body(i)) }).then(
        async (r) => ({ status: r.status, body: (await r.json()) as any }),
      ),
    ),
  );
  const codes: Record<string, number> = {};
  for (const r of results) {
    const k = r.status === 200 ? '200' : `${r.status} ${r.body.error.code}`;
    codes[k] = (codes[k] ?? 0) + 1;
  }
  return { results, codes };
}

describe('concurrency', () => {
  it('50 concurrent requests for one slot of one employee: exactly one booking', async () => {
    const c = await blankCompany(a.dbs, w);
    const { employee, service } = await salon(a.app, c.auth, { bufferBeforeMinutes: 10 });
    const startTime = futureHour(5);
    const { codes } = await race(50, (i) => ({ serviceId: service._id, employeeId: employee._id, startTime, customer: { name: `C${i}`, email: `c${i}@example.com` } }), c.auth);
    expect(codes).toEqual({ '200': 1, '409 SLOT_UNAVAILABLE': 49 });
    const live = await a.dbs.test.prisma.booking.count({ where: { companyId: c.company.id, status: { in: ['pending', 'confirmed'] } } });
    expect(live).toBe(1);
    // Only the winner's customer and events exist: the losers' transactions left nothing.
    expect(await a.dbs.test.prisma.customer.count({ where: { companyId: c.company.id } })).toBe(1);
    expect(await a.dbs.test.prisma.event.count({ where: { companyId: c.company.id, type: 'booking.created' } })).toBe(1);
  });

  it('overlapping (not identical) requests, buffers included, without a named employee: one per employee', async () => {
    const c = await blankCompany(a.dbs, w);
    const { service } = await salon(a.app, c.auth, { bufferAfterMinutes: 30 }, 3);
    const base = Date.parse(futureHour(6));
    // Starts 0, 15, ..., 75 minutes apart: every pair of blocks (90 min long) overlaps.
    const { codes, results } = await race(40, (i) => ({ serviceId: service._id, startTime: new Date(base + (i % 6) * 15 * 60_000).toISOString(), customer: { name: 'X', email: 'x@example.com' } }), c.auth);
    expect(codes['200']).toBe(3);
    expect(codes['409 SLOT_UNAVAILABLE']).toBe(37);
    const winners = results.filter((r) => r.status === 200).map((r) => r.body.data.employeeId);
    expect(new Set(winners).size).toBe(3);
  });

  it('30 concurrent requests for a class with 10 places: exactly 10', async () => {
    const c = await blankCompany(a.dbs, w);
    const { employee } = await salon(a.app, c.auth);
    const yoga = await post(a.app, '/api/v1/services', c.auth, { name: 'Yoga', kind: 'class', durationMinutes: 60, employeeIds: [employee._id] });
    const session = await post(a.app, '/api/v1/classes', c.auth, { serviceId: yoga._id, employeeId: employee._id, startTime: futureHour(7), capacity: 10 });
    const { codes } = await race(30, (i) => ({ serviceId: yoga._id, classId: session._id, customer: { name: `C${i}`, email: `c${i}@example.com` } }), c.auth);
    expect(codes).toEqual({ '200': 10, '409 CLASS_FULL': 20 });
    const row = await a.dbs.test.prisma.classSession.findUniqueOrThrow({ where: { id: session._id } });
    expect(row.bookedCount).toBe(10);
    expect(await a.dbs.test.prisma.booking.count({ where: { classSessionId: session._id, status: 'confirmed' } })).toBe(10);
  });

  it('one customer racing for the same class 10 times holds one place', async () => {
    const c = await blankCompany(a.dbs, w);
    const { employee } = await salon(a.app, c.auth);
    const yoga = await post(a.app, '/api/v1/services', c.auth, { name: 'Yoga', kind: 'class', durationMinutes: 60, employeeIds: [employee._id] });
    const session = await post(a.app, '/api/v1/classes', c.auth, { serviceId: yoga._id, employeeId: employee._id, startTime: futureHour(8), capacity: 5 });
    const { codes } = await race(10, () => ({ serviceId: yoga._id, classId: session._id, customer: { name: 'Same', email: 'same@example.com' } }), c.auth);
    expect(codes).toEqual({ '200': 1, '409 CONFLICT': 9 });
    const row = await a.dbs.test.prisma.classSession.findUniqueOrThrow({ where: { id: session._id } });
    expect(row.bookedCount).toBe(1);
  });
});
