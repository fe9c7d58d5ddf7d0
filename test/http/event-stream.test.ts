// Subscriptions over SSE (src/http/event-stream.ts, docs/graphql.md "Live events"): the curl
// example of the docs, run as written with fetch on a real socket against one instance with its
// workers (on an embedded run, the in-process bus); the `id:` of each frame; a client that
// goes away frees its subscription; closing the server ends open streams with `complete`.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveEvents } from '../../src/schema/events/index.js';
import { startWorkers, type Workers } from '../../src/workers/runtime.js';
import type { TestApp } from '../helpers/app.js';
import { blankCompany, createDomainApp, futureHour, post, salon } from '../helpers/domain.js';
import { openEventStream } from '../helpers/event-stream.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { waitFor } from '../helpers/receiver.js';

/** The curl command of docs/graphql.md's "Live events", as one line without the backslashes. */
function docsCurl(): string {
  const md = readFileSync('docs/graphql.md', 'utf8');
  const section = md.slice(md.indexOf('## Live events'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('docs/graphql.md: no sh block under "Live events"');
  return block.replace(/\\\n\s*/g, '');
}

/** The curl line's URL, headers and body (the options it uses: -N, -H, -d). */
function parseCurl(line: string) {
  const url = /^curl -N (\S+)/.exec(line)?.[1];
  const headers = Object.fromEntries(
    [...line.matchAll(/-H "([^":]+): ([^"]+)"/g)].map((m) => [m[1]!.toLowerCase(), m[2]!]),
  );
  const body = /-d '([^']+)'/.exec(line)?.[1];
  expect(url).toBeDefined();
  expect(body).toBeDefined();
  return { url: url!, headers, body: body! };
}

let t: TestApp;
let origin: string;
let workers: Workers;

beforeAll(async () => {
  t = await createDomainApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  workers = await startWorkers(t.services, { consume: false });
});
afterAll(async () => {
  await workers?.stop();
  await t?.close();
});

describe('the Live events example of docs/graphql.md', () => {
  it('streams a booking made afterwards, as a next frame whose id is its position', async () => {
    const w = await createAccountWithKeys(t.dbs);
    const c = await blankCompany(t.dbs, w);
    const { service } = await salon(t.app, c.auth, { price: 0 });
    const curl = parseCurl(docsCurl());
    expect(curl.url).toBe('http://127.0.0.1:3000/graphql');
    expect(curl.headers.authorization).toBe('Bearer svc_sk_test_...');
    const key = c.auth.authorization.slice('Bearer '.length);

    // The same request, sent by fetch: only the origin and the key are this server's.
    const stream = await openEventStream(curl.url.replace('http://127.0.0.1:3000', origin), {
      headers: { ...curl.headers, authorization: `Bearer ${key}` },
      body: JSON.parse(curl.body),
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers.get('cache-control')).toBe('no-store');
    await waitFor(() => liveEvents(t.services).open === 1, { what: 'the subscription to start' });

    const customer = await post(t.app, '/api/v1/customers', c.auth, { name: 'Eve', email: 'eve@example.com' });
    const booking = await post(t.app, '/api/v1/bookings', c.auth, {
      serviceId: service._id,
      customerId: customer._id,
      startTime: futureHour(),
    });
    // customer.created is not among the example's types: the first frame is the booking.
    const frame = await stream.next();
    expect(frame.event).toBe('next');
    const { data } = JSON.parse(frame.data);
    expect(data.events).toMatchObject({ type: 'booking.created', data: { bookingId: booking._id } });
    expect(Object.keys(data.events)).toEqual(['_id', 'type', 'position', 'createdAt', 'data']);
    expect(frame.id).toBe(String(data.events.position));

    // A client that goes away frees its subscription.
    stream.close();
    await waitFor(() => liveEvents(t.services).open === 0, { what: 'the subscription to end' });
  });
});

describe('GET, as EventSource-style clients send it', () => {
  it('takes the subscription in the query string and resumes after the Last-Event-ID header', async () => {
    const w = await createAccountWithKeys(t.dbs);
    const c = await blankCompany(t.dbs, w);
    const made = [];
    for (const name of ['Fay', 'Gus'])
      made.push(await post(t.app, '/api/v1/customers', c.auth, { name, email: `${name}@example.com` }));
    const listed = await waitFor(async () => {
      const r = await t.app.inject({ method: 'GET', url: '/api/v1/events?after=0', headers: c.auth });
      const data = r.json().data as Array<{ position: number; data: { customerId: string } }>;
      return data.length === 2 ? data : null;
    });
    const query = encodeURIComponent('subscription { events(types: ["customer.created"]) { position data } }');
    const stream = await openEventStream(`${origin}/graphql?query=${query}`, {
      method: 'GET',
      headers: { ...c.auth, 'last-event-id': String(listed[0]!.position) },
    });
    const { id, body } = await stream.nextResult();
    expect(id).toBe(String(listed[1]!.position));
    expect(body.data.events.data.customerId).toBe(made[1]._id);
    stream.close();
  });
});

describe('closing the server', () => {
  it('ends open streams with a complete frame instead of waiting for them', async () => {
    const other = await createDomainApp();
    try {
      await other.app.listen({ port: 0, host: '127.0.0.1' });
      const url = `http://127.0.0.1:${(other.app.server.address() as AddressInfo).port}/graphql`;
      const w = await createAccountWithKeys(other.dbs);
      const stream = await openEventStream(url, {
        headers: { authorization: `Bearer ${w.testKey.key}` },
        body: { query: 'subscription { events { _id } }' },
      });
      await waitFor(() => liveEvents(other.services).open === 1, { what: 'the subscription to start' });
      const closing = other.app.close();
      expect(await stream.next()).toEqual({ event: 'complete', data: '' });
      await closing;
    } finally {
      await other.close();
    }
  });
});

describe('a subscription whose client did not ask for a stream (issue 43 §5)', () => {
  it('is streamed at once to Accept: */* and to no Accept at all', async () => {
    const w = await createAccountWithKeys(t.dbs);
    for (const accept of ['*/*', undefined]) {
      const abort = new AbortController();
      const res = await fetch(`${origin}/graphql`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${w.testKey.key}`,
          'content-type': 'application/json',
          ...(accept ? { accept } : {}),
        },
        body: JSON.stringify({ query: 'subscription { events { _id } }' }),
        signal: abort.signal,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      // The first byte comes at once (a keep-alive comment), not with the first event.
      const first = await Promise.race([
        res.body!.getReader().read(),
        new Promise((_, reject) => setTimeout(() => reject(new Error('no byte within 2 s')), 2000)),
      ]);
      expect(new TextDecoder().decode((first as { value: Uint8Array }).value)).toBe(':\n\n');
      abort.abort();
      await waitFor(() => liveEvents(t.services).open === 0, { what: 'the subscription to end' });
    }
  });

  it('is refused at once to Accept: application/json, with an error saying what to send', async () => {
    const w = await createAccountWithKeys(t.dbs);
    const res = await fetch(`${origin}/graphql`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${w.testKey.key}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify({ query: 'subscription { events { _id } }' }),
    });
    expect(res.status).toBe(406);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual({
      errors: [
        {
          message:
            'A subscription is answered as a stream of Server-Sent Events: send the header Accept: text/event-stream',
          extensions: { code: 'BAD_REQUEST' },
        },
      ],
    });
    // The subscription it started is ended, not left open.
    await waitFor(() => liveEvents(t.services).open === 0, { what: 'the subscription to end' });
  });
});
