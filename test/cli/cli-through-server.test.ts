// `npm start` in one terminal and `svc ...` in another on the same embedded DATA_DIR: the
// server holds the directory (one process at a time), so the CLI sends each command to it
// over its loopback bridge with the local credential of DATA_DIR/server.json, and prints what
// a direct run prints. Real processes: the server and the `svc` bin as children.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCliBridge } from '../../src/cli/bridge.js';
import { hashCredential } from '../../src/cli/server-file.js';
import { createTestApp } from '../helpers/app.js';
import { createTestDatabases, embedded } from '../helpers/db.js';
import { unique } from '../helpers/factories.js';
import { runCli, startServer, tempDir, type CliResult, type ServerProcess } from '../helpers/server-process.js';

const ID = expect.stringMatching(/^[0-9a-f]{24}$/);
const SAMPLES = [
  { _id: ID, name: 'Sample Hair Salon' },
  { _id: ID, name: 'Sample Medical Clinic' },
  { _id: ID, name: 'Sample Fitness Center' },
];

function json(res: CliResult) {
  expect(res.stderr, res.stderr).toBe('');
  expect(res.code).toBe(0);
  expect(res.stdout.endsWith('\n')).toBe(true);
  expect(res.stdout.trimEnd().split('\n')).toHaveLength(1);
  return JSON.parse(res.stdout);
}

