// Runs `svc worker` as a real child process (the production entry point), so a test can
// SIGKILL it mid-burst or run two of them on one Redis.
import { spawn, type ChildProcess } from 'node:child_process';
import { waitFor } from './receiver.js';

export interface WorkerProcess {
  proc: ChildProcess;
  log: string[];
  /** How many webhook attempts this process made (from its debug log). */
  attempts(): number;
  exited: Promise<number | null>;
}

const running = new Set<ChildProcess>();

/** Kills every worker a test left running (a failed assertion skips its own cleanup). */
export function killAllWorkers(): void {
  for (const p of running) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  running.clear();
}

export async function spawnWorker(env: Record<string, string | undefined>): Promise<WorkerProcess> {
  const proc = spawn(process.execPath, ['--enable-source-maps', 'dist/cli.js', 'worker'], {
    // A clean environment: only what a deployment would set (vitest's own variables, such as
    // Vite's BASE_URL, are not configuration).
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'test', LOG_LEVEL: 'debug', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(proc);
  const log: string[] = [];
  let partial = '';
  const onData = (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    log.push(...lines);
  };
  proc.stdout.on('data', onData);
  proc.stderr.on('data', onData);
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  await waitFor(() => log.some((l) => l.includes('workers started')) || proc.exitCode !== null, {
    timeoutMs: 30_000,
    what: 'the worker process to start',
  });
  if (proc.exitCode !== null) throw new Error(`worker exited at start:\n${log.join('\n')}`);
  return { proc, log, exited, attempts: () => log.filter((l) => l.includes('"webhook attempt"')).length };
}
