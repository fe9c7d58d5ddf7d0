// No double booking under any concurrency (docs/api.md): the database decides, not a
// read-then-write check. Real sockets, two app instances over one PostgreSQL database, each
// with its own connection pools (its own Databases); requests race with fetch. Embedded PGlite
// is one connection that runs one transaction at a time, so nothing could race there and a
// pass would prove nothing: the file needs real PostgreSQL and is skipped without it.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabases } from '../../../src/db/databases.js';
import { AppError } from '../../../src/errors.js';
import { newId } from '../../../src/ids.js';
import { toAppError } from '../../../src/errors.js';
import { DOMAIN_TRANSACTION, domainTransaction } from '../../../src/schema/db-errors.js';
import { createAccountWithKeys } from '../../helpers/factories.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { embedded, type TestDatabases } from '../../helpers/db.js';
import { blankCompany, createDomainApp, futureHour, post, salon, type World } from '../../helpers/domain.js';

let a: TestApp & { db: TestDatabases };
let b: TestApp;
let bDb: TestDatabases;
let urls: string[];
let w: World;

async function start() {
  a = (await createDomainApp()) as TestApp & { db: TestDatabases };
  // Instance b: the same database, its own pools, as a second server process would have.
  const dbs = await openDatabases({
    DATABASE_URL: a.db.url,
    SANDBOX_SCHEMA: 'sandbox',
    DATABASE_POOL_SIZE: 10,
    DATA_DIR: '.data',
  });
  bDb = { dbs, url: a.db.url, drop: () => dbs.close() };
  b = await createTestApp({ db: bDb, env: { RATE_LIMIT_PER_SECOND: '1000000' } });
  expect(b.dbs.test.prisma).not.toBe(a.dbs.test.prisma);
  urls = [];
  for (const x of [a, b]) {
    await x.app.listen({ port: 0, host: '127.0.0.1' });
    urls.push(`http://127.0.0.1:${(x.app.server.address() as AddressInfo).port}`);
  }
  w = await createAccountWithKeys(a.dbs);
}

async function stop() {
  await b?.close();
  await bDb?.drop();
  await a?.close();
}

async function race(
  n: number,
  body: (i: number) => object,
  auth: Record<string, string>,
  path: (i: number) => string = () => '/api/v1/bookings',
) {
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      fetch(`${urls[i % 2]}${path(i)}`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify(body(i)),
      }).then(async (r) => ({ status: r.status, body: await r.json() })),
    ),
  );
  const codes: Record<string, number> = {};
  for (const r of results) {
    const k = r.status === 200 ? '200' : `${r.status} ${r.body.error.code}`;
    codes[k] = (codes[k] ?? 0) + 1;
  }
  return { results, codes };
}

