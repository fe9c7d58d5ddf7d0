// Transactions past Prisma (src/db/databases.ts, sqlTransaction; the appointment of POST
// /bookings runs in one): BEGIN, the statements of fn, COMMIT; everything rolled back when fn
// throws, the error the caller's own; a statement after the end refused rather than run outside
// it; the connection back in the pool either way; and a driver error's SQLSTATE read as Prisma's
// is, so the use cases map a constraint's answer the same whichever kind of transaction met it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlOf, sqlTransaction, SqlTransaction, type Db, type Transaction } from '../../src/db/databases.js';
import { sqlState, toAppError } from '../../src/errors.js';
import { isUniqueViolation } from '../../src/schema/db-errors.js';
import { createTestDatabases, embedded, type TestDatabases } from '../helpers/db.js';
import { createAccountWithKeys } from '../helpers/factories.js';

let t: TestDatabases;
let db: Db;
let companyId: string;
beforeAll(async () => {
  t = await createTestDatabases();
  db = t.dbs.forMode('live');
  companyId = (await createAccountWithKeys(t.dbs)).live.id;
});
afterAll(async () => t?.drop());

let n = 0;
const insertCustomer = (tx: Transaction | Db, email = `c${++n}@example.com`) =>
  sqlOf(tx)<{ id: string }>(
    `INSERT INTO customers (id, company_id, name, email, updated_at) VALUES ($1, $2, 'C', $3, now()) RETURNING id`,
    [`cust${String(++n).padStart(20, '0')}`, companyId, email],
  );
const countOf = (email: string) => db.customer.count({ where: { companyId, email } });

describe('sqlTransaction', () => {
  it('runs past Prisma on a pool the app opened, and commits what fn wrote', async () => {
    const out = await sqlTransaction(db, async (tx) => {
      expect(tx).toBeInstanceOf(SqlTransaction);
      await insertCustomer(tx, 'committed@example.com');
      return 'done';
    });
    expect(out).toBe('done');
    expect(await countOf('committed@example.com')).toBe(1);
  });

  it('rolls back everything fn wrote when it throws, and throws its error', async () => {
    const mine = new Error('refused by the use case');
    await expect(
      sqlTransaction(db, async (tx) => {
        await insertCustomer(tx, 'first@example.com');
        await insertCustomer(tx, 'second@example.com');
        throw mine;
      }),
    ).rejects.toBe(mine);
    expect(await countOf('first@example.com')).toBe(0);
    expect(await countOf('second@example.com')).toBe(0);
  });

  it('refuses a statement sent after the transaction ended, instead of running it outside', async () => {
    let leaked: Transaction | undefined;
    await sqlTransaction(db, async (tx) => {
      leaked = tx;
      await insertCustomer(tx, 'inside@example.com');
    });
    await expect(insertCustomer(leaked!, 'after@example.com')).rejects.toThrow('The transaction has ended');
    expect(await countOf('after@example.com')).toBe(0);
  });

  it("reads a driver error's SQLSTATE: a unique violation is a CONFLICT, and rolls back", async () => {
    await insertCustomer(db, 'taken@example.com');
    const err: unknown = await sqlTransaction(db, async (tx) => {
      await insertCustomer(tx, 'before-the-clash@example.com');
      await insertCustomer(tx, 'taken@example.com');
    }).catch((e: unknown) => e);
    expect(sqlState(err)).toBe('23505');
    expect(isUniqueViolation(err)).toBe(true);
    expect(toAppError(err).code).toBe('CONFLICT');
    expect(await countOf('before-the-clash@example.com')).toBe(0);
    // Prisma's own codes are never taken for a SQLSTATE.
    expect(sqlState({ code: 'P2002' })).toBeUndefined();
  });

  it('gives its connection back, committed or not: thrice the pool in failures, then one that commits', async () => {
    for (let i = 0; i < 30; i++) {
      await expect(
        sqlTransaction(db, async (tx) => {
          await insertCustomer(tx);
          await sqlOf(tx)('SELECT 1/0', []);
        }),
      ).rejects.toMatchObject({ code: '22012' });
    }
    await sqlTransaction(db, (tx) => insertCustomer(tx, 'after-failures@example.com'));
    expect(await countOf('after-failures@example.com')).toBe(1);
  });

  // PGlite is one connection: a read from outside waits for the transaction to end.
  it.skipIf(embedded())('is not seen from outside until it commits', async () => {
    let seenInside = -1;
    let seenOutside = -1;
    await sqlTransaction(db, async (tx) => {
      await insertCustomer(tx, 'pending@example.com');
      seenInside = (
        await sqlOf(tx)<{ n: number }>(`SELECT count(*)::int AS n FROM customers WHERE email = $1`, [
          'pending@example.com',
        ])
      )[0]!.n;
      seenOutside = await countOf('pending@example.com');
    });
    expect([seenInside, seenOutside]).toEqual([1, 0]);
    expect(await countOf('pending@example.com')).toBe(1);
  });
});
