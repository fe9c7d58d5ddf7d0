// Bounded database work (docs/graphql-dashboards.md): the dashboard query — a day's bookings
// with customer, service, employee and payments, plus the staff with their bookings of that
// day — runs in the same number of SQL statements for a page of 10 bookings as for 100, counted
// with Prisma's query events on a client of the same database. So does the canonical day query
// of docs/graphql.md (Limits), Relay-style `edges { cursor node { … payments(first: 5) } }`
// (issue 43 §6; the bench's dashboard-day scenario runs it).
import { PrismaPg } from '@prisma/adapter-pg';
import { graphql } from 'graphql';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaClient } from '../../src/generated/prisma/client.js';
import { createBooking } from '../../src/schema/bookings/index.js';
import { createContext } from '../../src/schema/context.js';
import { schema } from '../../src/schema/index.js';
import { createPayment } from '../../src/schema/payments/index.js';
import { createEmployee } from '../../src/schema/staff/index.js';
import { createService } from '../../src/schema/services/index.js';
import type { TestApp } from '../helpers/app.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { DASHBOARD, DAY_BOOKINGS } from '../helpers/dashboard.js';
import { ALL_DAY, blankCompany, createDomainApp } from '../helpers/domain.js';

const postgres = Boolean(process.env.DATABASE_URL);
let t: TestApp & { db: { url?: string } };
let counting: PrismaClient;
let pool: pg.Pool;
let statements = 0;
type Run = (first: number) => Promise<{ data?: Record<string, any> | null; errors?: readonly unknown[] }>;
let run: Run;
let runDay: Run;
const day = new Date(Date.now() + 3 * 86_400_000);
day.setUTCHours(0, 0, 0, 0);

beforeAll(async () => {
  if (!postgres) return;
  t = (await createDomainApp()) as typeof t;
  const w = await createAccountWithKeys(t.dbs);
  const c = await blankCompany(t.dbs, w, { timezone: 'UTC' });
  const db = t.dbs.test.prisma;
  const staff = [];
  for (let i = 0; i < 5; i++)
    staff.push(
      await createEmployee(db, { companyId: c.company.id, input: { name: `Staff ${i}`, workingHours: ALL_DAY } }),
    );
  const service = await createService(db, {
    companyId: c.company.id,
    input: { name: 'Cut', durationMinutes: 60, price: 4500, employeeIds: staff.map((s) => s.id) },
  });
  for (let i = 0; i < 100; i++) {
    const booking = await createBooking(db, {
      company: c.company,
      input: {
        serviceId: service.id,
        employeeId: staff[i % 5]!.id,
        startTime: new Date(day.getTime() + Math.floor(i / 5) * 3_600_000).toISOString(),
        customer: { name: `Customer ${i}`, email: `c${i}@example.com` },
      },
    });
    if (i % 4 === 0)
      await createPayment(db, {
        companyId: c.company.id,
        mode: 'test',
        config: t.config,
        input: { bookingId: booking.id, card: { number: '4242424242424242', expMonth: 12, expYear: 2040, cvc: '123' } },
      });
  }
  // A client of the same sandbox tables that reports every statement it sends.
  pool = new pg.Pool({ connectionString: t.db.url, options: `-c search_path=${t.dbs.test.schema},public`, max: 2 });
  counting = new PrismaClient({
    adapter: new PrismaPg(pool, { schema: t.dbs.test.schema }),
    log: [{ emit: 'event', level: 'query' }],
  });
  (counting as unknown as { $on(event: 'query', cb: () => void): void }).$on('query', () => statements++);
  const credential = await t.services.credentials.resolve(c.key);
  const runner =
    (source: string): Run =>
    async (first) => {
      const ctx = { ...createContext({ credential, services: t.services, requestId: 'stmt' }), db: counting };
      statements = 0;
      const result = await graphql({
        schema,
        source,
        contextValue: ctx,
        variableValues: { from: day.toISOString(), to: new Date(day.getTime() + 86_400_000).toISOString(), first },
      });
      return result;
    };
  run = runner(DASHBOARD);
  runDay = runner(DAY_BOOKINGS);
}, 120_000);

afterAll(async () => {
  await counting?.$disconnect();
  await pool?.end();
  await t?.close();
});

describe.runIf(postgres)('the dashboard query', () => {
  it('runs in the same number of SQL statements for 10 bookings as for 100', async () => {
    const ten = await run(10);
    expect(ten.errors).toBeUndefined();
    const forTen = statements;
    const hundred = await run(100);
    expect(hundred.errors).toBeUndefined();
    const forHundred = statements;
    expect(ten.data!.bookings.nodes).toHaveLength(10);
    expect(hundred.data!.bookings.nodes).toHaveLength(100);
    expect(hundred.data!.bookings.totalCount).toBe(100);
    const paid = hundred.data!.bookings.nodes.filter((b: any) => b.payments.nodes.length === 1);
    expect(paid).toHaveLength(25);
    expect(hundred.data!.bookings.nodes.every((b: any) => b.customer && b.service && b.employee)).toBe(true);
    const staff = hundred.data!.viewer.company.employees.nodes;
    expect(staff.map((e: any) => e.bookings.totalCount)).toEqual([20, 20, 20, 20, 20]);
    expect(forHundred).toBe(forTen);
    // The figure docs/graphql-dashboards.md quotes: the page of bookings with its customers,
    // services, employees and payments (Prisma joins the relations into one statement), its
    // totalCount, and the company with its staff, their bookings of the day and their counts.
    expect(forTen).toBe(STATEMENTS);
  });
});

describe.runIf(postgres)('the canonical day query (edges, cursors, payments(first: 5))', () => {
  it('runs in the same number of SQL statements for 10 bookings as for 100', async () => {
    const ten = await runDay(10);
    expect(ten.errors).toBeUndefined();
    const forTen = statements;
    const hundred = await runDay(100);
    expect(hundred.errors).toBeUndefined();
    const forHundred = statements;
    expect(ten.data!.bookings.edges).toHaveLength(10);
    const edges = hundred.data!.bookings.edges;
    expect(edges).toHaveLength(100);
    expect(hundred.data!.bookings.pageInfo.hasNextPage).toBe(false);
    expect(edges.every((e: any) => e.cursor && e.node.customer && e.node.service && e.node.employee)).toBe(true);
    const paid = edges.filter((e: any) => e.node.payments.edges.length === 1);
    expect(paid).toHaveLength(25);
    expect(forHundred).toBe(forTen);
    // The figure docs/performance.md quotes (dashboard-day): the page of bookings with their
    // customers, services, employees and payments in one statement.
    expect(forTen).toBe(DAY_STATEMENTS);
  });
});

const STATEMENTS = 3;
const DAY_STATEMENTS = 1;
