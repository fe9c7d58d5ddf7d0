// The `svc` CLI (docs/cli.md) as a child process against this file's own PostgreSQL database:
// with --json, stdout is exactly one JSON object of the tabled shape; errors go to stderr with
// a non-zero exit; a key revoked by the CLI is refused over HTTP.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMigrations } from '../../src/db/migrate.js';
import { withDatabase } from '../global-setup.js';
import { createTestApp } from '../helpers/app.js';
import { embedded } from '../helpers/db.js';
import { bearer, unique } from '../helpers/factories.js';
import { runCli, type CliResult } from '../helpers/server-process.js';

const ID = /^[0-9a-f]{24}$/;

function json(res: CliResult) {
  expect(res.stderr, res.stderr).toBe('');
  expect(res.code).toBe(0);
  // One line, one object, nothing else.
  expect(res.stdout.endsWith('\n')).toBe(true);
  expect(res.stdout.trimEnd().split('\n')).toHaveLength(1);
  const value = JSON.parse(res.stdout);
  expect(value).toBeTypeOf('object');
  expect(Array.isArray(value)).toBe(false);
  return value;
}

// The CLI is a second process on the same database: embedded PGlite is one process's
// directory, so this runs on PostgreSQL only.
describe.skipIf(embedded())('svc --json', () => {
  let t: Awaited<ReturnType<typeof createTestApp>>;
  let env: Record<string, string | undefined>;
  beforeAll(async () => {
    t = await createTestApp();
    env = { DATABASE_URL: t.db.url, REDIS_URL: t.config.REDIS_URL, REDIS_PREFIX: t.config.REDIS_PREFIX };
  });
  afterAll(async () => {
    await t?.close();
  });

  it('migrate, account create, company create, key create, key revoke', async () => {
    // The cloned database is already migrated.
    expect(json(await runCli(['migrate', '--json'], env))).toEqual({ applied: [] });

    const email = `cli-${unique()}@example.com`;
    const account = json(
      await runCli(['account', 'create', '--email', email, '--password', `pw-${unique()}-${unique()}`, '--json'], env),
    );
    expect(account).toEqual({
      accountId: expect.stringMatching(ID),
      testCompanies: [
        { _id: expect.stringMatching(ID), name: 'Sample Hair Salon' },
        { _id: expect.stringMatching(ID), name: 'Sample Medical Clinic' },
        { _id: expect.stringMatching(ID), name: 'Sample Fitness Center' },
      ],
    });

    const company = json(
      await runCli(
        [
          'company',
          'create',
          '--account',
          email,
          '--name',
          'CLI Cuts',
          '--mode',
          'live',
          '--timezone',
          'America/New_York',
          '--currency',
          'USD',
          '--json',
        ],
        env,
      ),
    );
    expect(company).toEqual({ _id: expect.stringMatching(ID), name: 'CLI Cuts', mode: 'live' });

    const key = json(await runCli(['key', 'create', '--company', company._id, '--name', 'ci', '--json'], env));
    expect(key).toEqual({
      _id: expect.stringMatching(ID),
      key: expect.stringMatching(/^svc_sk_live_[0-9A-Za-z]{38}$/),
      mode: 'live',
    });
    const testKey = json(
      await runCli(['key', 'create', '--company', account.testCompanies[0]._id, '--name', 'ci', '--json'], env),
    );
    expect(testKey.mode).toBe('test');
    expect(testKey.key).toMatch(/^svc_sk_test_/);

    // The key works over HTTP (and warms this instance's cache)...
    const before = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(key.key) });
    expect(before.json().data).toMatchObject({
      _id: company._id,
      name: 'CLI Cuts',
      timezone: 'America/New_York',
      currency: 'USD',
    });

    const revoked = json(await runCli(['key', 'revoke', '--key-id', key._id, '--json'], env));
    expect(revoked).toEqual({
      _id: key._id,
      revokedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });

    // ...and is refused once revoked by the other process (pub/sub with Redis; without Redis
    // the running instance's cache TTL is the only path, so the DB row is checked instead).
    if (t.config.REDIS_URL) {
      const after = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(key.key) });
      expect(after.statusCode).toBe(401);
    }
    const row = await t.dbs.live.prisma.apiKey.findUniqueOrThrow({ where: { id: key._id } });
    expect(row.revokedAt?.toISOString()).toBe(revoked.revokedAt);
    // Five `svc` processes one after another: each starts Node and opens the databases.
  }, 90_000);

  it('migrate on an empty database applies every migration to both databases, then nothing', async () => {
    const name = `svc_t_empty_${unique()}`;
    const base = process.env.DATABASE_URL!;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const url = withDatabase(base, name);
    try {
      const names = (await readMigrations()).map((m) => m.name);
      expect(names.length).toBeGreaterThan(0);
      const first = json(await runCli(['migrate', '--json'], { DATABASE_URL: url }));
      expect(first).toEqual({ applied: names });
      // Recorded as `prisma migrate deploy` records them, in the live and the sandbox schema,
      // and the tables are there.
      const db = new pg.Client({ connectionString: url });
      await db.connect();
      try {
        for (const schema of ['public', 'sandbox']) {
          const rows = await db.query(
            `SELECT migration_name FROM "${schema}"."_prisma_migrations" WHERE finished_at IS NOT NULL ORDER BY migration_name`,
          );
          expect(rows.rows.map((r) => r.migration_name)).toEqual(names);
          const tables = await db.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1`, [
            schema,
          ]);
          expect(tables.rows.map((r) => r.table_name)).toEqual(
            expect.arrayContaining(['companies', 'api_keys', 'bookings', 'idempotency_records']),
          );
        }
      } finally {
        await db.end();
      }
      expect(json(await runCli(['migrate', '--json'], { DATABASE_URL: url }))).toEqual({ applied: [] });
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });

  const failures: Array<[string, string[], RegExp]> = [
    ['an unknown command', ['frobnicate', '--json'], /unknown command 'frobnicate'/],
    ['an unknown option', ['key', 'create', '--company', 'x', '--name', 'n', '--colour', 'red', '--json'], /--colour/],
    [
      'a missing required option',
      ['account', 'create', '--email', 'a@example.com', '--json'],
      /--password is required/,
    ],
    [
      'a bad mode',
      ['company', 'create', '--account', 'nobody@example.com', '--name', 'N', '--mode', 'staging', '--json'],
      /NOT_FOUND|--mode/,
    ],
    [
      'an unknown account',
      ['company', 'create', '--account', 'nobody@example.com', '--name', 'N', '--mode', 'live', '--json'],
      /NOT_FOUND: No account/,
    ],
    [
      'an unknown company',
      ['key', 'create', '--company', '0123456789abcdef01234567', '--name', 'n', '--json'],
      /NOT_FOUND/,
    ],
    [
      'a malformed company id',
      ['key', 'create', '--company', "'; DROP TABLE api_keys; --", '--name', 'n', '--json'],
      /NOT_FOUND|VALIDATION_ERROR/,
    ],
    ['an unknown key id', ['key', 'revoke', '--key-id', '0123456789abcdef01234567', '--json'], /NOT_FOUND/],
    [
      'a bad e-mail',
      ['account', 'create', '--email', 'not-an-email', '--password', 'long-enough-password', '--json'],
      /VALIDATION_ERROR/,
    ],
  ];
  for (const [name, args, message] of failures) {
    it(`${name}: stderr and a non-zero exit, nothing on stdout`, async () => {
      const res = await runCli(args, env);
      expect(res.code).not.toBe(0);
      expect(res.stdout).toBe('');
      expect(res.stderr).toMatch(message);
      expect(res.stderr).not.toMatch(/\n\s+at /);
    });
  }
});
