// The availability cache (src/schema/availability/availability-cache.ts): instance A keeps a
// month of slots; every write that changes them, made through instance B (its own pool, its
// own cache) or directly in the database, is seen by A's very next answer. Two instances over
// one PostgreSQL database, so this needs PostgreSQL (embedded PGlite is one process).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabases } from '../../../src/db/databases.js';
import { newId } from '../../../src/ids.js';
import { createAccountWithKeys } from '../../helpers/factories.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { embedded, type TestDatabases } from '../../helpers/db.js';
import { blankCompany, createDomainApp, futureHour, ok, post, salon, type World } from '../../helpers/domain.js';

let a: TestApp & { db: TestDatabases };
let b: TestApp;
let bDb: TestDatabases;
let w: World;

const H = 3_600_000;
const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

describe.skipIf(embedded())('availability kept by one instance, written through another', () => {
  beforeAll(async () => {
    a = (await createDomainApp()) as TestApp & { db: TestDatabases };
    const dbs = await openDatabases({
      DATABASE_URL: a.db.url,
      SANDBOX_SCHEMA: 'sandbox',
      DATABASE_POOL_SIZE: 2,
      DATA_DIR: '.data',
    });
    bDb = { dbs, url: a.db.url, drop: () => dbs.close() };
    b = await createTestApp({ db: bDb, env: { RATE_LIMIT_PER_SECOND: '1000000' } });
    w = await createAccountWithKeys(a.dbs);
  });
  afterAll(async () => {
    await b?.close();
    await bDb?.drop();
    await a?.close();
  });

  async function setup(employees = 2) {
    const c = await blankCompany(a.dbs, w);
    const s = await salon(a.app, c.auth, {}, employees);
    const from = futureHour(3, 0);
    const to = new Date(Date.parse(from) + 2 * 24 * H).toISOString();
    const ask = async (app = a.app) => {
      const q = new URLSearchParams({ serviceId: s.service._id, from, to });
      const slots = ok(await app.inject({ method: 'GET', url: `/api/v1/availability?${q}`, headers: c.auth }))
        .slots as Array<{
        startTime: string;
        endTime: string;
        employeeIds: string[];
      }>;
      return new Map(slots.map((x) => [x.startTime, x]));
    };
    return { c, s, from, ask };
  }

  const at = (from: string, hours: number) => new Date(Date.parse(from) + hours * H).toISOString();

  it('a booking, its cancellation and time off made through B are seen by A at once', async () => {
    const { c, s, from, ask } = await setup();
    const [e0, e1] = s.staff;
    const start = at(from, 10);
    const first = await ask();
    expect(first.get(start)!.employeeIds.sort()).toEqual([e0._id, e1._id].sort());
    expect(await ask()).toEqual(first); // answered again, unchanged

    const booking = await post(b.app, '/api/v1/bookings', c.auth, {
      serviceId: s.service._id,
      employeeId: e0._id,
      startTime: start,
      customer: { name: 'A', email: 'a@example.com' },
    });
    expect((await ask()).get(start)!.employeeIds).toEqual([e1._id]);

    await post(b.app, `/api/v1/bookings/${booking._id}/cancel`, c.auth, {});
    expect((await ask()).get(start)!.employeeIds.sort()).toEqual([e0._id, e1._id].sort());

    await post(b.app, `/api/v1/employees/${e1._id}/time-off`, c.auth, {
      startTime: at(from, 9),
      endTime: at(from, 12),
      reason: 'Dentist',
    });
    expect((await ask()).get(start)!.employeeIds).toEqual([e0._id]);
  });

  it("working hours, a closure and the service's duration changed through B are seen by A at once", async () => {
    const { c, s, from, ask } = await setup();
    const [e0, e1] = s.staff;
    const start = at(from, 10);
    await ask();
    ok(
      await b.app.inject({
        method: 'PATCH',
        url: `/api/v1/employees/${e1._id}`,
        headers: c.auth,
        payload: { workingHours: Object.fromEntries(DAYS.map((d) => [d, []])) },
      }),
    );
    expect((await ask()).get(start)!.employeeIds).toEqual([e0._id]);

    await post(b.app, '/api/v1/closures', c.auth, { startTime: at(from, 9), endTime: at(from, 12), reason: 'Flooded' });
    expect((await ask()).has(start)).toBe(false);

    ok(
      await b.app.inject({
        method: 'PATCH',
        url: `/api/v1/services/${s.service._id}`,
        headers: c.auth,
        payload: { durationMinutes: 30 },
      }),
    );
    const after = (await ask()).get(at(from, 13))!;
    expect(Date.parse(after.endTime) - Date.parse(after.startTime)).toBe(H / 2);
  });

  it('a write made straight in the database (no use case, no process of ours) is seen too', async () => {
    const { c, s, from, ask } = await setup(1);
    const start = at(from, 10);
    expect((await ask()).has(start)).toBe(true);
    await bDb.dbs.test.prisma.timeOff.create({
      data: {
        id: newId(),
        companyId: c.company.id,
        employeeId: s.employee._id,
        startTime: new Date(at(from, 10)),
        endTime: new Date(at(from, 11)),
      },
    });
    expect((await ask()).has(start)).toBe(false);
  });
});
