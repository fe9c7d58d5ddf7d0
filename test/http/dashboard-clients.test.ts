// The canonical dashboard queries of docs/graphql.md (Limits), read from the page, sent by stock
// clients over a real socket with a bearer key (issue 43 §1): Apollo Client 4 with its
// relayStylePagination field policy and urql with graphcache's relayPagination page a day's
// bookings to the end, read a customer's history, the week's stats by employee and a booking by
// its global id, and each answer equals what REST answers for the same records. The limits still
// refuse what they exist for: 100 × 100 × 100 nested, 11 levels deep, 16 aliases.
import { readFileSync } from 'node:fs';
import { ApolloClient, HttpLink, InMemoryCache, gql as apolloGql } from '@apollo/client';
import { Defer20220824Handler } from '@apollo/client/incremental';
import { relayStylePagination } from '@apollo/client/utilities';
import { Client, fetchExchange, gql as urqlGql } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import { relayPagination } from '@urql/exchange-graphcache/extras';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { blankCompany, createDomainApp, ok, post, salon } from '../helpers/domain.js';
import { bookDay } from '../helpers/dashboard.js';
import { createAccountWithKeys } from '../helpers/factories.js';

const page = readFileSync(new URL('../../docs/graphql.md', import.meta.url), 'utf8');
const limits = page.slice(page.indexOf('## Limits'), page.indexOf('## Errors'));
const QUERIES = new Map(
  [...limits.matchAll(/```graphql\n([\s\S]*?)```/g)].map((m) => [/query (\w+)/.exec(m[1]!)![1]!, m[1]!]),
);
// The deferred dashboard query of docs/graphql.md (Deferred parts), read from the page as well.
const deferred = page.slice(page.indexOf('## Deferred parts'), page.indexOf('## Live events'));
for (const m of deferred.matchAll(/```graphql\n([\s\S]*?)```/g)) QUERIES.set(/query (\w+)/.exec(m[1]!)![1]!, m[1]!);
const query = (name: string) => {
  const q = QUERIES.get(name);
  if (!q) throw new Error(`docs/graphql.md (Limits) has no query ${name}`);
  return q;
};

let t: TestApp;
let origin: string;
let auth: Record<string, string>;
let customerId: string;
let bookingIds: string[];
// A local day (UTC company) three days ahead: 3 employees × 10 hours = 30 bookings, paged by 8.
const day = new Date(Date.now() + 3 * 86_400_000);
day.setUTCHours(0, 0, 0, 0);
const from = day.toISOString();
const to = new Date(day.getTime() + 86_400_000).toISOString();
const weekTo = new Date(day.getTime() + 7 * 86_400_000).toISOString();
const PAGE = 8;

const card = { number: '4242424242424242', expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvc: '123' };

beforeAll(async () => {
  t = await createDomainApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address() as { port: number };
  origin = `http://127.0.0.1:${address.port}`;
  const c = await blankCompany(t.dbs, await createAccountWithKeys(t.dbs), { timezone: 'UTC' });
  auth = c.auth;
  const { service, staff } = await salon(t.app, auth, {}, 3);
  const made = await bookDay(t.app, auth, { serviceId: service._id, staff, day, fromHour: 8, toHour: 18 });
  bookingIds = made.map((b) => b._id);
  customerId = made.findLast((b) => b.employeeIndex === 0)!.customerId;
  for (const bookingId of bookingIds.slice(0, 4)) await post(t.app, '/api/v1/payments', auth, { bookingId, card });
});
afterAll(async () => t?.close());

const rest = async (url: string) => ok(await t.app.inject({ method: 'GET', url: `/api/v1${url}`, headers: auth }));

type Edge = { cursor: string; node: Record<string, any> };

