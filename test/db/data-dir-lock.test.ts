// One process per embedded data directory (src/db/data-dir-lock.ts), with real processes on
// one temp DATA_DIR: a second server fails at once naming the first; a server killed with
// SIGKILL leaves its lock, which the next start takes over with the data intact; a lock written
// by hand for a dead pid, or for a live pid that another process had before, is taken over; a
// CLI command holding the directory is named to the server that cannot start.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  runCli,
  startCli,
  startServer,
  tempDir,
  type CliProcess,
  type ServerProcess,
} from '../helpers/server-process.js';

const dir = tempDir('svc-lock-');
const lockFile = join(dir.path, 'svc.lock');
const serverFile = join(dir.path, 'server.json');
const env = { PORT: '0', DATA_DIR: dir.path };
const running: Array<ServerProcess | CliProcess> = [];

afterAll(async () => {
  for (const p of running) {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await p.exited;
  }
  dir.remove();
});

function start(): ServerProcess {
  // A first start migrates two PGlite databases: minutes on a loaded two-core machine.
  const s = startServer(env, 300_000);
  running.push(s);
  return s;
}

const lock = () => JSON.parse(readFileSync(lockFile, 'utf8'));
const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/;

async function sandboxKey(origin: string, stderr: string) {
  const key = /^\s*Sandbox key\s+(svc_sk_test_\S+)$/m.exec(stderr)![1]!;
  const res = await fetch(`${origin}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });
  return { key, status: res.status, name: ((await res.json()) as { data?: { name: string } }).data?.name };
}

/** A pid that was in use a moment ago and is not now. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((r) => child.once('exit', r));
  return child.pid!;
}

describe('one process per embedded data directory', { timeout: 600_000 }, () => {
  let first: { key: string };

  it('a second server on the same DATA_DIR fails at once, naming the first and what to do', async () => {
    const a = start();
    const origin = await a.ready;
    expect(lock()).toMatchObject({
      pid: a.child.pid,
      hostname: hostname(),
      command: 'server',
      since: expect.stringMatching(ISO),
    });

    const b = start();
    const { code } = await b.exited;
    expect(code).toBe(75);
    expect(b.stderr()).toContain(
      `The data directory ${dir.path} is in use by the server (npm start), pid ${a.child.pid}, since ${lock().since}.`,
    );
    expect(b.stderr()).toMatch(/Stop it first \(Ctrl-C or SIGTERM\)/);
    expect(b.stderr()).not.toMatch(/\n\s+at /);
    expect(b.stderr()).not.toMatch(/listening on/);

    // The first is untouched and still serves.
    expect(lock().pid).toBe(a.child.pid);
    first = await sandboxKey(origin, a.stderr());
    expect(first).toMatchObject({ status: 200, name: 'Sample Hair Salon' });
  });

  it('SIGKILL leaves the lock behind; the next start takes it over, with the data', async () => {
    const [a] = running as [ServerProcess];
    expect((await a.stop('SIGKILL')).signal).toBe('SIGKILL');
    // Killed: nothing was cleaned up.
    expect(lock().pid).toBe(a.child.pid);
    expect(existsSync(serverFile)).toBe(true);

    const c = start();
    const origin = await c.ready;
    expect(lock()).toMatchObject({ pid: c.child.pid, command: 'server' });
    expect(JSON.parse(readFileSync(serverFile, 'utf8')).pid).toBe(c.child.pid);
    expect(await sandboxKey(origin, c.stderr())).toEqual({ ...first, status: 200, name: 'Sample Hair Salon' });

    // A clean stop lets go of both files.
    expect((await c.stop('SIGTERM')).code).toBe(0);
    expect(existsSync(lockFile)).toBe(false);
    expect(existsSync(serverFile)).toBe(false);
  });

  it('a lock written by hand for a dead pid is taken over; the CLI command holding it is named to a server', async () => {
    const since = '2020-01-02T03:04:05.000Z';
    writeFileSync(
      lockFile,
      JSON.stringify({
        pid: await deadPid(),
        hostname: hostname(),
        command: 'svc migrate',
        since,
        nonce: 'left-by-a-crash',
      }),
    );

    const worker = startCli(['worker'], { DATA_DIR: dir.path });
    running.push(worker);
    await worker.stderrMatches(/workers started/);
    expect(lock()).toMatchObject({ pid: worker.child.pid, command: 'svc worker' });

    const s = start();
    expect((await s.exited).code).toBe(75);
    expect(s.stderr()).toContain(`is in use by \`svc worker\`, pid ${worker.child.pid}, since ${lock().since}.`);
    expect(s.stderr()).toContain('Wait for `svc worker` to finish, or stop it (Ctrl-C or SIGTERM), then try again.');

    worker.child.kill('SIGTERM');
    expect((await worker.exited).code).toBe(0);
    expect(existsSync(lockFile)).toBe(false);
  });

  // Linux tells a process's start time (/proc): elsewhere a live pid keeps the lock.
  it.skipIf(!existsSync('/proc/self/stat'))(
    'a lock naming a live pid that a different process had before (its start time differs) is taken over',
    async () => {
      // This test runner's pid is alive, but it did not start at tick 1 after boot.
      const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
      writeFileSync(
        lockFile,
        JSON.stringify({
          pid: process.pid,
          hostname: hostname(),
          bootId,
          procStart: '1',
          command: 'server',
          since: new Date().toISOString(),
          nonce: 'reused-pid',
        }),
      );
      const res = await runCli(['migrate', '--json'], { DATA_DIR: dir.path });
      expect(res.stderr).toBe('');
      expect(JSON.parse(res.stdout)).toEqual({ applied: [] });
      expect(existsSync(lockFile)).toBe(false);
    },
  );
});
