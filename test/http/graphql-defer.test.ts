// @defer and @stream at /graphql (docs/graphql.md, Deferred parts; issue 43 §3), raw over a real
// socket: the initial payload first, the deferred stats and the streamed edges after it, as
// multipart/mixed or as an event stream where accepted; the limits weigh the deferred parts as
// the rest; a deferred field keeps its scope; a client that accepts neither is told what to send.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { blankCompany, createDomainApp, salon, tokenWithScopes } from '../helpers/domain.js';
import { openEventStream } from '../helpers/event-stream.js';
import { bookDay } from '../helpers/dashboard.js';
import { createAccountWithKeys } from '../helpers/factories.js';

let t: TestApp;
let origin: string;
let auth: Record<string, string>;
let world: Awaited<ReturnType<typeof createAccountWithKeys>>;
let staffIds: string[];
const bookingIds: string[] = [];
// A local day (UTC company) three days ahead: 2 employees × 3 hours = 6 bookings.
const day = new Date(Date.now() + 3 * 86_400_000);
day.setUTCHours(0, 0, 0, 0);
const from = day.toISOString();
const to = new Date(day.getTime() + 86_400_000).toISOString();

beforeAll(async () => {
  t = await createDomainApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  origin = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  world = await createAccountWithKeys(t.dbs);
  const c = await blankCompany(t.dbs, world, { timezone: 'UTC' });
  auth = c.auth;
  const { service, staff } = await salon(t.app, auth, {}, 2);
  staffIds = staff.map((e: { _id: string }) => e._id).sort();
  const made = await bookDay(t.app, auth, { serviceId: service._id, staff, day, fromHour: 8, toHour: 11 });
  bookingIds.push(...made.map((b) => b._id));
});
afterAll(async () => t?.close());

// The day's bookings at once, the stats of the day deferred.
const DAY_THEN_STATS = `query DayThenStats($from: DateTime!, $to: DateTime!) {
  bookings(from: $from, to: $to, orderBy: START_TIME, first: 100) { edges { node { _id startTime } } }
  ... @defer(label: "stats") { bookingStats(from: $from, to: $to, groupBy: EMPLOYEE) { groups { key counts { total } } } }
}`;
// The day's bookings streamed: the first edge at once, the others after it.
const STREAMED_DAY = `query StreamedDay($from: DateTime!, $to: DateTime!) {
  bookings(from: $from, to: $to, orderBy: START_TIME, first: 100) {
    edges @stream(initialCount: 1) { cursor node { _id startTime } }
  }
}`;

const send = (document: string, accept: string, headers: Record<string, string> = auth) =>
  fetch(`${origin}/graphql`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', accept },
    body: JSON.stringify({ query: document, variables: { from, to } }),
  });

/**
 * The JSON parts of a multipart/mixed answer, in the order sent. The wire format is what is under
 * test here, so the parts are cut at the boundary the content type names (graphql-yoga writes
 * each as `--<boundary>`, headers, a blank line, the JSON).
 */
async function multipartParts(res: Response): Promise<any[]> {
  const boundary = /boundary="?([^";]+)"?/.exec(res.headers.get('content-type') ?? '')?.[1];
  expect(boundary).toBeDefined();
  const body = await res.text();
  const parts = body.split(`\r\n--${boundary}`).slice(1, -1);
  // The answer ends with the closing delimiter.
  expect(body.endsWith(`\r\n--${boundary}--\r\n`)).toBe(true);
  return parts.map((part) => {
    const [head, json] = [part.slice(0, part.indexOf('\r\n\r\n')), part.slice(part.indexOf('\r\n\r\n') + 4)];
    expect(head.toLowerCase()).toContain('content-type: application/json');
    return JSON.parse(json);
  });
}

const statsOfDay = () =>
  staffIds.map((key) => ({ key, counts: { total: 3 } })).sort((a, b) => a.key.localeCompare(b.key));

