// The report versions (migrations report_versions, calendar_versions, report_versions_once): a
// committed write of what the admin overview and calendar show raises its company's counters
// once a transaction however many rows it writes, each company it touches once; a rolled-back
// write raises nothing; readers add the shards up (readReportVersion).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { readReportVersion } from '../../src/schema/reports/index.js';
import { createTestDatabases, type TestDatabases } from '../helpers/db.js';
import { createAccountWithKeys } from '../helpers/factories.js';

let db: TestDatabases;
let a: string;
let b: string;

beforeAll(async () => {
  db = await createTestDatabases();
  a = (await createAccountWithKeys(db.dbs)).live.id;
  b = (await createAccountWithKeys(db.dbs)).live.id;
});
afterAll(async () => db?.drop());

const p = () => db.dbs.live.prisma;
const customer = (companyId: string) => ({
  id: newId(),
  companyId,
  name: 'Versioned',
  email: `${newId()}@example.com`,
});
const versions = async () => [BigInt(await readReportVersion(p(), a)), BigInt(await readReportVersion(p(), b))];

it('rises once a transaction for each company written, however many rows', async () => {
  const before = await versions();
  await p().customer.createMany({ data: Array.from({ length: 50 }, () => customer(a)) });
  expect(await versions()).toEqual([before[0]! + 1n, before[1]!]);
  await p().$transaction([
    p().customer.create({ data: customer(a) }),
    p().customer.create({ data: customer(b) }),
    p().customer.updateMany({ where: { companyId: a }, data: { name: 'Renamed' } }),
  ]);
  expect(await versions()).toEqual([before[0]! + 2n, before[1]! + 1n]);
  // Each transaction again: the mark is the transaction's own.
  await p().customer.updateMany({ where: { companyId: a }, data: { name: 'Again' } });
  await p().customer.updateMany({ where: { companyId: a }, data: { name: 'Once more' } });
  expect(await versions()).toEqual([before[0]! + 4n, before[1]! + 1n]);
});

it('does not rise for a write rolled back', async () => {
  const before = await versions();
  await expect(
    p().$transaction(async (tx) => {
      await tx.customer.create({ data: customer(a) });
      throw new Error('rolled back');
    }),
  ).rejects.toThrow('rolled back');
  expect(await versions()).toEqual(before);
});
