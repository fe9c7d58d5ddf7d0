// One process per embedded data directory. PGlite keeps a whole PostgreSQL in the process
// that opened the directory, with no shared-memory coordination: a second process opening the
// same files (the CLI beside `npm start`) works on its own copy of the pages and loses its
// writes, or damages the directory. So whoever opens DATA_DIR first holds DATA_DIR/svc.lock,
// naming the holder, until it closes or exits; any other opener fails at once, saying who holds
// it. Node has no flock(2), so a holder that was killed leaves its file behind: a lock whose
// process is gone is taken over.
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';

export const LOCK_FILE = 'svc.lock';

/** Who a process is, precisely enough to tell it from a later process given the same pid. */
export interface ProcessIdentity {
  pid: number;
  hostname: string;
  /** Linux: the kernel's boot id and the process's start time (clock ticks since boot). */
  bootId?: string;
  procStart?: string;
}

export interface LockHolder extends ProcessIdentity {
  /** What holds it, for the message: `server` or `svc <command>`. */
  command: string;
  /** When the lock was taken (ISO 8601). */
  since: string;
  /** Tells this acquisition from any other, by the same process included. */
  nonce: string;
}

function readProcFile(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Field 22 of /proc/<pid>/stat (start time) and field 3 (state); undefined off Linux. */
function procStat(pid: number): { start: string; state: string } | undefined {
  const stat = readProcFile(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  // The command name (field 2) is in parentheses and may hold spaces: count after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const start = fields[19];
  const state = fields[0];
  return start && state ? { start, state } : undefined;
}

export function currentProcess(): ProcessIdentity {
  const bootId = readProcFile('/proc/sys/kernel/random/boot_id')?.trim();
  const procStart = procStat(process.pid)?.start;
  return { pid: process.pid, hostname: hostname(), ...(bootId && procStart ? { bootId, procStart } : {}) };
}

// Locks this process holds now (their nonces): a lock naming this pid but none of these was
// left by an earlier process that had the same pid (a container restarted, its server pid 1).
// eslint-disable-next-line no-restricted-syntax -- process state: data-directory locks
const heldHere = new Set<string>();

/**
 * Whether the process is still running. A process on another host cannot be checked from
 * here: it counts as running (the message then says how to remove the lock by hand).
 */
export function isRunning(p: ProcessIdentity & { nonce?: string }): boolean {
  if (p.hostname !== hostname()) return true;
  if (p.pid === process.pid) return p.nonce !== undefined && heldHere.has(p.nonce);
  try {
    process.kill(p.pid, 0);
  } catch (err) {
    // EPERM: it exists but belongs to another user.
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const stat = procStat(p.pid);
  // A zombie (killed, not yet reaped by its parent) holds no files any more.
  if (stat?.state === 'Z') return false;
  // The pid was reused by another process, or the machine rebooted since.
  if (p.bootId && p.procStart && stat) {
    const bootId = readProcFile('/proc/sys/kernel/random/boot_id')?.trim();
    if (stat.start !== p.procStart || (bootId && bootId !== p.bootId)) return false;
  }
  return true;
}

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder | null,
    requester: string,
  ) {
    super(lockedMessage(dataDir, holder, requester));
    this.name = 'DataDirLockedError';
  }
}

function lockedMessage(dataDir: string, holder: LockHolder | null, requester: string): string {
  const file = join(dataDir, LOCK_FILE);
  if (!holder) {
    return `The data directory ${dataDir} is locked by ${file}, which is unreadable. If no process uses the directory, delete that file and try again.`;
  }
  const who = holder.command === 'server' ? 'the server (npm start)' : `\`${holder.command}\``;
  const where = holder.hostname === hostname() ? `pid ${holder.pid}` : `pid ${holder.pid} on host ${holder.hostname}`;
  const lines = [`The data directory ${dataDir} is in use by ${who}, ${where}, since ${holder.since}.`];
  lines.push('The embedded database (PGlite) can be opened by one process at a time.');
  if (holder.hostname !== hostname()) {
    lines.push(`This host cannot tell whether that process still runs: if it does not, delete ${file} and try again.`);
  } else if (holder.command === 'server') {
    lines.push(
      requester === 'server'
        ? 'Stop it first (Ctrl-C or SIGTERM); several servers need PostgreSQL (DATABASE_URL).'
        : 'While it runs, `svc` commands go through it; it is starting or stopping now, so run the command again in a moment. Or stop it first.',
    );
  } else {
    lines.push(`Wait for ${who} to finish, or stop it (Ctrl-C or SIGTERM), then try again.`);
  }
  return lines.join('\n');
}

/** Creates `path` holding `body`, or returns false if it exists; a reader never sees it half-written. */
function createExclusive(path: string, body: string): boolean {
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}`;
  writeFileSync(tmp, body, { flag: 'wx', mode: 0o644 });
  try {
    // link(2) fails with EEXIST when `path` exists: the O_EXCL create, with the content already in.
    linkSync(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    unlinkSync(tmp);
  }
}

function readRaw(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

function parseHolder(raw: string): LockHolder | null {
  try {
    const h = JSON.parse(raw) as Partial<LockHolder> | null;
    return typeof h?.pid === 'number' && typeof h.hostname === 'string' && typeof h.nonce === 'string'
      ? (h as LockHolder)
      : null;
  } catch {
    return null;
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Replaces the stale lock whose content was `stale`, unless another process changed it
 * meanwhile. Two processes can find the same stale lock; the takeover file makes their
 * check-and-replace one at a time, so only one of them replaces it and the other then finds a
 * live holder. The takeover file is held for a few system calls only; one left by a process
 * killed inside them is removed once its process is gone.
 */
function takeOver(path: string, stale: string, body: string): 'taken' | 'retry' {
  const guard = `${path}.takeover`;
  if (!createExclusive(guard, body)) {
    try {
      const other = parseHolder(readFileSync(guard, 'utf8'));
      if ((!other || !isRunning(other)) && Date.now() - statSync(guard).mtimeMs > 5000) unlinkSync(guard);
    } catch {
      // Gone meanwhile: its taker finished.
    }
    return 'retry';
  }
  try {
    if (readRaw(path) !== stale) return 'retry';
    const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}`;
    writeFileSync(tmp, body, { flag: 'wx', mode: 0o644 });
    renameSync(tmp, path);
    return 'taken';
  } finally {
    unlinkSync(guard);
  }
}

