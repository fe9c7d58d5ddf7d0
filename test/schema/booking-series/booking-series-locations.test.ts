// Booking series at a location (docs/api.md, Booking series and Locations): a New York company
// whose employee works Mondays at its Berlin site. A series expands in the Berlin zone (09:00
// Berlin on both sides of Berlin's DST change), whether the location is named or found from the
// interval its first start falls in, and every occurrence records it; a named location books
// only inside the intervals there; rescheduling one occurrence keeps to that location (a time the
// employee works elsewhere refused with the reasons explain gives), while a single booking follows
// the employee; another company's location is a 404 naming it, nothing written.
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { createAccountWithKeys } from '../../helpers/factories.js';
import {
  berlinAndBrooklyn,
  blankCompany,
  createDomainApp,
  expectError,
  ok,
  post,
  type World,
} from '../../helpers/domain.js';

let t: TestApp;
let w: World;

beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
});
afterAll(() => t?.close());

const db = () => t.dbs.test.prisma;
const customer = { name: 'Paula Physio', email: 'paula@example.com' };
// Mondays 15, 22, 29 March and 5 April 2027: Berlin moves to summer time on 28 March (New York
// already did on 14 March), so 09:00 Berlin is 08:00 UTC, then 07:00 UTC.
const FIRST = '2027-03-15T08:00:00.000Z';
const BERLIN_NINES = ['2027-03-15', '2027-03-22', '2027-03-29', '2027-04-05'].map((d) =>
  DateTime.fromISO(`${d}T09:00`, { zone: 'Europe/Berlin' }).toUTC().toISO(),
);

async function clinic() {
  const c = await blankCompany(t.dbs, w, { timezone: 'America/New_York' });
  const { berlin, brooklyn } = await berlinAndBrooklyn(t.app, c.auth);
  const theo = await post(t.app, '/api/v1/employees', c.auth, {
    name: 'Theo',
    workingHours: {
      monday: [{ start: '08:00', end: '20:00', locationId: berlin._id }],
      tuesday: [{ start: '00:00', end: '24:00', locationId: brooklyn._id }],
      wednesday: [],
      thursday: [],
      friday: [],
      saturday: [],
      sunday: [],
    },
  });
  const physio = await post(t.app, '/api/v1/services', c.auth, {
    name: 'Physiotherapy',
    durationMinutes: 45,
    employeeIds: [theo._id],
  });
  const series = (input: Record<string, unknown>) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/booking-series',
      headers: c.auth,
      payload: { serviceId: physio._id, startTime: FIRST, rrule: 'FREQ=WEEKLY;COUNT=4', customer, ...input },
    });
  return { ...c, berlin, brooklyn, theo, physio, series };
}

const counts = async (companyId: string) => ({
  series: await db().bookingSeries.count({ where: { companyId } }),
  bookings: await db().booking.count({ where: { companyId } }),
  customers: await db().customer.count({ where: { companyId } }),
});

