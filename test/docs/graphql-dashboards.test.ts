// docs/graphql-dashboards.md stays true: each of its queries, read from the page itself, runs
// against a seeded company over /graphql without an error and finds the seeded bookings.
import { readFileSync } from 'node:fs';
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationCost } from '../../src/http/query-cost.js';
import { schema } from '../../src/schema/index.js';
import type { TestApp } from '../helpers/app.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { blankCompany, createDomainApp, post, salon } from '../helpers/domain.js';

const page = readFileSync(new URL('../../docs/graphql-dashboards.md', import.meta.url), 'utf8');
const queries = new Map(
  [...page.matchAll(/```graphql\n([\s\S]*?)```/g)].map((m) => [/query (\w+)/.exec(m[1]!)![1]!, m[1]!]),
);

let t: TestApp;
let auth: Record<string, string>;
let customerId: string;
const day = new Date(Date.now() + 4 * 86_400_000);
day.setUTCHours(0, 0, 0, 0);
const from = day.toISOString();
const to = new Date(day.getTime() + 86_400_000).toISOString();

beforeAll(async () => {
  t = await createDomainApp();
  const c = await blankCompany(t.dbs, await createAccountWithKeys(t.dbs), { timezone: 'UTC' });
  auth = c.auth;
  const { service, employee } = await salon(t.app, auth);
  for (const hour of [9, 11]) {
    const b = await post(t.app, '/api/v1/bookings', auth, {
      serviceId: service._id,
      employeeId: employee._id,
      startTime: new Date(day.getTime() + hour * 3_600_000).toISOString(),
      customer: { name: 'Ann Lee', email: 'ann@example.com' },
    });
    customerId = b.customerId;
  }
});
afterAll(async () => t?.close());

const run = async (name: string, variables: Record<string, unknown>) => {
  const query = queries.get(name);
  expect(query, `docs/graphql-dashboards.md has no query ${name}`).toBeDefined();
  const res = await t.app.inject({ method: 'POST', url: '/graphql', headers: auth, payload: { query, variables } });
  expect(res.statusCode).toBe(200);
  const body = res.json();
  expect(body.errors).toBeUndefined();
  return body.data;
};

describe('docs/graphql-dashboards.md', () => {
  it("today's agenda, at the cost the page quotes", async () => {
    const cost = operationCost(schema, parse(queries.get('Agenda')!));
    expect(page).toContain(`costs about ${(Math.round(cost / 500) * 500).toLocaleString('en').replace(',', ' ')}`);
    const data = await run('Agenda', { from, to });
    expect(data.bookings.totalCount).toBe(2);
    expect(data.bookings.nodes.map((b: { customer: { name: string } }) => b.customer.name)).toEqual([
      'Ann Lee',
      'Ann Lee',
    ]);
    expect(data.viewer.company.employees.nodes[0].bookings.totalCount).toBe(2);
  });

  it("a customer's history", async () => {
    const data = await run('CustomerHistory', { customerId });
    expect(data.customer.name).toBe('Ann Lee');
    expect(data.customer.bookings.totalCount).toBe(2);
    expect(data.customer.bookings.nodes[0].service.name).toBe('Cut');
  });

  it("a week's stats", async () => {
    const data = await run('WeekStats', { from, to: new Date(day.getTime() + 7 * 86_400_000).toISOString() });
    expect(
      data.bookingStats.groups.reduce((n: number, g: { counts: { total: number } }) => n + g.counts.total, 0),
    ).toBe(2);
  });
});
