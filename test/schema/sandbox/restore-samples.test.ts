// Restoring the sample companies (docs/sandbox.md): by default only the missing templates are
// recreated and existing samples keep their ids, keys and data; with `reset` the samples are
// rebuilt from scratch (their keys stop), while blank test companies and live data stay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { newId } from '../../../src/ids.js';
import { createApiKey } from '../../../src/schema/credentials/create-api-key.js';
import { createCompany } from '../../../src/schema/companies/create-company.js';
import { restoreSampleCompanies } from '../../../src/schema/companies/restore-sample-companies.js';
import { wipeSandbox } from '../../../src/schema/sandbox/wipe-sandbox.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { bearer, createAccountWithKeys } from '../../helpers/factories.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;

beforeAll(async () => {
  t = await createTestApp({ env: { CREDENTIAL_CACHE_TTL_SECONDS: '300' } });
  w = await createAccountWithKeys(t.dbs);
});
afterAll(async () => {
  await t?.close();
});

const restore = (opts: { reset?: boolean; accountId?: string } = {}) =>
  restoreSampleCompanies(t.dbs, t.services.credentials, { accountId: w.account.id, ...opts });
const names = (cs: { name: string }[]) => cs.map((c) => c.name);
const SAMPLE_NAMES = ['Sample Hair Salon', 'Sample Medical Clinic', 'Sample Fitness Center'];
const me = (key: string) => t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(key) });

