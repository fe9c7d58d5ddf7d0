// toIsoTimestamp must be toISOString, byte for byte, wherever it does not hand over to it; and
// parseIsoTimestamp reads back what it writes, at any offset, and refuses what is not a time.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EARLIEST_TIMESTAMP,
  LATEST_TIMESTAMP,
  parseIsoTimestamp,
  toIsoTimestamp,
} from '../../src/schema/iso-timestamp.js';

describe('toIsoTimestamp', () => {
  const edges = [
    0,
    -1,
    1,
    999,
    1000,
    59_999,
    60_000,
    86_399_999,
    86_400_000,
    -86_400_000,
    -86_400_001,
    Date.UTC(2026, 2, 29, 1, 0),
    Date.UTC(2024, 1, 29, 23, 59, 59, 999),
    Date.UTC(1, 0, 1),
    Date.UTC(1, 0, 1) - 1,
    Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    Date.UTC(10_000, 0, 1),
    -8.64e15,
    8.64e15,
  ];
  it.each(edges)('matches toISOString at %d', (ms) => {
    expect(toIsoTimestamp(new Date(ms))).toBe(new Date(ms).toISOString());
  });

  it('matches toISOString on 200 000 instants across the years 1 to 9999', () => {
    let seed = 42;
    const random = () => (seed = (seed * 16_807) % 2_147_483_647) / 2_147_483_647;
    const span = Date.UTC(9999, 11, 31) - Date.UTC(1, 0, 1);
    const wrong: string[] = [];
    for (let i = 0; i < 200_000; i++) {
      const ms = Math.floor(Date.UTC(1, 0, 1) + random() * span);
      const d = new Date(ms);
      if (toIsoTimestamp(d) !== d.toISOString()) wrong.push(d.toISOString());
    }
    expect(wrong).toEqual([]);
  });

  it('throws like toISOString on an invalid date', () => {
    expect(() => toIsoTimestamp(new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe('parseIsoTimestamp', () => {
  const inRange = fc.integer({ min: EARLIEST_TIMESTAMP, max: LATEST_TIMESTAMP });

  it('reads back every output of toIsoTimestamp in the range', () => {
    fc.assert(
      fc.property(inRange, (ms) => parseIsoTimestamp(toIsoTimestamp(new Date(ms))).date?.getTime() === ms),
      { seed: 14, numRuns: 20_000 },
    );
  });

  it('reads the same instant written with any offset and up to nine fractional digits', () => {
    const offset = fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 });
    const extra = fc.stringMatching(/^\d{0,6}$/);
    fc.assert(
      fc.property(inRange, offset, extra, (ms, minutes, digits) => {
        // The wall-clock time of `ms` at that offset, written with the offset (when its year has four digits).
        fc.pre(ms + minutes * 60_000 <= LATEST_TIMESTAMP);
        const local = toIsoTimestamp(new Date(ms + minutes * 60_000)).slice(0, -1);
        const sign = minutes < 0 ? '-' : '+';
        const abs = Math.abs(minutes);
        const written = `${local}${digits}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
        return parseIsoTimestamp(written).date?.getTime() === ms;
      }),
      { seed: 14, numRuns: 20_000 },
    );
  });

  it('cuts fractions to milliseconds instead of rounding into the next second', () => {
    expect(parseIsoTimestamp('9999-12-31T23:59:59.999999999Z').date?.toISOString()).toBe('9999-12-31T23:59:59.999Z');
    expect(parseIsoTimestamp('2026-03-29T09:00:00.5Z').date?.toISOString()).toBe('2026-03-29T09:00:00.500Z');
    expect(parseIsoTimestamp('2026-03-29T09:00Z').date?.toISOString()).toBe('2026-03-29T09:00:00.000Z');
  });

  it.each([
    ['0099-06-01T00:00:00Z', /1970/], // Date.UTC would read it as 1999
    ['0000-01-01T00:00:00Z', /1970/],
    ['1969-12-31T23:59:59.999Z', /1970/],
    ['9999-12-31T23:59:59.999-00:01', /9999/],
    ['2100-02-29T00:00:00Z', /real date/],
    ['2000-02-30T00:00:00Z', /real date/],
    ['2026-03-29T09:00:00', /offset/],
    ['2026-03-29 09:00:00Z', /RFC 3339/],
    ['2026-03-29T09:00:00.Z', /RFC 3339/],
    [20260329, /RFC 3339/],
    [null, /RFC 3339/],
  ])('refuses %j', (value, reason) => {
    const parsed = parseIsoTimestamp(value);
    expect(parsed.date).toBeUndefined();
    expect(parsed.error).toMatch(reason);
  });

  it('takes 29 February of a leap year, -00:00 and lower-case t and z', () => {
    expect(parseIsoTimestamp('2000-02-29T12:00:00Z').date?.toISOString()).toBe('2000-02-29T12:00:00.000Z');
    expect(parseIsoTimestamp('2026-03-29T09:00:00-00:00').date?.toISOString()).toBe('2026-03-29T09:00:00.000Z');
    expect(parseIsoTimestamp('2026-03-29t09:00:00z').date?.toISOString()).toBe('2026-03-29T09:00:00.000Z');
  });
});
