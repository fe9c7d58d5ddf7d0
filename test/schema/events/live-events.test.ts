// The `events` subscription (docs/graphql.md, Live events): two app instances over one
// PostgreSQL database and one Redis, as two server processes would be. The relay runs with
// instance A and publishes what it dispatches on Redis; a subscription held on instance B (real
// sockets, SSE read with fetch) gets a booking made through A, never another company's event,
// and after a reconnect with Last-Event-ID or `after` exactly the events it missed.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabases } from '../../../src/db/databases.js';
import { liveEvents } from '../../../src/schema/events/index.js';
import { startWorkers, type Workers } from '../../../src/workers/runtime.js';
import { createTestApp, redisUrl, type TestApp } from '../../helpers/app.js';
import type { TestDatabases } from '../../helpers/db.js';
import { blankCompany, futureHour, post, salon, tokenWithScopes, type World } from '../../helpers/domain.js';
import { openEventStream, type EventStream } from '../../helpers/event-stream.js';
import { bearer, createAccountWithKeys } from '../../helpers/factories.js';
import { createApiKey } from '../../../src/schema/credentials/create-api-key.js';
import { revokeApiKey } from '../../../src/schema/credentials/revoke-api-key.js';
import { waitFor } from '../../helpers/receiver.js';

const SUBSCRIPTION = /* GraphQL */ `
  subscription Live($types: [String!], $after: EventPosition) {
    events(types: $types, after: $after) {
      _id
      type
      position
      createdAt
      data
    }
  }
`;

