// The soak's runner: fast-check drives random sequences of commands (commands.ts) over one server
// process, each run in four fresh companies (two live, two test) beside two canaries, until the
// time is up or a run fails. A failing sequence is then shrunk: every candidate that fails leaves
// a server that may carry its state, so the next candidate gets a new one (server.ts), and the
// first candidate is the failing sequence itself on a new server: whether it fails alone, from a
// fresh process, or only after what earlier runs left behind is part of the report.
import fc from 'fast-check';
import { Rng, Stats } from './checker.js';
import { commandsArb, emptyModel, SLOT_MODES, SLOTS } from './commands/index.js';
import { startServer, ZONES, type Server } from './server.js';

export interface SoakOptions {
  seed: number;
  /** Replay: the fast-check path (and the commands' replay path) a failure printed. */
  path?: string;
  replayPath?: string;
  /**
   * How long to look for a failure after the set-up, and then to shrink one. With `totalMs`, the
   * look ends that long after the start instead, set-up included (the suite's bound), and lasts
   * `exploreMs` at least.
   */
  exploreMs: number;
  totalMs?: number;
  shrinkMs: number;
  maxCommands: number;
  /** Commands left out (SOAK_WITHOUT), to look at one kind of failure at a time. */
  without?: string[];
  /** Progress lines this often (0: only the summary). */
  progressMs: number;
  log: (line: string) => void;
  /** Print every step (SOAK_TRACE). */
  trace?: boolean;
}

export interface SoakReport {
  failed: boolean;
  stats: Stats;
  elapsedMs: number;
  /** The failure, its replay command and the (shrunk) sequence, ready to print. */
  message: string;
}

/** The commands of a run as fast-check prints them: those that ran, and the replay path. */
const shown = (cmds: unknown) => (cmds as { toString(): string }).toString();

/** Thrown by a run that would start after the exploration's time is up: ends fast-check at once. */
class TimeUp extends Error {}

