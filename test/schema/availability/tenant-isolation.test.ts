// One server process, two companies in each mode: a refused request of one company (a business's
// `skipRules` walk-in at a time its employee cannot take) leaves the other company's
// `/availability`, `/availability/explain` and `POST /bookings` answers exactly as they were,
// and no answer of one company carries an id of the other (issue: a shared "no reasons" array
// that the refusal filled emptied every company's availability until a restart).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../../src/schema/credentials/create-api-key.js';
import { createCompany } from '../../../src/schema/companies/create-company.js';
import type { TestApp } from '../../helpers/app.js';
import { bearer, createAccountWithKeys } from '../../helpers/factories.js';
import { createDomainApp, expectError, ok, post, WEEK_9_TO_17 } from '../../helpers/domain.js';

let t: TestApp;
beforeAll(async () => {
  t = await createDomainApp();
});
afterAll(async () => t?.close());

const EVERY_DAY_9_TO_17 = { ...WEEK_9_TO_17, saturday: WEEK_9_TO_17.monday, sunday: WEEK_9_TO_17.monday };

/** A UTC day `days` from now, as YYYY-MM-DD. */
const day = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

interface Tenant {
  auth: Record<string, string>;
  companyId: string;
  employeeId: string;
  serviceId: string;
}

/** A company of `mode` in UTC with one employee working 09:00-17:00 every day and a 30-minute service. */
async function tenant(accountId: string, mode: 'live' | 'test', name: string): Promise<Tenant> {
  const company = await createCompany(t.dbs, { accountId, mode, name, timezone: 'UTC', currency: 'EUR' });
  const key = await createApiKey(t.dbs[mode].prisma, { companyId: company.id, name: 'k' });
  const auth = bearer(key.key);
  const employee = await post(t.app, '/api/v1/employees', auth, {
    name: `${name} staff`,
    workingHours: EVERY_DAY_9_TO_17,
  });
  const service = await post(t.app, '/api/v1/services', auth, {
    name: `${name} cut`,
    durationMinutes: 30,
    employeeIds: [employee._id],
  });
  return { auth, companyId: company.id, employeeId: employee._id, serviceId: service._id };
}

const get = async (x: Tenant, url: string) => (await t.app.inject({ method: 'GET', url, headers: x.auth })).body;
const availability = (x: Tenant, date: string) =>
  get(x, `/api/v1/availability?serviceId=${x.serviceId}&from=${date}T00:00:00.000Z&to=${date}T23:59:00.000Z`);
const explain = (x: Tenant, at: string) =>
  get(x, `/api/v1/availability/explain?serviceId=${x.serviceId}&employeeId=${x.employeeId}&startTime=${at}`);
const book = (x: Tenant, at: string, extra: Record<string, unknown> = {}) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/bookings',
    headers: x.auth,
    payload: {
      serviceId: x.serviceId,
      employeeId: x.employeeId,
      startTime: at,
      customer: { name: 'Walk In', email: `walk-${Math.random().toString(36).slice(2)}@example.com` },
      ...extra,
    },
  });

/** Answers without what differs between two asks of the same thing (the request's id and time). */
const stable = (body: string) => {
  const parsed = JSON.parse(body);
  delete parsed.meta;
  return parsed;
};

describe.each(['test', 'live'] as const)('in the %s mode', (mode) => {
  let a: Tenant;
  let b: Tenant;
  beforeAll(async () => {
    const w = await createAccountWithKeys(t.dbs);
    a = await tenant(w.account.id, mode, `A ${mode}`);
    b = await tenant(w.account.id, mode, `B ${mode}`);
  });

  it("a refused skipRules walk-in in one company leaves the other's answers exactly as they were", async () => {
    const [d1, d2, d3] = [day(3), day(5), day(6)];
    // B's answers before anything happens in A (d1 is now cached; d2 and d3 are asked only afterwards).
    const before = {
      slots: stable(await availability(b, d1)),
      free: stable(await explain(b, `${d1}T10:00:00.000Z`)),
      outside: stable(await explain(b, `${d1}T03:00:00.000Z`)),
    };
    expect(before.slots.data.slots).toHaveLength(31);
    expect(before.free.data).toEqual({ available: true, employeeIds: [b.employeeId], reasons: [] });

    // A: a walk-in outside the employee's hours, and one at a time already booked, both with skipRules.
    const outside = expectError(await book(a, `${d1}T03:00:00.000Z`, { skipRules: true }), 409, 'SLOT_UNAVAILABLE');
    expect(outside.error.details.reasons).toEqual([
      expect.objectContaining({ code: 'OUTSIDE_WORKING_HOURS', employeeId: a.employeeId }),
    ]);
    ok(await book(a, `${d1}T11:00:00.000Z`));
    const taken = expectError(await book(a, `${d1}T11:00:00.000Z`, { skipRules: true }), 409, 'SLOT_UNAVAILABLE');
    expect(taken.error.details.reasons).toEqual([
      expect.objectContaining({ code: 'BOOKED', employeeId: a.employeeId }),
    ]);

    // B again: the cached day, a day asked for the first time, explain, and booking.
    const after = {
      slots: stable(await availability(b, d1)),
      free: stable(await explain(b, `${d1}T10:00:00.000Z`)),
      outside: stable(await explain(b, `${d1}T03:00:00.000Z`)),
    };
    expect(after).toEqual(before);
    const fresh = stable(await availability(b, d2));
    expect(fresh.data.slots).toHaveLength(31);
    expect(stable(await explain(b, `${d2}T10:00:00.000Z`)).data).toEqual(before.free.data);
    // B's own refusal names B's employee only; its booking of a free time is taken.
    const refused = expectError(await book(b, `${d3}T03:00:00.000Z`), 409, 'SLOT_UNAVAILABLE');
    expect(refused.error.details.reasons.map((r: { employeeId?: string }) => r.employeeId)).toEqual([b.employeeId]);
    expect(ok(await book(b, `${d3}T10:00:00.000Z`)).status).toBe('confirmed');
    // And A, refused in between, is answered for its own free times as before.
    expect(JSON.parse(await availability(a, d2)).data.slots).toHaveLength(31);

    // No answer of B above carries an id of A.
    const bodies = JSON.stringify([before, after, fresh, refused]);
    for (const id of [a.companyId, a.employeeId, a.serviceId]) expect(bodies).not.toContain(id);
  });
});