describe.skipIf(embedded())(
  'concurrency (real PostgreSQL only: embedded PGlite runs one transaction at a time)',
  () => {
    beforeAll(start);
    afterAll(stop);

    it('50 concurrent requests for one slot of one employee: exactly one booking', async () => {
      const c = await blankCompany(a.dbs, w);
      const { employee, service } = await salon(a.app, c.auth, { bufferBeforeMinutes: 10 });
      const startTime = futureHour(5);
      const { codes } = await race(
        50,
        (i) => ({
          serviceId: service._id,
          employeeId: employee._id,
          startTime,
          customer: { name: `C${i}`, email: `c${i}@example.com` },
        }),
        c.auth,
      );
      expect(codes).toEqual({ '200': 1, '409 SLOT_UNAVAILABLE': 49 });
      const live = await a.dbs.test.prisma.booking.count({
        where: { companyId: c.company.id, status: { in: ['pending', 'confirmed'] } },
      });
      expect(live).toBe(1);
      // Only the winner's customer and events exist: the losers' transactions left nothing.
      expect(await a.dbs.test.prisma.customer.count({ where: { companyId: c.company.id } })).toBe(1);
      expect(await a.dbs.test.prisma.event.count({ where: { companyId: c.company.id, type: 'booking.created' } })).toBe(
        1,
      );
    });

    it('overlapping (not identical) requests, buffers included, without a named employee: one per employee', async () => {
      const c = await blankCompany(a.dbs, w);
      const { service } = await salon(a.app, c.auth, { bufferAfterMinutes: 30 }, 3);
      const base = Date.parse(futureHour(6));
      // Starts 0, 15, ..., 75 minutes apart: every pair of blocks (90 min long) overlaps.
      const { codes, results } = await race(
        40,
        (i) => ({
          serviceId: service._id,
          startTime: new Date(base + (i % 6) * 15 * 60_000).toISOString(),
          customer: { name: 'X', email: 'x@example.com' },
        }),
        c.auth,
      );
      expect(codes['200']).toBe(3);
      expect(codes['409 SLOT_UNAVAILABLE']).toBe(37);
      const winners = results.filter((r) => r.status === 200).map((r) => r.body.data.employeeId);
      expect(new Set(winners).size).toBe(3);
    });

    it('30 concurrent requests for a class with 10 places: exactly 10', async () => {
      const c = await blankCompany(a.dbs, w);
      const { employee } = await salon(a.app, c.auth);
      const yoga = await post(a.app, '/api/v1/services', c.auth, {
        name: 'Yoga',
        kind: 'class',
        durationMinutes: 60,
        employeeIds: [employee._id],
      });
      const session = await post(a.app, '/api/v1/classes', c.auth, {
        serviceId: yoga._id,
        employeeId: employee._id,
        startTime: futureHour(7),
        capacity: 10,
      });
      const { codes } = await race(
        30,
        (i) => ({ serviceId: yoga._id, classId: session._id, customer: { name: `C${i}`, email: `c${i}@example.com` } }),
        c.auth,
      );
      expect(codes).toEqual({ '200': 10, '409 CLASS_FULL': 20 });
      const row = await a.dbs.test.prisma.classSession.findUniqueOrThrow({ where: { id: session._id } });
      expect(row.bookedCount).toBe(10);
      expect(
        await a.dbs.test.prisma.booking.count({ where: { classSessionId: session._id, status: 'confirmed' } }),
      ).toBe(10);
    });

    it('one customer racing for the same class 10 times holds one place', async () => {
      const c = await blankCompany(a.dbs, w);
      const { employee } = await salon(a.app, c.auth);
      const yoga = await post(a.app, '/api/v1/services', c.auth, {
        name: 'Yoga',
        kind: 'class',
        durationMinutes: 60,
        employeeIds: [employee._id],
      });
      const session = await post(a.app, '/api/v1/classes', c.auth, {
        serviceId: yoga._id,
        employeeId: employee._id,
        startTime: futureHour(8),
        capacity: 5,
      });
      const { codes } = await race(
        10,
        () => ({ serviceId: yoga._id, classId: session._id, customer: { name: 'Same', email: 'same@example.com' } }),
        c.auth,
      );
      expect(codes).toEqual({ '200': 1, '409 CONFLICT': 9 });
      const row = await a.dbs.test.prisma.classSession.findUniqueOrThrow({ where: { id: session._id } });
      expect(row.bookedCount).toBe(1);
    });

    it('class sessions and appointments racing for one instructor at one time: exactly one wins', async () => {
      const c = await blankCompany(a.dbs, w);
      const { employee, service } = await salon(a.app, c.auth, { bufferAfterMinutes: 15 });
      const yoga = await post(a.app, '/api/v1/services', c.auth, {
        name: 'Yoga',
        kind: 'class',
        durationMinutes: 60,
        employeeIds: [employee._id],
      });
      const startTime = futureHour(9);
      // Even requests schedule a class at 10:00, odd ones book a 10:30 appointment (overlapping).
      const appointmentAt = new Date(Date.parse(startTime) + 30 * 60_000).toISOString();
      const { codes, results } = await race(
        30,
        (i) =>
          i % 2 === 0
            ? { serviceId: yoga._id, employeeId: employee._id, startTime, capacity: 10 }
            : {
                serviceId: service._id,
                employeeId: employee._id,
                startTime: appointmentAt,
                customer: { name: `C${i}`, email: `c${i}@example.com` },
              },
        c.auth,
        (i) => (i % 2 === 0 ? '/api/v1/classes' : '/api/v1/bookings'),
      );
      expect(codes).toEqual({ '200': 1, '409 SLOT_UNAVAILABLE': 29 });
      expect(results.filter((r) => r.status >= 500)).toEqual([]);
      const p = a.dbs.test.prisma;
      const sessions = await p.classSession.count({ where: { companyId: c.company.id, status: 'scheduled' } });
      const bookings = await p.booking.count({
        where: { companyId: c.company.id, status: { in: ['pending', 'confirmed'] } },
      });
      expect(sessions + bookings).toBe(1);
      expect(await p.employeeBlock.count({ where: { employeeId: employee._id } })).toBe(1);
    });

    it('two class sessions racing for one instructor: exactly one is scheduled', async () => {
      const c = await blankCompany(a.dbs, w);
      const { employee } = await salon(a.app, c.auth);
      const yoga = await post(a.app, '/api/v1/services', c.auth, {
        name: 'Yoga',
        kind: 'class',
        durationMinutes: 60,
        employeeIds: [employee._id],
      });
      const base = Date.parse(futureHour(10));
      const { codes } = await race(
        20,
        (i) => ({
          serviceId: yoga._id,
          employeeId: employee._id,
          startTime: new Date(base + (i % 4) * 15 * 60_000).toISOString(),
          capacity: 5,
        }),
        c.auth,
        () => '/api/v1/classes',
      );
      expect(codes).toEqual({ '200': 1, '409 SLOT_UNAVAILABLE': 19 });
      expect(await a.dbs.test.prisma.classSession.count({ where: { companyId: c.company.id } })).toBe(1);
    });

    it('a customer deleted while a booking for them commits: the booking survives and the delete is CONFLICT', async () => {
      const c = await blankCompany(a.dbs, w);
      const { employee, service } = await salon(a.app, c.auth);
      const customer = await post(a.app, '/api/v1/customers', c.auth, { name: 'Ann', email: 'ann@example.com' });
      const p = a.dbs.test.prisma;
      let commit!: () => void;
      const gate = new Promise<void>((r) => (commit = r));
      let inserted!: () => void;
      const insertedYet = new Promise<void>((r) => (inserted = r));
      // A booking's transaction that has inserted its row but not committed yet.
      const booking = p.$transaction(
        async (tx) => {
          const start = new Date(futureHour(3));
          const end = new Date(start.getTime() + 3600_000);
          const row = await tx.booking.create({
            data: {
              id: newId(),
              companyId: c.company.id,
              serviceId: service._id,
              employeeId: employee._id,
              customerId: customer._id,
              status: 'confirmed',
              currency: 'EUR',
              startTime: start,
              endTime: end,
              blockStart: start,
              blockEnd: end,
            },
          });
          inserted();
          await gate;
          return row;
        },
        { timeout: 20_000 },
      );
      await insertedYet;
      // The delete counts no committed booking; it must still not take the booking with it.
      const del = fetch(`${urls[1]}/api/v1/customers/${customer._id}`, { method: 'DELETE', headers: c.auth }).then(
        async (r) => ({ status: r.status, body: await r.json() }),
      );
      await new Promise((r) => setTimeout(r, 300));
      commit();
      const row = await booking;
      const res = await del;
      expect([res.status, res.body.error?.code]).toEqual([409, 'CONFLICT']);
      expect(await p.booking.count({ where: { id: row.id } })).toBe(1);
      expect(await p.customer.count({ where: { id: customer._id } })).toBe(1);
    });

    it('a booking transaction that finds no free connection within its wait is 503 SERVICE_UNAVAILABLE with Retry-After', async () => {
      const dbs = await openDatabases({
        DATABASE_URL: a.db.url,
        SANDBOX_SCHEMA: 'sandbox',
        DATABASE_POOL_SIZE: 1,
        DATA_DIR: '.data',
      });
      try {
        const db = dbs.test.prisma;
        let release!: () => void;
        const held = db.$transaction(
          async (tx) => {
            await tx.$queryRawUnsafe('SELECT 1');
            await new Promise<void>((r) => (release = r));
          },
          { timeout: 30_000 },
        );
        await new Promise((r) => setTimeout(r, 200));
        const started = Date.now();
        const err = await domainTransaction(db, (tx) => tx.$queryRawUnsafe('SELECT 1')).catch((e: unknown) => e);
        release();
        await held;
        expect(err).toBeInstanceOf(AppError);
        expect(err).toMatchObject({
          code: 'SERVICE_UNAVAILABLE',
          status: 503,
          headers: { 'retry-after': expect.stringMatching(/^\d+$/) },
        });
        // It waited DOMAIN_TRANSACTION.maxWait (more than Prisma's default 2 s) before giving up.
        expect(Date.now() - started).toBeGreaterThanOrEqual(DOMAIN_TRANSACTION.maxWait - 100);
        // Through the error table of the REST surface, the envelope carries Retry-After.
        expect(toAppError(err)).toBe(err);
      } finally {
        await dbs.close();
      }
    });
  },
);
