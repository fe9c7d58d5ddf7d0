// Availability across daylight-saving changes (docs/api.md): on a spring-forward day no slot
// falls in the missing hour, on a fall-back day the repeated hour gives no duplicate slot, and
// every slot's UTC time is right. Expected instants are written from the zones' known UTC
// offsets (CET +1/CEST +2, EST -5/EDT -4), not computed by the code under test.
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountWithKeys } from '../../helpers/factories.js';
import type { TestApp } from '../../helpers/app.js';
import { blankCompany, createDomainApp, ok, post, type World } from '../../helpers/domain.js';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await createDomainApp();
  w = await createAccountWithKeys(t.dbs);
});
afterAll(async () => t?.close());

const YEAR = new Date().getUTCFullYear() + 1; // always in the future
const sundays = (month: number) => {
  const out: number[] = [];
  for (let d = 1; d <= 31; d++) {
    const dt = new Date(Date.UTC(YEAR, month - 1, d));
    if (dt.getUTCMonth() === month - 1 && dt.getUTCDay() === 0) out.push(d);
  }
  return out;
};
const EMPTY = { monday: [], tuesday: [], wednesday: [], thursday: [], friday: [], saturday: [], sunday: [] };
const utc = (month: number, day: number, hour: number, minute = 0) => Date.UTC(YEAR, month - 1, day, hour, minute);
/** Every 15 minutes from first to last, inclusive (epoch ms → ISO). */
const every15 = (first: number, last: number) => {
  const out: string[] = [];
  for (let x = first; x <= last; x += 15 * 60_000) out.push(new Date(x).toISOString());
  return out;
};

const CASES = [
  // Berlin springs forward on the last Sunday of March: 02:00 CET → 03:00 CEST (01:00Z).
  {
    name: 'Europe/Berlin spring forward',
    zone: 'Europe/Berlin',
    month: 3,
    day: sundays(3).at(-1)!,
    hours: { start: '01:00', end: '04:00' },
    // 01:00 CET = 00:00Z … 04:00 CEST = 02:00Z: two real hours; 30-minute slots start until 01:30Z.
    first: (d: number) => utc(3, d, 0),
    last: (d: number) => utc(3, d, 1, 30),
    missingLocalHour: 2,
  },
  // Berlin falls back on the last Sunday of October: 03:00 CEST → 02:00 CET (01:00Z).
  {
    name: 'Europe/Berlin fall back',
    zone: 'Europe/Berlin',
    month: 10,
    day: sundays(10).at(-1)!,
    hours: { start: '01:00', end: '04:00' },
    // 01:00 CEST = 23:00Z the day before … 04:00 CET = 03:00Z: four real hours.
    first: (d: number) => utc(10, d - 1, 23),
    last: (d: number) => utc(10, d, 2, 30),
    repeatedLocalHour: 2,
  },
  // New York springs forward on the second Sunday of March: 02:00 EST → 03:00 EDT (07:00Z).
  {
    name: 'America/New_York spring forward',
    zone: 'America/New_York',
    month: 3,
    day: sundays(3)[1]!,
    hours: { start: '01:00', end: '04:00' },
    first: (d: number) => utc(3, d, 6),
    last: (d: number) => utc(3, d, 7, 30),
    missingLocalHour: 2,
  },
  // New York falls back on the first Sunday of November: 02:00 EDT → 01:00 EST (06:00Z).
  {
    name: 'America/New_York fall back',
    zone: 'America/New_York',
    month: 11,
    day: sundays(11)[0]!,
    hours: { start: '00:00', end: '03:00' },
    // 00:00 EDT = 04:00Z … 03:00 EST = 08:00Z: four real hours.
    first: (d: number) => utc(11, d, 4),
    last: (d: number) => utc(11, d, 7, 30),
    repeatedLocalHour: 1,
  },
];

describe('availability on daylight-saving days', () => {
  for (const k of CASES) {
    it(`${k.name} (${YEAR}-${k.month}-${k.day})`, async () => {
      const c = await blankCompany(t.dbs, w, { timezone: k.zone });
      const e = await post(t.app, '/api/v1/employees', c.auth, {
        name: 'Night owl',
        workingHours: { ...EMPTY, sunday: [k.hours] },
      });
      const s = await post(t.app, '/api/v1/services', c.auth, {
        name: 'Session',
        durationMinutes: 30,
        employeeIds: [e._id],
        // Next year's DST days can be more than the default 365 days ahead.
        bookingRules: { maxAdvanceDays: 730 },
      });
      // The whole local day, and a day either side.
      const from = DateTime.fromObject({ year: YEAR, month: k.month, day: k.day }, { zone: k.zone }).minus({ days: 1 });
      const to = from.plus({ days: 3 });
      const res = ok(
        await t.app.inject({
          method: 'GET',
          url: `/api/v1/availability?serviceId=${s._id}&from=${from.toUTC().toISO()}&to=${to.toUTC().toISO()}`,
          headers: c.auth,
        }),
      );
      const starts = res.slots.map((x: { startTime: string }) => x.startTime);
      expect(starts).toEqual(every15(k.first(k.day), k.last(k.day)));
      for (const slot of res.slots) {
        expect(slot.employeeIds).toEqual([e._id]);
        expect(Date.parse(slot.endTime) - Date.parse(slot.startTime)).toBe(30 * 60_000);
      }
      expect(new Set(starts).size).toBe(starts.length);
      const local = starts.map((x: string) => DateTime.fromISO(x, { zone: k.zone }));
      if (k.missingLocalHour !== undefined)
        expect(local.filter((d: DateTime) => d.hour === k.missingLocalHour)).toEqual([]);
      if (k.repeatedLocalHour !== undefined) {
        // The repeated local hour is offered twice, as two different instants (two offsets).
        const repeated = local.filter((d: DateTime) => d.hour === k.repeatedLocalHour);
        expect(repeated.length).toBe(8);
        expect(new Set(repeated.map((d: DateTime) => d.offset)).size).toBe(2);
      }
    });
  }

  it('a nine-to-five day has 8 real hours on both change days, at the right UTC times', async () => {
    const c = await blankCompany(t.dbs, w, { timezone: 'Europe/Berlin' });
    const nine = { ...EMPTY, sunday: [{ start: '09:00', end: '17:00' }] };
    const e = await post(t.app, '/api/v1/employees', c.auth, { name: 'Day', workingHours: nine });
    const s = await post(t.app, '/api/v1/services', c.auth, {
      name: 'Hour',
      durationMinutes: 60,
      employeeIds: [e._id],
    });
    for (const [month, day, offset] of [
      [3, sundays(3).at(-1)!, 2],
      [10, sundays(10).at(-1)!, 1],
    ] as const) {
      const from = new Date(utc(month, day, 0)).toISOString();
      const to = new Date(utc(month, day + 1, 0)).toISOString();
      const res = ok(
        await t.app.inject({
          method: 'GET',
          url: `/api/v1/availability?serviceId=${s._id}&from=${from}&to=${to}`,
          headers: c.auth,
        }),
      );
      expect(res.slots.map((x: { startTime: string }) => x.startTime)).toEqual(
        every15(utc(month, day, 9 - offset), utc(month, day, 16 - offset)),
      );
    }
  });
});
