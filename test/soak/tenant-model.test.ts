// Tenants stay apart in one long-lived process (issue 39): fast-check's model-based commands drive
// one server over a real socket with random sequences across two live and two test companies
// (employees, hours, date overrides, closures, time off, services with booking rules, bookings
// with skipRules, refused, hostile and racing ones, reschedules, cancels, test clocks, pages with
// other companies' cursors), and after every step the answers of /availability,
// /availability/explain and POST /bookings are compared with the reference model of
// test/soak/reference.ts, written from docs/api.md over the rows read straight from the database,
// while every answer is scanned for another company's ids (test/soak/world.ts). The process, its
// caches and its module state live across the runs; each run's companies are new.
//
// In the suite: a fixed seed and a bounded run. `npm run soak` (SOAK=full) runs the same with a
// random seed (or SOAK_SEED) for SOAK_MINUTES (10), printing progress; a failure prints its seed,
// fast-check path and shrunk commands, and SOAK_PATH (with SOAK_REPLAY_PATH) replays them.
import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { embedded } from '../helpers/db.js';
import { runSoak, type SoakOptions } from './soak.js';

const full = process.env.SOAK === 'full';
const num = (name: string) => (process.env[name] ? Number(process.env[name]) : undefined);

// The suite's run ends 48 s after it starts, the set-up included (the server and two canaries:
// 7-25 s on the 2-core CI machine, with the rest of the suite beside it), after 15 s of commands
// at least; the run under way then stops at its next command.
const opts: SoakOptions = {
  seed: num('SOAK_SEED') ?? (full ? randomInt(2 ** 31) : 20_261_202),
  ...(process.env.SOAK_PATH ? { path: process.env.SOAK_PATH } : {}),
  ...(process.env.SOAK_REPLAY_PATH ? { replayPath: process.env.SOAK_REPLAY_PATH } : {}),
  exploreMs: full ? (num('SOAK_MINUTES') ?? 10) * 60_000 : 15_000,
  ...(full ? {} : { totalMs: 48_000 }),
  shrinkMs: (num('SOAK_SHRINK_MINUTES') ?? (full ? 15 : 2)) * 60_000,
  maxCommands: num('SOAK_COMMANDS') ?? 30,
  ...(process.env.SOAK_WITHOUT ? { without: process.env.SOAK_WITHOUT.split(',') } : {}),
  progressMs: full ? 30_000 : 0,
  log: (line) => console.log(line),
  trace: !!process.env.SOAK_TRACE,
};

// Races and the reference's plain SQL need PostgreSQL: the suite skips it on PGlite, `npm run soak`
// refuses to run without DATABASE_URL.
describe.skipIf(embedded() && !full)('one process, many tenants (real PostgreSQL)', () => {
  it(
    'answers every company as the reference model does, whatever the others did, and never with their ids',
    async () => {
      const report = await runSoak(opts);
      expect(report.failed, report.message).toBe(false);
      if (!opts.path) expect(report.stats.total).toBeGreaterThan(20);
    },
    (opts.totalMs ?? 0) + opts.exploreMs + opts.shrinkMs + 180_000,
  );
});
