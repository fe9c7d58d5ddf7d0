// A quiet start and a clean stop (issue 41 point 6), through `npm start` as a newcomer runs it:
// - the output: the banner once on stderr and nothing else there (no Node warning), the
//   migrations in one short line, and on stdout an access line only for an answer outside 2xx
//   (ACCESS_LOG=errors, the default), so /healthz leaves no line;
// - SIGTERM to the npm process stops the server too: the port is free afterwards;
// - a port in use: one line naming PORT on stderr, no stack trace, a non-zero exit, at once.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server } from 'node:net';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { withDatabase } from '../global-setup.js';
import { embedded } from '../helpers/db.js';
import { cleanEnv, ROOT, startServer, tempDir } from '../helpers/server-process.js';

const dir = tempDir();
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  dir.remove();
});

/** An empty PostgreSQL database (the start migrates it), or nothing on an embedded run. */
async function emptyDatabase(): Promise<Record<string, string>> {
  if (embedded()) return { DATA_DIR: dir.path };
  const base = process.env.DATABASE_URL!;
  const name = `svc_t_quiet_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  cleanups.push(async () => {
    const a = new pg.Client({ connectionString: base });
    await a.connect();
    await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await a.end();
  });
  return { DATABASE_URL: withDatabase(base, name), SEED_DEMO: '1', DATA_DIR: dir.path };
}

function portRefuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

describe('npm start', { timeout: 180_000 }, () => {
  it('starts quietly, logs only what failed, and stops with the npm process on SIGTERM', async () => {
    const env = await emptyDatabase();
    // `--ignore-scripts` skips prestart's generation: the suite's dist/ is already built, and a
    // rebuild would change files other test files are running.
    const npm = spawn('npm', ['start', '--ignore-scripts', '--silent'], {
      cwd: ROOT,
      env: cleanEnv({ ...env, PORT: '0' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    npm.stdout.on('data', (d) => (out += d));
    npm.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
    cleanups.push(async () => {
      if (npm.exitCode === null) npm.kill('SIGKILL');
    });
    let origin = '';
    for (let i = 0; i < 1500 && !origin; i++) {
      const m = /listening on (http:\/\/\S+)\n[\s\S]*Try it:.*\n/.exec(err);
      if (m) origin = m[1]!;
      else if (npm.exitCode !== null) throw new Error(`npm start exited (${npm.exitCode}):\n${err}\n${out}`);
      else await new Promise((r) => setTimeout(r, 100));
    }
    expect(origin, err).not.toBe('');
    const port = Number(new URL(origin).port);

    expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    expect((await fetch(`${origin}/api/v1/me`)).status).toBe(401);
    expect((await fetch(`${origin}/no-such-page`)).status).toBe(404);
    await new Promise((r) => setTimeout(r, 300));

    // stderr: the banner, once, and nothing else (no warning of Node's, no stack).
    expect(err.match(/Booking service listening on/g)).toHaveLength(1);
    expect(err).not.toMatch(/Warning|Error|\n\s+at /);
    expect(err.trimStart().startsWith('Booking service listening on')).toBe(true);
    // stdout: JSON lines; the migrations in one short line; one access line per failed answer.
    const lines = out
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { level: number; msg: string; req?: { url: string }; res?: { statusCode: number } });
    const migrations = lines.filter((l) => /^migrations applied/.test(l.msg));
    expect(migrations).toHaveLength(1);
    expect(JSON.stringify(migrations[0]).length).toBeLessThan(400);
    expect(migrations[0]!.msg).toMatch(/^migrations applied: \d+ live, \d+ sandbox, up to \d{14}_\w+$/);
    const access = lines.filter((l) => l.req);
    expect(access.map((l) => [l.req!.url, l.res?.statusCode])).toEqual([
      ['/api/v1/me', 401],
      ['/no-such-page', 404],
    ]);
    expect(lines.filter((l) => /Server listening/.test(l.msg))).toHaveLength(1); // the API's own, not the CLI bridge's
    // No warning: the demo's live company has not begun, so not even the one about SMTP_URL.
    expect(lines.filter((l) => l.level >= 40 && !l.req).map((l) => l.msg)).toEqual([]);

    // SIGTERM to npm, not to node: the server shuts down with it and the port frees.
    npm.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out).toContain('shutting down');
    expect(await portRefuses(port)).toBe(true);
  });
});

describe('a port in use', { timeout: 60_000 }, () => {
  let holder: Server;
  afterAll(() => new Promise<void>((r) => holder.close(() => r())));

  it('says so in one line naming PORT and exits non-zero, without a stack trace', async () => {
    holder = createServer();
    await new Promise<void>((r) => holder.listen({ host: '127.0.0.1', port: 0 }, r));
    const port = (holder.address() as { port: number }).port;
    const started = Date.now();
    const s = startServer({ PORT: String(port), DATA_DIR: dir.path });
    const { code } = await s.exited;
    expect(code).toBe(75);
    expect(s.stderr()).toBe(
      `Port ${port} on 127.0.0.1 is already in use by another program: stop it, or set PORT to a free port (PORT=${port + 1} npm start).\n`,
    );
    expect(s.stdout()).toBe('');
    // Said before the migrations and the demo, not after them.
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