describe('a booking series at a location', () => {
  it("found from the first start's interval: the rule expands in Berlin's zone, every occurrence records it", async () => {
    const s = await clinic();
    const made = ok(await s.series({}));
    expect(made).toMatchObject({ locationId: s.berlin._id, timeZone: 'Europe/Berlin', skipped: [] });
    expect(made.bookings.map((b: { startTime: string }) => b.startTime)).toEqual(BERLIN_NINES);
    expect(made.bookings.every((b: { locationId: string }) => b.locationId === s.berlin._id)).toBe(true);
    const rows = await db().booking.findMany({ where: { seriesId: made._id } });
    expect(rows.every((r) => r.locationId === s.berlin._id)).toBe(true);
    const gql = (
      await t.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: s.auth,
        payload: { query: `{ bookingSeries(id: "${made._id}") { locationId timeZone } }` },
      })
    ).json();
    expect(gql.data.bookingSeries).toEqual({ locationId: s.berlin._id, timeZone: 'Europe/Berlin' });
    // The events carry it too.
    const events = await db().event.findMany({ where: { companyId: s.company.id, type: 'booking.created' } });
    expect(events).toHaveLength(4);
    expect(events.every((e) => (e.data as { locationId?: string }).locationId === s.berlin._id)).toBe(true);
  });

  it('named: only the intervals there count (a Tuesday in Brooklyn is refused, or skipped with allowPartial)', async () => {
    const s = await clinic();
    const before = await counts(s.company.id);
    const daily = { rrule: 'FREQ=DAILY;COUNT=2', locationId: s.berlin._id };
    const refused = expectError(await s.series(daily), 409, 'SLOT_UNAVAILABLE');
    expect(refused.error.details.occurrences.map((o: { index: number }) => o.index)).toEqual([1]);
    expect(await counts(s.company.id)).toEqual(before);
    const partial = ok(await s.series({ ...daily, allowPartial: true }));
    expect(partial.locationId).toBe(s.berlin._id);
    expect(partial.bookings.map((b: { startTime: string }) => b.startTime)).toEqual([FIRST]);
    expect(partial.skipped.map((o: { index: number }) => o.index)).toEqual([1]);
    // Named Brooklyn, the series is at 04:00 New York on Tuesdays: in Theo's Brooklyn hours.
    const tuesday = ok(
      await s.series({
        startTime: '2027-03-16T08:00:00.000Z',
        rrule: 'FREQ=WEEKLY;COUNT=2',
        locationId: s.brooklyn._id,
      }),
    );
    expect(tuesday).toMatchObject({ locationId: s.brooklyn._id, timeZone: 'America/New_York' });
    expect(tuesday.bookings.every((b: { locationId: string }) => b.locationId === s.brooklyn._id)).toBe(true);
  });

  it("rescheduling one occurrence stays at the series' location; a single booking follows the employee", async () => {
    const s = await clinic();
    const made = ok(await s.series({}));
    const first = made.bookings[0];
    const reschedule = (id: string, startTime: string) =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/bookings/${id}/reschedule`,
        headers: s.auth,
        payload: { startTime },
      });
    // Tuesday 09:00 New York: Theo works then, but in Brooklyn, not at the series' Berlin site.
    const tuesday = '2027-03-16T13:00:00.000Z';
    const explained = ok(
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/availability/explain?serviceId=${s.physio._id}&startTime=${tuesday}&locationId=${s.berlin._id}`,
        headers: s.auth,
      }),
    );
    const refused = expectError(await reschedule(first._id, tuesday), 409, 'SLOT_UNAVAILABLE');
    expect(refused.error.details.reasons).toEqual(explained.reasons);
    expect(refused.error.details.reasons).toEqual([
      {
        code: 'OUTSIDE_WORKING_HOURS',
        message: "That time is outside the employee's working hours",
        employeeId: s.theo._id,
      },
    ]);
    const unchanged = await db().booking.findUniqueOrThrow({ where: { id: first._id } });
    expect(unchanged).toMatchObject({ startTime: new Date(FIRST), locationId: s.berlin._id });
    // Another Monday hour in Berlin is fine, and the occurrence stays there.
    const later = DateTime.fromISO('2027-03-15T14:00', { zone: 'Europe/Berlin' }).toUTC().toISO()!;
    const moved = ok(await reschedule(first._id, later));
    expect(moved).toMatchObject({ startTime: later, locationId: s.berlin._id, seriesId: made._id });
    // A booking outside any series records where the employee works at its new time.
    const single = await post(t.app, '/api/v1/bookings', s.auth, {
      serviceId: s.physio._id,
      startTime: '2027-03-22T15:00:00.000Z',
      customer: { name: 'Solo', email: 'solo@example.com' },
    });
    expect(single.locationId).toBe(s.berlin._id);
    expect(ok(await reschedule(single._id, tuesday))).toMatchObject({ startTime: tuesday, locationId: s.brooklyn._id });
  });

  it("another company's location is 404 naming locationId, a malformed one 400; nothing written", async () => {
    const s = await clinic();
    const other = await clinic();
    const before = await counts(s.company.id);
    const foreign = expectError(await s.series({ locationId: other.berlin._id }), 404, 'NOT_FOUND');
    expect(foreign.error.details).toEqual([{ path: 'locationId', message: 'no such location' }]);
    expectError(await s.series({ locationId: 'berlin' }), 400, 'VALIDATION_ERROR');
    expect(await counts(s.company.id)).toEqual(before);
  });
});
