// The sample builder (src/schema/sandbox/sample-builder.ts, docs/sandbox.md): restoring the
// samples gives each sample company a week of bookings around today, made by the API's use
// cases under a test clock set back and then advanced, and the same "today" gives the same week.
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../../src/generated/prisma/client.js';
import { restoreSampleCompanies } from '../../../src/schema/companies/index.js';
import { seededRandom } from '../../../src/schema/sandbox/sample-builder.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { createAccountWithKeys } from '../../helpers/factories.js';

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;
let samples: Company[];
let elapsed = 0;
const now = new Date();
let baseline = 0;

beforeAll(async () => {
  t = await createTestApp();
  w = await createAccountWithKeys(t.dbs);
  // The same reset without the week, for the figure docs/performance.md quotes.
  let started = performance.now();
  await restoreSampleCompanies(t.dbs, t.services.credentials, { accountId: w.account.id, reset: true });
  baseline = performance.now() - started;
  started = performance.now();
  ({ testCompanies: samples } = await restoreSampleCompanies(t.dbs, t.services.credentials, {
    accountId: w.account.id,
    reset: true,
    now,
    week: t.services,
  }));
  elapsed = performance.now() - started;
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const db = () => t.dbs.test.prisma;

async function weekOf(company: Company) {
  const today = DateTime.now().setZone(company.timezone).startOf('day');
  const from = today.minus({ days: 3 });
  const to = today.plus({ days: 4 });
  const bookings = await db().booking.findMany({
    where: { companyId: company.id, startTime: { gte: from.toJSDate(), lt: to.toJSDate() } },
    include: { payments: true },
  });
  return { bookings, from, today };
}

describe('the sample week', () => {
  it('restores in a bounded time (reported, not asserted)', () => {
    console.log(`restore: ${Math.round(baseline)} ms without the sample week, ${Math.round(elapsed)} ms with it`);
    expect(elapsed).toBeGreaterThan(0);
  });

  it('gives each sample company a mix of statuses and payments around today', async () => {
    for (const company of samples) {
      const { bookings } = await weekOf(company);
      const statuses = new Set(bookings.map((b) => b.status));
      const summary = Object.fromEntries([...statuses].map((s) => [s, bookings.filter((b) => b.status === s).length]));
      console.log(company.name, bookings.length, JSON.stringify(summary));
      expect(bookings.length, company.name).toBeGreaterThanOrEqual(20);
      for (const s of ['confirmed', 'completed', 'cancelled', 'no_show'] as const)
        expect(statuses.has(s), `${company.name}: ${s}`).toBe(true);
      const payments = bookings.flatMap((b) => b.payments);
      expect(
        payments.some((p) => p.status === 'succeeded'),
        company.name,
      ).toBe(true);
      expect(
        payments.some((p) => p.status === 'refunded' || p.status === 'partially_refunded'),
        company.name,
      ).toBe(true);
      // Served and not paid (on account): unpaid.
      expect(
        bookings.some((b) => b.status === 'completed' && b.price > 0 && b.payments.length === 0),
        company.name,
      ).toBe(true);
    }
  });

  it('has someone waiting for a payment in each company that asks for one up front', async () => {
    for (const company of samples) {
      const { bookings } = await weekOf(company);
      expect(
        bookings.some((b) => b.status === 'pending' && b.holdExpiresAt !== null),
        company.name,
      ).toBe(true);
    }
  });

  it('books every working day of the week around today', async () => {
    for (const company of samples) {
      const { bookings, from } = await weekOf(company);
      const days = new Set(
        bookings.map((b) => DateTime.fromJSDate(b.startTime, { zone: company.timezone }).toISODate()),
      );
      const working = await db().employee.findMany({
        where: { companyId: company.id },
        select: { workingHours: true },
      });
      for (let d = 0; d < 7; d++) {
        const date = from.plus({ days: d });
        const weekday = date.toFormat('cccc').toLowerCase();
        const open = working.some((e) => ((e.workingHours as Record<string, unknown[]>)[weekday] ?? []).length > 0);
        if (open) expect(days.has(date.toISODate()), `${company.name} ${date.toISODate()}`).toBe(true);
      }
    }
  });

  it('has about twenty customers per company and a class with people waiting', async () => {
    for (const company of samples) {
      const n = await db().customer.count({ where: { companyId: company.id } });
      expect(n, company.name).toBeGreaterThanOrEqual(15);
      expect(n, company.name).toBeLessThanOrEqual(30);
    }
    const fitness = samples.find((c) => c.template === 'fitness')!;
    expect(await db().booking.count({ where: { companyId: fitness.id, status: 'waitlisted' } })).toBeGreaterThan(0);
  });

  it('leaves the companies on the real clock, with the reminders that fell due sent', async () => {
    for (const company of samples) {
      const row = await db().company.findUniqueOrThrow({ where: { id: company.id } });
      expect(row.testClockId).toBeNull();
      expect(await db().testClock.count({ where: { companyId: company.id } })).toBe(0);
      expect(await db().email.count({ where: { companyId: company.id } }), company.name).toBeGreaterThan(0);
    }
  });

  it('gives the same week for the same today: the same bookings at the same times in the same states', async () => {
    const other = await createAccountWithKeys(t.dbs);
    const { testCompanies } = await restoreSampleCompanies(t.dbs, t.services.credentials, {
      accountId: other.account.id,
      reset: true,
      now,
      week: t.services,
    });
    const shape = async (company: Company) =>
      (
        await db().booking.findMany({
          where: { companyId: company.id },
          include: { service: { select: { name: true } }, payments: { select: { status: true } } },
        })
      )
        .map(
          (b) =>
            `${b.startTime.toISOString()} ${b.service.name} ${b.status} ${b.payments.map((p) => p.status).join('+')}`,
        )
        .sort();
    for (const [i, company] of samples.entries())
      expect(await shape(testCompanies[i]!), company.name).toEqual(await shape(company));
  }, 120_000);

  it('draws the same sequence from the same seed', () => {
    const a = seededRandom('hair_salon:2026-12-02');
    const b = seededRandom('hair_salon:2026-12-02');
    const c = seededRandom('hair_salon:2026-12-03');
    const xs = Array.from({ length: 5 }, a);
    expect(Array.from({ length: 5 }, b)).toEqual(xs);
    expect(Array.from({ length: 5 }, c)).not.toEqual(xs);
  });
});