export interface DataDirLock {
  holder: LockHolder;
  release(): void;
}

/**
 * Takes DATA_DIR's lock for `command` (`server`, `svc key create`, ...), or throws
 * DataDirLockedError naming the process that holds it. Released by `release()` or when the
 * process exits; after a kill, the next opener takes it over.
 */
export async function lockDataDir(dataDir: string, command: string): Promise<DataDirLock> {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, LOCK_FILE);
  const holder: LockHolder = {
    ...currentProcess(),
    command,
    since: new Date().toISOString(),
    nonce: randomBytes(12).toString('hex'),
  };
  const body = `${JSON.stringify(holder)}\n`;
  // A handful of rounds covers losing a takeover race; each round either ends or sees a change.
  for (let round = 0; round < 50; round++) {
    let taken = createExclusive(path, body);
    if (!taken) {
      const raw = readRaw(path);
      if (raw === null) continue;
      const current = parseHolder(raw);
      if (!current) throw new DataDirLockedError(dir, null, command);
      if (isRunning(current)) throw new DataDirLockedError(dir, current, command);
      taken = takeOver(path, raw, body) === 'taken';
      if (!taken) {
        await pause(20);
        continue;
      }
    }
    heldHere.add(holder.nonce);
    const release = () => {
      process.off('exit', release);
      if (!heldHere.delete(holder.nonce)) return;
      try {
        // Only our own lock: after a takeover by mistake, never delete another holder's.
        if (readRaw(path) === body) unlinkSync(path);
      } catch {
        // Already gone.
      }
    };
    // process.exit() and a normal exit release it; a kill leaves it for the next opener.
    process.on('exit', release);
    return { holder, release };
  }
  throw new Error(`Could not take the lock ${path}: other processes kept changing it. Try again.`);
}
