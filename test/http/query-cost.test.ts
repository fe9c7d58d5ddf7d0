// The list-size-aware cost limit (src/http/query-cost.ts, docs/graphql.md Limits): list sizes
// multiply, so a document asking 100 × 100 × 100 records is refused with QUERY_TOO_COMPLEX and
// HTTP 400 before it runs, while the dashboard query runs.
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LIST_COST, operationCost } from '../../src/http/query-cost.js';
import { schema } from '../../src/schema/index.js';
import type { TestApp } from '../helpers/app.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { blankCompany, createDomainApp } from '../helpers/domain.js';
import { DASHBOARD } from '../helpers/dashboard.js';

const cost = (source: string, variables: Record<string, unknown> = {}) =>
  operationCost(schema, parse(source), variables);

describe('operationCost', () => {
  it('multiplies what a connection selects by its first (or last, or limit), 20 by default', () => {
    expect(cost('{ bookings(first: 100) { nodes { _id status } } }')).toBe(1 + 100 * (1 + 2));
    expect(cost('{ bookings { nodes { _id } } }')).toBe(1 + 20 * 2);
    expect(cost('query($n: Int) { bookings(first: $n) { nodes { _id } } }', { n: 7 })).toBe(1 + 7 * 2);
    expect(cost('{ bookings(limit: 5) { data { _id } } }')).toBe(1 + 5 * 2);
    expect(cost('query($n: Int = 50) { bookings(first: $n) { nodes { _id } } }')).toBe(1 + 50 * 2);
  });

  it('multiplies nested lists: first: 100 inside first: 100 costs 10 000 times the leaf', () => {
    const nested = '{ bookings(first: 100) { nodes { customer { bookings(first: 100) { nodes { _id } } } } } }';
    expect(cost(nested)).toBe(1 + 100 * (1 + 1 + (1 + 100 * 2)));
  });
});

describe('/graphql', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  beforeAll(async () => {
    t = await createDomainApp();
    auth = (await blankCompany(t.dbs, await createAccountWithKeys(t.dbs))).auth;
  });
  afterAll(async () => t?.close());

  it(`refuses a small document whose lists multiply past ${MAX_LIST_COST} with QUERY_TOO_COMPLEX`, async () => {
    // Page sizes in variables: graphql-armor's cost limit reads only literal first/last.
    const query = 'query($n: Int) { bookings(first: $n) { nodes { payments(first: $n) { nodes { _id status } } } } }';
    const small = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: auth,
      payload: { query, variables: { n: 10 } },
    });
    expect(small.json()).toEqual({ data: { bookings: { nodes: [] } } });
    const res = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: auth,
      payload: { query, variables: { n: 100 } },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      errors: [
        {
          message: expect.stringMatching(/^Query cost of \d+ \(list sizes multiplied\)/),
          extensions: { code: 'QUERY_TOO_COMPLEX' },
        },
      ],
    });
  });

  it('runs the dashboard query of 100 bookings', async () => {
    const variables = { from: '2030-01-01T00:00:00Z', to: '2030-01-02T00:00:00Z', first: 100 };
    expect(cost(DASHBOARD, variables)).toBeLessThanOrEqual(MAX_LIST_COST);
    const res = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: auth,
      payload: { query: DASHBOARD, variables },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().errors).toBeUndefined();
  });
});