export async function runSoak(opts: SoakOptions): Promise<SoakReport> {
  const started = Date.now();
  const stats = new Stats();
  let server: Server = await startServer(stats, { fresh: false });
  opts.log(`[soak] server and canaries ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  let fresh = false;
  let phase: 'explore' | 'shrink' = opts.path ? 'shrink' : 'explore';
  let deadline = opts.path
    ? Date.now() + opts.shrinkMs
    : Math.max(Date.now() + opts.exploreMs, opts.totalMs ? started + opts.totalMs : 0);
  let lastRun = '(none)';
  // The commands of the last run that failed, as they ran (fast-check prints the commands that
  // ran: its counterexample is a copy that did not).
  let lastFailed = '';
  const log = (line: string) => opts.log(line);
  log(
    `[soak] seed ${opts.seed}${opts.path ? `, replaying path ${opts.path}` : ''}, ${opts.maxCommands} commands a run at most` +
      (opts.without?.length ? `, without ${opts.without.join(', ')}` : ''),
  );
  const progress =
    opts.progressMs > 0
      ? setInterval(() => log(stats.line(Date.now() - started, server.api.requests)), opts.progressMs)
      : null;

  const property = fc.asyncProperty(commandsArb(opts), async (cmds) => {
    if (Date.now() > deadline) {
      if (phase === 'explore') throw new TimeUp();
      fc.pre(false); // out of time to shrink: the candidates left are not tried
    }
    if (fresh) {
      await server.close();
      server = await startServer(stats, { fresh: true });
      fresh = false;
    }
    const run = ++stats.runs;
    if (opts.trace) log(`[soak] run ${run}`);
    // A company no command of this run has touched (a canary, one mode then the other) must
    // answer as the model says before it begins: a difference now was left by an earlier run.
    const canary = server.canaries[run % server.canaries.length]!;
    try {
      await server.checker.compareCompany(canary, new Rng(run));
    } catch (err) {
      if (phase === 'explore') {
        if (err instanceof Error)
          err.message = `before run ${run} began (the run before it: ${lastRun}): ${err.message}`;
        throw err;
      }
      // A candidate cannot be judged on a server an earlier candidate left poisoned.
      await server.close();
      server = await startServer(stats, { fresh: true });
    }
    const cos = await Promise.all(
      SLOTS.map((label, i) => server.company(SLOT_MODES[i]!, label, ZONES[(run + i) % ZONES.length]!)),
    );
    try {
      await fc.asyncModelRun(
        () => ({ model: emptyModel(), real: { cos, server, steps: 0, ...(opts.trace ? { trace: log } : {}) } }),
        cmds,
      );
    } catch (err) {
      fresh = true;
      lastFailed = shown(cmds);
      throw err;
    }
    lastRun = shown(cmds);
  });

  const check = (params: fc.Parameters<[unknown]>) =>
    fc.check(property as fc.IAsyncProperty<[unknown]>, { seed: opts.seed, numRuns: 1_000_000, ...params });

  let first: fc.RunDetails<[unknown]> | null = null;
  let firstFailed = '';
  if (phase === 'explore') {
    const found = await check({ endOnFailure: true });
    if (found.failed && !(found.errorInstance instanceof TimeUp)) first = found;
    firstFailed = lastFailed;
    if (first) {
      log(
        `[soak] run ${stats.runs} failed after ${((Date.now() - started) / 1000).toFixed(1)} s; shrinking (path ${first.counterexamplePath})`,
      );
      log(stats.line(Date.now() - started, server.api.requests));
      phase = 'shrink';
      deadline = Date.now() + opts.shrinkMs;
    }
  }
  let final: fc.RunDetails<[unknown]> | null = null;
  if (phase === 'shrink') {
    const path = opts.path ?? first!.counterexamplePath!;
    final = await check({
      path,
      ...(opts.path ? { endOnFailure: true } : {}),
    });
  }
  if (progress) clearInterval(progress);
  await server.close();
  const elapsedMs = Date.now() - started;
  log(stats.line(elapsedMs, server.api.requests));

  if (!first && !final) return { failed: false, stats, elapsedMs, message: 'no failure' };
  if (final && !final.failed) {
    if (opts.path) return { failed: false, stats, elapsedMs, message: `path ${opts.path} of seed ${opts.seed} passes` };
    // The failing sequence passed alone on a fresh server: it failed only after earlier runs.
    const message =
      `${describe(first!, opts, firstFailed, false)}\n` +
      `[soak] this sequence did NOT fail again alone on a fresh server: the failure needs what the ` +
      `runs before it left in the process. Replay the seed from its start: SOAK=full SOAK_SEED=${opts.seed} npm run soak`;
    return { failed: true, stats, elapsedMs, message };
  }
  return { failed: true, stats, elapsedMs, message: describe(final!, opts, lastFailed, true) };
}

/** The failure, the commands that make it, and how to replay them. */
function describe(d: fc.RunDetails<[unknown]>, opts: SoakOptions, cmds: string, replayable: boolean): string {
  const replay = /\/\*replayPath="([^"]*)"\*\//.exec(cmds)?.[1];
  const steps = cmds
    .replace(/\s*\/\*replayPath="[^"]*"\*\/\s*$/, '')
    .split(/,(?=[a-zA-Z]+\((?:L|T)\d)/)
    .map((c, i) => `  ${String(i + 1).padStart(3)}. ${c}`)
    .join('\n');
  const error = d.errorInstance instanceof Error ? d.errorInstance.message : String(d.errorInstance);
  return [
    `[soak] FAILED, seed ${opts.seed}, path ${d.counterexamplePath}` +
      (d.numShrinks ? ` (${d.numShrinks} shrinks)` : ''),
    `[soak] ${error}`,
    `[soak] the commands (L0, L1: live companies; T0, T1: test companies; each run's are new):`,
    steps,
    ...(replayable
      ? [
          `[soak] replay: SOAK_SEED=${opts.seed} SOAK_PATH=${d.counterexamplePath}` +
            (replay ? ` SOAK_REPLAY_PATH=${replay}` : '') +
            (opts.without?.length ? ` SOAK_WITHOUT=${opts.without.join(',')}` : '') +
            ' npm run soak',
        ]
      : []),
  ].join('\n');
}