describe('@defer', () => {
  it('answers multipart/mixed: the day first, the deferred stats after it', async () => {
    const res = await send(DAY_THEN_STATS, 'multipart/mixed');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^multipart\/mixed; boundary=/);
    const [initial, ...rest] = await multipartParts(res);
    // The initial payload: the bookings, not the deferred stats, and more to come.
    expect(initial.hasNext).toBe(true);
    expect(Object.keys(initial.data)).toEqual(['bookings']);
    expect(initial.data.bookings.edges.map((e: any) => e.node._id).sort()).toEqual([...bookingIds].sort());
    // After it: the stats at the root's path, with their label, and the end.
    expect(rest.at(-1).hasNext).toBe(false);
    const incremental = rest.flatMap((p) => p.incremental ?? []);
    expect(incremental).toHaveLength(1);
    expect(incremental[0].path).toEqual([]);
    expect(incremental[0].label).toBe('stats');
    const groups = incremental[0].data.bookingStats.groups;
    expect([...groups].sort((a: any, b: any) => a.key.localeCompare(b.key))).toEqual(statsOfDay());
  });

  it('answers an event stream where accepted, the same parts in the same order', async () => {
    const stream = await openEventStream(`${origin}/graphql`, {
      headers: auth,
      body: { query: DAY_THEN_STATS, variables: { from, to } },
    });
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const initial = (await stream.nextResult()).body;
      expect(initial.hasNext).toBe(true);
      expect(Object.keys(initial.data)).toEqual(['bookings']);
      const after = (await stream.nextResult()).body;
      expect(after.hasNext).toBe(false);
      expect(after.incremental[0].data.bookingStats.groups).toHaveLength(2);
      expect((await stream.next()).event).toBe('complete');
    } finally {
      stream.close();
    }
  });

  it('the same document with @defer(if: false) is one JSON answer with everything', async () => {
    const res = await send(DAY_THEN_STATS.replace('@defer(label: "stats")', '@defer(if: false)'), 'application/json');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(Object.keys(body.data).sort()).toEqual(['bookingStats', 'bookings']);
    expect(body.data.bookingStats.groups).toHaveLength(2);
  });

  it('a deferred field keeps its scope: revenue without payments:read is INSUFFICIENT_SCOPE in its part', async () => {
    const token = await tokenWithScopes(t.dbs, world, 'bookings:read');
    const res = await send(
      `query($from: DateTime!, $to: DateTime!) { bookings(from: $from, to: $to) { nodes { _id } }
        ... @defer { bookingStats(from: $from, to: $to, groupBy: EMPLOYEE) { totals { counts { total } revenue { net } } } } }`,
      'multipart/mixed',
      token,
    );
    expect(res.status).toBe(200);
    const [initial, ...rest] = await multipartParts(res);
    expect(initial.errors).toBeUndefined();
    const part = rest.flatMap((p) => p.incremental ?? [])[0];
    expect(part.data.bookingStats.totals.revenue).toBeNull();
    // Masked as any answer's errors are (src/http/graphql.ts): the code of the one table, its details.
    expect(part.errors.map((e: any) => [e.path, e.extensions])).toEqual([
      [
        ['bookingStats', 'totals', 'revenue'],
        { code: 'INSUFFICIENT_SCOPE', details: { requiredScope: 'payments:read' } },
      ],
    ]);
  });

  it('is refused at the root of a mutation or a subscription, by validation, before anything runs', async () => {
    for (const document of [
      'mutation { ... @defer { acceptBookingOffer(id: "x") { _id } } }',
      'subscription { ... @defer { events { _id } } }',
    ]) {
      // One JSON answer (200 under application/json, as any invalid document is), nothing run.
      const res = await send(document, 'multipart/mixed, text/event-stream, application/json');
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const body: any = await res.json();
      expect(body.data).toBeUndefined();
      expect(body.errors.map((e: any) => e.extensions.code)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
      expect(body.errors[0].message).toMatch(/^Defer directive cannot be used on root (mutation|subscription) type/);
    }
  });

  it('a client that accepts no streamed answer is told at once what to send', async () => {
    const res = await send(DAY_THEN_STATS, 'application/json');
    expect(res.status).toBe(406);
    expect(res.headers.get('accept')).toBe('multipart/mixed, text/event-stream');
    expect(await res.json()).toEqual({
      errors: [
        {
          message: expect.stringContaining('Accept: multipart/mixed or Accept: text/event-stream'),
          extensions: { code: 'BAD_REQUEST' },
        },
      ],
    });
  });
});

describe('@stream on a connection’s edges', () => {
  it('sends the first edge at once and each other after it, at its index, as the whole list answers', async () => {
    const whole = await (await send(STREAMED_DAY.replace('@stream(initialCount: 1)', ''), 'application/json')).json();
    const edges = whole.data.bookings.edges;
    expect(edges).toHaveLength(bookingIds.length);

    const [initial, ...rest] = await multipartParts(await send(STREAMED_DAY, 'multipart/mixed'));
    expect(initial.hasNext).toBe(true);
    expect(initial.data.bookings.edges).toEqual(edges.slice(0, 1));
    const items = rest.flatMap((p) => p.incremental ?? []);
    // Each later edge at its own index of the list, in order.
    expect(items.map((i: any) => i.path)).toEqual(
      edges.slice(1).map((_: unknown, i: number) => ['bookings', 'edges', i + 1]),
    );
    expect(items.flatMap((i: any) => i.items)).toEqual(edges.slice(1));
    expect(rest.at(-1).hasNext).toBe(false);
  });

  it('streams `nodes` the same way, past its initialCount', async () => {
    const document = `query($from: DateTime!, $to: DateTime!) {
      bookings(from: $from, to: $to, orderBy: START_TIME, first: 100) { nodes @stream(initialCount: 2) { _id } } }`;
    const [initial, ...rest] = await multipartParts(await send(document, 'multipart/mixed'));
    expect(initial.data.bookings.nodes).toHaveLength(2);
    const streamed = rest.flatMap((p) => p.incremental ?? []).flatMap((i: any) => i.items);
    expect([...initial.data.bookings.nodes, ...streamed].map((n: any) => n._id).sort()).toEqual([...bookingIds].sort());
  });
});

describe('the limits weigh deferred and streamed parts as the rest', () => {
  const refused = async (document: string) => {
    const res = await send(document, 'multipart/mixed, application/json');
    const text = await res.text();
    return { status: res.status, type: res.headers.get('content-type'), body: JSON.parse(text) };
  };

  it('first: 100 inside first: 100 inside first: 100, deferred, is QUERY_TOO_COMPLEX before any part', async () => {
    const res = await refused(
      '{ me { name } ... @defer { bookings(first: 100) { edges @stream { node { customer { bookings(first: 100) { nodes { payments(first: 100) { nodes { _id } } } } } } } } } }',
    );
    expect(res.status).toBe(400);
    expect(res.type).toMatch(/^application\/(graphql-response\+)?json/);
    expect(res.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
  });

  it('11 levels deep inside @defer is QUERY_TOO_DEEP', async () => {
    const res = await refused(`{ me { ... @defer { ${'... on Company { '.repeat(9)}name${' }'.repeat(9)} } } }`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('QUERY_TOO_DEEP');
  });
});