describe('restoreSampleCompanies', () => {
  it('with all samples present, changes nothing and answers the existing ones', async () => {
    const r = await restore();
    expect(r).toMatchObject({ created: 0, deleted: 0 });
    expect(r.testCompanies.map((c) => c.id)).toEqual(w.testCompanies.map((c) => c.id));
    expect(await t.dbs.test.prisma.company.count({ where: { accountId: w.account.id } })).toBe(3);
  });

  it('after one sample was deleted, recreates that one only, with its data', async () => {
    await t.dbs.test.prisma.company.delete({ where: { id: w.testCompanies[1]!.id } });
    const r = await restore();
    expect(r).toMatchObject({ created: 1, deleted: 0 });
    expect(names(r.testCompanies)).toEqual(SAMPLE_NAMES);
    expect(r.testCompanies[0]!.id).toBe(w.testCompanies[0]!.id);
    expect(r.testCompanies[2]!.id).toBe(w.testCompanies[2]!.id);
    expect(r.testCompanies[1]!.id).not.toBe(w.testCompanies[1]!.id);
    expect(await t.dbs.test.prisma.employee.count({ where: { companyId: r.testCompanies[1]!.id } })).toBe(5);
    // The salon's key was never touched.
    expect((await me(w.testKey.key)).statusCode).toBe(200);
  });

  it('after a wipe, brings back all three', async () => {
    await wipeSandbox(t.dbs, t.services.credentials, { accountId: w.account.id });
    const r = await restore();
    expect(r).toMatchObject({ created: 3, deleted: 0 });
    expect(names(r.testCompanies)).toEqual(SAMPLE_NAMES);
    expect(r.testCompanies.map((c) => c.template)).toEqual(['hair_salon', 'clinic', 'fitness']);
    const fitness = r.testCompanies[2]!;
    expect(
      await t.dbs.test.prisma.classSession.count({ where: { companyId: fitness.id, startTime: { gt: new Date() } } }),
    ).toBeGreaterThan(50);
    // With their sample bookings again (docs/sandbox.md): the salon's visit, the clinic's
    // series, the gym's full class and its line.
    const [salon, clinic] = r.testCompanies;
    expect(await t.dbs.test.prisma.visit.count({ where: { companyId: salon!.id } })).toBe(1);
    expect(await t.dbs.test.prisma.booking.count({ where: { companyId: salon!.id, visitId: { not: null } } })).toBe(2);
    expect(await t.dbs.test.prisma.bookingSeries.count({ where: { companyId: clinic!.id } })).toBe(1);
    expect(await t.dbs.test.prisma.booking.count({ where: { companyId: clinic!.id, seriesId: { not: null } } })).toBe(
      6,
    );
    const line = await t.dbs.test.prisma.booking.findMany({
      where: { companyId: fitness.id, status: 'waitlisted' },
      orderBy: { waitlistPosition: 'asc' },
    });
    expect(line.map((b) => b.waitlistPosition)).toEqual([1, 2]);
  });

  it('with reset, rebuilds the samples and stops their keys, but keeps blank test companies and live data', async () => {
    const before = (await restore()).testCompanies;
    const blank = await createCompany(t.dbs, { accountId: w.account.id, mode: 'test', name: 'My own sandbox' });
    const { key } = await createApiKey(t.dbs.test.prisma, { companyId: before[0]!.id, name: 'k' });
    expect((await me(key)).statusCode).toBe(200);
    // Something a developer did to a sample, which the reset must undo.
    await t.dbs.test.prisma.employee.deleteMany({ where: { companyId: before[0]!.id } });

    const r = await restore({ reset: true });
    expect(r).toMatchObject({ created: 3, deleted: 3 });
    expect(names(r.testCompanies)).toEqual(SAMPLE_NAMES);
    for (const [i, c] of r.testCompanies.entries()) expect(c.id).not.toBe(before[i]!.id);
    expect(await t.dbs.test.prisma.employee.count({ where: { companyId: r.testCompanies[0]!.id } })).toBe(3);
    expect(await t.dbs.test.prisma.company.findUnique({ where: { id: blank.id } })).not.toBeNull();
    expect(await t.dbs.test.prisma.company.count({ where: { accountId: w.account.id } })).toBe(4);
    expect((await me(key)).statusCode).toBe(401);
    expect((await me(w.liveKey.key)).json().data._id).toBe(w.live.id);
  });

  it('a reset of the samples a confirmation named deletes exactly those, and recreates what is missing', async () => {
    const before = (await restore()).testCompanies;
    // The confirmation named the salon and the clinic; the gym (made later, say) was not shown.
    const named = [before[0]!.id, before[1]!.id];
    const r = await restoreSampleCompanies(t.dbs, t.services.credentials, {
      accountId: w.account.id,
      reset: true,
      companyIds: [...named, w.live.id],
    });
    expect(r).toMatchObject({ created: 2, deleted: 2 });
    expect(names(r.testCompanies)).toEqual(SAMPLE_NAMES);
    expect(r.testCompanies[2]!.id).toBe(before[2]!.id);
    expect(await t.dbs.test.prisma.company.count({ where: { id: { in: named } } })).toBe(0);
    expect((await me(w.liveKey.key)).json().data._id).toBe(w.live.id);
  });

  it('a reset that fails half-way deletes nothing: deleting and recreating are one transaction', async () => {
    const before = (await restore()).testCompanies;
    // A real fault in the middle of the reset: the database refuses the new companies.
    await t.dbs.test.prisma.$executeRawUnsafe(`
      CREATE FUNCTION refuse_company() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'no new companies today'; END $$`);
    await t.dbs.test.prisma.$executeRawUnsafe(
      'CREATE TRIGGER refuse_company BEFORE INSERT ON companies FOR EACH ROW EXECUTE FUNCTION refuse_company()',
    );
    try {
      await expect(
        restoreSampleCompanies(t.dbs, t.services.credentials, {
          accountId: w.account.id,
          reset: true,
          companyIds: before.map((c) => c.id),
        }),
      ).rejects.toThrow(/no new companies today/);
    } finally {
      await t.dbs.test.prisma.$executeRawUnsafe('DROP TRIGGER refuse_company ON companies');
      await t.dbs.test.prisma.$executeRawUnsafe('DROP FUNCTION refuse_company()');
    }
    expect((await restore()).testCompanies.map((c) => c.id)).toEqual(before.map((c) => c.id));
  });

  it('concurrent restores after a wipe create each sample once', async () => {
    await wipeSandbox(t.dbs, t.services.credentials, { accountId: w.account.id });
    const results = await Promise.all(Array.from({ length: 5 }, () => restore()));
    expect(results.reduce((n, r) => n + r.created, 0)).toBe(3);
    const ids = results[0]!.testCompanies.map((c) => c.id);
    for (const r of results) expect(r.testCompanies.map((c) => c.id)).toEqual(ids);
    const samples = await t.dbs.test.prisma.company.findMany({
      where: { accountId: w.account.id, template: { not: null } },
    });
    expect(samples.map((c) => c.id).sort()).toEqual([...ids].sort());
  });

  it.each([
    ['unknown account', newId()],
    ['malformed id', 'nope'],
    ['empty id', ''],
  ])('refuses an %s as NOT_FOUND, creating nothing', async (_, accountId) => {
    const before = await t.dbs.test.prisma.company.count();
    const err = await restore({ accountId }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('NOT_FOUND');
    expect(await t.dbs.test.prisma.company.count()).toBe(before);
  });
});
