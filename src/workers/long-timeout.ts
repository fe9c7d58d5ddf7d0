// A timer for any delay. A Node timer holds at most 2^31 - 1 ms (24.8 days): a longer delay
// given to setTimeout fires at once, with a TimeoutOverflowWarning. The in-process queue delays
// jobs until they are due (a reminder a month ahead, a webhook's next attempt), so a longer
// delay waits in steps of the longest timer, each step checking the clock again.

/** The longest delay one Node timer can hold (a signed 32-bit number of milliseconds). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export interface LongTimeout {
  clear(): void;
}

/** Calls `fn` once `ms` have passed (by the clock), whatever `ms` is; `clear()` cancels it. */
export function setLongTimeout(fn: () => void, ms: number): LongTimeout {
  const due = Date.now() + ms;
  let timer: NodeJS.Timeout | undefined;
  const step = (wait: number) => {
    timer = setTimeout(
      () => {
        const left = due - Date.now();
        if (left > 0) step(left);
        else fn();
      },
      Math.min(Math.max(wait, 0), MAX_TIMER_MS),
    );
  };
  step(ms);
  return { clear: () => clearTimeout(timer) };
}
