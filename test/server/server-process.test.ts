// The real server as `npm start` runs it (node dist/server.js), in child processes:
// - embedded start (issue 2 point 12): nothing configured, a temp DATA_DIR, a free port; the
//   banner prints the URLs, a demo login, a sandbox key and a curl line that works; a restart
//   on the same DATA_DIR keeps the data and the key;
// - SIGTERM (point 14): stop accepting, finish the request in flight, exit 0.
import { execFile } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, tempDir, type ServerProcess } from '../helpers/server-process.js';

const sh = promisify(execFile);
const dir = tempDir();
const running: ServerProcess[] = [];

afterAll(async () => {
  for (const s of running) await s.stop('SIGKILL');
  dir.remove();
});

function start(): ServerProcess {
  const s = startServer({ PORT: '0', DATA_DIR: dir.path });
  running.push(s);
  return s;
}

interface Banner {
  origin: string;
  email: string;
  password: string;
  key: string;
  curl: string;
}

function readBanner(stderr: string, origin: string): Banner {
  const line = (label: string) => new RegExp(`^\\s*${label}\\s+(.+)$`, 'm').exec(stderr)?.[1]?.trim();
  expect(line('REST API')).toBe(`${origin}/api/v1`);
  expect(line('GraphQL')).toBe(`${origin}/graphql`);
  expect(line('OAuth')).toBe(`${origin}/oauth/authorize`);
  expect(line('Reference')).toBe(`${origin}/docs   (OpenAPI: ${origin}/openapi.json)`);
  expect(line('Health')).toBe(`${origin}/healthz  ${origin}/readyz  ${origin}/metrics`);
  expect(line('Database')).toMatch(/^embedded PGlite in .+; in-process queue and rate limiter$/);
  const login = /^\s*Demo login\s+(\S+@\S+) \/ (\S+)$/m.exec(stderr);
  expect(login, stderr).not.toBeNull();
  const key = /^\s*Sandbox key\s+(svc_sk_test_[0-9A-Za-z]{38})$/m.exec(stderr)?.[1];
  expect(key, stderr).toBeDefined();
  const curl = /^\s*Try it:\s+(curl .+)$/m.exec(stderr)?.[1];
  expect(curl).toBe(`curl -H "Authorization: Bearer ${key}" ${origin}/api/v1/me`);
  return { origin, email: login![1]!, password: login![2]!, key: key!, curl: curl! };
}

/** Runs the banner's curl line in a shell, as a reader would paste it. */
async function runCurl(curl: string) {
  const { stdout } = await sh('sh', ['-c', `${curl} --silent --show-error`]);
  return JSON.parse(stdout);
}

// A first embedded start migrates two fresh PGlite databases: 10-30 s on a loaded two-core
// machine, so the default 30 s test timeout is too tight (a timed-out start would also leave
// its server holding the DATA_DIR for the next test).
describe('embedded start, restart and SIGTERM', { timeout: 180_000 }, () => {
  let first: Banner;

  it('starts with nothing configured and prints a working curl line', async () => {
    const s = start();
    const origin = await s.ready;
    expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    first = readBanner(s.stderr(), origin);
    expect(first.email).toBe('demo@example.com');

    const body = await runCurl(first.curl);
    expect(body).toMatchObject({
      status: true,
      data: { name: 'Sample Hair Salon', mode: 'test' },
      meta: { version: 'v1' },
    });
    // The sample test companies exist with their time zones.
    const res = await fetch(`${origin}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${first.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ me { name timezone mode } }' }),
    });
    expect((await res.json()).data.me).toEqual({
      name: 'Sample Hair Salon',
      timezone: expect.stringMatching(/^[A-Za-z_]+\/[A-Za-z_]+$/),
      mode: 'test',
    });
    // stdout carries only JSON log lines.
    for (const line of s.stdout().split('\n').filter(Boolean)) expect(() => JSON.parse(line), line).not.toThrow();

    const { code } = await s.stop('SIGTERM');
    expect(code).toBe(0);
  });

  it('restarts on the same DATA_DIR with the same data and key; SIGTERM finishes the request in flight', async () => {
    const s = start();
    const origin = await s.ready;
    const again = readBanner(s.stderr(), origin);
    expect(again.key).toBe(first.key);
    expect(again.password).toBe(first.password);
    expect((await runCurl(again.curl)).data.name).toBe('Sample Hair Salon');

    // A PATCH whose body arrives slowly: headers and part of the body now, the rest after
    // SIGTERM.
    const { hostname, port } = new URL(origin);
    const body = JSON.stringify({ name: 'Renamed while shutting down' });
    const socket = connect(Number(port), hostname);
    await new Promise((r) => socket.once('connect', r));
    let raw = '';
    socket.on('data', (d: Buffer) => (raw += d.toString()));
    const closed = new Promise((r) => socket.once('close', r));
    socket.write(
      `PATCH /api/v1/me HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${again.key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise((r) => setTimeout(r, 200));
    s.child.kill('SIGTERM');

    // New connections are refused once the listener closes, while the request is still open.
    let refused = false;
    for (let i = 0; i < 100 && !refused; i++) {
      refused = await new Promise<boolean>((resolve) => {
        const probe: Socket = connect(Number(port), hostname);
        probe.once('connect', () => {
          probe.destroy();
          resolve(false);
        });
        probe.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'));
      });
      if (!refused) await new Promise((r) => setTimeout(r, 50));
    }
    expect(refused).toBe(true);
    expect(s.child.exitCode).toBeNull();
    expect(raw).toBe('');

    // The rest of the body: the request completes normally.
    socket.end(body.slice(10));
    await closed;
    const [head, payload] = raw.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(JSON.parse(payload!)).toMatchObject({ status: true, data: { name: 'Renamed while shutting down' } });

    const { code, signal } = await s.exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(s.stdout()).toContain('shutting down');
  });

  it('the change made during shutdown was kept', async () => {
    const s = start();
    const origin = await s.ready;
    const banner = readBanner(s.stderr(), origin);
    expect((await runCurl(banner.curl)).data.name).toBe('Renamed while shutting down');
    expect((await s.stop('SIGTERM')).code).toBe(0);
  });
});
