// What the webhook benchmarks share (bench/webhook-latency.ts, bench/scale-webhook-burst.ts): a
// real HTTP receiver on 127.0.0.1 that notes when each event first arrived and how often it
// arrived (deliveries are at-least-once; receivers de-duplicate on X-Webhook-Id, the event's id),
// a bounded wait, and the percentiles of a list.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Receiver {
  /** The URL to register as a webhook endpoint. */
  url: string;
  /** Event id → the time its first delivery arrived (ms since the epoch). */
  arrivals: Map<string, number>;
  /** Event id → how many deliveries of it arrived. */
  counts: Map<string, number>;
  /** Forgets what arrived so far. */
  clear(): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const arrivals = new Map<string, number>();
  const counts = new Map<string, number>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['x-webhook-id']);
      if (!arrivals.has(id)) arrivals.set(id, Date.now());
      counts.set(id, (counts.get(id) ?? 0) + 1);
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    counts,
    clear: () => {
      arrivals.clear();
      counts.clear();
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/**
 * Polls until `done`; after `timeoutMs` throws with `what()`: a lost event must end a benchmark
 * with a message, not hang it.
 */
export async function waitUntil(
  done: () => boolean | Promise<boolean>,
  what: () => string,
  o: { timeoutMs: number; pollMs?: number },
): Promise<void> {
  const deadline = Date.now() + o.timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline)
      throw new Error(`${what()} after waiting ${o.timeoutMs / 1000} s (an event lost, or the workers stalled)`);
    await new Promise((r) => setTimeout(r, o.pollMs ?? 100));
  }
}

/** The p-th percentile of `xs` (sorted in place). */
export const pct = (xs: number[], p: number): number =>
  xs.sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
