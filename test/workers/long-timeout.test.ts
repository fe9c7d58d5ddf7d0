// setLongTimeout (src/workers/long-timeout.ts), the in-process queue's delay: a job due in 60
// days waits 60 days. A plain setTimeout of that delay fires at once (Node keeps 32-bit delays).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_MS, setLongTimeout } from '../../src/workers/long-timeout.js';

const DAY = 86_400_000;
afterEach(() => vi.useRealTimers());

describe('setLongTimeout', () => {
  it('does not fire a 60-day delay at once, as a plain timer of it would', async () => {
    let plain = false;
    let long = false;
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const t = setTimeout(() => (plain = true), 60 * DAY);
      const l = setLongTimeout(() => (long = true), 60 * DAY);
      await new Promise((r) => setTimeout(r, 50));
      clearTimeout(t);
      l.clear();
    } finally {
      process.off('warning', onWarning);
    }
    expect(plain).toBe(true); // what the queue did before
    expect(long).toBe(false);
    expect(warnings.filter((w) => w === 'TimeoutOverflowWarning')).toHaveLength(1); // the plain timer's only
  });

  it('fires once the whole delay has passed, not before, across several steps of the longest timer', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    let fired = 0;
    setLongTimeout(() => fired++, 60 * DAY);
    vi.advanceTimersByTime(MAX_TIMER_MS);
    expect(fired).toBe(0);
    vi.advanceTimersByTime(60 * DAY - MAX_TIMER_MS - 1);
    expect(fired).toBe(0);
    vi.advanceTimersByTime(1);
    expect(fired).toBe(1);
    vi.advanceTimersByTime(100 * DAY);
    expect(fired).toBe(1);
  });

  it('fires a short delay like setTimeout, and clear() cancels at any step', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    let short = 0;
    let cancelled = 0;
    setLongTimeout(() => short++, 30);
    const c = setLongTimeout(() => cancelled++, 40 * DAY);
    vi.advanceTimersByTime(30);
    expect(short).toBe(1);
    vi.advanceTimersByTime(30 * DAY);
    c.clear();
    vi.advanceTimersByTime(20 * DAY);
    expect(cancelled).toBe(0);
  });
});
