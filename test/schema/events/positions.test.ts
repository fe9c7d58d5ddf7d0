// Event positions (docs/api.md, Events): the outbox relay numbers events in dispatch order, and
// GET /events?after= resumes by position. With many writers and two relays (two instances over
// one PostgreSQL database, each with its own pools) racing, a reader that resumes by position
// while they run must see every event exactly once, in increasing positions: a position is
// never filled in below one already seen. Embedded PGlite runs one transaction at a time, so the
// race needs real PostgreSQL; the REST behaviour is checked on both.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabases } from '../../../src/db/databases.js';
import { recordEvent } from '../../../src/schema/events/index.js';
import { startWorkers, type Workers } from '../../../src/workers/runtime.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { embedded, type TestDatabases } from '../../helpers/db.js';
import { blankCompany, createDomainApp, expectError, ok, post, type World } from '../../helpers/domain.js';
import { createAccountWithKeys } from '../../helpers/factories.js';
import { waitFor } from '../../helpers/receiver.js';

type App = TestApp & { db: TestDatabases };

async function listAfter(t: TestApp, auth: Record<string, string>, query: string) {
  const res = await t.app.inject({ method: 'GET', url: `/api/v1/events?${query}`, headers: auth });
  return { res, body: res.json() };
}

describe('GET /events and positions', () => {
  let t: App;
  let w: World;
  let workers: Workers;
  beforeAll(async () => {
    t = (await createDomainApp()) as App;
    w = await createAccountWithKeys(t.dbs);
  });
  afterAll(async () => {
    await workers?.stop();
    await t?.close();
  });

  it('an event has no position until the relay dispatches it, then the next one in order', async () => {
    const c = await blankCompany(t.dbs, w);
    await post(t.app, '/api/v1/customers', c.auth, { name: 'Ada', email: 'ada@example.com' });
    const listed = ok(await t.app.inject({ method: 'GET', url: '/api/v1/events', headers: c.auth }));
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ type: 'customer.created', position: null });
    // Not dispatched: invisible to a reader resuming by position, and no cursor itself.
    const { body: none } = await listAfter(t, c.auth, 'after=0');
    expect(none.data).toEqual([]);
    const early = await listAfter(t, c.auth, `after=${listed[0]._id}`);
    expect(expectError(early.res, 400, 'VALIDATION_ERROR').error.details).toEqual([
      { path: 'after', message: 'names an event not dispatched yet, which has no position' },
    ]);

    workers = await startWorkers(t.services, { consume: false });
    await workers.idle();
    const [e1] = ok(await t.app.inject({ method: 'GET', url: '/api/v1/events', headers: c.auth }));
    expect(e1.position).toEqual(expect.any(Number));

    await post(t.app, '/api/v1/customers', c.auth, { name: 'Bo', email: 'bo@example.com' });
    await post(t.app, '/api/v1/customers', c.auth, { name: 'Cy', email: 'cy@example.com' });
    await waitFor(async () => (await listAfter(t, c.auth, `after=${e1.position}`)).body.data.length === 2);

    // Oldest first after a position; the same after that event's id.
    const byPosition = (await listAfter(t, c.auth, `after=${e1.position}`)).body;
    expect(byPosition.data).toHaveLength(2);
    const [e2, e3] = byPosition.data;
    expect(e2.position).toBeGreaterThan(e1.position);
    expect(e3.position).toBeGreaterThan(e2.position);
    expect((await listAfter(t, c.auth, `after=${e1._id}`)).body.data).toEqual(byPosition.data);
    // Pages of the position order continue with nextCursor.
    const page1 = (await listAfter(t, c.auth, `after=0&limit=2`)).body;
    expect(page1.data.map((e: { _id: string }) => e._id)).toEqual([e1._id, e2._id]);
    expect(page1.meta.pagination.hasMore).toBe(true);
    const page2 = (await listAfter(t, c.auth, `after=0&limit=2&cursor=${page1.meta.pagination.nextCursor}`)).body;
    expect(page2.data.map((e: { _id: string }) => e._id)).toEqual([e3._id]);
    expect(page2.meta.pagination).toMatchObject({ hasMore: false, nextCursor: null });
    // The same position through GraphQL and GET /events/:id.
    const one = ok(await t.app.inject({ method: 'GET', url: `/api/v1/events/${e2._id}`, headers: c.auth }));
    expect(one.position).toBe(e2.position);
  });

  it('after= refuses what is neither a position nor an event of this company, naming the field', async () => {
    const c = await blankCompany(t.dbs, w);
    const other = await blankCompany(t.dbs, w);
    const theirs = await post(t.app, '/api/v1/customers', other.auth, { name: 'Di', email: 'di@example.com' });
    expect(theirs._id).toBeDefined();
    await workers.idle();
    workers.kick();
    await workers.idle();
    const [event] = ok(await t.app.inject({ method: 'GET', url: '/api/v1/events', headers: other.auth }));
    const foreign = await listAfter(t, c.auth, `after=${event._id}`);
    expect(expectError(foreign.res, 400, 'VALIDATION_ERROR').error.details).toEqual([
      { path: 'after', message: 'is not an event of this company' },
    ]);
    for (const bad of ['-1', 'x', '1.5', '9'.repeat(16)]) {
      const r = await listAfter(t, c.auth, `after=${bad}`);
      expect(expectError(r.res, 400, 'VALIDATION_ERROR').error.message).toMatch(/after/);
    }
  });
});

