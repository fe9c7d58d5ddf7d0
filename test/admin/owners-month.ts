// An owner's month, shared by the admin overview tests (inject and Chromium): a Berlin company on
// a test clock frozen on Wednesday 3 March 2027, 07:00, with two employees and six bookings made
// through the API — three today (one then served, one missed), one cancelled on the 5th, one on
// the 20th for a customer whose name is a spreadsheet formula, one in April — and a card payment
// for the served one, settled and refunded by 10.00. The clock then stands at 14:30.
import type { JobContext } from '../../src/workers/job-types.js';
import { settlePayment } from '../../src/workers/settle-payment.js';
import type { TestApp } from '../helpers/app.js';
import { ALL_DAY, blankCompany, ok, post } from '../helpers/domain.js';
import type { createAccountWithKeys } from '../helpers/factories.js';

/** March 2027 in Berlin, as instants. */
export const MARCH = { from: '2027-02-28T23:00:00.000Z', to: '2027-03-31T22:00:00.000Z' };

export async function ownersMonth(t: TestApp, w: Awaited<ReturnType<typeof createAccountWithKeys>>) {
  const card = { number: '4242424242424242', expMonth: 12, expYear: 2040, cvc: '123' };
  const blank = await blankCompany(t.dbs, w, { timezone: 'Europe/Berlin' });
  const auth = blank.auth;
  const clock = await post(t.app, '/api/v1/test-clocks', auth, { frozenTime: '2027-03-03T06:00:00Z' });
  ok(await t.app.inject({ method: 'PATCH', url: '/api/v1/me', headers: auth, payload: { testClockId: clock._id } }));
  const anna = await post(t.app, '/api/v1/employees', auth, { name: 'Anna', workingHours: ALL_DAY });
  const ben = await post(t.app, '/api/v1/employees', auth, { name: 'Ben', workingHours: ALL_DAY });
  const cut = await post(t.app, '/api/v1/services', auth, {
    name: 'Cut',
    durationMinutes: 60,
    price: 4000,
    employeeIds: [anna._id, ben._id],
  });
  const book = (employeeId: string, startTime: string, name: string) =>
    post(t.app, '/api/v1/bookings', auth, {
      serviceId: cut._id,
      employeeId,
      startTime,
      customer: { name, email: `${name.replace(/\W/g, '').toLowerCase()}@example.com` },
    });
  const served = await book(anna._id, '2027-03-03T08:00:00Z', 'Cleo Served');
  const missed = await book(anna._id, '2027-03-03T10:00:00Z', 'Dag Missed');
  await book(ben._id, '2027-03-03T12:00:00Z', 'Eva Later');
  const cancelled = await book(ben._id, '2027-03-05T09:00:00Z', 'Finn Cancelled');
  await book(anna._id, '2027-03-20T09:00:00Z', '=HYPERLINK("http://evil.example")');
  await book(anna._id, '2027-04-02T09:00:00Z', 'Gus April');
  ok(await t.app.inject({ method: 'POST', url: `/api/v1/bookings/${cancelled._id}/cancel`, headers: auth }));
  const payment = await post(t.app, '/api/v1/payments', auth, { bookingId: served._id, card });
  const ctx: JobContext = { services: t.services, enqueue: async () => {}, signal: new AbortController().signal };
  await settlePayment(ctx, { mode: 'test', paymentId: payment._id });
  await post(t.app, `/api/v1/payments/${payment._id}/refund`, auth, { amount: 1000 });
  // 14:30 in Berlin: the morning's two have started; one was served, one missed.
  await post(t.app, `/api/v1/test-clocks/${clock._id}/advance`, auth, { to: '2027-03-03T13:30:00Z' });
  await post(t.app, `/api/v1/bookings/${served._id}/complete`, auth, {});
  await post(t.app, `/api/v1/bookings/${missed._id}/no-show`, auth, {});
  return { auth, companyId: blank.company.id, paymentId: payment._id as string };
}

/** The month's figures by SQL over the bookings that start in March (Berlin) and their payments. */
export async function marchBySql(t: TestApp, companyId: string) {
  const [row] = await t.dbs.test.prisma.$queryRaw<
    Array<{ total: bigint; cancelled: bigint; completed: bigint; no_show: bigint; net: bigint }>
  >`
    SELECT count(*) AS total,
      count(*) FILTER (WHERE b.status = 'cancelled') AS cancelled,
      count(*) FILTER (WHERE b.status = 'completed') AS completed,
      count(*) FILTER (WHERE b.status = 'no_show') AS no_show,
      (SELECT coalesce(sum(p.amount - p.amount_refunded), 0) FROM payments p JOIN bookings pb ON pb.id = p.booking_id
        WHERE pb.company_id = ${companyId} AND p.status IN ('succeeded', 'partially_refunded', 'refunded')
          AND pb.start_time >= ${new Date(MARCH.from)} AND pb.start_time < ${new Date(MARCH.to)}) AS net
    FROM bookings b
    WHERE b.company_id = ${companyId} AND b.start_time >= ${new Date(MARCH.from)} AND b.start_time < ${new Date(MARCH.to)}`;
  return Object.fromEntries(Object.entries(row!).map(([k, v]) => [k, Number(v)])) as Record<
    'total' | 'cancelled' | 'completed' | 'no_show' | 'net',
    number
  >;
}

export const pct = (n: number, d: number) => `${((n / d) * 100).toFixed(1)}%`;