const me = (origin: string, key: string) =>
  fetch(`${origin}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });

describe('svc while the embedded server runs', { timeout: 600_000 }, () => {
  const dir = tempDir('svc-bridge-');
  const env = { DATA_DIR: dir.path };
  const svc = (...args: string[]) => runCli([...args, '--json'], env);
  const serverFile = join(dir.path, 'server.json');
  const servers: ServerProcess[] = [];
  let origin: string;
  const email = `bridge-${unique()}@example.com`;
  let liveKey: { _id: string; key: string };
  // Failing commands, run through the server now and directly later: the same stderr and exit.
  const failures: Array<{ args: string[]; through?: CliResult }> = [
    { args: ['company', 'create', '--account', 'nobody@example.com', '--name', 'N', '--mode', 'live'] },
    { args: ['company', 'create', '--account', email, '--name', 'N', '--mode', 'staging'] },
    { args: ['account', 'create', '--email', 'x@example.com'] },
    { args: ['key', 'revoke', '--key-id', '0123456789abcdef01234567'] },
  ];

  const start = async () => {
    // A first start migrates two PGlite databases: minutes on a loaded two-core machine.
    const s = startServer({ PORT: '0', ...env }, 300_000);
    servers.push(s);
    origin = await s.ready;
    return s;
  };

  beforeAll(async () => {
    await start();
  }, 400_000);
  afterAll(async () => {
    for (const s of servers) await s.stop('SIGKILL');
    dir.remove();
  });

  it('every command runs in the server and prints its documented object', async () => {
    const [server] = servers as [ServerProcess];
    // The server holds the directory throughout: a command that opened it itself would fail
    // (exit 75, the lock's message) instead of printing its result.
    expect(json(await svc('migrate'))).toEqual({ applied: [] });

    const account = json(await svc('account', 'create', '--email', email, '--password', `pw-${unique()}-${unique()}`));
    expect(account).toEqual({ accountId: ID, testCompanies: SAMPLES });
    const company = json(
      await svc(
        'company',
        'create',
        '--account',
        email,
        '--name',
        'Bridge Cuts',
        '--mode',
        'live',
        '--timezone',
        'Europe/Paris',
        '--currency',
        'EUR',
      ),
    );
    expect(company).toEqual({ _id: ID, name: 'Bridge Cuts', mode: 'live' });

    liveKey = json(await svc('key', 'create', '--company', company._id, '--name', 'ci'));
    expect(liveKey).toEqual({ _id: ID, key: expect.stringMatching(/^svc_sk_live_[0-9A-Za-z]{38}$/), mode: 'live' });
    // The key works against the server at once: the write went to the server's database.
    const res = await me(origin, liveKey.key);
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({
      _id: company._id,
      name: 'Bridge Cuts',
      timezone: 'Europe/Paris',
      currency: 'EUR',
      mode: 'live',
    });

    const testKey = json(await svc('key', 'create', '--company', account.testCompanies[0]._id, '--name', 'ci'));
    expect(testKey).toEqual({ _id: ID, key: expect.stringMatching(/^svc_sk_test_/), mode: 'test' });
    const revoked = json(await svc('key', 'revoke', '--key-id', testKey._id));
    expect(revoked).toEqual({
      _id: testKey._id,
      revokedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    // Revoked in the server's own process: refused at once.
    expect((await me(origin, testKey.key)).status).toBe(401);

    const confidential = json(
      await svc(
        'oauth-client',
        'create',
        '--account',
        email,
        '--name',
        'Acme',
        '--redirect-uri',
        'https://acme.example/cb',
        '--redirect-uri',
        'https://acme.example/cb2',
        '--scopes',
        'company:read bookings:read',
      ),
    );
    expect(confidential).toEqual({
      clientId: expect.stringMatching(/^client_/),
      clientSecret: expect.stringMatching(/^svc_cs_/),
    });
    expect(
      json(
        await svc(
          'oauth-client',
          'create',
          '--account',
          email,
          '--name',
          'Acme Mobile',
          '--redirect-uri',
          'http://127.0.0.1/cb',
          '--public',
        ),
      ),
    ).toEqual({
      clientId: expect.stringMatching(/^client_/),
    });

    expect(json(await svc('sandbox', 'wipe', '--account', email))).toEqual({ deletedCompanies: 3 });
    expect(json(await svc('sandbox', 'restore', '--account', email))).toEqual({ testCompanies: SAMPLES });

    for (const f of failures) {
      f.through = await svc(...f.args);
      expect(f.through.code).toBe(1);
      expect(f.through.stdout).toBe('');
    }
    expect(failures.map((f) => f.through!.stderr)).toEqual([
      'svc company create: NOT_FOUND: No account with e-mail nobody@example.com\n',
      'svc company create: VALIDATION_ERROR: --mode must be live or test\n',
      'svc account create: VALIDATION_ERROR: --password is required\n',
      expect.stringMatching(/^svc key revoke: NOT_FOUND: /),
    ]);

    // The server ran them: one log line each, and no option values (a password) in its logs.
    expect(server.stdout().match(/"msg":"ran a CLI command"/g)).toHaveLength(10);
    expect(server.stdout()).not.toContain('pw-');
  });

  it('svc worker is refused: the server runs the workers', async () => {
    const res = await runCli(['worker'], env);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/^svc worker: the server \(pid \d+\) is running on .+: it runs the workers itself/);
  });

  it("server.json is the owner's alone; the bridge wants its credential, which no log shows", async () => {
    const [server] = servers as [ServerProcess];
    expect(statSync(serverFile).mode & 0o777).toBe(0o600);
    const file = JSON.parse(readFileSync(serverFile, 'utf8'));
    expect(file).toMatchObject({ pid: server.child.pid, url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
    // At least 128 bits.
    expect(Buffer.from(file.credential, 'base64url').length).toBeGreaterThanOrEqual(16);

    const url = `${file.url}/internal/cli/migrate`;
    for (const authorization of [
      undefined,
      `Bearer ${randomBytes(32).toString('base64url')}`,
      `Bearer ${file.credential}x`,
      file.credential,
    ]) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        body: '{}',
      });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({
        status: false,
        error: { code: 'UNAUTHORIZED', message: expect.stringContaining('local credential') },
      });
    }
    const ok = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${file.credential}` },
      body: '{}',
    });
    expect(await ok.json()).toEqual({ status: true, data: { applied: [] } });
    // Not on the public port.
    expect(
      (
        await fetch(`${origin}/internal/cli/migrate`, {
          method: 'POST',
          headers: { authorization: `Bearer ${file.credential}` },
        })
      ).status,
    ).toBe(404);

    expect(server.stdout() + server.stderr()).not.toContain(file.credential);
  });

  // With DATABASE_URL the CLI uses PostgreSQL as before, even beside a running embedded server.
  it.skipIf(embedded())('with DATABASE_URL the CLI opens PostgreSQL itself, whatever DATA_DIR holds', async () => {
    const db = await createTestDatabases();
    try {
      const other = `pg-${unique()}@example.com`;
      const created = json(
        await runCli(['account', 'create', '--email', other, '--password', `pw-${unique()}-${unique()}`, '--json'], {
          ...env,
          DATABASE_URL: db.url,
        }),
      );
      expect(await db.dbs.live.prisma.account.findUnique({ where: { id: created.accountId } })).toMatchObject({
        email: other,
      });
      // Not in the embedded server's database.
      expect((await svc('company', 'create', '--account', other, '--name', 'N', '--mode', 'live')).stderr).toMatch(
        /NOT_FOUND: No account/,
      );
    } finally {
      await db.drop();
    }
  });

  it('the data survives a restart; with the server stopped, the same commands print the same, directly', async () => {
    expect((await servers[0]!.stop('SIGTERM')).code).toBe(0);
    expect(existsSync(serverFile)).toBe(false);

    const again = await start();
    expect((await me(origin, liveKey.key)).status).toBe(200);
    expect((await again.stop('SIGTERM')).code).toBe(0);

    // No server now: each command opens the directory itself.
    expect(json(await svc('migrate'))).toEqual({ applied: [] });
    for (const f of failures) {
      const direct = await svc(...f.args);
      expect({ code: direct.code, stdout: direct.stdout, stderr: direct.stderr }).toEqual({
        code: f.through!.code,
        stdout: f.through!.stdout,
        stderr: f.through!.stderr,
      });
    }
    expect(existsSync(join(dir.path, 'svc.lock'))).toBe(false);
  });
});

