// Property (issue 17, §4): for generated companies (four zones, DST days), hours, date overrides,
// closures, bookings, rules and candidate starts on and off the grid, explain says available ⇔
// booking succeeds, what /availability offers explain calls available, and a refusal's reasons
// equal explain's. Each case in a fresh company. EXPLAIN_RUNS (default 12) sets the case count:
// `EXPLAIN_RUNS=500 npx vitest run test/schema/availability/explain-property.test.ts` for more.
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { explainAvailability, findAvailability } from '../../../src/schema/availability/index.js';
import { createBooking } from '../../../src/schema/bookings/index.js';
import type { TestApp } from '../../helpers/app.js';
import { createAccountWithKeys } from '../../helpers/factories.js';
import { blankCompany, createDomainApp, ok, post, type World } from '../../helpers/domain.js';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
});
afterAll(async () => t?.close());

const RUNS = Number(process.env.EXPLAIN_RUNS ?? 12);
const MIN = 60_000;
const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
// A DST change (or none) per zone in 2027.
const ZONES: Array<[string, string]> = [
  ['Europe/Berlin', '2027-03-28'],
  ['America/New_York', '2027-11-07'],
  ['Australia/Lord_Howe', '2027-04-04'],
  ['Asia/Kathmandu', '2027-03-28'],
];
const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

const world = fc.record({
  zone: fc.constantFrom(...ZONES),
  startMin: fc.integer({ min: 0, max: 40 }).map((x) => x * 30),
  lengthMin: fc.integer({ min: 2, max: 16 }).map((x) => x * 30),
  override: fc.option(
    fc.integer({ min: 0, max: 40 }).map((x) => x * 30),
    { nil: null },
  ),
  closure: fc.option(fc.tuple(fc.integer({ min: 0, max: 1400 }), fc.integer({ min: 15, max: 240 })), { nil: null }),
  booking: fc.option(
    fc.integer({ min: 0, max: 1400 }).map((x) => x - (x % 5)),
    { nil: null },
  ),
  interval: fc.constantFrom(null, 20, 30, 45),
  notice: fc.constantFrom(0, 90, 600),
  limit: fc.constantFrom(null, 1, 2),
  buffer: fc.constantFrom(0, 10),
  candidates: fc.array(
    fc.oneof(
      fc.integer({ min: -60, max: 1500 }).map((x) => x - (x % 15)),
      fc.integer({ min: -60, max: 1500 }),
    ),
    { minLength: 3, maxLength: 6 },
  ),
});

it(`explain ⇔ booking, /availability ⊆ explain, refusal reasons = explain's (${RUNS} cases)`, async () => {
  const db = t.dbs.test.prisma;
  await fc.assert(
    fc.asyncProperty(world, async (g) => {
      const [zone, date] = g.zone;
      const c = await blankCompany(t.dbs, w, { timezone: zone });
      const rules = {
        minNoticeMinutes: g.notice,
        slotIntervalMinutes: g.interval,
        dailyLimitPerEmployee: g.limit,
        maxAdvanceDays: 30,
      };
      ok(await t.app.inject({ method: 'PATCH', url: '/api/v1/me', headers: c.auth, payload: { bookingRules: rules } }));
      const end = Math.min(g.startMin + g.lengthMin, 24 * 60);
      const range = [{ start: hhmm(g.startMin), end: end === 1440 ? '24:00' : hhmm(end) }];
      const employee = await post(t.app, '/api/v1/employees', c.auth, {
        name: 'E',
        workingHours: Object.fromEntries(DAYS.map((d) => [d, range])),
      });
      const service = await post(t.app, '/api/v1/services', c.auth, {
        name: 'S',
        durationMinutes: 30,
        bufferAfterMinutes: g.buffer,
        employeeIds: [employee._id],
      });
      const day = DateTime.fromISO(date, { zone }).startOf('day').toMillis();
      const now = day - 86_400_000 + 6 * 60 * MIN;
      if (g.override !== null)
        ok(
          await t.app.inject({
            method: 'PUT',
            url: `/api/v1/employees/${employee._id}/date-overrides/${date}`,
            headers: c.auth,
            payload: { intervals: [{ start: hhmm(g.override), end: hhmm(Math.min(g.override + 180, 1439)) }] },
          }),
        );
      if (g.closure !== null)
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/closures',
          headers: c.auth,
          payload: {
            startTime: new Date(day + g.closure[0] * MIN).toISOString(),
            endTime: new Date(day + (g.closure[0] + g.closure[1]) * MIN).toISOString(),
            reason: 'Closed',
          },
        });
      const company = await db.company.findUniqueOrThrow({ where: { id: c.company.id } });
      const input = { serviceId: service._id };
      if (g.booking !== null)
        await createBooking(db, {
          company,
          input: {
            ...input,
            startTime: new Date(day + g.booking * MIN).toISOString(),
            customer: { name: 'B', email: 'b@example.com' },
            skipRules: true,
          },
          now: new Date(now),
        }).catch(() => undefined);
      let n = 0;
      for (const offset of g.candidates) {
        const start = day + offset * MIN;
        const explained = await explainAvailability(db, {
          company,
          input: { ...input, startTime: new Date(start) },
          now: new Date(now),
        });
        const found = await findAvailability(db, {
          company,
          input: { ...input, from: new Date(day - 120 * MIN), to: new Date(day + 1560 * MIN) },
          now: new Date(now),
        });
        const slots = found.kind === 'appointment' ? found.slots : [];
        const offered = slots.some((s) => s.startTime.getTime() === start);
        if (offered) expect(explained.available).toBe(true);
        if (g.interval !== null) expect(offered).toBe(explained.available);
        let booked = true;
        let reasons: unknown = [];
        try {
          await createBooking(db, {
            company,
            input: {
              ...input,
              startTime: new Date(start).toISOString(),
              customer: { name: 'C', email: `c${n++}@example.com` },
            },
            now: new Date(now),
          });
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          booked = false;
          expect(err.code).toBe('SLOT_UNAVAILABLE');
          reasons = (err.details as { reasons?: unknown }).reasons ?? [];
        }
        expect(booked).toBe(explained.available);
        if (!booked) expect(JSON.parse(JSON.stringify(reasons))).toEqual(JSON.parse(JSON.stringify(explained.reasons)));
      }
    }),
    { numRuns: RUNS, seed: process.env.EXPLAIN_SEED ? Number(process.env.EXPLAIN_SEED) : undefined },
  );
}, 120_000);
