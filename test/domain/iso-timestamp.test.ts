// toIsoTimestamp must be toISOString, byte for byte, wherever it does not hand over to it.
import { describe, expect, it } from 'vitest';
import { toIsoTimestamp } from '../../src/schema/iso-timestamp.js';

describe('toIsoTimestamp', () => {
  const edges = [
    0, -1, 1, 999, 1000, 59_999, 60_000, 86_399_999, 86_400_000, -86_400_000, -86_400_001,
    Date.UTC(2026, 2, 29, 1, 0), Date.UTC(2024, 1, 29, 23, 59, 59, 999), Date.UTC(1, 0, 1), Date.UTC(1, 0, 1) - 1,
    Date.UTC(9999, 11, 31, 23, 59, 59, 999), Date.UTC(10_000, 0, 1), -8.64e15, 8.64e15,
  ];
  it.each(edges)('matches toISOString at %d', (ms) => {
    expect(toIsoTimestamp(new Date(ms))).toBe(new Date(ms).toISOString());
  });

  it('matches toISOString on 200 000 instants across the years 1 to 9999', () => {
    let seed = 42;
    const random = () => ((seed = (seed * 16_807) % 2_147_483_647) / 2_147_483_647);
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
