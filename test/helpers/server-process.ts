// Runs the real server (`node dist/server.js`, what `npm start` runs) or the `svc` CLI as a child
// process, with an environment of the test's choosing.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');

/** The test process's environment without anything that would pick databases or Redis. */
export function cleanEnv(env: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  // Vitest adds Vite's BASE_URL=/, MODE, DEV, PROD and SSR to process.env: not ours to pass on.
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(base)) {
    if (
      /^(DATABASE_URL|SANDBOX_DATABASE_URL|REDIS_URL|REDIS_PREFIX|PORT|HOST|DATA_DIR|TLS_CERT|TLS_KEY|TRUST_PROXY|SEED_DEMO|LOG_LEVEL|VITEST|TEST_EMBEDDED|BASE_URL|AUTH_URL|MODE|DEV|PROD|SSR)$/.test(
        k,
      )
    )
      delete base[k];
  }
  base.NODE_ENV = 'development';
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete base[k];
    else base[k] = v;
  }
  return base;
}

export function tempDir(prefix = 'svc-test-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export interface ServerProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the banner's origin once the server listens. */
  ready: Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startServer(env: Record<string, string | undefined>, timeoutMs = 90_000): ServerProcess {
  const child = spawn(process.execPath, ['--enable-source-maps', 'dist/server.js'], {
    cwd: ROOT,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const ready = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server did not start in ${timeoutMs} ms:\n${err}\n${out}`)),
      timeoutMs,
    );
    const check = () => {
      const m = /listening on (https?:\/\/\S+)/.exec(err);
      if (m && /\n\s*$/.test(err.slice(err.indexOf(m[0])))) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stderr.on('data', check);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}) before listening:\n${err}\n${out}`));
    });
  });
  ready.catch(() => undefined);
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    ready,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `svc <args>` through its bin (bin/svc.mjs), as `npx svc` would. */
export function runCli(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/svc.mjs'), ...args], {
      cwd: ROOT,
      env: cleanEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface CliProcess {
  child: ChildProcess;
  stderr(): string;
  /** Resolves once stderr matches (a log line of a long-running command such as `svc worker`). */
  stderrMatches(pattern: RegExp): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `svc <args>` and leaves it running (`svc worker`). */
export function startCli(args: string[], env: Record<string, string | undefined>): CliProcess {
  const child = spawn(process.execPath, [join(ROOT, 'bin/svc.mjs'), ...args], {
    cwd: ROOT,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stdout.resume();
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    stderr: () => err,
    exited,
    stderrMatches: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (!pattern.test(err)) return;
          child.stderr.off('data', check);
          resolve();
        };
        child.stderr.on('data', check);
        check();
        void exited.then(({ code, signal }) =>
          reject(new Error(`svc ${args.join(' ')} exited (${code ?? signal}) first:\n${err}`)),
        );
      }),
  };
}
