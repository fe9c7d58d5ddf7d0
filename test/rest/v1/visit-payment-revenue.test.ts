// GET /api/v1/reports/bookings with a visit paid as one (docs/api.md, "Reports"): each item of
// the visit counts its share of the payment (its price) and its part of the payment's refunds,
// the items no longer standing first, so that every grouping (day, employee, service) adds up
// to the same totals as the payments themselves, summed in SQL and by hand.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { createAccountWithKeys } from '../../helpers/factories.js';
import { ALL_DAY, blankCompany, createDomainApp, futureHour, ok, post, type World } from '../../helpers/domain.js';
import { newId } from '../../../src/ids.js';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
});
afterAll(async () => t?.close());

const db = () => t.dbs.test.prisma;
type Money = { currency: string; collected: number; refunded: number; net: number };
const eur = (collected: number, refunded: number): Money[] => [
  { currency: 'EUR', collected, refunded, net: collected - refunded },
];

describe('report revenue with a visit paid as one', () => {
  it('counts each item its share, net of refunds, and every grouping adds up to the payments', async () => {
    const s = await blankCompany(t.dbs, w);
    const anna = await post(t.app, '/api/v1/employees', s.auth, { name: 'Anna', workingHours: ALL_DAY });
    const ben = await post(t.app, '/api/v1/employees', s.auth, { name: 'Ben', workingHours: ALL_DAY });
    const service = (name: string, price: number) =>
      post(t.app, '/api/v1/services', s.auth, {
        name,
        durationMinutes: 60,
        price,
        employeeIds: [anna._id, ben._id],
      });
    const cut = await service('Cut', 4000);
    const colour = await service('Colour', 2500);
    // One booking paid alone (Ben, a cut, day 3), 500 of it refunded.
    const single = await post(t.app, '/api/v1/bookings', s.auth, {
      serviceId: cut._id,
      employeeId: ben._id,
      startTime: futureHour(3),
      customer: { name: 'Sol Single', email: 'sol@example.com' },
    });
    const alone = await db().payment.create({
      data: {
        id: newId(),
        companyId: s.company.id,
        bookingId: single._id,
        amount: 4000,
        currency: 'EUR',
        status: 'succeeded',
      },
    });
    ok(
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/payments/${alone.id}/refund`,
        headers: s.auth,
        payload: { amount: 500 },
      }),
    );
    // A visit on day 5 (Anna's cut, then Ben's colour) paid as one (6500), 1000 of it refunded.
    const v = await post(t.app, '/api/v1/visits', s.auth, {
      items: [
        { serviceId: cut._id, employeeId: anna._id },
        { serviceId: colour._id, employeeId: ben._id },
      ],
      startTime: futureHour(5),
      customer: { name: 'Vera Visit', email: 'vera@example.com' },
    });
    const [cutItem, colourItem] = v.bookings;
    const paid = await db().payment.create({
      data: {
        id: newId(),
        companyId: s.company.id,
        visitId: v._id,
        amount: 6500,
        currency: 'EUR',
        status: 'succeeded',
      },
    });
    ok(
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/payments/${paid.id}/refund`,
        headers: s.auth,
        payload: { amount: 1000 },
      }),
    );
    // A failed visit payment counts nowhere (it is not the visit's standing payment).
    await db().payment.create({
      data: { id: newId(), companyId: s.company.id, visitId: v._id, amount: 6500, currency: 'EUR', status: 'failed' },
    });

    const from = new Date(Date.now()).toISOString();
    const to = new Date(Date.now() + 10 * 86_400_000).toISOString();
    const report = async (groupBy: string) =>
      ok(
        await t.app.inject({
          method: 'GET',
          url: `/api/v1/reports/bookings?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}&groupBy=${groupBy}`,
          headers: s.auth,
        }),
      );
    const sqlTotals = async () => {
      const [row] = await db().$queryRaw<Array<{ collected: bigint; refunded: bigint }>>`
        SELECT sum(amount) AS collected, sum(amount_refunded) AS refunded FROM payments
        WHERE company_id = ${s.company.id} AND status IN ('succeeded', 'partially_refunded', 'refunded')`;
      return eur(Number(row!.collected), Number(row!.refunded));
    };
    const revenueBy = async (groupBy: string) => {
      const r = await report(groupBy);
      // Every grouping adds up to its totals, which are the payments' own sums.
      const summed = new Map<string, number[]>();
      for (const g of r.groups)
        for (const m of g.revenue as Money[]) {
          const acc = summed.get(m.currency) ?? [0, 0];
          summed.set(m.currency, [acc[0]! + m.collected, acc[1]! + m.refunded]);
        }
      expect([...summed].flatMap(([, [c, f]]) => eur(c!, f!))).toEqual(r.totals.revenue);
      expect(r.totals.revenue).toEqual(await sqlTotals());
      return Object.fromEntries(r.groups.map((g: { key: string; revenue: Money[] }) => [g.key, g.revenue]));
    };
    const day = (iso: string) => iso.slice(0, 10);

    // The refund by request is taken from the items in the visit's order: the cut first.
    expect(await sqlTotals()).toEqual(eur(10_500, 1500));
    expect(await revenueBy('employee')).toEqual({ [anna._id]: eur(4000, 1000), [ben._id]: eur(6500, 500) });
    expect(await revenueBy('service')).toEqual({ [cut._id]: eur(8000, 1500), [colour._id]: eur(2500, 0) });
    const byDay = await revenueBy('day');
    expect(byDay[day(single.startTime)]).toEqual(eur(4000, 500));
    expect(byDay[day(cutItem.startTime)]).toEqual(eur(6500, 1000));
    expect(Object.values(byDay).filter((m) => (m as Money[]).length > 0)).toHaveLength(2);

    // The business cancels the colour: its share (2500) goes back, and that refund is the
    // colour's; the earlier 1000 stays the cut's.
    ok(
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/bookings/${colourItem._id}/cancel`,
        headers: s.auth,
        payload: { cancelledBy: 'business' },
      }),
    );
    expect((await db().payment.findUniqueOrThrow({ where: { id: paid.id } })).amountRefunded).toBe(3500);
    expect(await sqlTotals()).toEqual(eur(10_500, 4000));
    expect(await revenueBy('employee')).toEqual({ [anna._id]: eur(4000, 1000), [ben._id]: eur(6500, 3000) });
    expect(await revenueBy('service')).toEqual({ [cut._id]: eur(8000, 1500), [colour._id]: eur(2500, 2500) });
    expect((await revenueBy('day'))[day(cutItem.startTime)]).toEqual(eur(6500, 3500));
  });
});
