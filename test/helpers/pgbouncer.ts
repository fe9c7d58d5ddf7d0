// A real PgBouncer in transaction mode in front of a test file's database, as a child process:
// installed from the distribution when missing (Debian ships 1.18), configured in a temp dir.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { tempDir } from './server-process.js';

const BINARY = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'];

const findBinary = () => BINARY.find((b) => existsSync(b));

/**
 * The pgbouncer binary, installed with apt-get when missing and this process may (root).
 * Answers why not when it cannot be had: the caller skips with that message.
 */
export function ensurePgBouncer(): { binary: string } | { missing: string } {
  const found = findBinary();
  if (found) return { binary: found };
  if (process.getuid?.() !== 0) return { missing: 'pgbouncer is not installed and this is not root to install it' };
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const steps of [[['install', '-y', 'pgbouncer']], [['update'], ['install', '-y', 'pgbouncer']]]) {
    try {
      for (const args of steps) execFileSync('apt-get', args, { stdio: 'ignore', env, timeout: 180_000 });
    } catch {
      continue;
    }
    const binary = findBinary();
    if (binary) return { binary };
  }
  return { missing: 'pgbouncer is not installed and `apt-get install -y pgbouncer` failed' };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface PgBouncer {
  /** postgresql:// URL of one alias of [databases]. */
  url(alias: string): string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export interface Alias {
  /** The server connection's search_path, set by connect_query on each one PgBouncer opens. */
  searchPath: string;
}

/**
 * Starts pgbouncer (pool_mode=transaction, auth_type=trust) listening on a free port, with one
 * [databases] alias per entry of `aliases`, all in front of the database of `directUrl`.
 */
export async function startPgBouncer(
  binary: string,
  directUrl: string,
  aliases: Record<string, Alias>,
  opts: { poolSize?: number } = {},
): Promise<PgBouncer> {
  const u = new URL(directUrl);
  const user = decodeURIComponent(u.username || 'postgres');
  const dbname = u.pathname.slice(1);
  const port = await freePort();
  const dir = tempDir('svc-pgbouncer-');
  const databases = Object.entries(aliases).map(
    ([alias, a]) =>
      `${alias} = host=${u.hostname} port=${u.port || 5432} dbname=${dbname} user=${user} connect_query='SET search_path TO ${a.searchPath}'`,
  );
  writeFileSync(join(dir.path, 'userlist.txt'), `"${user}" ""\n`);
  writeFileSync(
    join(dir.path, 'pgbouncer.ini'),
    [
      '[databases]',
      ...databases,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `admin_users = ${user}`,
      `auth_file = ${join(dir.path, 'userlist.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${opts.poolSize ?? 5}`,
      'max_client_conn = 500',
      'ignore_startup_parameters = extra_float_digits',
      '',
    ].join('\n'),
  );
  // PgBouncer refuses to run as root: it drops to the postgres user (-u), who must read the dir.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const ids = execFileSync('id', ['-u', 'postgres']).toString().trim();
    const gid = execFileSync('id', ['-g', 'postgres']).toString().trim();
    chownSync(dir.path, Number(ids), Number(gid));
    chmodSync(dir.path, 0o755);
  }
  const child = spawn(binary, [...(asRoot ? ['-u', 'postgres'] : []), join(dir.path, 'pgbouncer.ini')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (/process up/.test(log)) resolve();
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    void exited.then(() => reject(new Error(`pgbouncer exited before listening:\n${log}`)));
  });
  return {
    url: (alias) => `postgresql://${encodeURIComponent(user)}@127.0.0.1:${port}/${alias}`,
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      await exited;
      dir.remove();
    },
  };
}
