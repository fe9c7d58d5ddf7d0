// The fuzzer's "nothing written" check sees every kind of write in either database (an insert,
// an update that changes nothing, a delete, a delete and an insert together) and nothing
// that is not one (a rolled-back write, a row locked, lastUsedAt, idempotency bookkeeping).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { createTestDatabases, type TestDatabases } from '../helpers/db.js';
import { createAccountWithKeys } from '../helpers/factories.js';
import { changedTables, DbSnapshotter } from './db-snapshot.js';

let db: TestDatabases;
let snap: DbSnapshotter;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;

beforeAll(async () => {
  db = await createTestDatabases();
  w = await createAccountWithKeys(db.dbs);
  snap = new DbSnapshotter(db.dbs);
  await snap.init();
});
afterAll(async () => db?.drop());

const customer = (companyId: string) => ({ id: newId(), companyId, name: 'Snap', email: `${newId()}@example.com` });

async function changes(write: () => Promise<unknown>): Promise<string[]> {
  const before = await snap.take();
  await write();
  return changedTables(before, await snap.take());
}

it('sees inserts, updates (even to the same value) and deletes, in each database', async () => {
  const p = db.dbs.test.prisma;
  const row = await p.customer.create({ data: customer(w.test.id) });
  expect(await changes(() => p.customer.create({ data: customer(w.test.id) }))).toEqual([
    expect.stringMatching(/^test\.customers /),
  ]);
  expect(await changes(() => p.customer.update({ where: { id: row.id }, data: { name: row.name } }))).toEqual([
    expect.stringMatching(/^test\.customers /),
  ]);
  expect(await changes(() => p.customer.delete({ where: { id: row.id } }))).toEqual([
    expect.stringMatching(/^test\.customers /),
  ]);
  const l = db.dbs.live.prisma;
  const other = await l.customer.create({ data: customer(w.live.id) });
  // The same number of rows: the new row's transaction id tells.
  expect(
    await changes(() =>
      l.$transaction([
        l.customer.delete({ where: { id: other.id } }),
        l.customer.create({ data: customer(w.live.id) }),
      ]),
    ),
  ).toEqual([expect.stringMatching(/^live\.customers (\d+):\d+ → \1:\d+$/)]);
});

it('sees a changed API key, but not its lastUsedAt; not a rolled-back write, a lock or an idempotency record', async () => {
  const p = db.dbs.test.prisma;
  expect(
    await changes(() => p.apiKey.update({ where: { id: w.testKey.apiKey.id }, data: { lastUsedAt: new Date() } })),
  ).toEqual([]);
  expect(
    await changes(() => p.apiKey.update({ where: { id: w.testKey.apiKey.id }, data: { name: 'renamed' } })),
  ).toEqual([expect.stringMatching(/^test\.api_keys /)]);
  const rolledBack = () =>
    p.$transaction(async (tx) => {
      await tx.customer.create({ data: customer(w.test.id) });
      throw new Error('roll back');
    });
  expect(await changes(() => rolledBack().catch(() => undefined))).toEqual([]);
  expect(await changes(() => p.$queryRawUnsafe(`SELECT id FROM customers FOR UPDATE`))).toEqual([]);
  const record = {
    id: newId(),
    credentialId: w.testKey.apiKey.id,
    key: 'k',
    requestHash: 'h',
    state: 'in_progress',
    expiresAt: new Date(Date.now() + 60_000),
  } as const;
  expect(await changes(() => p.idempotencyRecord.create({ data: record }))).toEqual([]);
});
