// Customer search (searchCustomers; docs/admin.md, Customers): a case-insensitive prefix of the
// name, the e-mail or the phone's digits, newest first in keyset pages, one company only; and on
// a company of 100 000 customers the query is answered from the three search indexes (migration
// customer_search), never by reading the table. The plan is asserted, not the timing (printed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma } from '../../../src/generated/prisma/client.js';
import { customerSearchSql, searchCustomers } from '../../../src/schema/customers/index.js';
import type { PrismaClient } from '../../../src/generated/prisma/client.js';
import { createTestDatabases, embedded, type TestDatabases } from '../../helpers/db.js';
import { createAccountWithKeys } from '../../helpers/factories.js';

let t: TestDatabases;
let db: PrismaClient;
let companyId: string;
let otherId: string;
const N = 100_000;

beforeAll(async () => {
  t = await createTestDatabases();
  const w = await createAccountWithKeys(t.dbs);
  db = t.dbs.forMode('live');
  companyId = w.live.id;
  otherId = (await createAccountWithKeys(t.dbs)).live.id;
  // 100 000 customers of one company (ids in time order, like newId's), a few of another. In
  // statements of 10 000 rows: each stays well inside the app's query timeout (5 s) even on a
  // CI machine busy with the other files, which one statement of 100 000 did not.
  for (let from = 1; from <= N; from += 10_000) {
    await db.$executeRaw`
      INSERT INTO customers (id, company_id, name, email, phone, updated_at)
      SELECT lpad(to_hex(g), 24, '0'), ${companyId},
             (ARRAY['Anna','Ben','Chloé','Dmitri','Eve','Farid','Greta','Hugo'])[1 + g % 8] || ' Person' || g,
             'customer' || g || '@example.com', '+49176' || lpad(g::text, 7, '0'), now()
      FROM generate_series(${from}::int, ${Math.min(from + 9_999, N)}::int) g`;
  }
  await db.$executeRaw`
    INSERT INTO customers (id, company_id, name, email, phone, updated_at) VALUES
      ('f00000000000000000000001', ${companyId}, 'Zoë O''Brien', 'ZOE.obrien@example.org', '+14155550123', now()),
      ('f00000000000000000000002', ${companyId}, '100% Real_Name', 'percent@example.org', NULL, now()),
      ('f00000000000000000000003', ${otherId}, 'Zoë Elsewhere', 'zoe@elsewhere.example', '+14155550999', now())`;
  await db.$executeRawUnsafe('ANALYZE customers');
}, 120_000);
afterAll(async () => t?.drop());

const names = async (q: string, companyOf = () => companyId) =>
  (await searchCustomers(db, { companyId: companyOf(), q, limit: 100 })).data.map((c) => c.name);

describe('searchCustomers', () => {
  it('matches the start of the name, e-mail or phone, in any case; the rest of a text does not', async () => {
    expect(await names('zoË')).toEqual(["Zoë O'Brien"]);
    expect(await names('zoe.OB')).toEqual(["Zoë O'Brien"]);
    expect(await names('+1 (415) 555-01')).toEqual(["Zoë O'Brien"]);
    expect(await names('1415555')).toEqual(["Zoë O'Brien"]);
    expect(await names("O'Brien")).toEqual([]); // inside the name, not its start
    expect(await names('example.org')).toEqual([]);
  });

  it('takes % and _ as themselves, not as wildcards', async () => {
    expect(await names('100%')).toEqual(['100% Real_Name']);
    expect(await names('%')).toEqual([]);
    expect(await names('_')).toEqual([]);
  });

  it("never answers another company's customers", async () => {
    expect(await names('zoe@elsewhere')).toEqual([]);
    expect(await names('zoe', () => otherId)).toEqual(['Zoë Elsewhere']);
  });

  it('walks the matches newest first in keyset pages, each once', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 20; i++) {
      const page: Awaited<ReturnType<typeof searchCustomers>> = await searchCustomers(db, {
        companyId,
        q: 'customer1000',
        limit: 4,
        cursor,
      });
      seen.push(...page.data.map((c) => c.email));
      cursor = page.pagination.nextCursor;
      if (!cursor) break;
    }
    // customer1000, customer10000..10009 and customer100000, 12 in all, newest (largest id) first.
    expect(seen).toEqual([
      'customer100000@example.com',
      ...Array.from({ length: 10 }, (_, i) => `customer${10009 - i}@example.com`),
      'customer1000@example.com',
    ]);
  });

  it('refuses a search too long or a cursor it did not issue, naming the field', async () => {
    await expect(searchCustomers(db, { companyId, q: 'x'.repeat(201) })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ path: 'q' }],
    });
    await expect(searchCustomers(db, { companyId, q: 'a', cursor: 'nope' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ path: 'cursor' }],
    });
  });

  it.skipIf(embedded())('on 100 000 customers, is answered from the search indexes, not a table scan', async () => {
    const plan = async (q: string) => {
      const rows = await db.$queryRaw<Array<{ 'QUERY PLAN': unknown }>>(
        Prisma.sql`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${customerSearchSql({ companyId, q, take: 26 })}`,
      );
      const json = rows[0]!['QUERY PLAN'] as Array<{ 'Execution Time': number }>;
      const text = JSON.stringify(json);
      console.log(
        `search "${q}": ${json[0]!['Execution Time'].toFixed(2)} ms`,
        text.match(/"Node Type":"[^"]+"|"Index Name":"[^"]+"/g)?.join(' '),
      );
      return text;
    };
    expect(await db.customer.count({ where: { companyId } })).toBe(N + 2);
    // A rare prefix and a phone number: a BitmapOr of the search indexes.
    for (const q of ['greta person9999', '+49 176 00012']) {
      const text = await plan(q);
      expect(text).not.toContain('Seq Scan');
      expect(text).toContain('"Node Type":"Bitmap Index Scan"');
      expect(text).toContain('"Index Name":"customers_search_name_idx"');
      expect(text).toContain('"Index Name":"customers_search_email_idx"');
    }
    expect(await plan('+49 176 00012')).toContain('"Index Name":"customers_search_phone_idx"');
    // A prefix an eighth of the company shares: the newest first by the primary key fills a page
    // at once, which the planner prefers; still an index, never the table read whole.
    const common = await plan('anna');
    expect(common).not.toContain('Seq Scan');
    expect(common).toMatch(/"Node Type":"(Bitmap )?Index Scan"/);
  });
});
