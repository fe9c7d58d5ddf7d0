// Creating a test company from a sample template or blank (docs/sandbox.md, the admin's "create a
// test company"): the template fills the profile fields not given, the graph is written in
// the company's own transaction, and a template is refused for live companies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Databases } from '../../../src/db/databases.js';
import { AppError } from '../../../src/errors.js';
import { newId } from '../../../src/ids.js';
import { createCompany } from '../../../src/schema/companies/create-company.js';
import { createTestDatabases, type TestDatabases } from '../../helpers/db.js';

let db: TestDatabases;
let dbs: Databases;
const accountId = newId();

beforeAll(async () => {
  db = await createTestDatabases();
  dbs = db.dbs;
});
afterAll(async () => {
  await db?.drop();
});

async function counts(mode: 'live' | 'test') {
  const p = dbs.forMode(mode);
  const [companies, employees, services, sessions, customers] = await Promise.all([
    p.company.count(),
    p.employee.count(),
    p.service.count(),
    p.classSession.count(),
    p.customer.count(),
  ]);
  return { companies, employees, services, sessions, customers };
}

async function validationFields(fn: () => Promise<unknown>): Promise<string[]> {
  const err = await fn().then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).code).toBe('VALIDATION_ERROR');
  return ((err as AppError).details as { path: string }[]).map((e) => e.path);
}

describe('createCompany with a template', () => {
  it('fills the profile from the template and keeps the fields given', async () => {
    const c = await createCompany(dbs, {
      accountId,
      mode: 'test',
      template: 'clinic',
      name: 'Uptown Clinic (copy)',
      email: 'uptown@example.com',
    });
    expect(c).toMatchObject({
      name: 'Uptown Clinic (copy)',
      email: 'uptown@example.com',
      timezone: 'America/New_York',
      currency: 'USD',
      phone: '+12125550123',
      template: 'clinic',
      mode: 'test',
    });
    expect(await dbs.test.prisma.employee.count({ where: { companyId: c.id } })).toBe(5);
    expect(await dbs.test.prisma.company.findUnique({ where: { id: c.id } })).not.toBeNull();
    expect(await dbs.live.prisma.company.findUnique({ where: { id: c.id } })).toBeNull();
  });

  it('seeds the gym in the zone the company is given (hours are local to the company)', async () => {
    const c = await createCompany(
      dbs,
      { accountId, mode: 'test', template: 'fitness', timezone: 'Australia/Sydney' },
      { now: new Date('2027-01-04T00:00:00Z') },
    );
    const first = await dbs.test.prisma.classSession.findFirstOrThrow({
      where: { companyId: c.id },
      orderBy: { startTime: 'asc' },
    });
    // Monday 4 January 2027, 18:00 in Sydney (UTC+11) is 07:00 UTC; 07:00 there had passed.
    expect(first.startTime.toISOString()).toBe('2027-01-04T07:00:00.000Z');
  });

  it('a blank test company has no staff, services or customers', async () => {
    const c = await createCompany(dbs, { accountId, mode: 'test', name: 'Blank sandbox' });
    expect(c.template).toBeNull();
    for (const n of await Promise.all([
      dbs.test.prisma.employee.count({ where: { companyId: c.id } }),
      dbs.test.prisma.service.count({ where: { companyId: c.id } }),
      dbs.test.prisma.customer.count({ where: { companyId: c.id } }),
    ]))
      expect(n).toBe(0);
  });

  it.each([
    ['a template for a live company', { mode: 'live', template: 'hair_salon' }, ['template']],
    ['an unknown template', { mode: 'test', template: 'spa', name: 'x' }, ['template']],
    ['a prototype key as template', { mode: 'test', template: 'constructor' }, ['name', 'template']],
    ['a template of the wrong type', { mode: 'test', template: 42, name: 'x' }, ['template']],
    ['a bad field beside a template', { mode: 'test', template: 'fitness', timezone: 'Mars/Olympus' }, ['timezone']],
    ['no name and no template', { mode: 'test' }, ['name']],
    ['an unknown field', { mode: 'test', template: 'clinic', employees: [] }, ['']],
  ])('refuses %s, writing nothing', async (_, input, fields) => {
    const before = { live: await counts('live'), test: await counts('test') };
    expect(await validationFields(() => createCompany(dbs, { accountId, ...(input as object) } as never))).toEqual(
      fields,
    );
    expect({ live: await counts('live'), test: await counts('test') }).toEqual(before);
  });

  it('is all or nothing: a failure while seeding leaves no company behind', async () => {
    // A real failure inside the seeding transaction: the sandbox refuses one sample customer.
    await dbs.test.prisma.$executeRawUnsafe(`CREATE FUNCTION refuse_isla() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.name = 'Isla Taylor' THEN RAISE EXCEPTION 'refused by test'; END IF; RETURN NEW; END $$`);
    await dbs.test.prisma.$executeRawUnsafe(
      `CREATE TRIGGER refuse_isla BEFORE INSERT ON customers FOR EACH ROW EXECUTE FUNCTION refuse_isla()`,
    );
    try {
      const before = await counts('test');
      await expect(
        createCompany(dbs, { accountId, mode: 'test', template: 'fitness', name: 'Doomed Gym' }),
      ).rejects.toThrow();
      expect(await counts('test')).toEqual(before);
      expect(await dbs.test.prisma.company.count({ where: { name: 'Doomed Gym' } })).toBe(0);
    } finally {
      await dbs.test.prisma.$executeRawUnsafe('DROP TRIGGER refuse_isla ON customers');
      await dbs.test.prisma.$executeRawUnsafe('DROP FUNCTION refuse_isla()');
    }
    // And the same template works again once nothing refuses it.
    const ok = await createCompany(dbs, { accountId, mode: 'test', template: 'fitness', name: 'Lucky Gym' });
    expect(await dbs.test.prisma.customer.count({ where: { companyId: ok.id } })).toBe(6);
  });
});