/** The REST answer for the records a day's page shows, in the same shape. */
async function restDay(ids: string[]) {
  const out = [];
  for (const id of ids) {
    const b = await rest(`/bookings/${id}`);
    const [customer, service, employee, payments] = await Promise.all([
      rest(`/customers/${b.customerId}`),
      rest(`/services/${b.serviceId}`),
      rest(`/employees/${b.employeeId}`),
      rest(`/payments?bookingId=${b._id}`),
    ]);
    out.push({
      _id: b._id,
      startTime: b.startTime,
      endTime: b.endTime,
      status: b.status,
      customer: { _id: customer._id, name: customer.name, email: customer.email },
      service: { _id: service._id, name: service.name, price: service.price, currency: 'EUR' },
      employee: { _id: employee._id, name: employee.name },
      payments: payments.map((p: Record<string, unknown>) => ({ _id: p._id, status: p.status, amount: p.amount })),
    });
  }
  return out;
}

/** A day's page as the comparison above writes it. */
const asRest = (edges: Edge[]) =>
  edges.map(({ node: b }) => ({
    _id: b._id,
    startTime: b.startTime,
    endTime: b.endTime,
    status: b.status,
    customer: { _id: b.customer._id, name: b.customer.name, email: b.customer.email },
    service: {
      _id: b.service._id,
      name: b.service.name,
      price: b.service.priceMoney.amount,
      currency: b.service.priceMoney.currency,
    },
    employee: { _id: b.employee._id, name: b.employee.name },
    payments: b.payments.edges.map(({ node: p }: Edge) => ({
      _id: p._id,
      status: p.status,
      amount: p.amountMoney.amount,
    })),
  }));

const restBookingsOfDay = async () =>
  (await rest(`/bookings?from=${from}&to=${to}&limit=100`)) as Array<{ _id: string; startTime: string }>;