describe.skipIf(embedded())('positions under concurrency (real PostgreSQL)', () => {
  let a: App;
  let b: TestApp;
  let bDb: TestDatabases;
  const workers: Workers[] = [];
  beforeAll(async () => {
    a = (await createDomainApp()) as App;
    // A second instance: the same database, its own pools, its own relay.
    const dbs = await openDatabases({
      DATABASE_URL: a.db.url,
      SANDBOX_SCHEMA: 'sandbox',
      DATABASE_POOL_SIZE: 10,
      DATA_DIR: '.data',
    });
    bDb = { dbs, url: a.db.url, drop: () => dbs.close() };
    b = await createTestApp({ db: bDb, env: { WORKER_POLL_MS: '50' } });
  });
  afterAll(async () => {
    for (const x of workers) await x.stop();
    await b?.close();
    await bDb?.drop();
    await a?.close();
  });

  it('concurrent writers, two relays: positions unique, and a reader resuming by position misses none', async () => {
    const w = await createAccountWithKeys(a.dbs);
    const c = await blankCompany(a.dbs, w);
    const WRITERS = 20;
    const EACH = 15;
    workers.push(
      await startWorkers(a.services, { consume: false }),
      await startWorkers(b.services, { consume: false }),
    );

    // Each writer commits its events one transaction at a time, alternating the two instances'
    // pools, while both relays dispatch and the reader follows.
    const written: string[] = [];
    const writing = Promise.all(
      Array.from({ length: WRITERS }, async (_, i) => {
        const db = (i % 2 ? a : b).dbs.test.prisma;
        for (let k = 0; k < EACH; k++) {
          const e = await db.$transaction((tx) =>
            recordEvent(tx, { companyId: c.company.id, type: 'customer.updated', data: { writer: i, k } }),
          );
          written.push(e.id);
        }
      }),
    );
    const seen: Array<{ _id: string; position: number }> = [];
    let after = 0;
    let done = false;
    void writing.then(() => (done = true));
    const deadline = Date.now() + 60_000;
    while (seen.length < WRITERS * EACH && Date.now() < deadline) {
      const { body } = await listAfter(a, c.auth, `after=${after}&limit=100`);
      for (const e of body.data) seen.push(e);
      if (body.data.length) after = body.data[body.data.length - 1].position;
      else await new Promise((r) => setTimeout(r, done ? 1 : 5));
    }
    await writing;

    // Every event once, in strictly increasing positions.
    expect(seen).toHaveLength(WRITERS * EACH);
    expect(new Set(seen.map((e) => e._id))).toEqual(new Set(written));
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.position).toBeGreaterThan(seen[i - 1]!.position);
    // Dense: each batch continues the last, as the database has them.
    const rows = await a.dbs.test.prisma.event.findMany({
      where: { companyId: c.company.id },
      orderBy: { position: 'asc' },
      select: { position: true },
    });
    expect(rows.map((r) => Number(r.position))).toEqual(seen.map((e) => e.position));
  });
});
