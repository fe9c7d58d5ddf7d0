// deepFreeze (src/frozen.ts): what a process cache hands out throws on any write, Dates, Maps
// and Sets included, and reads exactly as before.
import { describe, expect, it } from 'vitest';
import { deepFreeze, isDeepFrozen } from '../src/frozen.js';

describe('deepFreeze', () => {
  it('freezes plain objects and arrays all the way down, in place', () => {
    const value = { slots: [{ employeeIds: ['a'] }], rules: { min: 1 } };
    expect(deepFreeze(value)).toBe(value);
    expect(isDeepFrozen(value)).toBe(true);
    expect(() => value.slots.push({ employeeIds: [] })).toThrow(TypeError);
    expect(() => value.slots[0]!.employeeIds.push('b')).toThrow(TypeError);
    expect(() => {
      value.rules.min = 2;
    }).toThrow(TypeError);
  });

  it("makes a Date's setters throw and keeps what it reads", () => {
    const at = new Date('2026-03-29T09:00:00.000Z');
    const frozen = deepFreeze({ at }).at;
    expect(() => frozen.setUTCHours(10)).toThrow(/frozen/);
    expect(() => frozen.setTime(0)).toThrow(/frozen/);
    expect(frozen.getTime()).toBe(Date.parse('2026-03-29T09:00:00.000Z'));
    expect(frozen.toISOString()).toBe('2026-03-29T09:00:00.000Z');
    expect(frozen instanceof Date).toBe(true);
    expect(frozen).toEqual(new Date('2026-03-29T09:00:00.000Z'));
    expect(JSON.stringify({ at: frozen })).toBe('{"at":"2026-03-29T09:00:00.000Z"}');
  });

  it("makes a Map's and a Set's writers throw, and freezes what they hold", () => {
    const set = deepFreeze(new Set(['bookings:read']));
    expect(() => set.add('logs:read')).toThrow(/frozen/);
    expect(() => set.delete('bookings:read')).toThrow(/frozen/);
    expect(() => set.clear()).toThrow(/frozen/);
    expect(set.has('bookings:read')).toBe(true);
    const map = deepFreeze(new Map([['k', { n: 1 }]]));
    expect(() => map.set('j', { n: 2 })).toThrow(/frozen/);
    expect(() => {
      map.get('k')!.n = 2;
    }).toThrow(TypeError);
    expect(isDeepFrozen(map)).toBe(true);
  });

  it('leaves class instances it does not know to their own API, and answers primitives as they are', () => {
    class Clock {
      ticks = 0;
    }
    const clock = new Clock();
    deepFreeze({ clock });
    clock.ticks++;
    expect(clock.ticks).toBe(1);
    expect(deepFreeze(3)).toBe(3);
    expect(deepFreeze(null)).toBe(null);
    expect(isDeepFrozen({ a: [1, { b: 2 }] })).toBe(false);
  });
});