describe('Apollo Client 4 (relayStylePagination)', () => {
  const client = () =>
    new ApolloClient({
      link: new HttpLink({ uri: `${origin}/graphql`, headers: auth }),
      // @defer's parts, as graphql-yoga sends them (docs/graphql.md, Deferred parts).
      incrementalHandler: new Defer20220824Handler(),
      cache: new InMemoryCache({
        typePolicies: {
          Query: { fields: { bookings: relayStylePagination(['from', 'to', 'orderBy']) } },
          Customer: { fields: { bookings: relayStylePagination(['orderBy']) } },
        },
      }),
    });

  // As Apollo's pagination docs write it: one watched query, each next page asked with
  // fetchMore({ variables: { after: endCursor } }), the field policy merging the pages into the
  // watched list, which the watcher is sent (a macrotask later: Apollo schedules the cache's
  // notification) as a UI would render it. A fresh `client.query` per page with a new `after` is
  // no way to page: the policy's key leaves out first/after, so under the default cache-first
  // every later page is read from the cache as the merged list with the first page's endCursor,
  // and such a loop never ends. The server's pages were right all along: raw, each
  // `after: endCursor` answers the next page, and urql below pages the same way.
  it("pages a day's bookings to the end, each as REST answers it", async () => {
    const apollo = client();
    const DAY = apolloGql(query('DayBookings'));
    type Day = { bookings: { edges: Edge[]; pageInfo: { hasNextPage: boolean; endCursor: string } } };
    const watched = apollo.watchQuery<Day>({ query: DAY, variables: { from, to, first: PAGE } });
    let rendered: Day | undefined;
    const errors: unknown[] = [];
    const subscription = watched.subscribe((r) => {
      if (r.error) errors.push(r.error);
      else if (r.dataState === 'complete') rendered = r.data;
    });
    await vi.waitFor(() => expect(rendered).toBeDefined());
    let pages = 1;
    while (rendered!.bookings.pageInfo.hasNextPage) {
      const { endCursor } = rendered!.bookings.pageInfo;
      const more = await watched.fetchMore({ variables: { after: endCursor } });
      expect(more.error).toBeUndefined();
      pages++;
      expect(pages).toBeLessThanOrEqual(10);
      const page = more.data.bookings;
      // The watcher is sent the pages so far as one list, ending where the page fetched ends.
      await vi.waitFor(() => expect(rendered!.bookings.pageInfo.endCursor).toBe(page.pageInfo.endCursor));
      expect(rendered!.bookings.edges).toHaveLength(Math.min(pages * PAGE, bookingIds.length));
    }
    subscription.unsubscribe();
    expect(errors).toEqual([]);
    expect(pages).toBe(Math.ceil(bookingIds.length / PAGE));
    // The field policy merged the pages into one list in the cache.
    const merged = apollo.readQuery<any>({ query: DAY, variables: { from, to, first: PAGE } });
    const edges = merged.bookings.edges as Edge[];
    expect(edges).toHaveLength(bookingIds.length);
    const listed = await restBookingsOfDay();
    const byStart = [...listed].sort((a, b) => a.startTime.localeCompare(b.startTime) || a._id.localeCompare(b._id));
    // In the day's order (start time, then id), each record once.
    expect(edges.map((e) => e.node._id)).toEqual(byStart.map((b) => b._id));
    expect(asRest(edges)).toEqual(await restDay(edges.map((e) => e.node._id)));
  });

  it("reads a customer's history, the week's stats by employee, and refetches a booking by its global id", async () => {
    const apollo = client();
    const history = await apollo.query({ query: apolloGql(query('CustomerHistory')), variables: { id: customerId } });
    expect(history.error).toBeUndefined();
    const customer = (history.data as any).customer;
    const restHistory = await rest(`/bookings?customerId=${customerId}&limit=100`);
    expect(customer.bookings.edges.map((e: Edge) => e.node._id).sort()).toEqual(
      restHistory.map((b: { _id: string }) => b._id).sort(),
    );
    expect(customer.bookings.edges.map((e: Edge) => e.node.startTime)).toEqual(
      restHistory
        .map((b: { startTime: string }) => b.startTime)
        .sort()
        .reverse(),
    );

    const stats = await apollo.query({ query: apolloGql(query('WeekByEmployee')), variables: { from, to: weekTo } });
    expect(stats.error).toBeUndefined();
    const report = await rest(`/reports/bookings?from=${from}&to=${weekTo}&groupBy=employee`);
    const groups = (stats.data as any).bookingStats.groups;
    expect(groups.map((g: any) => [g.key, g.counts.total, g.bookedMinutes])).toEqual(
      report.groups.map((g: any) => [g.key, g.counts.total, g.bookedMinutes]),
    );
    expect(groups.map((g: any) => g.counts.total)).toEqual([10, 10, 10]);

    const globalId = customer.bookings.edges[0].node.id;
    const node = await apollo.query({ query: apolloGql(query('BookingNode')), variables: { id: globalId } });
    expect(node.error).toBeUndefined();
    const booking = (node.data as any).node;
    const restBooking = await rest(`/bookings/${booking._id}`);
    expect([booking.__typename, booking._id, booking.startTime, booking.status]).toEqual([
      'Booking',
      restBooking._id,
      restBooking.startTime,
      restBooking.status,
    ]);
  });
  it("renders the day's bookings before the week's stats arrive (@defer)", async () => {
    const apollo = client();
    type Rendered = { dataState: string; data: any };
    const renders: Rendered[] = [];
    const errors: unknown[] = [];
    const watched = apollo.watchQuery({
      query: apolloGql(query('DayThenWeek')),
      variables: { from, to, weekTo },
    });
    const subscription = watched.subscribe((r) => {
      if (r.error) errors.push(r.error);
      else if (r.data) renders.push({ dataState: r.dataState, data: r.data });
    });
    await vi.waitFor(() => expect(renders.at(-1)?.dataState).toBe('complete'), { timeout: 10_000 });
    subscription.unsubscribe();
    expect(errors).toEqual([]);
    // First the day's bookings alone (the first part), then the whole with the week's stats.
    const [first, ...later] = renders;
    expect(first!.dataState).toBe('streaming');
    expect(first!.data.bookings.edges).toHaveLength(bookingIds.length);
    expect(first!.data.bookingStats).toBeUndefined();
    const done = later.at(-1)!.data;
    expect(done.bookings).toEqual(first!.data.bookings);
    const report = await rest(`/reports/bookings?from=${from}&to=${weekTo}&groupBy=employee`);
    expect(done.bookingStats.groups.map((g: any) => [g.key, g.counts.total, g.bookedMinutes])).toEqual(
      report.groups.map((g: any) => [g.key, g.counts.total, g.bookedMinutes]),
    );
    const listed = await restBookingsOfDay();
    expect(done.bookings.edges.map((e: Edge) => e.node._id).sort()).toEqual(listed.map((b) => b._id).sort());
  });
});