describe('the bridge refuses what is not the local CLI', () => {
  let t: Awaited<ReturnType<typeof createTestApp>>;
  const secret = randomBytes(32).toString('base64url');
  let bridge: ReturnType<typeof buildCliBridge>;
  beforeAll(async () => {
    t = await createTestApp();
    bridge = buildCliBridge(t.services, hashCredential(secret));
  });
  afterAll(async () => {
    await bridge?.close();
    await t?.close();
  });
  const post = (url: string, body: unknown, opts: { remoteAddress?: string; credential?: string } = {}) =>
    bridge.inject({
      method: 'POST',
      url,
      remoteAddress: opts.remoteAddress ?? '127.0.0.1',
      headers: { authorization: `Bearer ${opts.credential ?? secret}`, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });

  it('a peer that is not loopback, even with the credential', async () => {
    for (const remoteAddress of ['10.0.0.7', '::ffff:192.0.2.1', '2001:db8::1']) {
      const res = await post('/internal/cli/migrate', {}, { remoteAddress });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({
        status: false,
        error: { code: 'FORBIDDEN', message: 'The CLI bridge answers loopback connections only' },
      });
    }
    for (const remoteAddress of ['127.0.0.1', '::1', '::ffff:127.0.0.1'])
      expect((await post('/internal/cli/migrate', {}, { remoteAddress })).json()).toEqual({
        status: true,
        data: { applied: [] },
      });
  });

  it('commands that do not run in the server, unknown commands and options of the wrong shape', async () => {
    expect((await post('/internal/cli/worker', {})).statusCode).toBe(404);
    expect((await post('/internal/cli/frobnicate', {})).json().error.code).toBe('NOT_FOUND');
    const unknown = await post('/internal/cli/key/create', { company: 'x', name: 'n', colour: 'red' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'colour: unknown option',
      details: [{ path: 'colour', message: 'unknown option' }],
    });
    expect((await post('/internal/cli/key/create', { company: ['x'], name: 'n' })).json().error.details).toEqual([
      { path: 'company', message: 'must be a string' },
    ]);
    expect(
      (await post('/internal/cli/oauth-client/create', { 'redirect-uri': 'https://a.example/cb' })).json().error
        .details,
    ).toEqual([{ path: 'redirect-uri', message: 'must be a list of strings' }]);
    expect((await post('/internal/cli/key/create', ['company'])).statusCode).toBe(400);
    // Nothing was written by any of them.
    expect(await t.dbs.live.prisma.apiKey.count()).toBe(0);
  });
});