describe.skipIf(!redisUrl())('the events subscription across two instances (PostgreSQL and Redis)', () => {
  let a: TestApp & { db: TestDatabases };
  let b: TestApp;
  let bDb: TestDatabases;
  let urlB: string;
  let workers: Workers;
  let w: World;
  const open: EventStream[] = [];

  beforeAll(async () => {
    const env = { RATE_LIMIT_PER_SECOND: '1000000' };
    a = await createTestApp({ env });
    const dbs = await openDatabases({
      DATABASE_URL: a.db.url,
      SANDBOX_SCHEMA: 'sandbox',
      DATABASE_POOL_SIZE: 10,
      DATA_DIR: '.data',
    });
    bDb = { dbs, url: a.db.url, drop: () => dbs.close() };
    // The same Redis and prefix: one deployment of two instances.
    b = await createTestApp({ db: bDb, env: { ...env, REDIS_PREFIX: a.config.REDIS_PREFIX } });
    await b.app.listen({ port: 0, host: '127.0.0.1' });
    urlB = `http://127.0.0.1:${(b.app.server.address() as AddressInfo).port}/graphql`;
    // Only A relays: whatever B's subscriptions get came over Redis or from the database.
    workers = await startWorkers(a.services, { consume: false });
    w = await createAccountWithKeys(a.dbs);
  });
  afterAll(async () => {
    for (const s of open) s.close();
    await workers?.stop();
    await b?.close();
    await bDb?.drop();
    await a?.close();
  });

  const subscribe = async (auth: Record<string, string>, variables: object = {}, headers = {}) => {
    const s = await openEventStream(urlB, {
      headers: { ...auth, ...headers },
      body: { query: SUBSCRIPTION, variables },
    });
    open.push(s);
    return s;
  };

  /** A company with a bookable service and a customer; book(i) books the i-th free hour. */
  async function bookable() {
    const c = await blankCompany(a.dbs, w);
    const { service } = await salon(a.app, c.auth, { price: 0 });
    const customer = await post(a.app, '/api/v1/customers', c.auth, { name: 'Live', email: 'live@example.com' });
    let hour = 0;
    const book = () =>
      post(a.app, '/api/v1/bookings', c.auth, {
        serviceId: service._id,
        customerId: customer._id,
        startTime: futureHour(3 + Math.floor(hour / 24), hour++ % 24),
      });
    return { ...c, book };
  }

  it('a booking made through A reaches a subscription on B in under a second; another company’s never does', async () => {
    const mine = await bookable();
    const theirs = await bookable();
    const sub = await subscribe(mine.auth, { types: ['booking.created'] });
    expect(sub.status).toBe(200);
    expect(sub.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await waitFor(() => liveEvents(b.services).open === 1, { what: 'the subscription to start' });

    // The other company's booking is committed (and dispatched) first: were it delivered, it
    // would be the first frame.
    await theirs.book();
    const booked = await mine.book();
    const sent = Date.now();
    const { id, body } = await sub.nextResult();
    const latencyMs = Date.now() - sent;
    expect(body.errors).toBeUndefined();
    expect(body.data.events).toMatchObject({ type: 'booking.created', data: { bookingId: booked._id } });
    expect(id).toBe(String(body.data.events.position));
    expect(latencyMs).toBeLessThan(1000);
    console.log(`live event from instance A to a subscription on B: ${latencyMs} ms after the POST answered`);

    // The same object as GET /events shows.
    const listed = await a.app.inject({
      method: 'GET',
      url: `/api/v1/events/${body.data.events._id}`,
      headers: mine.auth,
    });
    expect(listed.json().data).toEqual(body.data.events);
    sub.close();
  });

  /**
   * Holds a subscription until it got one booking, disconnects, books three more, reconnects
   * as `resume` says after the one it got: the three come first, then a booking made while the
   * replay may still be running, then the next one, each once and in position order.
   */
  async function missAndResume(resume: (lastId: string) => { variables?: object; headers?: Record<string, string> }) {
    const c = await bookable();
    const first = await subscribe(c.auth, { types: ['booking.created'] });
    await c.book();
    const seen = await first.nextResult();
    first.close();
    await waitFor(() => liveEvents(b.services).open === 0, { what: 'the closed subscription to end' });

    const missed = [await c.book(), await c.book(), await c.book()];
    await waitFor(async () => {
      const r = await a.app.inject({ method: 'GET', url: `/api/v1/events?after=${seen.id}`, headers: c.auth });
      return r.json().data.filter((e: { type: string }) => e.type === 'booking.created').length === 3;
    });

    const how = resume(seen.id!);
    const again = await subscribe(c.auth, { types: ['booking.created'], ...how.variables }, how.headers);
    const live = await c.book();
    const got = [];
    for (let i = 0; i < 4; i++) got.push(await again.nextResult());
    expect(got.map((g) => g.body.data.events.data.bookingId)).toEqual([...missed.map((m) => m._id), live._id]);
    const positions = got.map((g) => Number(g.id));
    expect(positions[0]).toBeGreaterThan(Number(seen.id));
    for (let i = 1; i < positions.length; i++) expect(positions[i]).toBeGreaterThan(positions[i - 1]!);
    const later = await c.book();
    expect((await again.nextResult()).body.data.events.data.bookingId).toBe(later._id);
    again.close();
    await waitFor(() => liveEvents(b.services).open === 0, { what: 'the closed subscription to end' });
  }

  it('reconnecting with Last-Event-ID gets exactly the events missed, then live ones', async () => {
    await missAndResume((id) => ({ headers: { 'last-event-id': id } }));
  });

  it('subscribing with after gets exactly the events after it, then live ones', async () => {
    await missAndResume((id) => ({ variables: { after: Number(id) } }));
  });

  it('a key revoked on A ends its subscription on B with UNAUTHORIZED before another event reaches it', async () => {
    const c = await bookable();
    const key = await createApiKey(a.dbs.test.prisma, { companyId: c.company.id, name: 'watcher' });
    const sub = await subscribe(bearer(key.key), { types: ['booking.created'] });
    await c.book();
    expect((await sub.nextResult()).body.data.events.type).toBe('booking.created');

    await revokeApiKey(a.dbs, a.services.credentials, { keyId: key.apiKey.id });
    await c.book();
    const { body } = await sub.nextResult();
    expect(body).toEqual({
      errors: [expect.objectContaining({ extensions: { code: 'UNAUTHORIZED' } })],
    });
    expect((await sub.next()).event).toBe('complete');
    await waitFor(() => liveEvents(b.services).open === 0, { what: 'the subscription to end' });
  });

  it('an event whose message B never heard (another relay, another bus) comes from the database, in order', async () => {
    const c = await bookable();
    const sub = await subscribe(c.auth, { types: ['booking.created'] });
    await waitFor(() => liveEvents(b.services).open === 1, { what: 'the subscription to start' });
    // A relay whose messages go nowhere B listens (another Redis prefix): as if its publish
    // had been lost. A's relay is paused meanwhile, so this one dispatches the booking.
    await workers.stop();
    const deaf = await createTestApp({ db: a.db, env: { REDIS_PREFIX: `${a.config.REDIS_PREFIX}deaf:` } });
    try {
      await c.book();
      const deafWorkers = await startWorkers(deaf.services, { consume: false });
      await waitFor(async () => {
        const e = await a.dbs.test.prisma.event.findFirst({
          where: { companyId: c.company.id, type: 'booking.created', position: { not: null } },
        });
        return e !== null;
      });
      await deafWorkers.stop();
    } finally {
      await deaf.close();
    }
    workers = await startWorkers(a.services, { consume: false });
    // The next batch A publishes starts past the last position B heard: B fills the gap from
    // the database before passing the batch on, well before its slow poll would.
    const heard = await c.book();
    const started = Date.now();
    const first = await sub.nextResult();
    const second = await sub.nextResult();
    expect(Date.now() - started).toBeLessThan(2000);
    const ids = [first, second].map((r) => r.body.data.events.data.bookingId);
    expect(ids[1]).toBe(heard._id);
    expect(ids[0]).not.toBe(heard._id);
    expect(Number(first.id)).toBeLessThan(Number(second.id));
    sub.close();
  });

  it('without events:read the subscription is refused with INSUFFICIENT_SCOPE; without a credential, UNAUTHORIZED', async () => {
    const token = await tokenWithScopes(a.dbs, w, 'bookings:read');
    const refused = await subscribe(token);
    const { body } = await refused.nextResult();
    expect(body.data ?? null).toBeNull();
    expect(body.errors[0].extensions).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      details: { requiredScope: 'events:read' },
    });
    expect((await refused.next()).event).toBe('complete');

    const anonymous = await subscribe({});
    expect((await anonymous.nextResult()).body.errors[0].extensions.code).toBe('UNAUTHORIZED');
    expect(liveEvents(b.services).open).toBe(0);
  });

  it('a bad types or after argument is a VALIDATION_ERROR naming it', async () => {
    const c = await blankCompany(a.dbs, w);
    const badType = await subscribe(c.auth, { types: ['booking.created', 'booking.exploded'] });
    expect((await badType.nextResult()).body.errors[0].extensions).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ path: 'types.1' }],
    });
    const badId = await subscribe(c.auth, {}, { 'last-event-id': 'yesterday' });
    expect((await badId.nextResult()).body.errors[0].extensions).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ path: 'Last-Event-ID' }],
    });
  });
});