describe('urql with graphcache (relayPagination)', () => {
  const client = () =>
    new Client({
      url: `${origin}/graphql`,
      fetchOptions: { headers: auth },
      exchanges: [
        cacheExchange({
          resolvers: { Query: { bookings: relayPagination() }, Customer: { bookings: relayPagination() } },
          // Values without an identity of their own are embedded in their parent.
          keys: Object.fromEntries(
            ['Money', 'PageInfo', 'BookingStats', 'BookingStatsGroup', 'BookingStatusCounts', 'BookingRevenue'].map(
              (name) => [name, () => null],
            ),
          ),
        }),
        fetchExchange,
      ],
    });

  it("pages a day's bookings to the end, each as REST answers it", async () => {
    const urql = client();
    const DAY = urqlGql(query('DayBookings'));
    let after: string | null = null;
    let edges: Edge[];
    for (let pages = 1; ; pages++) {
      expect(pages).toBeLessThanOrEqual(10);
      const result: { data?: any; error?: unknown } = await urql
        .query(DAY, { from, to, first: PAGE, after }, { requestPolicy: 'network-only' })
        .toPromise();
      expect(result.error).toBeUndefined();
      // relayPagination answers every page fetched so far as one list.
      edges = result.data.bookings.edges;
      expect(edges.length).toBeLessThanOrEqual(bookingIds.length);
      const info: { hasNextPage: boolean; endCursor: string } = result.data.bookings.pageInfo;
      if (!info.hasNextPage) break;
      after = info.endCursor;
    }
    expect(edges).toHaveLength(bookingIds.length);
    expect(asRest(edges)).toEqual(await restDay(edges.map((e) => e.node._id)));
  });

  it("reads a customer's history, the week's stats by employee, and refetches a booking by its global id", async () => {
    const urql = client();
    const history = await urql.query(urqlGql(query('CustomerHistory')), { id: customerId }).toPromise();
    expect(history.error).toBeUndefined();
    const restHistory = await rest(`/bookings?customerId=${customerId}&limit=100`);
    const edges = history.data.customer.bookings.edges as Edge[];
    expect(edges.map((e) => e.node._id).sort()).toEqual(restHistory.map((b: { _id: string }) => b._id).sort());

    const stats = await urql.query(urqlGql(query('WeekByEmployee')), { from, to: weekTo }).toPromise();
    expect(stats.error).toBeUndefined();
    const report = await rest(`/reports/bookings?from=${from}&to=${weekTo}&groupBy=employee`);
    expect(stats.data.bookingStats.groups.map((g: any) => [g.key, g.counts.total])).toEqual(
      report.groups.map((g: any) => [g.key, g.counts.total]),
    );

    const node = await urql.query(urqlGql(query('BookingNode')), { id: edges[0]!.node.id }).toPromise();
    expect(node.error).toBeUndefined();
    const booking = node.data.node;
    expect(booking._id).toBe(edges[0]!.node._id);
    expect(booking.customer.name).toBe((await rest(`/customers/${customerId}`)).name);
  });
});

describe('the limits still refuse what they exist for', () => {
  const send = async (document: string) => {
    const res = await fetch(`${origin}/graphql`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ query: document }),
    });
    return { status: res.status, body: await res.json() };
  };

  it('first: 100 inside first: 100 inside first: 100', async () => {
    const res = await send(
      '{ bookings(first: 100) { nodes { customer { bookings(first: 100) { nodes { payments(first: 100) { nodes { _id } } } } } } } }',
    );
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
  });

  it('11 levels deep', async () => {
    const res = await send(`{ me { ${'... on Company { '.repeat(9)}name${' }'.repeat(9)} } }`);
    expect(res).toEqual({
      status: 400,
      body: {
        errors: [{ message: 'Query depth limit of 10 exceeded, found 11.', extensions: { code: 'QUERY_TOO_DEEP' } }],
      },
    });
  });

  it('16 aliases', async () => {
    const res = await send(`{ ${Array.from({ length: 16 }, (_, i) => `a${i}: me { name }`).join(' ')} }`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('TOO_MANY_ALIASES');
  });
});
